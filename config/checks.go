package config

// The checks of what the decoded file means (a pattern path.Match
// rejects, a fleet naming no context, an alias with no kind, ...). Each
// returns every fault it finds, made by errorAt so that each names its
// line; a new section's check returns its faults the same way and is
// added to check.

import (
	"errors"
	"maps"
	"path"
	"regexp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/kyyard/kyyard/assets"
)

// check runs every check on the decoded file and returns the faults.
func (f *File) check() []error {
	return slices.Concat(f.checkReadonlyContexts(), f.checkFleets(), f.checkThemes(),
		f.checkAliases(), f.checkHotkeys(), f.checkContexts(), f.checkKeys())
}

// checkReadonlyContexts refuses an empty pattern and one path.Match
// rejects.
func (f *File) checkReadonlyContexts() []error {
	var errs []error
	for i, p := range f.ReadonlyContexts {
		at := []any{"readonlyContexts", i}
		if p == "" {
			errs = append(errs, f.doc.errorAt(at, `the pattern is empty; write a context name or a pattern such as "prod*"`))
		} else if _, err := path.Match(p, ""); err != nil {
			errs = append(errs, f.doc.errorAt(at, `%q is not a valid pattern (path.Match: *, ?, [a-z], \ escapes): %v`, p, err))
		}
	}
	return errs
}

// checkFleets refuses a fleet without a name or without members, and an
// empty member or one path.Match rejects.
func (f *File) checkFleets() []error {
	var errs []error
	for fleet, members := range f.Fleets {
		at := []any{"fleets", fleet}
		if fleet == "" {
			errs = append(errs, f.doc.errorAt(at, "the fleet's name is empty; give it one (--fleet NAME reads it)"))
			continue
		}
		if len(members) == 0 {
			errs = append(errs, f.doc.errorAt(at, `names no context; list context names or patterns, such as [prod-eu, "prod-*"]`))
		}
		for i, p := range members {
			at := []any{"fleets", fleet, i}
			if p == "" {
				errs = append(errs, f.doc.errorAt(at, `the member is empty; write a context name or a pattern such as "prod-*"`))
			} else if _, err := path.Match(p, ""); err != nil {
				errs = append(errs, f.doc.errorAt(at, `%q is not a valid pattern (path.Match: *, ?, [a-z], \ escapes): %v`, p, err))
			}
		}
	}
	return errs
}

// checkThemes refuses a theme named like a built-in choice, a colour
// that is none (at the colour's own line), and a theme: that names no
// theme there is.
func (f *File) checkThemes() []error {
	var errs []error
	for theme, t := range f.Themes {
		if slices.Contains(assets.Builtin(), theme) || theme == "auto" || theme == assets.NoColorTheme().Name || theme == "" {
			errs = append(errs, f.doc.errorAt([]any{"themes", theme}, "%q is a built-in choice; give your theme another name", theme))
		}
		var bad *assets.ColourError
		if err := t.Validate(); errors.As(err, &bad) {
			at := []any{"themes", theme, bad.Field}
			if bad.Index >= 0 {
				at = append(at, bad.Index)
			}
			errs = append(errs, f.doc.errorAt(at, "%q is not a colour: %s", bad.Colour, bad.Want))
		} else if err != nil {
			errs = append(errs, f.doc.errorAt([]any{"themes", theme}, "%v", err))
		}
	}
	if _, ok := f.Themes[f.Theme]; !ok && f.Theme != "" && f.Theme != "auto" && !slices.Contains(assets.Builtin(), f.Theme) {
		mine := ""
		if len(f.Themes) > 0 {
			mine = " (" + strings.Join(slices.Sorted(maps.Keys(f.Themes)), ", ") + ")"
		}
		errs = append(errs, f.doc.errorAt([]any{"theme"}, "%q is neither auto, %s nor one of themes%s", f.Theme, strings.Join(assets.Builtin(), ", "), mine))
	}
	return errs
}

