package operate_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// kyyardManaged is the managed-by guard's verdict on an object of
// kyyard's deploy form (kube.ManagedBy's words, and the field that says
// it), warned or refused.
func kyyardManaged(o kube.Outcome) kube.Verdicts {
	v := kube.Verdict{Guard: kube.GuardManaged, Outcome: o, Reason: kube.ReasonApplicationManaged, KyyardManaged: true,
		Sentence: "managed by kyyard's deploy form (instance shop): kyyard's deploy form may undo this on its next sync"}
	if o == kube.OutcomeWarn {
		v.Confirm = "shop-web"
	}
	return append(append(kube.Verdicts{}, pass...), v)
}

// An object kyyard's deploy form made: the confirmation and a strict
// refusal both point at :apps.
func TestKyyardManagedPointsToApps(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"shop-web": kyyardManaged(kube.OutcomeWarn)}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "shop-web")}}, 200, 50)
	if v := h.m.View(); !strings.Contains(v, "use :apps to change it") {
		t.Fatalf("the confirmation does not point to :apps:\n%s", v)
	}
	f = &fake{plans: map[string]kube.Verdicts{"shop-web": kyyardManaged(kube.OutcomeRefuse)}}
	h = open(t, f, views.OperateMsg{Action: kube.ActionScale, Replicas: 2, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "shop-web")}}, 200, 50)
	h.press("enter")
	h.press("y")
	if len(f.ops) != 0 {
		t.Fatalf("sent %v", f.ops)
	}
	if v := h.m.View(); !strings.Contains(v, "✗ application_managed") || !strings.Contains(v, "use :apps to change it") {
		t.Fatalf("the strict refusal does not point to :apps:\n%s", v)
	}
	// Another tool's object gets no such hint.
	helm := kube.Verdicts{{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged, Confirm: "web",
		Sentence: "managed by Helm (release shop): Helm may undo this on its next sync"}}
	f = &fake{plans: map[string]kube.Verdicts{"web": helm}}
	h = open(t, f, views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}}, 200, 50)
	if v := h.m.View(); strings.Contains(v, ":apps") {
		t.Fatalf("a Helm object points to :apps:\n%s", v)
	}
}
