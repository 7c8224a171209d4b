package ui_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
)

// TestAliasesAndHotkeys is issue 27's aliases and hotkeys: `:web` opens
// the alias's kind in its namespace with its filter set (as typed after
// /), f2 on a table opens another; an alias of a kind the cluster does
// not serve says so; in the filter, a hotkey's key is text; kyyard's own
// keys cannot be hotkeys.
func TestAliasesAndHotkeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	aliases := map[string]ui.Alias{
		"web":   {Kind: "po", Namespace: "demo", Filter: "web"},
		"gone":  {Kind: "widgets"},
		"every": {Kind: "deploy", Namespace: "all"},
	}
	h := startWith(t, client, "other", 160, 60, ui.WithAliases(aliases, map[string]string{"f2": "every"}))
	h.command("web")
	if got := h.title(); got != "pods(demo)[1/1] /web" {
		t.Fatalf(":web: title %q\n%s", got, h.m.View())
	}
	h.command("gone")
	if status := h.promptLine(); !strings.Contains(status, "widgets is not served here") {
		t.Fatalf(":gone: status %q", status)
	}
	h.runKey(h.send(tea.KeyMsg{Type: tea.KeyF2}))
	if got := h.title(); !strings.HasPrefix(got, "deployments(all)") {
		t.Fatalf("f2: title %q\n%s", got, h.m.View())
	}
	h.keys("?")
	if help := h.m.View(); !strings.Contains(help, ":every (hotkey)") {
		t.Fatalf("the help does not list the hotkey f2:\n%s", help)
	}
	h.keys("esc")
	h.keys(":")
	h.typeText("we")
	h.keys("tab")
	if !strings.Contains(h.m.View(), ":web") {
		t.Fatalf(":we + tab did not complete the alias web:\n%s", h.m.View())
	}
	h.keys("esc")
	for _, k := range []string{"ctrl+n", "d", "5", "ctrl+r", "?", "ctrl+w"} {
		if !ui.ReservedKey(k, nil) {
			t.Errorf("%s is not reserved", k)
		}
	}
	if ui.ReservedKey("f2", nil) || ui.ReservedKey("alt+w", nil) || ui.ReservedKey("d", views.KeyMap{"table": {"describe": {"i"}}}) || !ui.ReservedKey("f2", views.KeyMap{"table": {"describe": {"f2"}}}) {
		t.Error("f2 or alt+w reserved")
	}
}
