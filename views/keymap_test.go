package views_test

import (
	"slices"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
)

func TestKebabName(t *testing.T) {
	for field, want := range map[string]string{"PageDown": "page-down", "YAML": "yaml", "EditYAML": "edit-yaml",
		"NextUnhealthy": "next-unhealthy", "Up": "up", "HTTPServer": "http-server"} {
		if got := views.KebabName(field); got != want {
			t.Errorf("KebabName(%s) = %q, want %q", field, got, want)
		}
	}
}

func TestChordPartsAndHelp(t *testing.T) {
	for k, want := range map[string][3]string{"ctrl+x d": {"ctrl+x", "d", "chord"}, "g  ": {"g", " ", "chord"},
		" ": {" ", "", ""}, "d": {"d", "", ""}, "g ": {"g ", "", ""}} {
		first, second, chord := views.ChordParts(k)
		if first != want[0] || second != want[1] || chord != (want[2] == "chord") {
			t.Errorf("ChordParts(%q) = %q, %q, %v", k, first, second, chord)
		}
	}
	if got := views.KeyHelp([]string{"up", "k", "ctrl+x d", "g  ", " "}); got != "↑/k/ctrl+x d/g space/space" {
		t.Errorf("KeyHelp: %q", got)
	}
	for written, want := range map[string]string{"g space": "g  ", "pgdn": "pgdown", "ctrl+space": "ctrl+@", "shift+f": "F",
		"alt+shift+x": "alt+X", "ctrl+x pgdn": "ctrl+x pgdown", "shift+tab": "shift+tab", "d": "d"} {
		if got := views.KeyName(written); got != want {
			t.Errorf("KeyName(%q) = %q, want %q", written, got, want)
		}
	}
}

// TestBindRebindsTheNamedActions: the inventory's keys with delete moved,
// describe given two keys and YAML unbound; the others keep theirs, and a
// key press matches as the map says.
func TestBindRebindsTheNamedActions(t *testing.T) {
	keys := inventory.DefaultKeys()
	views.KeyMap{"table": {"delete": {"ctrl+x d"}, "describe": {"i", " "}, "yaml": {}}, "logs": {"up": {"x"}}}.Bind("table", &keys)
	byName := map[string]key.Binding{}
	for _, a := range views.KeyActions(&keys) {
		byName[a.Name] = *a.Binding
	}
	if !slices.Equal(byName["delete"].Keys(), []string{"ctrl+x d"}) || byName["delete"].Help().Key != "ctrl+x d" || byName["delete"].Help().Desc != "delete" {
		t.Errorf("delete: %v %+v", byName["delete"].Keys(), byName["delete"].Help())
	}
	if !key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("i")}, keys.Describe) || key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("d")}, keys.Describe) ||
		!key.Matches(tea.KeyMsg{Type: tea.KeySpace, Runes: []rune(" ")}, keys.Describe) {
		t.Errorf("describe matches the old key or not the new ones: %v", keys.Describe.Keys())
	}
	if keys.YAML.Enabled() || key.Matches(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("y")}, keys.YAML) {
		t.Error("yaml still bound")
	}
	if !slices.Equal(keys.Up.Keys(), []string{"up", "k"}) {
		t.Errorf("up (another table's in the map) changed: %v", keys.Up.Keys())
	}
	var names []string
	for _, a := range views.KeyActions(&keys) {
		names = append(names, a.Name)
	}
	for _, want := range []string{"up", "page-down", "edit-yaml", "restart", "scale", "delete", "next-unhealthy", "clear"} {
		if !slices.Contains(names, want) {
			t.Errorf("KeyActions lacks %s: %v", want, names)
		}
	}
	if views.KeyActions(keys) != nil {
		t.Error("KeyActions of a struct value (not a pointer) gave actions")
	}
}

// TestEmbeddedScrollKeysAreActions: a Keys struct embedding
// views.ScrollKeys has their actions as its own, rebound by the map; the
// scroll help and a page's hints show the keys in force.
func TestEmbeddedScrollKeysAreActions(t *testing.T) {
	type keys struct {
		Confirm key.Binding
		views.ScrollKeys
	}
	k := keys{Confirm: key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "confirm")), ScrollKeys: views.DefaultScrollKeys()}
	if h := k.ScrollHelp().Help(); h.Key != "↑/↓ pgup/pgdn" || h.Desc != "scroll" {
		t.Errorf("default scroll help %+v", h)
	}
	views.KeyMap{"t": {"down": {"J"}, "page-up": {}, "confirm": {"Y"}}}.Bind("t", &k)
	var names []string
	for _, a := range views.KeyActions(&k) {
		names = append(names, a.Name)
	}
	if want := []string{"confirm", "up", "down", "page-up", "page-down", "top", "bottom"}; !slices.Equal(names, want) {
		t.Errorf("actions %v, want %v", names, want)
	}
	offset := 3
	if k.Scroll(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("j")}, &offset, 20) || offset != 3 {
		t.Errorf("j (down's old key) scrolled: %d", offset)
	}
	if !k.Scroll(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("J")}, &offset, 20) || offset != 4 {
		t.Errorf("J (down's new key) did not scroll: %d", offset)
	}
	if h := k.ScrollHelp().Help().Key; h != "↑/J pgdn" {
		t.Errorf("rebound scroll help %q", h)
	}
	if got := views.Hints(views.Hint("confirm", k.Confirm), views.Hint("page up", k.PageUp), views.Hint("scroll", k.Up, k.Down)); got != "Y confirm · ↑/J scroll" {
		t.Errorf("hints %q", got)
	}
}
