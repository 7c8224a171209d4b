// Package config reads kyyard's configuration file,
// $XDG_CONFIG_HOME/kyyard/config.yaml (else ~/.config/kyyard/config.yaml):
// which kubeconfig contexts start read-only or strict (design: "Guards, and
// two policies"). For example:
//
//	readonlyContexts: ["prod*", "*-live"]   # path.Match patterns of context names
//	contexts:
//	  kyyard-local: {strict: true}
//	  prod-eu: {readonly: true, strict: true}
//	  kind-dev: {shell: "zsh -l"}   # the shell `s` tries first
//	  big-prod: {metricsInterval: 60s}   # how often metrics are read
//	  shop-prod: {namespaces: [shop, "shop,payments"]}   # keys 1, 2 on its screens
//	fleets:                                 # named sets of contexts (--fleet prod)
//	  prod: [prod-eu, prod-us, "prod-ap-*"] # names and path.Match patterns
//	theme: mine                             # auto (the default), dark, light or one of themes
//	themes:
//	  mine: {accent: "33", selectedBackground: "#005f87"}  # the others: the terminal's own
//	keys:                                   # :keys lists the tables and actions
//	  table: {delete: "ctrl+x d", describe: [d, enter]}   # a chord: ctrl+x, then d
//	  global: {quit: ctrl+q}                # q no longer quits; none unbinds
//
// A setting only ever turns a guard on: a context is read-only when the
// --readonly flag says so, or its entry says readonly: true, or its name
// matches a readonlyContexts pattern; strict when --strict or its entry
// says strict: true.
package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/assets"
)

// File is the configuration file's content. The zero value (no file)
// turns nothing on.
type File struct {
	// Path is the file read ("" when none was found), for messages.
	Path string `json:"-"`
	// ReadonlyContexts are glob patterns (path.Match syntax: *, ?, [a-z])
	// of kubeconfig context names that start read-only.
	ReadonlyContexts []string `json:"readonlyContexts,omitempty"`
	// Contexts are settings of single contexts, by exact context name.
	Contexts map[string]Mode `json:"contexts,omitempty"`
	// Fleets are named sets of contexts read together (--fleet NAME):
	// each member a context name or a path.Match pattern of names, as
	// --contexts takes them (kube.SelectContexts). Each context keeps its
	// own settings above in a fleet.
	Fleets map[string][]string `json:"fleets,omitempty"`
	// Theme names the colour theme (--theme wins): "auto" (or left out:
	// dark or light after the terminal's background, when it answers),
	// "dark", "light", or one of Themes. NO_COLOR wins over both.
	Theme string `json:"theme,omitempty"`
	// Themes are themes of your own, by name: every colour kyyard draws
	// with (assets.Theme's fields, "headerKey", "selectedBackground", ...),
	// each an ANSI 256 index or #rrggbb; one left out is the terminal's
	// own colour.
	Themes map[string]assets.Theme `json:"themes,omitempty"`
	// Mouse turns the mouse on, as --mouse (clicks and the wheel; off,
	// the terminal's text selection works as ever).
	Mouse bool `json:"mouse,omitempty"`
	// Aliases are words of your own for the `:` prompt (issue 27): `:web`
	// opens the alias's kind in its namespace with its filter.
	Aliases map[string]Alias `json:"aliases,omitempty"`
	// Hotkeys open an alias with one key on the tables: a key name as
	// kyyard's help writes keys ("f1", "ctrl+w", "alt+w") → an alias of
	// Aliases. A key kyyard itself binds there is refused at start.
	Hotkeys map[string]string `json:"hotkeys,omitempty"`
	// Keys rebind kyyard's keys: a key table (a screen's, or "global") →
	// an action → its keys (KeyList; none unbinds). `:keys` lists the
	// tables and actions; ui.CheckKeyMap checks them at start.
	Keys map[string]map[string]KeyList `json:"keys,omitempty"`
}

// Alias is what an alias opens.
type Alias struct {
	// Kind is a kind's name or alias, as `:` takes it ("pods", "deploy").
	Kind string `json:"kind"`
	// Namespace is a namespace, several joined by commas, or "all"; left
	// out, the namespace in use.
	Namespace string `json:"namespace,omitempty"`
	// Filter is set as if typed after `/` ("web", "!Running", "-l app=web").
	Filter string `json:"filter,omitempty"`
}

