package config

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// base is a whole configuration file, 18 lines, that Parse accepts;
// TestEveryFaultNamesItsLine breaks one line of it at a time.
const base = `# kyyard's configuration
mouse: true
readonlyContexts: ["prod*", "*-live"]
contexts:
  kyyard-local: {strict: true}
  prod-eu:
    readonly: true
    metricsInterval: 60s
fleets:
  prod: [prod-eu, "prod-ap-*"]
aliases:
  web: {kind: pods, namespace: shop}
hotkeys: {f2: web}
theme: mine
themes:
  mine:
    accent: "33"
    palette: ["1", "2", "3"]
`

// withLine returns base with its line n (from 1) replaced by text, which
// may hold several lines.
func withLine(n int, text string) string {
	lines := strings.Split(base, "\n")
	lines[n-1] = text
	return strings.Join(lines, "\n")
}

// TestEveryFaultNamesItsLine: each kind of fault, made on one line of a
// file that is otherwise right, is reported as "configuration file NAME,
// line N: PATH: what is wrong", N the line it is on.
func TestEveryFaultNamesItsLine(t *testing.T) {
	if _, err := Parse("/x/config.yaml", []byte(base)); err != nil {
		t.Fatalf("the base file: %v", err)
	}
	tests := []struct {
		name string
		at   int    // the line replaced
		text string // what it becomes
		line int    // the line the error names
		want string // the error after "line N: "
	}{
		// The YAML itself: the parser's line (the one before a
		// misindented key).
		{"malformed YAML", 8, "   metricsInterval: 60s", 7, "not valid YAML: did not find expected key"},
		// A second document would be left unread (a trailing --- alone
		// is no document).
		{"a second document", 13, "---\nhotkeys: {f2: web}", 13, "a second YAML document (after ---): kyyard reads one; join them into one"},
		// The file's shape, read against the structs.
		{"unknown field", 7, "    redonly: true", 7, "contexts.prod-eu.redonly: unknown field (known: readonly, strict, shell, metricsInterval, namespaces)"},
		{"unknown top-level field", 2, "moose: true", 2, "moose: unknown field (known: readonlyContexts, contexts, fleets, theme, themes, mouse, aliases, hotkeys, keys)"},
		{"unknown colour", 17, `    acent: "33"`, 17, "themes.mine.acent: unknown field (known: name, foreground, muted, accent, headerKey, headerValue, title, columnHeader, selectedForeground, selectedBackground, ok, progressing, warning, failed, error, promptForeground, helpKey, helpDescription, matchBackground, currentMatchBackground, palette)"},
		{"not a boolean", 7, "    readonly: maybe", 7, `contexts.prod-eu.readonly: "maybe" is not true or false`},
		{"a quoted boolean", 2, `mouse: "yes"`, 2, `mouse: "yes" is not true or false`},
		{"not a list", 10, "  prod: prod-eu", 10, `fleets.prod: "prod-eu" is not a list; write ["prod-eu"] for a list of one`},
		{"not a mapping", 5, "  kyyard-local: strict", 5, `contexts.kyyard-local: "strict" is not a mapping of fields (readonly, strict, shell, metricsInterval, namespaces)`},
		{"a list for a name", 14, "theme: [mine]", 14, "theme: a list is not a single value"},
		{"not a duration", 8, "    metricsInterval: soon", 8, `contexts.prod-eu.metricsInterval: "soon" is not a duration (such as "30s" or "1m")`},
		{"a key written twice", 8, "    metricsInterval: 60s\n    readonly: false", 9, "contexts.prod-eu.readonly: written twice (first on line 7); keep one"},
		// What the file means.
		{"empty pattern", 3, `readonlyContexts: ["prod*", ""]`, 3, `readonlyContexts[1]: the pattern is empty; write a context name or a pattern such as "prod*"`},
		{"bad pattern", 3, "readonlyContexts:\n  - prod*\n  - \"prod[\"", 5, `readonlyContexts[1]: "prod[" is not a valid pattern (path.Match: *, ?, [a-z], \ escapes): syntax error in pattern`},
		{"fleet of no context", 10, "  prod: []", 10, `fleets.prod: names no context; list context names or patterns, such as [prod-eu, "prod-*"]`},
		{"empty fleet member", 10, "  prod:\n  - prod-eu\n  - \"\"", 12, `fleets.prod[1]: the member is empty; write a context name or a pattern such as "prod-*"`},
		{"bad fleet pattern", 10, `  prod: [prod-eu, "[a"]`, 10, `fleets.prod[1]: "[a" is not a valid pattern (path.Match: *, ?, [a-z], \ escapes): syntax error in pattern`},
		{"fleet without a name", 10, `  "": [prod-eu]`, 10, `fleets."": the fleet's name is empty; give it one (--fleet NAME reads it)`},
		{"bad colour", 17, "    accent: blue", 17, `themes.mine.accent: "blue" is not a colour: an ANSI 256 index (0-255) or #rrggbb`},
		{"bad palette colour", 18, "    palette:\n      - \"1\"\n      - \"300\"", 20, `themes.mine.palette[1]: "300" is not a colour: an ANSI 256 index is at most 255`},
		{"theme named as a built-in", 16, "  dark: {}\n  mine:", 16, `themes.dark: "dark" is a built-in choice; give your theme another name`},
		{"unknown theme", 14, "theme: solarized", 14, `theme: "solarized" is neither auto, dark, light nor one of themes (mine)`},
		{"alias not a word", 12, "  w b: {kind: pods}\n  web: {kind: pods}", 12, `aliases."w b": "w b" is not a word to type after ` + "`:`" + `; write one without spaces, tabs or colons`},
		{"alias of no kind", 12, "  web: {namespace: shop}", 12, "aliases.web: names no kind; add one, such as kind: pods"},
		{"alias in a bad namespace", 12, "  web:\n    kind: pods\n    namespace: Shop", 14, `aliases.web.namespace: "Shop" is not all, a namespace name or several joined by commas: a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`},
		{"hotkey of no alias", 13, "hotkeys:\n  f2: api", 14, `hotkeys.f2: "api" is not one of aliases (web)`},
		{"hotkey on no key", 13, "hotkeys:\n  shift+q: web", 14, `hotkeys.shift+q: "shift+q" is not a key kyyard can bind: f1-f12, ctrl+<letter> or alt+<letter or digit>`},
		{"metricsInterval not positive", 8, "    metricsInterval: 0s", 8, "contexts.prod-eu.metricsInterval: 0s must be positive (as --metrics-interval; leave it out for the default)"},
		{"empty shell", 8, `    shell: " "`, 8, `contexts.prod-eu.shell: names no program; write one such as "zsh -l", or leave shell out`},
		{"bad favourite namespace", 8, "    namespaces:\n    - shop\n    - shop,,web", 10, `contexts.prod-eu.namespaces[1]: "shop,,web" is not a namespace name or several joined by commas: a namespace name is missing between the commas`},
		{"context without a name", 5, `  "": {strict: true}`, 5, `contexts."": the context's name is empty; write a kubeconfig context's name`},
	}
	for _, tt := range tests {
		text := withLine(tt.at, tt.text)
		_, err := Parse("/x/config.yaml", []byte(text))
		want := fmt.Sprintf("configuration file /x/config.yaml, line %d: %s", tt.line, tt.want)
		if err == nil || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s\nin:\n%s", tt.name, err, want, text)
		}
	}
}

