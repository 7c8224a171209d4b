package ui_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// TestCopyKey: T on a pod row opens the copy screen of that pod; in
// read-only mode it sends nothing and says why, and the refusal is an
// outcome of action copy.
func TestCopyKey(t *testing.T) {
	client, cs := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", 120, 14)
	h.runKey(h.keys("T"))
	if got := h.m.Top().Title(); got != "copy demo/web-1" {
		t.Fatalf("T on a pod: top screen %q", got)
	}
	ro := startWith(t, modes{Client: client, readOnly: true}, "demo", 120, 14)
	before := len(cs.Actions())
	ro.runKey(ro.keys("T"))
	if v := ro.m.View(); !strings.Contains(v, "no file is copied") || ro.m.Top().Title() == "copy demo/web-1" {
		t.Fatalf("T in read-only mode:\n%s", v)
	}
	if n := len(cs.Actions()) - before; n != 0 {
		t.Errorf("T in read-only mode sent %d requests", n)
	}
	ro.command("history")
	if v := ro.m.View(); !strings.Contains(v, "copy") || !strings.Contains(v, "read_only") {
		t.Errorf(":history after the refusal:\n%s", v)
	}
	h.command("deploy")
	h.runKey(h.keys("T"))
	if v := h.m.View(); !strings.Contains(v, "files are copied to and from pods and containers") {
		t.Errorf("T on a Deployment:\n%s", v)
	}
}

// TestOwnerTreeKey: o on a row opens the owner tree of its object.
func TestOwnerTreeKey(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", 120, 14)
	h.runKey(h.keys("o"))
	if got := h.m.Top().Title(); got != "owners pods/web-1" {
		t.Fatalf("o on a pod: top screen %q", got)
	}
}

// TestEventsKeyAndTimeline: v on a row opens the events of its object;
// :timeline all is the events of every namespace.
func TestEventsKeyAndTimeline(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", 120, 14)
	h.runKey(h.keys("v"))
	if got := h.m.Top().Title(); got != "events pods/web-1" {
		t.Fatalf("v on a pod: top screen %q", got)
	}
	// A filter kept (typed, then enter): esc clears it first, as the
	// screen's help says, then goes back (a trial: the root's esc left).
	h.keys("/", "w", "enter", "esc")
	if got := h.m.Top().Title(); got != "events pods/web-1" {
		t.Fatalf("esc with a filter: top screen %q", got)
	}
	h.keys("esc")
	if got := h.m.Top().Title(); got == "events pods/web-1" {
		t.Fatalf("esc without a filter stayed on %q", got)
	}
	h.command("timeline all")
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "events(all)") {
		t.Fatalf(":timeline all: top screen %q", got)
	}
}
