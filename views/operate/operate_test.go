package operate_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fake answers plans and writes by object name and records them.
type fake struct {
	mu      sync.Mutex
	plans   map[string]kube.Verdicts
	refuse  map[string]kube.Reason // Operate refuses these by the API server
	planned []kube.Operation
	ops     []kube.Operation
}

var pass = kube.Verdicts{
	{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
	{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch deployments in demo"},
}

func (f *fake) PlanOperation(_ context.Context, op kube.Operation) (kube.Verdicts, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, op)
	if vs, ok := f.plans[op.Ref.Name]; ok {
		return vs, nil
	}
	return pass, nil
}

func (f *fake) Operate(_ context.Context, op kube.Operation) (kube.OperateOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.ops = append(f.ops, op)
	out := kube.OperateOutcome{Op: op, Verdicts: pass}
	if r, ok := f.refuse[op.Ref.Name]; ok {
		out.Reason, out.Detail = r, op.Ref.Name+" changed since it was read"
		return out, &kube.Refusal{Reason: r, Detail: out.Detail}
	}
	if r := f.plans[op.Ref.Name].Unconfirmed(op.Confirmed); r != nil {
		out.Reason, out.Detail = r.Reason, r.Detail
		return out, r
	}
	out.Written, out.Detail = true, fmt.Sprintf("%sed %s", op.Action, op.Ref)
	return out, nil
}

func ref(kind kube.Kind, name string) kube.ObjectRef {
	return kube.ObjectRef{Kind: kind, Namespace: "demo", Name: name, UID: "uid-" + name}
}

// harness drives the screen and keeps what it sent the root.
type harness struct {
	t   *testing.T
	f   *fake
	m   *operate.Model
	out []tea.Msg
}

func open(t *testing.T, f *fake, msg views.OperateMsg, w, h int) *harness {
	t.Helper()
	var kind kube.KindInfo
	if len(msg.Targets) > 0 {
		p, ok := kinds.Builtin().Lookup(string(msg.Targets[0].Kind))
		if !ok {
			t.Fatalf("no plugin %s", msg.Targets[0].Kind)
		}
		kind = p.Info()
	}
	return openKind(t, f, kind, msg, w, h)
}

// openKind opens the screen on msg's targets, described by kind.
func openKind(t *testing.T, f *fake, kind kube.KindInfo, msg views.OperateMsg, w, h int) *harness {
	t.Helper()
	hs := &harness{t: t, f: f, m: operate.New(viewtest.Context(nil, w, h), f, kind, msg)}
	hs.run(hs.m.Init())
	return hs
}

func (h *harness) run(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case views.BackMsg, views.StatusMsg, views.OutcomesMsg, views.OpenRolloutMsg, views.OpenKindMsg:
			h.out = append(h.out, msg)
		case views.AnswerMsg:
			// As the root: the answer's outcomes recorded, then its message.
			h.out = append(h.out, views.OutcomesMsg{Outcomes: msg.Outcomes, Status: msg.Status})
			_, next := h.m.Update(msg.Msg)
			queue = append(queue, next)
		case tea.KeyMsg, nil:
		default:
			if strings.HasPrefix(fmt.Sprintf("%T", msg), "cursor.") {
				continue // the cursor's blinks
			}
			if fmt.Sprintf("%T", msg) == "tea.sequenceMsg" {
				v := reflect.ValueOf(msg)
				for i := 0; i < v.Len(); i++ {
					c, _ := v.Index(i).Interface().(tea.Cmd)
					queue = append(queue, c)
				}
				continue
			}
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func (h *harness) press(keys ...string) {
	for _, k := range keys {
		var msg tea.KeyMsg
		switch k {
		case "ctrl+d":
			msg = tea.KeyMsg{Type: tea.KeyCtrlD}
		case "backspace":
			msg = tea.KeyMsg{Type: tea.KeyBackspace}
		default:
			msg = viewtest.Key(k)
		}
		_, cmd := h.m.Update(msg)
		h.run(cmd)
	}
}

func (h *harness) typ(s string) {
	for _, r := range s {
		h.press(string(r))
	}
}

// outcomes are the outcomes reported to the history, in order.
func (h *harness) outcomes() []kube.OperateOutcome {
	var outs []kube.OperateOutcome
	for _, m := range h.out {
		if o, ok := m.(views.OutcomesMsg); ok {
			outs = append(outs, o.Outcomes...)
		}
	}
	return outs
}

func (h *harness) golden(name string, w, hgt int) {
	h.t.Helper()
	v := h.m.View()
	viewtest.Size(h.t, v, w, hgt)
	viewtest.Golden(h.t, name, v)
}

func TestRestartConfirmsThenOperatesAndFollowsTheRollout(t *testing.T) {
	f := &fake{}
	h := open(t, f, views.OperateMsg{Action: kube.ActionRestart, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: -1}, 80, 24)
	if len(f.ops) != 0 || len(f.planned) != 1 {
		t.Fatalf("before y: %d plans, %d operations", len(f.planned), len(f.ops))
	}
	h.golden("confirm-restart-80x24", 80, 24)
	big := open(t, &fake{}, views.OperateMsg{Action: kube.ActionScale, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: 3}, 200, 50)
	big.golden("scale-form-200x50", 200, 50)
	h.press("y")
	want := kube.Operation{Ref: ref(kube.KindDeployments, "web"), Action: kube.ActionRestart}
	if len(f.ops) != 1 || fmt.Sprint(f.ops[0]) != fmt.Sprint(want) {
		t.Fatalf("operated %+v, want %+v", f.ops, want)
	}
	outs := h.outcomes()
	if len(outs) != 1 || !outs[0].OK() {
		t.Fatalf("outcomes %+v", outs)
	}
	var ro *views.OpenRolloutMsg
	for _, m := range h.out {
		if o, ok := m.(views.OpenRolloutMsg); ok {
			ro = &o
		}
	}
	if ro == nil || !ro.Replace || ro.Ref != (kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}) {
		t.Fatalf("no rollout opened: %#v", h.out)
	}
}

func TestRefusalIsShownAndNothingOperated(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"web": {
		{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
		{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: "may not patch deployments in demo"},
	}}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionRestart, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: -1}, 200, 50)
	h.golden("confirm-refused-200x50", 200, 50)
	h.press("y", "enter")
	if len(f.ops) != 0 {
		t.Fatalf("a refused action was operated: %+v", f.ops)
	}
	if v := h.m.View(); !strings.Contains(v, "forbidden: may not patch deployments in demo") || !strings.Contains(v, "nothing can be done") {
		t.Fatalf("refusal not shown:\n%s", v)
	}
	h.press("esc")
	if len(h.out) == 0 {
		t.Fatal("esc did not leave")
	}
}