// TestFaultsInTheOrderOfTheFile: a file with several faults names every
// one, each on a line of its own, in the order they are written (not the
// order of the checks, nor of Go's maps).
func TestFaultsInTheOrderOfTheFile(t *testing.T) {
	text := withLine(17, "    accent: blue")
	text = strings.Replace(text, "  kyyard-local: {strict: true}", "  kyyard-local: {shell: \" \"}", 1)
	text = strings.Replace(text, "  prod: [prod-eu", "  prod: [\"[a\", prod-eu", 1)
	text = strings.Replace(text, "hotkeys: {f2: web}", "hotkeys: {f2: api}", 1)
	for range 5 { // the checks range over maps
		_, err := Parse("c.yaml", []byte(text))
		if err == nil {
			t.Fatal("no error")
		}
		lines := strings.Split(err.Error(), "\n")
		want := []string{
			"configuration file c.yaml, line 5: contexts.kyyard-local.shell: ",
			"configuration file c.yaml, line 10: fleets.prod[0]: ",
			"configuration file c.yaml, line 13: hotkeys.f2: ",
			"configuration file c.yaml, line 17: themes.mine.accent: ",
		}
		if len(lines) != len(want) {
			t.Fatalf("%d faults, want %d:\n%v", len(lines), len(want), err)
		}
		for i := range want {
			if !strings.HasPrefix(lines[i], want[i]) {
				t.Errorf("fault %d: %q, want it to start %q", i, lines[i], want[i])
			}
		}
	}
	// The shape first: the meaning of a file whose shape is wrong is not
	// checked (a field left out by a fault would be reported again).
	_, err := Parse("c.yaml", []byte(strings.Replace(text, "readonly: true", "redonly: true", 1)))
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "line 7: contexts.prod-eu.redonly: unknown field") {
		t.Errorf("a misspelt field among faults of meaning: %v", err)
	}
}