// checkAliases refuses an alias that is not a word to type after `:`,
// one that names no kind, and a malformed namespace.
func (f *File) checkAliases() []error {
	var errs []error
	for word, a := range f.Aliases {
		at := []any{"aliases", word}
		if word == "" || strings.ContainsAny(word, " \t:") {
			errs = append(errs, f.doc.errorAt(at, "%q is not a word to type after `:`; write one without spaces, tabs or colons", word))
		}
		if a.Kind == "" {
			errs = append(errs, f.doc.errorAt(at, "names no kind; add one, such as kind: pods"))
		}
		if a.Namespace != "" && a.Namespace != "all" {
			if err := checkNamespaces(a.Namespace); err != nil {
				errs = append(errs, f.doc.errorAt([]any{"aliases", word, "namespace"}, "%q is not all, a namespace name or several joined by commas: %v", a.Namespace, err))
			}
		}
	}
	return errs
}

// checkHotkeys refuses a hotkey that names no alias, and one on a key
// kyyard cannot bind.
func (f *File) checkHotkeys() []error {
	var errs []error
	for k, word := range f.Hotkeys {
		at := []any{"hotkeys", k}
		if _, ok := f.Aliases[word]; !ok {
			have := "there are none"
			if len(f.Aliases) > 0 {
				have = strings.Join(slices.Sorted(maps.Keys(f.Aliases)), ", ")
			}
			errs = append(errs, f.doc.errorAt(at, "%q is not one of aliases (%s)", word, have))
		}
		if !hotkeySyntax.MatchString(k) {
			errs = append(errs, f.doc.errorAt(at, "%q is not a key kyyard can bind: f1-f12, ctrl+<letter> or alt+<letter or digit>", k))
		}
	}
	return errs
}

// hotkeySyntax is the keys a hotkey may be (Bubble Tea's key names).
var hotkeySyntax = regexp.MustCompile(`^(f([1-9]|1[0-2])|ctrl\+[a-z]|alt\+[a-z0-9])$`)

// checkContexts refuses a context entry without a name, a shell that
// names no program, a metricsInterval written but not positive, and a
// malformed favourite namespace.
func (f *File) checkContexts() []error {
	var errs []error
	intervals := f.doc.keysWriting([]any{"contexts"}, "metricsInterval")
	for ctx, m := range f.Contexts {
		if ctx == "" {
			errs = append(errs, f.doc.errorAt([]any{"contexts", ctx}, "the context's name is empty; write a kubeconfig context's name"))
			continue
		}
		if m.Shell != "" && strings.TrimSpace(m.Shell) == "" {
			errs = append(errs, f.doc.errorAt([]any{"contexts", ctx, "shell"}, `names no program; write one such as "zsh -l", or leave shell out`))
		}
		// A metricsInterval written as 0s reads as the zero Duration, as
		// a missing one does: the document tells them apart.
		at := []any{"contexts", ctx, "metricsInterval"}
		if m.MetricsInterval.Duration < 0 || m.MetricsInterval.Duration == 0 && intervals[ctx] {
			errs = append(errs, f.doc.errorAt(at, "%s must be positive (as --metrics-interval; leave it out for the default)", m.MetricsInterval))
		}
		for i, ns := range m.Namespaces {
			if err := checkNamespaces(ns); err != nil {
				errs = append(errs, f.doc.errorAt([]any{"contexts", ctx, "namespaces", i}, "%q is not a namespace name or several joined by commas: %v", ns, err))
			}
		}
	}
	return errs
}

// checkNamespaces checks a namespace or several joined by commas, as
// views.ParseNamespaces takes them (-n shop,web): each a DNS-1123 label
// (the API server's rule for a Namespace's name), none empty.
func checkNamespaces(list string) error {
	for _, n := range strings.Split(list, ",") {
		if n == "" && strings.Contains(list, ",") {
			return errors.New("a namespace name is missing between the commas")
		}
		if errs := validation.IsDNS1123Label(n); len(errs) > 0 {
			return errors.New(errs[0])
		}
	}
	return nil
}