func TestTypedNameConfirmsApplicationManaged(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"shop": append(slices.Clone(pass), kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn,
		Reason: kube.ReasonApplicationManaged, Sentence: "managed by Helm (release shop): Helm may undo this on its next upgrade", Confirm: "shop"})}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "shop")}, Replicas: -1}, 80, 24)
	if !h.m.Capturing() {
		t.Fatal("the typed confirmation does not take the keys")
	}
	h.press("y") // typed into the confirmation, not a yes
	h.press("enter")
	if len(f.ops) != 0 {
		t.Fatal("operated before the name was typed")
	}
	h.press("backspace")
	h.typ("sho")
	h.press("enter")
	if !strings.Contains(h.m.View(), "type it exactly") {
		t.Fatalf("a wrong text is not said:\n%s", h.m.View())
	}
	h.press("backspace", "backspace", "backspace")
	h.typ("shop")
	h.golden("confirm-typed-80x24", 80, 24)
	h.press("enter")
	if h.m.Capturing() || len(f.ops) != 0 {
		t.Fatal("after the name: still typing, or operated without y")
	}
	h.press("y")
	if len(f.ops) != 1 || !slices.Equal(f.ops[0].Confirmed, []kube.Reason{kube.ReasonApplicationManaged}) || f.ops[0].Action != kube.ActionDelete {
		t.Fatalf("operated %+v", f.ops)
	}
	if outs := h.outcomes(); len(outs) != 1 || !outs[0].OK() {
		t.Fatalf("outcomes %+v", outs)
	}
}