// TestLineOf: the place a path names, through block and flow mappings,
// list items, aliases and merge keys; a path not written names its
// nearest enclosing entry.
func TestLineOf(t *testing.T) {
	const text = `contexts:
  base: &base
    strict: true
  prod: {<<: *base, shell: zsh}
  copy: *base
  Mixed: {ReadOnly: true}
fleets:
  prod:
    - a
    - b
themes: {mine: {accent: "1"}}
`
	d, err := parseDocument("c", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		path         []any
		line, column int
		written      bool
	}{
		{nil, 1, 1, true},
		{[]any{"contexts"}, 1, 1, true},
		{[]any{"contexts", "base", "strict"}, 3, 5, true},
		{[]any{"contexts", "prod"}, 4, 3, true},
		{[]any{"contexts", "prod", "shell"}, 4, 21, true},
		{[]any{"contexts", "prod", "strict"}, 3, 5, true}, // merged from base
		{[]any{"contexts", "copy", "strict"}, 3, 5, true}, // an alias of base
		{[]any{"contexts", "Mixed", "readonly"}, 6, 11, true},
		{[]any{"contexts", "mixed"}, 6, 3, true},
		{[]any{"fleets", "prod", 1}, 10, 7, true},
		{[]any{"fleets", "prod", 2}, 8, 3, false},
		{[]any{"themes", "mine", "accent"}, 11, 17, true},
		{[]any{"themes", "mine", "muted"}, 11, 10, false},
		{[]any{"aliases", "web"}, 1, 1, false},
	} {
		line, column, written := d.lineOf(tt.path)
		if line != tt.line || column != tt.column || written != tt.written {
			t.Errorf("lineOf(%v) = %d, %d, %v; want %d, %d, %v", tt.path, line, column, written, tt.line, tt.column, tt.written)
		}
	}
	empty, err := parseDocument("c", []byte("# nothing\n"))
	if err != nil {
		t.Fatal(err)
	}
	if line, _, written := empty.lineOf([]any{"contexts"}); line != 0 || written {
		t.Errorf("an empty file: line %d, written %v", line, written)
	}
	if err := empty.errorAt([]any{"contexts"}, "x"); err.Error() != "configuration file c: contexts: x" {
		t.Errorf("a fault at no line: %v", err)
	}
}

// TestErrorAt: the helper every check reports through, and the File's
// for checks made outside the package (kyyard's own keys and commands).
func TestErrorAt(t *testing.T) {
	f, err := Parse("/x/config.yaml", []byte(base))
	if err != nil {
		t.Fatal(err)
	}
	err = f.ErrorAt([]any{"hotkeys", "f2"}, "kyyard binds %s already", "f2")
	if err.Error() != "configuration file /x/config.yaml, line 13: hotkeys.f2: kyyard binds f2 already" {
		t.Errorf("ErrorAt: %v", err)
	}
	var ft *fault
	if !errors.As(err, &ft) || ft.line != 13 || ft.column != 11 {
		t.Errorf("the fault's place: %+v", ft)
	}
	built := &File{Path: "/y/config.yaml"}
	if err := built.ErrorAt([]any{"aliases", "q"}, "taken"); err.Error() != "configuration file /y/config.yaml: aliases.q: taken" {
		t.Errorf("a File not read by Parse: %v", err)
	}
}

