package views

import (
	"strings"

	"github.com/charmbracelet/bubbles/key"
)

// HelpOf returns one entry of the help overlay for several bindings that
// share it ("n/esc  cancel", "↑/↓  move"): their keys, the help keys of
// the enabled ones joined by "/", and desc. It is disabled (the overlay
// leaves it out) when none is enabled. The screen matches the bindings
// themselves; the entry is for Bindings only.
func HelpOf(desc string, bs ...key.Binding) key.Binding {
	var keys, helps []string
	for _, b := range bs {
		keys = append(keys, b.Keys()...)
		if h := b.Help().Key; h != "" && b.Enabled() {
			helps = append(helps, h)
		}
	}
	out := key.NewBinding(key.WithKeys(keys...), key.WithHelp(strings.Join(helps, "/"), desc))
	if len(helps) == 0 {
		out.SetEnabled(false)
	}
	return out
}

// Hint is one part of a screen's help line: the first key of each
// enabled binding of bs as the help overlay writes it, joined by "/",
// then what they do ("y confirm", "n/esc cancel"); "" when none is bound,
// so that a help line never names a key the person unbound.
func Hint(does string, bs ...key.Binding) string {
	ks := HintKeys(bs...)
	if ks == "" {
		return ""
	}
	return ks + " " + does
}

// HintKeys is the first key of each enabled binding of bs as the help
// overlay writes it, joined by "/" ("←/→"); "" when none is bound.
func HintKeys(bs ...key.Binding) string {
	var ks []string
	for _, b := range bs {
		if k := FirstKey(b); k != "" {
			ks = append(ks, k)
		}
	}
	return strings.Join(ks, "/")
}

// Hints joins the parts of a help line that are not "" with " · ".
func Hints(parts ...string) string { return JoinHints(" · ", parts...) }

// JoinHints joins the parts of a help line that are not "" (an unbound
// key's Hint) with sep: Hints' " · ", or the pickers' two spaces.
func JoinHints(sep string, parts ...string) string {
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, sep)
}

// FirstKey is b's first key as the help overlay writes it, "" when b is
// unbound or disabled.
func FirstKey(b key.Binding) string {
	if !b.Enabled() || len(b.Keys()) == 0 {
		return ""
	}
	return KeyHelp(b.Keys()[:1])
}

// YesNo is the keys a question offers, in force ("y/n"): yes's first key,
// then that of the first of no that is bound; one unbound is left out
// ("y", "n"), "" when neither is.
func YesNo(yes key.Binding, no ...key.Binding) string {
	parts := []string{}
	if y := FirstKey(yes); y != "" {
		parts = append(parts, y)
	}
	for _, b := range no {
		if n := FirstKey(b); n != "" {
			parts = append(parts, n)
			break
		}
	}
	return strings.Join(parts, "/")
}

// HintAll is a help line's part that names every key of b, as its help
// key writes them ("y/enter apply"); "" when b is unbound.
func HintAll(does string, b key.Binding) string {
	if FirstKey(b) == "" || b.Help().Key == "" {
		return ""
	}
	return b.Help().Key + " " + does
}
