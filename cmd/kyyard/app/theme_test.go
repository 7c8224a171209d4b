package app

import (
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/config"
)

// TestChooseTheme is issue 27's colour choice: NO_COLOR set wins over
// everything; --theme over the configuration file; auto (or nothing
// named) follows the terminal's background; a theme of the file by name;
// an unknown name is refused with the names there are.
func TestChooseTheme(t *testing.T) {
	env := func(noColor string) func(string) string {
		return func(k string) string {
			if k == "NO_COLOR" {
				return noColor
			}
			return ""
		}
	}
	dark := func() bool { return true }
	light := func() bool { return false }
	cfg := &config.File{Theme: "light", Themes: map[string]assets.Theme{"mine": {Accent: "33"}}}
	for _, tc := range []struct {
		name, flag, noColor string
		cfg                 *config.File
		bg                  func() bool
		want                string
	}{
		{"auto on a dark terminal", "", "", nil, dark, "dark"},
		{"auto on a light terminal", "", "", nil, light, "light"},
		{"the file's theme", "", "", cfg, dark, "light"},
		{"the flag over the file", "dark", "", cfg, light, "dark"},
		{"auto by the flag", "auto", "", cfg, light, "light"},
		{"a theme of the file", "mine", "", cfg, dark, "mine"},
		{"NO_COLOR over the flag", "dark", "1", cfg, dark, "no-color"},
	} {
		got, err := chooseTheme(tc.flag, tc.cfg, env(tc.noColor), tc.bg)
		if err != nil || got.Name != tc.want {
			t.Errorf("%s: %q, %v; want %s", tc.name, got.Name, err, tc.want)
		}
	}
	if _, err := chooseTheme("solarized", cfg, env(""), dark); err == nil || !strings.Contains(err.Error(), "auto, dark, light, mine") {
		t.Errorf("an unknown theme: %v", err)
	}
}

// TestHotkeyOnKyyardsKeyIsRefused: a hotkey on a key kyyard binds on its
// tables (d describes) stops kyyard at start, naming it; f2 is taken.
func TestHotkeyOnKyyardsKeyIsRefused(t *testing.T) {
	cfg := &config.File{Aliases: map[string]config.Alias{"web": {Kind: "pods"}}, Hotkeys: map[string]string{"ctrl+r": "web"}}
	if _, _, err := shortcuts(cfg, nil); err == nil || !strings.Contains(err.Error(), "hotkeys.ctrl+r") {
		t.Fatalf("a hotkey on ctrl+r: %v", err)
	}
	cfg.Hotkeys = map[string]string{"f2": "web"}
	if _, hotkeys, err := shortcuts(cfg, nil); err != nil || hotkeys["f2"] != "web" {
		t.Fatalf("f2: %v, %v", hotkeys, err)
	}
	cfg.Aliases["q"] = config.Alias{Kind: "pods"}
	if _, _, err := shortcuts(cfg, nil); err == nil || !strings.Contains(err.Error(), "aliases.q: :q is kyyard's own command") {
		t.Fatalf("an alias q: %v", err)
	}
}

// TestShortcutFaultsNameTheirLine: the faults only kyyard's own keys and
// commands reveal name their line in the file, as Parse's do.
func TestShortcutFaultsNameTheirLine(t *testing.T) {
	for text, want := range map[string]string{
		"mouse: true\naliases:\n  web: {kind: pods}\nhotkeys:\n  ctrl+r: web\n": "configuration file c.yaml, line 5: hotkeys.ctrl+r: kyyard binds ctrl+r on its tables already; choose another key",
		"mouse: true\naliases:\n  web: {kind: pods}\n  q: {kind: pods}\n":       "configuration file c.yaml, line 4: aliases.q: :q is kyyard's own command; give the alias another word",
	} {
		cfg, err := config.Parse("c.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := shortcuts(cfg, nil); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}

// TestKeyMapFaultsNameTheirLine: the key map's faults only the screens'
// key tables reveal (an unknown table or action, a key bound twice on
// one screen) stop kyyard at start naming their line; a right map is
// taken with "space" as Bubble Tea names it.
func TestKeyMapFaultsNameTheirLine(t *testing.T) {
	for text, want := range map[string]string{
		"mouse: true\nkeys:\n  table:\n    delete: \"ctrl+x d\"\n    delet: x\n": "configuration file c.yaml, line 5: keys.table.delet: no such action on the tables of kinds",
		"keys:\n  logs: {}\n  tabel:\n    describe: i\n":                         "configuration file c.yaml, line 3: keys.tabel: no such key table (the tables: global, table,",
		"keys:\n  table:\n    up: [k]\n    describe: ctrl+d\n":                   "configuration file c.yaml, line 4: keys.table.describe: ctrl+d is also delete (table table) on the tables of kinds",
	} {
		cfg, err := config.Parse("c.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := checkedKeyMap(cfg); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s…", text, err, want)
		}
	}
	cfg, err := config.Parse("c.yaml", []byte("keys:\n  table: {mark: [space, m], delete: \"ctrl+x space\"}\n  detail: {}\n"))
	if err != nil {
		t.Fatal(err)
	}
	km, err := checkedKeyMap(cfg)
	if err != nil || !slices.Equal(km["table"]["mark"], []string{" ", "m"}) || !slices.Equal(km["table"]["delete"], []string{"ctrl+x  "}) {
		t.Fatalf("key map %v, %v", km, err)
	}
}
