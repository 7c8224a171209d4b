package ui_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
)

// noShells is a client that can browse but not open shells.
type noShells struct{ views.Source }

// TestOpenShell: `s`'s message pushes the shell screen for a client that
// opens sessions; another client gets the reason on the status line.
func TestOpenShell(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", 120, 14)
	h.send(views.OpenShellMsg{Namespace: "demo", Pod: "web-1", UID: "u1"})
	if got := h.m.Top().Title(); got != "shell(demo/web-1)" {
		t.Fatalf("top screen %q; want the shell screen", got)
	}
	plain := startWith(t, noShells{client}, "demo", 120, 14)
	plain.send(views.OpenShellMsg{Namespace: "demo", Pod: "web-1", UID: "u1"})
	if v := plain.m.View(); !strings.Contains(v, "shells are not available with this client") {
		t.Fatalf("view:\n%s", v)
	}
}
