package operate_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/viewtest"
)

// triggering answers a trigger as kube does: the Job it created named in
// the outcome (Created).
type triggering struct{ *fake }

func (f triggering) Operate(ctx context.Context, op kube.Operation) (kube.OperateOutcome, error) {
	out, err := f.fake.Operate(ctx, op)
	if err == nil && op.Action == kube.ActionTrigger {
		out.Created = kube.ObjectRef{Kind: kube.KindJobs, Namespace: op.Ref.Namespace, Name: op.Ref.Name + "-manual-29418660"}
		out.Detail = "triggered " + op.Ref.String() + ": created Job " + out.Created.String()
	}
	return out, err
}

// drilling is a views.Source whose DrillDown opens a Job's pods (its
// controller-uid selector), recording what it was asked; the screen reads
// nothing else.
type drilling struct {
	views.Source
	asked []string
}

func (d *drilling) DrillDown(_ context.Context, kind kube.Kind, namespace, name string) (kube.SnapshotRequest, error) {
	d.asked = append(d.asked, string(kind)+" "+namespace+"/"+name)
	return kube.SnapshotRequest{Kinds: []kube.Kind{kube.KindPods}, Namespace: namespace,
		Selector: kube.Selector{Labels: "batch.kubernetes.io/controller-uid=uid-job"}}, nil
}

// cronPlan is a trigger's plan as kube answers it in a namespace without
// a Pod Security level: every guard passes but Pod Security, which warns.
var cronPlan = kube.Verdicts{
	{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
	{Guard: kube.GuardAction, Outcome: kube.OutcomePass, Sentence: "kubectl would allow trigger of cronjobs"},
	{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may create jobs in demo"},
	{Guard: kube.GuardFresh, Outcome: kube.OutcomePass, Sentence: "cronjobs/nightly is the object you saw (UID uid-nightly)"},
	{Guard: kube.GuardManaged, Outcome: kube.OutcomePass, Sentence: "no other tool's markers"},
	{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity,
		Sentence: "namespace demo enforces no Pod Security level: the pods this creates are not checked"},
}

// TestTriggerConfirmsThenOpensTheJobsPods: t's confirmation on a CronJob
// lists the guards and asks y/n (80x24); y triggers it once, with the Pod
// Security warning confirmed; the result names the Job and enter opens its
// pods (the client's drill-down of the Job), replacing this screen.
func TestTriggerConfirmsThenOpensTheJobsPods(t *testing.T) {
	f := triggering{&fake{plans: map[string]kube.Verdicts{"nightly": cronPlan}}}
	src := &drilling{}
	msg := views.OperateMsg{Action: kube.ActionTrigger, Targets: []kube.ObjectRef{ref(kube.KindCronJobs, "nightly")}, Replicas: -1}
	info := kube.KindInfo{ID: kube.KindCronJobs, Capabilities: kube.CanTrigger | kube.CanSuspend}
	h := &harness{t: t, f: f.fake, m: operate.New(viewtest.Context(src, 80, 24), f, info, msg)}
	h.run(h.m.Init())
	h.golden("confirm-trigger-80x24", 80, 24)
	if h.m.Title() != "trigger cronjobs/nightly(demo)" || len(f.ops) != 0 {
		t.Fatalf("title %q, operations before y %v", h.m.Title(), f.ops)
	}
	h.press("y")
	if len(f.ops) != 1 || f.ops[0].Action != kube.ActionTrigger || len(f.ops[0].Confirmed) != 1 || f.ops[0].Confirmed[0] != kube.ReasonPodSecurity {
		t.Fatalf("operated %+v", f.ops)
	}
	h.golden("result-trigger-80x24", 80, 24)
	for _, m := range h.out {
		if _, ok := m.(views.OpenRolloutMsg); ok {
			t.Fatal("a trigger opened a rollout")
		}
	}
	h.press("enter")
	var open *views.OpenKindMsg
	for _, m := range h.out {
		if o, ok := m.(views.OpenKindMsg); ok {
			open = &o
		}
	}
	if open == nil || open.Kind != kube.KindPods || open.Namespace != "demo" || !open.Replace ||
		open.Parent != "jobs/nightly-manual-29418660" || open.Selector.Labels != "batch.kubernetes.io/controller-uid=uid-job" ||
		strings.Join(src.asked, ",") != "jobs demo/nightly-manual-29418660" {
		t.Fatalf("enter opened %+v; drill-downs asked %v", open, src.asked)
	}
}

// TestSuspendOfASuspendedCronJobSendsNothing: when the plan says the
// CronJob is suspended already, the screen says there is nothing to send,
// y sends nothing, and the history gets the "nothing to send" outcome
// (80x24).
func TestSuspendOfASuspendedCronJobSendsNothing(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"nightly": {
		{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
		{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch cronjobs in demo"},
		{Guard: kube.GuardFresh, Outcome: kube.OutcomePass, Sentence: "cronjobs/nightly is the object you saw (UID uid-nightly)"},
		{Guard: kube.GuardAction, Outcome: kube.OutcomePass, Nothing: true, Sentence: "demo/cronjobs/nightly is already suspended: nothing to send"},
	}}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionSuspend, Targets: []kube.ObjectRef{ref(kube.KindCronJobs, "nightly")}, Replicas: -1}, 80, 24)
	h.golden("confirm-suspend-nothing-80x24", 80, 24)
	h.press("y")
	if len(f.ops) != 0 {
		t.Fatalf("sent %+v", f.ops)
	}
	outs := h.outcomes()
	if len(outs) != 1 || !outs[0].OK() || outs[0].Written || !strings.Contains(outs[0].Detail, "already suspended") {
		t.Fatalf("outcomes %+v", outs)
	}
}
