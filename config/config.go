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
//
// A setting only ever turns a guard on: a context is read-only when the
// --readonly flag says so, or its entry says readonly: true, or its name
// matches a readonlyContexts pattern; strict when --strict or its entry
// says strict: true.
//
// Parse refuses a file with any fault, naming each one's line:
//
//	configuration file /x/config.yaml, line 7: themes.mine.accent: "blue" is not a colour: an ANSI 256 index (0-255) or #rrggbb
//
// The file is parsed into YAML nodes, which keep their lines (lines.go:
// document, lineOf, errorAt); decode.go reads the nodes into File's
// structs by their json tags, refusing an unknown field, a value of the
// wrong type and a key written twice; checks.go then checks what the file
// means. A check of a new section reports its faults through errorAt.
package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

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

	// doc is the file as Parse read it, where faults find their line (nil
	// for a File built otherwise).
	doc *document
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

// UnmarshalText reads a duration as Go writes it ("30s"); the error says
// what is wrong.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%q is not a duration (such as \"30s\" or \"1m\")", b)
	}
	d.Duration = v
	return nil
}

// MarshalText writes the duration as Go writes it ("30s").
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

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
// returns the zero File. Errors: Parse's, naming the file and the line
// of every fault; the file cannot be read.
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
// not silently leave a context writable), as are values of the wrong
// type, keys written twice, and what the checks refuse (a pattern
// path.Match rejects, a fleet naming no context, a colour that is none,
// ...). The error names every fault, each on a line of its own in the
// order of the file, as "configuration file NAME, line N: PATH: what is
// wrong" (malformed YAML: the parser's first complaint); the checks of
// meaning run once the file's shape is right.
func Parse(name string, data []byte) (*File, error) {
	doc, err := parseDocument(name, data)
	if err != nil {
		return nil, err
	}
	f := File{Path: name, doc: doc}
	if errs := doc.decode(&f); len(errs) > 0 {
		return nil, joinFaults(errs)
	}
	if errs := f.check(); len(errs) > 0 {
		return nil, joinFaults(errs)
	}
	return &f, nil
}

// ErrorAt returns an error about the entry at path in the file Parse read,
// as Parse's own errors are: "configuration file NAME, line N: PATH:
// MESSAGE", the message formatted from format and args. path holds
// mapping keys (string) and list indexes (int), outermost first:
// []any{"hotkeys", "ctrl+r"}, []any{"fleets", "prod", 2}. For a File not
// read by Parse (built in code), the error names the Path alone.
func (f *File) ErrorAt(path []any, format string, args ...any) error {
	d := f.doc
	if d == nil {
		d = &document{name: f.Path}
	}
	return d.errorAt(path, format, args...)
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
