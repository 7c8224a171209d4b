package deploy_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/viewtest"
)

// reported are the outcomes the screen reported to the history.
func reported(h *harness) []kube.OperateOutcome {
	var out []kube.OperateOutcome
	for _, m := range rootMsgs[views.OutcomesMsg](h) {
		out = append(out, m.Outcomes...)
	}
	return out
}

var shopRef = kube.ObjectRef{Kind: kube.KindApps, Namespace: "demo", Name: "shop"}

// A deploy, done or stopped, is one entry of the history on the
// instance, with the status line's words; a preview a guard refuses is
// one too, and nothing is deployed.
func TestDeployGoesToHistory(t *testing.T) {
	failed := steps(kube.StepSkipped)
	failed[0].Outcome = kube.StepDone
	failed[1].Outcome, failed[1].Reason = kube.StepFailed, kube.ReasonConflict
	for _, tc := range []struct {
		result kube.DeployResult
		reason kube.Reason
		detail string
	}{
		{kube.DeployResult{Steps: steps(kube.StepDone)}, "", "deployed shop in demo: 7 steps done"},
		{kube.DeployResult{Steps: failed, Reason: kube.ReasonConflict}, kube.ReasonConflict, "deploy of shop stopped: conflict (1 done, 1 failed, 5 skipped)"},
	} {
		f := &fakeDeployer{plan: plan(), result: tc.result}
		h := openRecord(t, f, 80, 24)
		h.press("ctrl+s")
		h.until("the plan", func() bool { return h.has("dry run  ✓") })
		if n := len(reported(h)); n != 0 {
			t.Fatalf("a preview that allows the deploy reported %d outcomes", n)
		}
		h.typ("y")
		h.press("enter")
		h.until("the end", func() bool { return len(reported(h)) > 0 })
		outs := reported(h)
		if len(outs) != 1 || outs[0].Op.Ref != shopRef || outs[0].Op.Action != kube.ActionDeploy ||
			outs[0].Reason != tc.reason || outs[0].Detail != tc.detail || !outs[0].Written {
			t.Fatalf("outcomes %+v", outs)
		}
	}
	f := &fakeDeployer{plan: plan()}
	f.plan.Verdicts[1].Outcome = kube.OutcomeRefuse // strict: Pod Security refuses
	h := openRecord(t, f, 80, 24)
	h.press("ctrl+s")
	h.until("the refusal", func() bool { return len(reported(h)) > 0 })
	h.press("enter")
	outs := reported(h)
	if len(f.deployed) != 0 || len(outs) != 1 || outs[0].Reason != kube.ReasonPodSecurity || outs[0].Op.Action != kube.ActionDeploy ||
		outs[0].Written || !strings.Contains(outs[0].Detail, "not sent") {
		t.Fatalf("deployed %v; outcomes %+v", f.deployed, outs)
	}
}

// A remove, done or refused at its plan, is one entry of the history on
// the instance.
func TestRemoveGoesToHistory(t *testing.T) {
	f := &fakeRemover{plan: kube.DeployResult{Steps: removeSteps(kube.StepPending)}, result: kube.DeployResult{Steps: removeSteps(kube.StepDone)}}
	h := newHarness(t, deploy.NewRemove(viewtest.Context(nil, 80, 24), f, "demo", "shop"), 80, 24)
	h.until("the plan", func() bool { return h.has("type \"shop\"") })
	h.typ("shop")
	h.press("enter")
	h.until("the end", func() bool { return len(reported(h)) > 0 })
	outs := reported(h)
	if len(outs) != 1 || outs[0].Op.Ref != shopRef || outs[0].Op.Action != kube.ActionRemove || !outs[0].OK() || !outs[0].Written ||
		outs[0].Detail != "removed shop from demo: 4 objects deleted, 1 kept" {
		t.Fatalf("outcomes %+v", outs)
	}
	f = &fakeRemover{planErr: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "may not delete deployments in demo"}}
	h = newHarness(t, deploy.NewRemove(viewtest.Context(nil, 80, 24), f, "demo", "shop"), 80, 24)
	h.until("the refusal", func() bool { return h.has("cannot remove") && len(reported(h)) > 0 })
	outs = reported(h)
	if len(outs) != 1 || outs[0].Reason != kube.ReasonForbidden || outs[0].Op.Action != kube.ActionRemove || outs[0].Written ||
		!strings.Contains(outs[0].Detail, "may not delete deployments in demo") {
		t.Fatalf("outcomes %+v", outs)
	}
}

// A deploy left while it runs (a `:` command closes the screen, which
// stops it) is recorded as it ended, its steps done written: the screen
// that would have reported it is gone.
func TestDeployLeftWhileItRunsGoesToHistory(t *testing.T) {
	f := &fakeDeployer{plan: plan(), progress: steps(kube.StepDone)[:2], gate: make(chan struct{})}
	h := openRecord(t, f, 80, 24)
	h.press("ctrl+s")
	h.until("the plan", func() bool { return h.has("dry run  ✓") })
	h.typ("y")
	h.press("enter")
	h.until("the first steps", func() bool { return h.has("2 of 7") })
	h.gone = true
	h.scr.(views.Closer).Close()
	h.until("the end recorded", func() bool { return len(reported(h)) > 0 })
	outs := reported(h)
	if len(outs) != 1 || outs[0].Op.Ref != shopRef || outs[0].Op.Action != kube.ActionDeploy || !outs[0].Written ||
		outs[0].OK() || !strings.Contains(outs[0].Detail, "deploy of shop failed: ") {
		t.Fatalf("outcomes %+v", outs)
	}
}
