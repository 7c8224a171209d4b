package config_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/config"
)

const sample = `# kyyard's configuration
readonlyContexts: ["prod*", "*-live"]
contexts:
  kyyard-local: {strict: true}
  prod-eu: {readonly: true, strict: true}
  dev: {}
`

func TestParseAndFor(t *testing.T) {
	f, err := config.Parse("config.yaml", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		context string
		want    config.Mode
	}{
		{"prod", config.Mode{ReadOnly: true}},
		{"prod-us", config.Mode{ReadOnly: true}},
		{"prod-eu", config.Mode{ReadOnly: true, Strict: true}},
		{"shop-live", config.Mode{ReadOnly: true}},
		{"shop-live-2", config.Mode{}},
		{"kyyard-local", config.Mode{Strict: true}},
		{"dev", config.Mode{}},
		{"staging", config.Mode{}},
		{"preprod", config.Mode{}},
		{"eks/prod", config.Mode{}}, // * never matches "/" (path.Match)
		{"", config.Mode{}},
	}
	for _, tt := range tests {
		if got := f.For(tt.context); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("For(%q) = %+v, want %+v", tt.context, got, tt.want)
		}
	}
}

func TestEKSContextNeedsASlashPattern(t *testing.T) {
	f, err := config.Parse("c", []byte(`readonlyContexts: ["*/prod*"]`))
	if err != nil {
		t.Fatal(err)
	}
	if !f.For("arn:aws:eks:eu-west-1:1234:cluster/prod").ReadOnly || f.For("arn:aws:eks:eu-west-1:1234:cluster/dev").ReadOnly {
		t.Error("*/prod* must match the EKS prod context only (README's example)")
	}
}

func TestFlagsWinForTurningOn(t *testing.T) {
	f, err := config.Parse("c", []byte("contexts:\n  dev: {readonly: false, strict: false}\n"))
	if err != nil {
		t.Fatal(err)
	}
	flags := config.Mode{ReadOnly: true, Strict: true}
	if got := flags.Or(f.For("dev")); !reflect.DeepEqual(got, flags) {
		t.Errorf("--readonly --strict with an entry of false: %+v, want both on", got)
	}
	if got := (config.Mode{}).Or(config.Mode{Strict: true}); !reflect.DeepEqual(got, config.Mode{Strict: true}) {
		t.Errorf("no flags, strict entry: %+v", got)
	}
	var none *config.File
	if got := none.For("prod"); !reflect.DeepEqual(got, config.Mode{}) {
		t.Errorf("nil File: %+v", got)
	}
}