func TestBulkOneFailureAmongThree(t *testing.T) {
	f := &fake{refuse: map[string]kube.Reason{"api": kube.ReasonConflict}}
	targets := []kube.ObjectRef{ref(kube.KindDeployments, "web"), ref(kube.KindDeployments, "api"), ref(kube.KindDeployments, "worker")}
	h := open(t, f, views.OperateMsg{Action: kube.ActionRestart, Targets: targets, Replicas: -1}, 80, 24)
	h.golden("confirm-bulk-80x24", 80, 24)
	h.press("y")
	if len(f.ops) != 3 {
		t.Fatalf("operated %d of 3", len(f.ops))
	}
	outs := h.outcomes()
	if len(outs) != 3 || !outs[0].OK() || outs[1].Reason != kube.ReasonConflict || !outs[2].OK() {
		t.Fatalf("outcomes %+v", outs)
	}
	for _, m := range h.out {
		if _, ok := m.(views.OpenRolloutMsg); ok {
			t.Fatal("a bulk action opened a rollout")
		}
	}
	h.golden("result-bulk-80x24", 80, 24)
	h2 := open(t, &fake{refuse: map[string]kube.Reason{"api": kube.ReasonConflict}}, views.OperateMsg{Action: kube.ActionRestart, Targets: targets, Replicas: -1}, 200, 50)
	h2.press("y")
	h2.golden("result-bulk-200x50", 200, 50)
}

func TestScaleForm(t *testing.T) {
	f := &fake{}
	h := open(t, f, views.OperateMsg{Action: kube.ActionScale, Targets: []kube.ObjectRef{ref(kube.KindStatefulSets, "db")}, Replicas: 3}, 80, 24)
	if len(f.planned) != 0 || !h.m.Capturing() {
		t.Fatal("the scale form planned before enter")
	}
	h.golden("scale-form-80x24", 80, 24)
	h.press("backspace")
	h.typ("x")
	h.press("enter")
	if len(f.planned) != 0 || !strings.Contains(h.m.View(), "whole number") {
		t.Fatalf("a malformed value was planned:\n%s", h.m.View())
	}
	h.press("backspace")
	h.typ("5")
	h.golden("scale-form-typed-80x24", 80, 24)
	h.press("enter")
	if len(f.planned) != 1 || f.planned[0].Replicas != 5 {
		t.Fatalf("planned %+v", f.planned)
	}
	h.press("y")
	if len(f.ops) != 1 || f.ops[0].Replicas != 5 || f.ops[0].Action != kube.ActionScale || f.ops[0].Ref.UID != "uid-db" {
		t.Fatalf("operated %+v", f.ops)
	}
	// The replicas the dialog showed go with it: a scale made in between
	// is refused, not overwritten unseen.
	if c := f.ops[0].CurrentReplicas; c == nil || *c != 3 {
		t.Fatalf("the scale does not carry the replicas shown (3): %v", c)
	}
}

func TestPodDeleteGracefulOrForce(t *testing.T) {
	f := &fake{}
	h := open(t, f, views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindPods, "web-7c9d5-x2k")}, Replicas: -1}, 80, 24)
	if !strings.Contains(h.m.View(), "gracefully") {
		t.Fatalf("no graceful default:\n%s", h.m.View())
	}
	h.press("f")
	if len(f.planned) != 2 || !f.planned[1].Force {
		t.Fatalf("f did not plan a forced delete: %+v", f.planned)
	}
	h.golden("confirm-force-delete-80x24", 80, 24)
	h.press("y")
	if len(f.ops) != 1 || !f.ops[0].Force || f.ops[0].GracePeriodSeconds == nil || *f.ops[0].GracePeriodSeconds != 0 {
		t.Fatalf("operated %+v", f.ops)
	}
	for _, m := range h.out {
		if _, ok := m.(views.OpenRolloutMsg); ok {
			t.Fatal("a pod delete opened a rollout")
		}
	}
}

// A strict policy refuses a warning (here pod_security): every object is
// refused, nothing can be sent, and the refusal reaches the session's
// history as soon as the plans are read, with no key pressed.
func TestStrictRefusalGoesToHistory(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"web": append(slices.Clone(pass), kube.Verdict{Guard: kube.GuardPodSecurity,
		Outcome: kube.OutcomeRefuse, Reason: kube.ReasonPodSecurity, Sentence: "namespace demo enforces no Pod Security level (strict)"})}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionRestart, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: -1}, 80, 24)
	if v := h.m.View(); !strings.Contains(v, "1 object refused: not sent") {
		t.Fatalf("refusal not shown:\n%s", v)
	}
	outs := h.outcomes()
	if len(outs) != 1 || outs[0].Reason != kube.ReasonPodSecurity || outs[0].Op.Action != kube.ActionRestart ||
		outs[0].Op.Ref.Name != "web" || outs[0].Written || !strings.Contains(outs[0].Detail, "not sent") {
		t.Fatalf("outcomes %+v", outs)
	}
	h.press("y", "esc")
	n := 0
	for _, m := range h.out {
		if _, ok := m.(views.OutcomesMsg); ok {
			n++
		}
	}
	if len(f.ops) != 0 || n != 1 {
		t.Fatalf("%d operations, %d reports of the refusal", len(f.ops), n)
	}
}