// Mode is the guard policy of one context: both false is interactive
// with writes allowed.
type Mode struct {
	// ReadOnly refuses every write before any request (as --readonly).
	ReadOnly bool `json:"readonly,omitempty"`
	// Strict refuses every write a guard warns about (as --strict).
	Strict bool `json:"strict,omitempty"`
	// Shell is the command of the shell a shell (`s`) in this context
	// tries first, before bash and sh, its words split at spaces
	// (kube.Options.Shell); "" is none.
	Shell string `json:"shell,omitempty"`
	// MetricsInterval is how often the metrics API (metrics-server) is
	// read in this context (kube.Options.MetricsInterval, as
	// --metrics-interval); left out, kube's default. Parse refuses a
	// written value that is not positive ("0s", "-5s"), as the flag does.
	MetricsInterval Duration `json:"metricsInterval,omitempty"`
	// Namespaces are the context's favourite namespaces, pinned to the
	// keys 1, 2, … of its inventory screens before the ones used most
	// recently (issue 27): each a namespace name, or several joined by
	// commas ("shop,web"). Parse refuses an empty or malformed name.
	Namespaces []string `json:"namespaces,omitempty"`
}

// Duration is a time.Duration written as Go writes it ("15s", "1m30s") in
// the file.
type Duration struct{ time.Duration }

// UnmarshalJSON reads a duration string ("30s"); errors name what is wrong.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("a duration is a string such as \"30s\", not %s", b)
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration (such as \"30s\" or \"1m\")", s)
	}
	d.Duration = v
	return nil
}

// MarshalJSON writes the duration as a string ("30s").
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// Or returns the mode with every setting that either m or o turns on, and
// m's shell, metrics interval and favourite namespaces, else o's.
func (m Mode) Or(o Mode) Mode {
	shell := m.Shell
	if shell == "" {
		shell = o.Shell
	}
	interval := m.MetricsInterval
	if interval.Duration == 0 {
		interval = o.MetricsInterval
	}
	namespaces := m.Namespaces
	if len(namespaces) == 0 {
		namespaces = o.Namespaces
	}
	return Mode{ReadOnly: m.ReadOnly || o.ReadOnly, Strict: m.Strict || o.Strict, Shell: shell, MetricsInterval: interval, Namespaces: namespaces}
}

// Dir is kyyard's folder of per-user files: $XDG_CONFIG_HOME/kyyard, else
// ~/.config/kyyard (the XDG base directory rule). Errors: neither can be
// found.
func Dir() (string, error) {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no folder for kyyard's files: %w", err)
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "kyyard"), nil
}

// DefaultPath is the configuration file, config.yaml in Dir. Errors:
// Dir's.
func DefaultPath() (string, error) {
	dir, err := Dir()
	return filepath.Join(dir, "config.yaml"), err
}

// HistoryPath is the file the session's outcomes are appended to,
// history.log in Dir. Errors: Dir's.
func HistoryPath() (string, error) {
	dir, err := Dir()
	return filepath.Join(dir, "history.log"), err
}

// Load reads and checks the file at path. A missing file is no error: it
// returns the zero File. Errors name the file and say what is wrong (the
// YAML parser's line when it gives one, an unknown field, a value of the
// wrong type, a bad pattern); the file cannot be read.
func Load(path string) (*File, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &File{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("configuration file %s: %w", path, err)
	}
	return Parse(path, data)
}

