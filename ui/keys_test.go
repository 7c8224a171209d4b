package ui_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// startKeyed starts a root model whose Context carries a key map, as the
// app builds it (the global keys rebound first).
func startKeyed(t *testing.T, km views.KeyMap) *harness {
	t.Helper()
	client, _ := kubetest.FakeClient(t, objects()...)
	return startKeyedOn(t, client, "pods", "demo", km)
}

// startKeyedOn starts a root model on kind in ns of client with a key
// map.
func startKeyedOn(t *testing.T, client views.Source, kind, ns string, km views.KeyMap) *harness {
	t.Helper()
	if faults := ui.CheckKeyMap(km); faults != nil {
		t.Fatalf("CheckKeyMap: %v", faults)
	}
	vc := viewtest.Context(client, 0, 0)
	vc.KeyMap = km
	vc.Keys = views.BoundKeys(vc, ui.GlobalKeyTable, views.DefaultGlobalKeys)
	m, err := ui.New(vc, kube.Kind(kind), ns)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, m: m}
	h.send(tea.WindowSizeMsg{Width: 160, Height: 60})
	h.run(m.Init())
	h.clock()
	return h
}

// TestKeyMapRebindsUnbindsAndChords is issue 27's key map on a table: a
// rebound key acts and the old one does not; an unbound action has no
// key; delete moved behind a chord (ctrl+x, then d) opens its
// confirmation only after the second key; the help lists the keys in
// force.
func TestKeyMapRebindsUnbindsAndChords(t *testing.T) {
	h := startKeyed(t, views.KeyMap{
		"table":  {"describe": {"i"}, "delete": {"ctrl+x d"}, "yaml": {}},
		"global": {"help": {"f1"}},
	})
	h.keys("d")
	if got := h.title(); !strings.HasPrefix(got, "pods(demo)") {
		t.Fatalf("d (describe's old key) opened %q", got)
	}
	h.runKey(h.keys("i"))
	if got := h.title(); !strings.Contains(got, "describe") {
		t.Fatalf("i (describe's new key) opened %q\n%s", got, h.m.View())
	}
	h.runKey(h.keys("esc"))
	h.runKey(h.keys("y"))
	if got := h.title(); !strings.HasPrefix(got, "pods(demo)") {
		t.Fatalf("y (YAML, unbound) opened %q", got)
	}
	h.runKey(h.send(tea.KeyMsg{Type: tea.KeyCtrlD}))
	if got := h.title(); !strings.HasPrefix(got, "pods(demo)") {
		t.Fatalf("ctrl+d (delete's old key) opened %q", got)
	}
	h.runKey(h.send(tea.KeyMsg{Type: tea.KeyCtrlX}))
	if got := h.title(); !strings.HasPrefix(got, "pods(demo)") || !strings.Contains(h.promptLine(), "ctrl+x … (a chord") {
		t.Fatalf("ctrl+x alone: title %q, status %q", got, h.promptLine())
	}
	h.runKey(h.keys("z"))
	if !strings.Contains(h.promptLine(), "ctrl+x z: no such key here") {
		t.Fatalf("ctrl+x z: status %q", h.promptLine())
	}
	h.runKey(h.send(tea.KeyMsg{Type: tea.KeyCtrlX}))
	h.runKey(h.keys("d"))
	if got := h.title(); !strings.Contains(strings.ToLower(got), "delete") {
		t.Fatalf("ctrl+x d opened %q\n%s", got, h.m.View())
	}
	h.run(h.keys("esc"))
	if got := h.title(); !strings.HasPrefix(got, "pods(demo)") {
		t.Fatalf("esc left %q on top", got)
	}
	h.keys("?")
	if help := h.m.View(); strings.Contains(help, "Keys") {
		t.Fatalf("? (help's old key) opened the help:\n%s", help)
	}
	h.send(tea.KeyMsg{Type: tea.KeyF1})
	help := h.m.View()
	for _, want := range []string{"f1       help", "i        describe", "ctrl+x d delete"} {
		if !strings.Contains(help, want) {
			t.Errorf("the help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "y        YAML") {
		t.Errorf("the help lists the unbound YAML:\n%s", help)
	}
}

// TestCheckKeyMap is the check at start: each kind of fault names its
// place (keys.TABLE.ACTION) and says why.
func TestCheckKeyMap(t *testing.T) {
	cases := []struct {
		name string
		km   views.KeyMap
		path string
		want string
	}{
		{"unknown table", views.KeyMap{"tabel": {"describe": {"i"}}}, "keys.tabel", "no such key table (the tables: global, table,"},
		{"unknown action", views.KeyMap{"table": {"delet": {"x"}}}, "keys.table.delet", "no such action on the tables of kinds"},
		{"bound twice", views.KeyMap{"table": {"describe": {"ctrl+d"}}}, "keys.table.describe", "ctrl+d is also delete (table table) on the tables of kinds"},
		{"global over a table's", views.KeyMap{"global": {"quit": {"x"}}}, "keys.global.quit", "x is also decode (table table)"},
		{"chord behind its own first key", views.KeyMap{"table": {"delete": {"g d"}}}, "keys.table.delete", "the chord g d starts with g, which is top (table table)"},
		{"chord where keys are text", views.KeyMap{"picker": {"pick": {"ctrl+x y"}}}, "keys.picker.pick", "cannot be bound there"},
		{"chord on an action taken while typing", views.KeyMap{"create": {"preview": {"ctrl+x s"}}}, "keys.create.preview", "preview acts while text is typed on :create"},
		{"a chord ending in esc", views.KeyMap{"table": {"delete": {"ctrl+x esc"}}}, "keys.table.delete", "esc cancels a chord"},
		{"a second back key on a table's", views.KeyMap{"global": {"back": {"esc", "Z"}}}, "keys.global.back", "Z is also resume (table table)"},
		{"a favourite's digit", views.KeyMap{"table": {"describe": {"3"}}}, "keys.table.describe", "namespace favourite's key"},
	}
	for _, c := range cases {
		faults := ui.CheckKeyMap(c.km)
		var kme *ui.KeyMapError
		if len(faults) == 0 || !errors.As(faults[0], &kme) {
			t.Errorf("%s: faults %v, want a KeyMapError first", c.name, faults)
			continue
		}
		if got := strings.Join(kme.Path, "."); got != c.path || !strings.Contains(kme.Msg, c.want) {
			t.Errorf("%s: %s: %s\nwant %s: …%s…", c.name, got, kme.Msg, c.path, c.want)
		}
	}
	// Moving a key: describe takes ctrl+d once delete has another.
	ok := views.KeyMap{"table": {"describe": {"ctrl+d"}, "delete": {"ctrl+x d"}}, "global": {"quit": {"ctrl+q"}}}
	if faults := ui.CheckKeyMap(ok); faults != nil {
		t.Errorf("a moved key: %v", faults)
	}
	// The defaults written out are no fault, esc's pairs included.
	if faults := ui.CheckKeyMap(views.KeyMap{"global": {"back": {"esc"}}, "deploy": {"tab": {"tab"}}, "table": {"clear": {"esc"}}}); faults != nil {
		t.Errorf("the defaults written out: %v", faults)
	}
	if faults := ui.CheckKeyMap(nil); faults != nil {
		t.Errorf("no key map: %v", faults)
	}
	// Every fault at once: two unknown names; the clashes once they are
	// right.
	if faults := ui.CheckKeyMap(views.KeyMap{"tabel": {"x": {"x"}}, "logs": {"folow": {"F"}}, "table": {"describe": {"ctrl+d"}}}); len(faults) != 2 ||
		!strings.HasPrefix(faults[0].Error(), "keys.logs.folow:") || !strings.HasPrefix(faults[1].Error(), "keys.tabel:") {
		t.Errorf("two unknown names: %v", faults)
	}
	if faults := ui.CheckKeyMap(views.KeyMap{"table": {"describe": {"ctrl+d"}}, "logs": {"up": {"f"}}}); len(faults) != 2 {
		t.Errorf("clashes on two screens: %v", faults)
	}
}

// sharedByDesign are the keys a screen binds to two actions on stages
// that never show at once: the deploy form's tab (next field) and its
// preview's (YAML / diff); the answers to the form's questions (y, n, N:
// discard your edits?, remove the service?) and the preview's n, N (next,
// previous match).
var sharedByDesign = map[string][]string{"deploy": {"tab", "y", "n", "N"}}

// TestDefaultKeysHoldNoKeyTwice: on each screen, the default keys are
// held by one action each (the global keys on the screens the root passes
// keys to), but for the esc a screen takes before the root's back
// (BackCapturer) and the keys sharedByDesign.
func TestDefaultKeysHoldNoKeyTwice(t *testing.T) {
	var global []views.KeyAction
	for _, table := range ui.KeyTables() {
		actions := table.Actions(nil)
		if table.Name == ui.GlobalKeyTable {
			global = actions
		}
		if len(actions) == 0 {
			t.Errorf("%s: no actions", table.Name)
		}
		held := map[string]string{}
		all := actions
		if table.Name != ui.GlobalKeyTable && table.Root {
			all = append(append([]views.KeyAction{}, global...), actions...)
		}
		for _, a := range all {
			for _, k := range a.Binding.Keys() {
				if other, ok := held[k]; ok && k != "esc" && !slices.Contains(sharedByDesign[table.Name], k) {
					t.Errorf("%s: %q is %s's and %s's", table.Name, k, other, a.Name)
				}
				held[k] = a.Name
			}
		}
	}
}

// TestKeysCommandListsTheKeysInForce: :keys lists each table's actions
// with the keys the map gives them, marked as the file's, the others as
// defaults; esc goes back.
func TestKeysCommandListsTheKeysInForce(t *testing.T) {
	h := startKeyed(t, views.KeyMap{"table": {"delete": {"ctrl+x d"}, "yaml": {}}})
	h.command("keys")
	if got := h.title(); !strings.HasPrefix(got, "keys[") {
		t.Fatalf(":keys opened %q", got)
	}
	h.keys("/")
	h.typeText("table")
	h.keys("enter")
	v := h.m.View()
	for _, want := range []string{"table — the tables of kinds", "ctrl+x d", "(none)", "file", "default"} {
		if !strings.Contains(v, want) {
			t.Errorf(":keys /table lacks %q:\n%s", want, v)
		}
	}
}

// TestKeyMapChordOnTheConfirmation: a chord reaches a screen the root
// passes keys to (the confirmation: `confirm: {confirm: "ctrl+x y"}`):
// y alone sends nothing; ctrl+x, then y, deletes.
func TestKeyMapChordOnTheConfirmation(t *testing.T) {
	h := startKeyed(t, views.KeyMap{"confirm": {"confirm": {"ctrl+x y"}}})
	open := h.send(tea.KeyMsg{Type: tea.KeyCtrlD})() // the confirmation's OperateMsg
	h.settle(h.send(open))                           // its plan
	if got := h.title(); !strings.HasPrefix(got, "delete pods/web-1") {
		t.Fatalf("ctrl+d opened %q", got)
	}
	if v := h.m.View(); !strings.Contains(v, "ctrl+x y confirm") {
		t.Errorf("the confirmation does not name the chord:\n%s", v)
	}
	h.settle(h.keys("y"))
	if v := h.m.View(); strings.Contains(v, "1 of 1 done") || !strings.HasPrefix(h.title(), "delete pods/web-1") {
		t.Fatalf("y alone confirmed:\n%s", v)
	}
	h.settle(h.send(tea.KeyMsg{Type: tea.KeyCtrlX}))
	h.settle(h.keys("y"))
	if v := h.m.View(); !strings.Contains(v, "1 of 1 done") {
		t.Fatalf("ctrl+x y did not confirm: status %q\n%s", h.promptLine(), v)
	}
}

// TestChordDroppedWhenTheFocusMoves: a chord's first key waiting in one
// pane of a split is dropped when the focus moves away, so a key pressed
// there later is itself (d describes), never the chord's second key (d
// would delete).
func TestChordDroppedWhenTheFocusMoves(t *testing.T) {
	km := views.KeyMap{"table": {"delete": {"ctrl+x d"}}}
	client, _ := kubetest.FakeClient(t, objects()...)
	vc := viewtest.Context(client, 0, 0)
	vc.KeyMap = km
	vc.Keys = views.BoundKeys(vc, ui.GlobalKeyTable, views.DefaultGlobalKeys)
	m, err := ui.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	h := &paneHarness{t: t, p: ui.NewPanes(m)}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.run(h.p.Init())
	h.command("split")
	h.send(tea.KeyMsg{Type: tea.KeyCtrlX})
	h.send(viewtest.Key("ctrl+w"))
	h.send(viewtest.Key("ctrl+w"))
	h.run(h.keys("d"))
	if got := h.title(1); !strings.Contains(got, "describe") {
		t.Fatalf("d after the focus came back opened %q (the chord was kept)", got)
	}
}
