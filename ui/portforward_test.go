package ui_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// forwarding is a client whose forwards are counted when all are stopped.
type forwarding struct {
	*kube.Client
	stops *int
}

func (f forwarding) StopAllPortForwards() { *f.stops++ }

func TestPortForwardDialogListAndQuit(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	stops := 0
	h := startWith(t, forwarding{Client: client, stops: &stops}, "demo", 120, 20)
	h.run(h.send(views.OpenPortForwardMsg{Kind: kube.KindPods, Namespace: "demo", Name: "web-1", UID: "u1"}))
	if v := h.m.View(); !strings.Contains(v, "port-forward pods/web-1 (demo)") || !strings.Contains(v, "the spec declares no port") {
		t.Fatalf("shift+f did not open the dialog:\n%s", v)
	}
	h.run(h.keys("esc"))
	h.command("pf")
	if v := h.m.View(); !strings.Contains(v, "no port-forward runs") || h.m.Top().Title() != "port-forwards[0]" {
		t.Fatalf(":pf:\n%s", v)
	}
	if stops != 0 {
		t.Fatal("forwards stopped before quitting")
	}
	cmd := h.keys("q")
	if cmd == nil || stops != 1 {
		t.Fatalf("q: %d stops", stops)
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q does not quit")
	}
}

// TestPortForwardDialogHelp: `?` in the port-forward dialog (whose fields
// take digits only) opens the root's help overlay, as its bottom bar says,
// and the help's commands name :pf and :history; digits still reach the
// dialog.
func TestPortForwardDialogHelp(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", 160, 40)
	h.run(h.send(views.OpenPortForwardMsg{Kind: kube.KindPods, Namespace: "demo", Name: "web-1", UID: "u1"}))
	h.keys("?")
	v := h.m.View()
	if !strings.Contains(v, "Commands:") {
		t.Fatalf("? in the dialog did not open the help:\n%s", v)
	}
	if !strings.Contains(v, ":pf ") || !strings.Contains(v, ":history") {
		t.Fatalf("the help's commands do not name :pf and :history:\n%s", v)
	}
	h.keys("?")
	h.keys("8", "0")
	if v := h.m.View(); !strings.Contains(v, "other port: [80   ]") {
		t.Fatalf("digits after the help do not reach the dialog:\n%s", v)
	}
}
