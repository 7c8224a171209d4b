package deploy_test

import (
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestDiscardKeysRebound: with `deploy: {discard: D}`, the question esc
// asks on an edited form names D; y does not answer it, D leaves.
func TestDiscardKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"deploy": {"discard": {"D"}}}
	h := newHarness(t, deploy.New(vc, &fakeDeployer{}, "demo", "", deploy.WithClock(fixedClock)), 80, 24)
	h.typ("shop")
	h.press("esc")
	if !h.has("discard your edits? D/n") {
		t.Fatalf("the question does not name D:\n%s", h.view())
	}
	h.press("y")
	if len(rootMsgs[views.BackMsg](h)) != 0 {
		t.Fatal("y (discard's old key) left the form")
	}
	h.press("D")
	if len(rootMsgs[views.BackMsg](h)) != 1 {
		t.Fatalf("D (discard's new key) did not leave:\n%s", h.view())
	}
}

// TestRemoveKeysRebound: with `remove: {remove: ctrl+s}`, enter after the
// instance name removes nothing; ctrl+s removes, and the help line says
// so.
func TestRemoveKeysRebound(t *testing.T) {
	f := &fakeRemover{plan: kube.DeployResult{Steps: removeSteps(kube.StepPending)}, result: kube.DeployResult{Steps: removeSteps(kube.StepDone)}}
	vc := viewtest.Context(nil, 120, 30)
	vc.KeyMap = views.KeyMap{"remove": {"remove": {"ctrl+s"}}}
	h := newHarness(t, deploy.NewRemove(vc, f, "demo", "shop"), 120, 30)
	h.until("the plan", func() bool { return h.has("type \"shop\"") })
	h.typ("shop")
	h.press("enter")
	if len(f.removed) != 0 || !h.has("ctrl+s remove · esc cancel") {
		t.Fatalf("enter (remove's old key) removed %v, or ctrl+s is not named:\n%s", f.removed, h.view())
	}
	h.press("ctrl+s")
	h.until("the end", func() bool { return h.has("✓ removed shop") })
	if len(f.removed) != 1 {
		t.Fatalf("removed %v", f.removed)
	}
}