// TestPathString: keys joined by dots, indexes in brackets, a key that
// would read as several quoted.
func TestPathString(t *testing.T) {
	for _, tt := range []struct {
		path []any
		want string
	}{
		{[]any{"fleets", "prod", 2}, "fleets.prod[2]"},
		{[]any{"contexts", "admin@k8s.local", "shell"}, `contexts."admin@k8s.local".shell`},
		{[]any{"aliases", ""}, `aliases.""`},
		{[]any{"aliases", "w b"}, `aliases."w b"`},
		{[]any{"hotkeys", "ctrl+w"}, "hotkeys.ctrl+w"},
		{nil, ""},
	} {
		if got := pathString(tt.path); got != tt.want {
			t.Errorf("pathString(%v) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

// TestReadAsBefore: what the file's earlier decoder (sigs.k8s.io/yaml
// into encoding/json) took is taken the same: YAML 1.1's yes and on for
// true, field names in other letter cases, any scalar as a string, null
// as nothing written, aliases and merge keys, an empty file.
func TestReadAsBefore(t *testing.T) {
	f, err := Parse("c", []byte(`mouse: yes
Theme: mine
themes:
  mine: {Accent: 33, selectedBackground: "#005f87"}
contexts:
  base: &base {strict: on, metricsInterval: 1m}
  prod: {<<: *base, ReadOnly: true, shell: ~}
  copy: *base
  empty:
  numbered: {shell: 15}
fleets: {all: ["*"]}
`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Mouse || f.Theme != "mine" || f.Themes["mine"].Accent != "33" || f.Themes["mine"].SelectedBackground != "#005f87" {
		t.Errorf("top level: %+v", f)
	}
	prod := f.Contexts["prod"]
	if !prod.ReadOnly || !prod.Strict || prod.MetricsInterval.Minutes() != 1 || prod.Shell != "" {
		t.Errorf("a merged entry: %+v", prod)
	}
	if c := f.Contexts["copy"]; !c.Strict || c.ReadOnly {
		t.Errorf("an alias: %+v", c)
	}
	if _, ok := f.Contexts["empty"]; !ok || f.Contexts["numbered"].Shell != "15" {
		t.Errorf("a null entry, a number for a string: %+v", f.Contexts)
	}
	for _, text := range []string{"", "# comments only\n", "~\n"} {
		if f, err := Parse("c", []byte(text)); err != nil || f.Mouse || f.Contexts != nil {
			t.Errorf("%q: %+v, %v", text, f, err)
		}
	}
	// A key written twice in other letter cases is one field written
	// twice, not two (encoding/json kept the last silently).
	if _, err := Parse("c", []byte("contexts:\n  p:\n    readonly: true\n    ReadOnly: false\n")); err == nil || err.Error() != "configuration file c, line 4: contexts.p.readonly: written twice (first on line 3); keep one" {
		t.Errorf("readonly twice: %v", err)
	}
}

// TestOneDocument: a --- before the document or after it with nothing
// after, and YAML's end marker, are no second document.
func TestOneDocument(t *testing.T) {
	for _, text := range []string{"---\nmouse: true\n", "mouse: true\n---\n", "mouse: true\n...\n", "# only a comment\n"} {
		if _, err := Parse("c.yaml", []byte(text)); err != nil {
			t.Errorf("%q: %v", text, err)
		}
	}
}

// TestTabsAndBytesNamed: a tab in the indentation and bytes that are not
// UTF-8 name their line and what is wrong (a trial: "found character
// that cannot start any token", and no line for the bytes).
func TestTabsAndBytesNamed(t *testing.T) {
	for text, want := range map[string]string{
		"mouse: true\ncontexts:\n\tprod: {strict: true}\n": "configuration file c.yaml, line 3: not valid YAML: found character that cannot start any token (a tab: YAML indents with spaces only)",
		"mouse: true\ntheme: \"\xff\xfe\"\n":               "configuration file c.yaml, line 2: not UTF-8 text (byte 0xff at column 9); save the file as UTF-8",
		"theme: dark # caf\xc3":                            "configuration file c.yaml, line 1: not UTF-8 text (byte 0xc3 at column 18); save the file as UTF-8",
	} {
		if _, err := Parse("c.yaml", []byte(text)); err == nil || err.Error() != want {
			t.Errorf("%q:\n got %v\nwant %s", text, err, want)
		}
	}
}
