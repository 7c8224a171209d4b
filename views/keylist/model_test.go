package keylist_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/keylist"
	"github.com/kyyard/kyyard/views/viewtest"
)

func rows() []keylist.Row {
	return []keylist.Row{
		{Table: "global", Screens: "every screen", Action: "quit", Keys: []string{"ctrl+q"}, Help: "quit", FromFile: true},
		{Table: "global", Screens: "every screen", Action: "help", Keys: []string{"?"}, Help: "help"},
		{Table: "table", Screens: "the tables of kinds", Action: "up", Keys: []string{"up", "k"}, Help: "up"},
		{Table: "table", Screens: "the tables of kinds", Action: "delete", Keys: []string{"ctrl+x d"}, Help: "delete", FromFile: true},
		{Table: "table", Screens: "the tables of kinds", Action: "yaml", Help: "YAML", FromFile: true},
		{Table: "table", Screens: "the tables of kinds", Action: "mark", Keys: []string{" "}, Help: "mark row"},
		{Table: "logs", Screens: "logs", Action: "follow", Keys: []string{"f"}, Help: "follow"},
	}
}

// TestKeysScreen draws the list at 80x24 (golden): a heading per table,
// each action's keys in force (a chord, space, an unbound one), where
// each came from.
func TestKeysScreen(t *testing.T) {
	m := keylist.New(viewtest.Context(nil, 80, 24), rows(), "/home/me/.config/kyyard/config.yaml")
	v := m.View()
	viewtest.Size(t, v, 80, 24)
	viewtest.Golden(t, "keys-80x24", v)
	for _, want := range []string{"delete  ctrl+x d  file", "yaml    (none)    file", "mark    space     default", "table — the tables of kinds"} {
		if !strings.Contains(v, want) {
			t.Errorf("lacks %q:\n%s", want, v)
		}
	}
}

// TestKeysScreenFilter: / narrows the list to the lines holding the text
// (a table's heading keeps all its lines); esc clears the filter before
// going back.
func TestKeysScreenFilter(t *testing.T) {
	d := &viewtest.Driver{T: t, Screen: keylist.New(viewtest.Context(nil, 80, 24), rows(), "")}
	d.Key("/")
	d.Type("file")
	d.Key("enter")
	v := d.Screen.View()
	if !strings.Contains(v, "quit") || !strings.Contains(v, "delete") || strings.Contains(v, "follow") || strings.Contains(v, "mark row") {
		t.Fatalf("/file:\n%s", v)
	}
	if got := d.Screen.Title(); got != "keys[7] /file" {
		t.Errorf("title %q", got)
	}
	d.Key("/")
	d.Key("backspace")
	d.Key("backspace")
	d.Key("backspace")
	d.Key("backspace")
	d.Type("logs")
	d.Key("enter")
	if v := d.Screen.View(); !strings.Contains(v, "follow") || strings.Contains(v, "delete") {
		t.Fatalf("/logs (a table's name):\n%s", v)
	}
	if !d.Screen.(views.BackCapturer).CapturesBack() {
		t.Fatal("esc would go back with a filter set")
	}
	d.Key("esc")
	if v := d.Screen.View(); !strings.Contains(v, "delete") || d.Screen.(views.BackCapturer).CapturesBack() {
		t.Fatalf("esc did not clear the filter:\n%s", v)
	}
	d.Key("/")
	d.Type("nothing-like-it")
	if v := d.Screen.View(); !strings.Contains(v, "no key matches nothing-like-it") {
		t.Fatalf("no match:\n%s", v)
	}
}