// Parse reads and checks a configuration file's content; name is the file
// the errors name. Unknown fields are errors (a misspelt "readonly" must
// not silently leave a context writable), as are values of the wrong type
// and patterns path.Match rejects.
func Parse(name string, data []byte) (*File, error) {
	f := File{Path: name}
	if err := yaml.UnmarshalStrict(data, &f); err != nil {
		return nil, fmt.Errorf("configuration file %s: %s", name, cleanYAMLError(err))
	}
	for i, p := range f.ReadonlyContexts {
		if p == "" {
			return nil, fmt.Errorf("configuration file %s: readonlyContexts[%d] is empty", name, i)
		}
		if _, err := path.Match(p, ""); err != nil {
			return nil, fmt.Errorf("configuration file %s: readonlyContexts[%d] %q is not a valid pattern (path.Match: *, ?, [a-z], \\ escapes): %v", name, i, p, err)
		}
	}
	for fleet, members := range f.Fleets {
		if fleet == "" {
			return nil, fmt.Errorf("configuration file %s: fleets has an entry with an empty name", name)
		}
		if len(members) == 0 {
			return nil, fmt.Errorf("configuration file %s: fleets.%s names no context", name, fleet)
		}
		for i, p := range members {
			if p == "" {
				return nil, fmt.Errorf("configuration file %s: fleets.%s[%d] is empty", name, fleet, i)
			}
			if _, err := path.Match(p, ""); err != nil {
				return nil, fmt.Errorf("configuration file %s: fleets.%s[%d] %q is not a valid pattern (path.Match: *, ?, [a-z], \\ escapes): %v", name, fleet, i, p, err)
			}
		}
	}
	for theme, t := range f.Themes {
		if slices.Contains(assets.Builtin(), theme) || theme == "auto" || theme == assets.NoColorTheme().Name || theme == "" {
			return nil, fmt.Errorf("configuration file %s: themes.%s: %q is a built-in choice; give your theme another name", name, theme, theme)
		}
		if err := t.Validate(); err != nil {
			return nil, fmt.Errorf("configuration file %s: themes.%s: %v", name, theme, err)
		}
	}
	if _, ok := f.Themes[f.Theme]; !ok && f.Theme != "" && f.Theme != "auto" && !slices.Contains(assets.Builtin(), f.Theme) {
		return nil, fmt.Errorf("configuration file %s: theme %q is neither auto, %s nor one of themes", name, f.Theme, strings.Join(assets.Builtin(), ", "))
	}
	for word, a := range f.Aliases {
		if word == "" || strings.ContainsAny(word, " \t:") {
			return nil, fmt.Errorf("configuration file %s: aliases: %q is not a word to type after `:`", name, word)
		}
		if a.Kind == "" {
			return nil, fmt.Errorf("configuration file %s: aliases.%s names no kind", name, word)
		}
		if a.Namespace != "" && a.Namespace != "all" {
			if err := checkNamespaces(a.Namespace); err != nil {
				return nil, fmt.Errorf("configuration file %s: aliases.%s.namespace %q is not all, a namespace name or several joined by commas: %v", name, word, a.Namespace, err)
			}
		}
	}
	for k, word := range f.Hotkeys {
		if _, ok := f.Aliases[word]; !ok {
			return nil, fmt.Errorf("configuration file %s: hotkeys.%s: %q is not one of aliases", name, k, word)
		}
		if !hotkeySyntax.MatchString(k) {
			return nil, fmt.Errorf("configuration file %s: hotkeys: %q is not a key kyyard can bind: f1-f12, ctrl+<letter> or alt+<letter or digit>", name, k)
		}
	}
	if err := checkKeys(name, f.Keys); err != nil {
		return nil, err
	}
	// A metricsInterval written as 0s reads as the zero Duration, as a
	// missing one does: which entries write one at all is read apart.
	intervalSet, err := metricsIntervalsSet(data)
	if err != nil {
		return nil, fmt.Errorf("configuration file %s: %s", name, cleanYAMLError(err))
	}
	for ctx, m := range f.Contexts {
		if ctx == "" {
			return nil, fmt.Errorf("configuration file %s: contexts has an entry with an empty name", name)
		}
		if m.Shell != "" && strings.TrimSpace(m.Shell) == "" {
			return nil, fmt.Errorf("configuration file %s: contexts.%s.shell names no program", name, ctx)
		}
		if m.MetricsInterval.Duration < 0 || m.MetricsInterval.Duration == 0 && intervalSet[ctx] {
			return nil, fmt.Errorf("configuration file %s: contexts.%s.metricsInterval %s must be positive (as --metrics-interval; leave it out for the default)", name, ctx, m.MetricsInterval)
		}
		for i, ns := range m.Namespaces {
			if err := checkNamespaces(ns); err != nil {
				return nil, fmt.Errorf("configuration file %s: contexts.%s.namespaces[%d] %q is not a namespace name or several joined by commas: %v", name, ctx, i, ns, err)
			}
		}
	}
	return &f, nil
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

// hotkeySyntax is the keys a hotkey may be (Bubble Tea's key names).
var hotkeySyntax = regexp.MustCompile(`^(f([1-9]|1[0-2])|ctrl\+[a-z]|alt\+[a-z0-9])$`)

// metricsIntervalsSet names the contexts whose entry writes a
// metricsInterval key (whatever its value).
func metricsIntervalsSet(data []byte) (map[string]bool, error) {
	var raw struct {
		Contexts map[string]map[string]json.RawMessage `json:"contexts"`
	}
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for ctx, m := range raw.Contexts {
		if _, ok := m["metricsInterval"]; ok {
			set[ctx] = true
		}
	}
	return set, nil
}

// cleanYAMLError drops sigs.k8s.io/yaml's wrapping ("error converting
// YAML to JSON: ", "error unmarshaling JSON: while decoding JSON: "),
// which says how it parses, not what is wrong.
func cleanYAMLError(err error) string {
	s := err.Error()
	for _, p := range []string{"error converting YAML to JSON: ", "error unmarshaling JSON: ", "while decoding JSON: ", "json: "} {
		s = strings.TrimPrefix(s, p)
	}
	return s
}

// For returns the mode the file gives context name: its entry's settings,
// and read-only when the name matches a readonlyContexts pattern. A nil
// File gives the zero Mode.
func (f *File) For(name string) Mode {
	if f == nil {
		return Mode{}
	}
	m := f.Contexts[name]
	for _, p := range f.ReadonlyContexts {
		if ok, _ := path.Match(p, name); ok {
			m.ReadOnly = true
		}
	}
	return m
}
