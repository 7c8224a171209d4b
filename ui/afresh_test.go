package ui_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
)

// TestEveryCommandStartsAfresh: after drilling down (nodes › pods), each
// `:` command that opens a screen of its own (:pf, :apps, :history) shows
// that screen alone, as `:<kind>` does (the tester's trial stacked them:
// `nodes[1] › pods(…)[29] › port-forwards[1]`); esc then stays on it.
func TestEveryCommandStartsAfresh(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	for command, title := range map[string]string{"pf": "port-forwards[", "apps": "apps(", "history": "history[",
		"apps all": "apps(all)[", "port-forwards": "port-forwards["} {
		h := startWith(t, deploying{client}, "demo", 120, 30)
		h.command("ns")
		h.keys("j")
		h.runKey(h.keys("enter"))
		if v := h.m.View(); !strings.Contains(v, "›") {
			t.Fatalf("no drill-down to start from:\n%s", v)
		}
		h.command(command)
		v := h.m.View()
		if got := h.m.Top().Title(); !strings.HasPrefix(got, title) || strings.Contains(v, "›") {
			t.Fatalf(":%s: top %q, title bar:\n%s", command, got, v)
		}
		h.run(h.keys("esc"))
		if got := h.m.Top().Title(); !strings.HasPrefix(got, title) {
			t.Fatalf("esc after :%s went back to %q", command, got)
		}
	}
}

// TestScreenCommandsKeepUnappliedEdits: :history, :pf and :apps would now
// close a form holding an edit, as every other command would: they say so
// and close nothing.
func TestScreenCommandsKeepUnappliedEdits(t *testing.T) {
	h := start(t)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("backspace", "5")
	h.run(h.send(views.OpenObjectMsg{View: views.DescribeView, Kind: "deployments", Namespace: "demo", Name: "web"}))
	top := h.m.Top().Title()
	for _, command := range []string{"history", "pf", "apps", "apps demo"} {
		h.command(command)
		if v := h.m.View(); !strings.Contains(v, ":"+command+" would close 1 unapplied edit") {
			t.Fatalf(":%s:\n%s", command, v)
		}
		if got := h.m.Top().Title(); got != top {
			t.Fatalf(":%s closed a screen: title %q, was %q", command, got, top)
		}
	}
}