func TestParseErrorsNameFileAndCause(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"bad yaml", "readonlyContexts: [prod*\ncontexts: {\n", []string{"bad.yaml, line 1: not valid YAML: "}},
		{"bad indentation", "contexts:\n  prod:\n    readonly: true\n   strict: true\n", []string{"bad.yaml, line 3: not valid YAML: "}},
		{"misspelt setting", "contexts:\n  prod: {read-only: true}\n", []string{"bad.yaml, line 2: contexts.prod.read-only: unknown field (known: readonly, strict, shell, metricsInterval, namespaces)"}},
		{"misspelt top level", "readonlyContext: [prod]\n", []string{"bad.yaml, line 1: readonlyContext: unknown field (known: readonlyContexts, contexts,"}},
		{"wrong type", "contexts:\n  prod: {readonly: maybe}\n", []string{"bad.yaml, line 2: contexts.prod.readonly: \"maybe\" is not true or false"}},
		{"pattern not a list", "readonlyContexts: prod*\n", []string{"bad.yaml, line 1: readonlyContexts: \"prod*\" is not a list; write [\"prod*\"] for a list of one"}},
		{"bad pattern", `readonlyContexts: ["ok", "prod["]` + "\n", []string{"bad.yaml, line 1: ", `readonlyContexts[1]: "prod["`, "not a valid pattern"}},
		{"empty pattern", `readonlyContexts: [""]` + "\n", []string{"bad.yaml, line 1: readonlyContexts[0]: the pattern is empty"}},
		{"bad favourite namespace", "contexts:\n  prod: {namespaces: [shop, \"Web\"]}\n", []string{"bad.yaml, line 2: ", `contexts.prod.namespaces[1]: "Web"`, "lower case"}},
		{"empty among favourites", "contexts:\n  prod: {namespaces: [\"shop,,web\"]}\n", []string{"bad.yaml, line 2: ", `contexts.prod.namespaces[0]: "shop,,web"`, "missing between the commas"}},
		{"theme named as NO_COLOR's", "themes:\n  no-color: {accent: \"33\"}\n", []string{"bad.yaml, line 2: themes.no-color: ", "built-in"}},
		{"favourites not a list", "contexts:\n  prod: {namespaces: shop}\n", []string{"bad.yaml, line 2: contexts.prod.namespaces: \"shop\" is not a list"}},
		{"bad theme colour", "themes:\n  mine: {accent: blue}\n", []string{"bad.yaml, line 2: ", `themes.mine.accent: "blue" is not a colour`}},
		{"misspelt theme colour", "themes:\n  mine: {acent: \"33\"}\n", []string{"bad.yaml, line 2: themes.mine.acent: unknown field (known: name, foreground, muted, accent,"}},
		{"theme named as a built-in", "themes:\n  dark: {accent: \"33\"}\n", []string{"bad.yaml, line 2: themes.dark: ", "built-in"}},
		{"unknown theme", "theme: solarized\n", []string{"bad.yaml, line 1: ", `theme: "solarized" is neither`}},
		{"alias without a kind", "aliases:\n  web: {namespace: shop}\n", []string{"bad.yaml, line 2: aliases.web: names no kind"}},
		{"alias in a bad namespace", "aliases:\n  web: {kind: pods, namespace: Shop}\n", []string{"bad.yaml, line 2: ", `aliases.web.namespace: "Shop"`}},
		{"hotkey of no alias", "aliases:\n  web: {kind: pods}\nhotkeys:\n  f2: api\n", []string{"bad.yaml, line 4: ", `hotkeys.f2: "api" is not one of aliases (web)`}},
		{"hotkey on no key", "aliases:\n  web: {kind: pods}\nhotkeys:\n  shift+q: web\n", []string{"bad.yaml, line 4: ", `hotkeys.shift+q: "shift+q" is not a key`}},
	}
	for _, tt := range tests {
		_, err := config.Parse("bad.yaml", []byte(tt.yaml))
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", tt.name, err, w)
			}
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	f, err := config.Load(filepath.Join(dir, "absent.yaml"))
	if err != nil || !reflect.DeepEqual(f, &config.File{}) {
		t.Fatalf("a missing file: %+v, %v; want the zero File", f, err)
	}
	empty := filepath.Join(dir, "empty.yaml")
	if err := os.WriteFile(empty, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := config.Load(empty); err != nil || !reflect.DeepEqual(f.For("prod"), config.Mode{}) {
		t.Fatalf("an empty file: %+v, %v", f, err)
	}
	good := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(good, []byte(sample), 0o600); err != nil {
		t.Fatal(err)
	}
	if f, err := config.Load(good); err != nil || !f.For("prod-eu").Strict {
		t.Fatalf("the sample: %+v, %v", f, err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("contexts: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := config.Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Fatalf("a malformed file: %v, want an error naming %s", err, bad)
	}
	if _, err := config.Load(dir); err == nil || !strings.Contains(err.Error(), dir) {
		t.Fatalf("a folder: %v, want an error naming it", err)
	}
}

func TestDefaultPath(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	if p, err := config.DefaultPath(); err != nil || p != filepath.Join(dir, "kyyard", "config.yaml") {
		t.Fatalf("with XDG_CONFIG_HOME: %q, %v", p, err)
	}
	home := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", home)
	if p, err := config.DefaultPath(); err != nil || p != filepath.Join(home, ".config", "kyyard", "config.yaml") {
		t.Fatalf("without XDG_CONFIG_HOME: %q, %v", p, err)
	}
	if p, err := config.HistoryPath(); err != nil || p != filepath.Join(home, ".config", "kyyard", "history.log") {
		t.Fatalf("history without XDG_CONFIG_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	if p, err := config.HistoryPath(); err != nil || p != filepath.Join(dir, "kyyard", "history.log") {
		t.Fatalf("history with XDG_CONFIG_HOME: %q, %v", p, err)
	}
}

// TestContextShell: a context's shell is read, kept by Or, and an empty
// program is refused.
func TestContextShell(t *testing.T) {
	f, err := config.Parse("c.yaml", []byte("contexts:\n  dev: {shell: \"zsh -l\"}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.For("dev").Shell; got != "zsh -l" {
		t.Fatalf("shell %q", got)
	}
	if got := (config.Mode{Strict: true}).Or(f.For("dev")); !got.Strict || got.Shell != "zsh -l" {
		t.Fatalf("Or = %+v", got)
	}
	if _, err := config.Parse("c.yaml", []byte("contexts:\n  dev: {shell: \" \"}\n")); err == nil || !strings.Contains(err.Error(), "c.yaml, line 2: contexts.dev.shell: names no program") {
		t.Fatalf("empty shell: %v", err)
	}
}

// TestContextMetricsInterval: a context's metricsInterval is read as a Go
// duration, the flag's wins in Or, and a malformed one is refused, a
// negative or zero one with the context and the key named.
func TestContextMetricsInterval(t *testing.T) {
	f, err := config.Parse("c.yaml", []byte("contexts:\n  big: {metricsInterval: 1m30s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := f.For("big").MetricsInterval.Duration; got != 90*time.Second {
		t.Fatalf("metricsInterval %s", got)
	}
	if got := (config.Mode{}).Or(f.For("big")).MetricsInterval.Duration; got != 90*time.Second {
		t.Fatalf("Or without the flag: %s", got)
	}
	flag := config.Mode{MetricsInterval: config.Duration{Duration: 5 * time.Second}}
	if got := flag.Or(f.For("big")).MetricsInterval.Duration; got != 5*time.Second {
		t.Fatalf("Or with the flag: %s", got)
	}
	for _, bad := range []string{"{metricsInterval: soon}", "{metricsInterval: 15}"} {
		if _, err := config.Parse("c.yaml", []byte("contexts:\n  big: "+bad+"\n")); err == nil || !strings.Contains(err.Error(), "c.yaml") {
			t.Errorf("%s: %v", bad, err)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
	for _, bad := range []string{"{metricsInterval: -5s}", "{metricsInterval: 0s}", "{readonly: true, metricsInterval: \"0\"}", "{metricsInterval: 0ms}"} {
		if _, err := config.Parse("c.yaml", []byte("contexts:\n  big: "+bad+"\n")); err == nil || !strings.Contains(err.Error(), "c.yaml") ||
			!strings.Contains(err.Error(), "c.yaml, line 2: contexts.big.metricsInterval: ") || !strings.Contains(err.Error(), "must be positive") {
			t.Errorf("%s: %v", bad, err)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
	// Not positive: the context and the key are named (as the flag is).
	_, err = config.Parse("c.yaml", []byte("contexts:\n  ok: {metricsInterval: 30s}\n  big: {metricsInterval: 0s}\n"))
	if err == nil || !strings.Contains(err.Error(), "c.yaml, line 3: contexts.big.metricsInterval: 0s must be positive") {
		t.Errorf("0s: %v", err)
	}
	// Left out: the default, no error.
	if f, err := config.Parse("c.yaml", []byte("contexts:\n  big: {strict: true}\n")); err != nil || f.For("big").MetricsInterval.Duration != 0 {
		t.Errorf("left out: %v", err)
	}
	// Written through an alias or a merge key counts as written: zero is
	// refused there too; a context beside it that leaves it out is not.
	merged := "contexts:\n  first: &b {metricsInterval: 0s}\n  quiet: {strict: true}\n  big:\n    <<: *b\n    strict: true\n  same: *b\n"
	_, err = config.Parse("c.yaml", []byte(merged))
	if err == nil || !strings.Contains(err.Error(), "contexts.big.metricsInterval: 0s must be positive") || !strings.Contains(err.Error(), "contexts.first.metricsInterval") ||
		!strings.Contains(err.Error(), "contexts.same.metricsInterval") || strings.Contains(err.Error(), "quiet") {
		t.Errorf("merged: %v", err)
	}
}

// Fleets name sets of contexts; an empty one, an empty member or a bad
// pattern is refused with its place.
func TestFleets(t *testing.T) {
	f, err := config.Parse("c.yaml", []byte("fleets:\n  prod: [prod-eu, \"prod-ap-*\"]\n"))
	if err != nil || len(f.Fleets["prod"]) != 2 || f.Fleets["prod"][1] != "prod-ap-*" {
		t.Fatalf("%+v %v", f, err)
	}
	for text, want := range map[string]string{
		"fleets:\n  prod: []\n":       "c.yaml, line 2: fleets.prod: names no context",
		"fleets:\n  prod: [\"\"]\n":   "c.yaml, line 2: fleets.prod[0]: the member is empty",
		"fleets:\n  prod: [\"[a\"]\n": `c.yaml, line 2: fleets.prod[0]: "[a" is not a valid pattern`,
		"fleets:\n  prod: eu\n":       `c.yaml, line 2: fleets.prod: "eu" is not a list; write ["eu"] for a list of one`,
		"fleet:\n  prod: [eu]\n":      "c.yaml, line 1: fleet: unknown field",
	} {
		if _, err := config.Parse("c.yaml", []byte(text)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

// TestContextFavouriteNamespaces: a context's pinned favourite namespaces
// are read in order, several joined by commas kept as written; Or takes
// the first mode's, else the second's.
func TestContextFavouriteNamespaces(t *testing.T) {
	f, err := config.Parse("c", []byte("contexts:\n  shop-prod: {namespaces: [shop, \"shop,payments\"]}\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"shop", "shop,payments"}
	if got := f.For("shop-prod").Namespaces; !reflect.DeepEqual(got, want) {
		t.Fatalf("namespaces %q, want %q", got, want)
	}
	if got := (config.Mode{ReadOnly: true}).Or(f.For("shop-prod")).Namespaces; !reflect.DeepEqual(got, want) {
		t.Fatalf("Or dropped the entry's namespaces: %q", got)
	}
}

// TestKeysSection reads the `keys:` section: one key, a list, none, an
// empty list and nothing written (unbound), a chord; a misspelt key
// names its line.
func TestKeysSection(t *testing.T) {
	f, err := config.Parse("k.yaml", []byte(`mouse: true
keys:
  table:
    delete: "ctrl+x d"
    describe: [d, enter]
    yaml: none
    edit: []
    decode:
  global: {quit: ctrl+q, help: "g space"}
`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]config.KeyList{
		"table":  {"delete": {"ctrl+x d"}, "describe": {"d", "enter"}, "yaml": {}, "edit": {}, "decode": {}},
		"global": {"quit": {"ctrl+q"}, "help": {"g space"}},
	}
	if !reflect.DeepEqual(f.Keys, want) {
		t.Fatalf("Keys = %#v\nwant %#v", f.Keys, want)
	}
	if _, err := config.Parse("k.yaml", []byte("keys: {table: {page-down: pgdn, port-forward: shift+f, mark-range: ctrl+space}}\n")); err != nil {
		t.Errorf("the help's spellings: %v", err)
	}
	for _, c := range []struct{ file, want string }{
		{"keys:\n  table:\n    delete: ctrl+x\n    describe: controlx\n", "line 4: keys.table.describe: \"controlx\": not a key"},
		{"keys:\n  table:\n    describe: [d, \"g \"]\n", "line 3: keys.table.describe[1]: \"g \": a key is missing"},
		{"keys:\n  logs:\n    up: \"a b c\"\n", "line 3: keys.logs.up: \"a b c\": a chord is two keys"},
		{"keys:\n  logs:\n    up: ctrl+i\n", "ctrl+i reaches kyyard as tab; bind tab"},
		{"keys:\n  logs:\n    up: {a: b}\n", "line 3: keys.logs.up:"},
		{"keys: [a]\n", "line 1: keys:"},
	} {
		_, err := config.Parse("k.yaml", []byte(c.file))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want …%s…", c.file, err, c.want)
		}
	}
}