// TestNothingToSendIsNotAsked: z on a Deployment already paused (its plan
// says nothing would be sent) asks no y/n and sends nothing; the outcome,
// "already paused: nothing to send", goes to the history once, not as a
// pause done (the tester's trial: y gave "pause: 1 of 1 done").
func TestNothingToSendIsNotAsked(t *testing.T) {
	f := &fake{plans: map[string]kube.Verdicts{"web": append(slices.Clone(pass[:1]), kube.Verdict{Guard: kube.GuardAction,
		Outcome: kube.OutcomePass, Sentence: "demo/deployments/web already paused: nothing to send", Nothing: true})}}
	h := open(t, f, views.OperateMsg{Action: kube.ActionPause, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: -1}, 80, 24)
	if v := h.m.View(); strings.Contains(v, "y/n") || !strings.Contains(v, "nothing to send · esc back") {
		t.Fatalf("the confirmation asks:\n%s", v)
	}
	outs := h.outcomes()
	if len(outs) != 1 || outs[0].Reason != "" || outs[0].Written || outs[0].Detail != "demo/deployments/web already paused: nothing to send" {
		t.Fatalf("outcomes %+v", outs)
	}
	h.press("y", "esc")
	if len(f.ops) != 0 {
		t.Fatalf("%d operations sent", len(f.ops))
	}
}

// TestScaleReplicasInputs: the scale dialog reads replicas with the one
// parser the workload form reads them with (kube.ParseReplicas), tested
// with the same table (viewtest.ReplicasInputs): " 4" and " 3" are taken
// alike, an empty field is "required", and a refusal plans nothing and
// says the parser's words.
func TestScaleReplicasInputs(t *testing.T) {
	for _, in := range viewtest.ReplicasInputs {
		f := &fake{}
		h := open(t, f, views.OperateMsg{Action: kube.ActionScale, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: 2}, 80, 24)
		h.press("ctrl+u")
		_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(in.Typed), Paste: true})
		h.run(cmd)
		h.press("enter")
		v := h.m.View()
		if in.Err != "" {
			if len(f.planned) != 0 || !strings.Contains(v, "replicas: "+in.Err) {
				t.Errorf("%q: planned %+v, view:\n%s", in.Typed, f.planned, v)
			}
			continue
		}
		if len(f.planned) != 1 || f.planned[0].Replicas != in.Want {
			t.Errorf("%q: planned %+v, want replicas %d; view:\n%s", in.Typed, f.planned, in.Want, v)
		}
	}
}

// TestRolloutFollowsTheKindsCapability: after a single written restart,
// the screen goes on to the rollout of a kind whose plugin declares
// kube.CanRollout, whatever its name, and not of one that does not.
func TestRolloutFollowsTheKindsCapability(t *testing.T) {
	for _, c := range []struct {
		kind   kube.KindInfo
		follow bool
	}{
		{kube.KindInfo{ID: kube.KindDeployments, Capabilities: kube.CanRestart | kube.CanRollout}, true},
		{kube.KindInfo{ID: "rollouts", Capabilities: kube.CanRestart | kube.CanRollout}, true},
		{kube.KindInfo{ID: "rollouts", Capabilities: kube.CanRestart}, false},
	} {
		f := &fake{}
		h := openKind(t, f, c.kind, views.OperateMsg{Action: kube.ActionRestart, Targets: []kube.ObjectRef{ref(c.kind.ID, "web")}, Replicas: -1}, 80, 24)
		h.press("y")
		followed := false
		for _, m := range h.out {
			_, ok := m.(views.OpenRolloutMsg)
			followed = followed || ok
		}
		if len(f.ops) != 1 || followed != c.follow {
			t.Fatalf("%s (%s): %d operations, rollout opened %v, want %v", c.kind.ID, c.kind.Capabilities, len(f.ops), followed, c.follow)
		}
	}
}
