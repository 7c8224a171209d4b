package workload

import (
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestDiscardKeysRebound: with `form: {discard: D, keep: K}`, the
// question esc asks on an edited form names D/K; y and n do not answer
// it; K keeps the form, D leaves it.
func TestDiscardKeysRebound(t *testing.T) {
	f := newFake(webWorkload())
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"form": {"discard": {"D"}, "keep": {"K"}}}
	h := &harness{t: t, ed: f, clock: viewtest.Now}
	h.m = New(vc, f, kindInfo(t, webRef.Kind), webRef)
	h.m.now = func() time.Time { return h.clock }
	h.m.poll = 0
	h.m.watch.every = -1
	h.run(h.m.Init())
	h.focusOn(fkReplicas, -1, 0)
	h.replace("4")
	h.press("esc")
	if !strings.Contains(h.view(), "discard your edits? D/K") {
		t.Fatalf("the question does not name D/K:\n%s", h.view())
	}
	h.press("y", "n")
	if !h.m.asking || len(h.out) != 0 {
		t.Fatalf("y or n (old keys) answered: asking %v, out %v", h.m.asking, h.out)
	}
	h.press("K")
	if h.m.asking || h.m.form.replicas != "4" {
		t.Fatal("K did not keep the edits")
	}
	h.press("esc", "D")
	if len(h.out) != 1 {
		t.Fatal("D did not leave")
	}
}

// TestRolloutHelpNamesTheKeysInForce: the rollout page's help line names
// the form table's keys as the key map binds them, an unbound one not at
// all (it named e and esc after a rebind).
func TestRolloutHelpNamesTheKeysInForce(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"form": {"edit": {"E"}, "back": {"ctrl+b"}}}
	m := New(vc, newFake(webWorkload()), kindInfo(t, webRef.Kind), webRef)
	m.ro = &rolloutState{f: &rollout.Follow{}}
	if got := m.rolloutHelp(); got != "E edit again · ctrl+b back (the rollout goes on)" {
		t.Fatalf("rollout help %q", got)
	}
	vc.KeyMap = views.KeyMap{"form": {"edit": {}}}
	m = New(vc, newFake(webWorkload()), kindInfo(t, webRef.Kind), webRef)
	m.ro = &rolloutState{f: &rollout.Follow{Done: true}}
	if got := m.rolloutHelp(); got != "esc back" {
		t.Fatalf("rollout help with edit unbound %q", got)
	}
}
