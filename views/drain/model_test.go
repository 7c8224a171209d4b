package drain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/drain"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 110, 20

var node = kube.ObjectRef{Kind: "nodes", Name: "kwok-node-1", UID: "n1"}

func pod(name string) kube.ObjectRef {
	return kube.ObjectRef{Kind: "pods", Namespace: "demo", Name: name}
}

// fake plans two pods to evict and one left; its drain tells the events
// given, then waits for ctx (cancelled: cancelled) or ends as told.
type fake struct {
	verdicts kube.Verdicts
	events   []kube.DrainEvent
	block    bool // wait for ctx after the events
	ran      int
}

func (f *fake) PlanDrain(context.Context, kube.ObjectRef) (*kube.DrainPlan, error) {
	vs := f.verdicts
	if vs == nil {
		vs = kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch nodes"}}
	}
	p := &kube.DrainPlan{Node: node, Verdicts: vs, Pods: []kube.DrainPod{
		{Ref: pod("web-1"), Evict: true}, {Ref: pod("web-2"), Evict: true},
		{Ref: pod("agent-x"), Why: "managed by DaemonSet agent: its controller ignores the cordon"}}}
	if r := vs.Refusal(); r != nil {
		return p, r
	}
	return p, nil
}

func (f *fake) Drain(ctx context.Context, p *kube.DrainPlan, _ []kube.Reason, _ time.Duration, events chan<- kube.DrainEvent) kube.OperateOutcome {
	f.ran++
	for _, ev := range f.events {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	out := kube.OperateOutcome{Op: kube.Operation{Ref: p.Node, Action: kube.ActionDrain}, Written: true}
	if f.block {
		<-ctx.Done()
		out.Reason, out.Detail = kube.ReasonCancelled, "drain of nodes/kwok-node-1 cancelled: 1 pod of 2 evicted; the Node stays cordoned (C uncordons it)"
		return out
	}
	out.Detail = "drained nodes/kwok-node-1: cordoned, 2 pods of 2 evicted; 1 pod left on it"
	return out
}

// drive runs cmd's messages into m until none is left, as the root does
// (an AnswerMsg's outcomes go to out, its message to the screen).
func drive(m views.Screen, cmd tea.Cmd, out *[]views.AnswerMsg) views.Screen {
	if cmd == nil {
		return m
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		// The run and the event waiter: run each in its own goroutine, as
		// Bubble Tea does, feeding their messages in order of arrival.
		msgs := make(chan tea.Msg, len(msg))
		for _, c := range msg {
			go func() { msgs <- c() }()
		}
		for range msg {
			m = feed(m, <-msgs, out)
		}
	case nil:
	default:
		m = feed(m, msg, out)
	}
	return m
}

func feed(m views.Screen, msg tea.Msg, out *[]views.AnswerMsg) views.Screen {
	if a, ok := msg.(views.AnswerMsg); ok {
		*out = append(*out, a)
		msg = a.Msg
	}
	if _, ok := msg.(views.BackMsg); ok || msg == nil {
		return m
	}
	next, cmd := m.Update(msg)
	return drive(next, cmd, out)
}

func TestPlanThenDrain(t *testing.T) {
	f := &fake{events: []kube.DrainEvent{
		{Pod: pod("web-1"), State: "evicting"}, {Pod: pod("web-2"), State: "blocked", Budget: "web-pdb", Detail: "The disruption budget web-pdb needs 2 healthy pods"},
		{Pod: pod("web-1"), State: "gone"}, {Pod: pod("web-2"), State: "gone"}}}
	var answers []views.AnswerMsg
	var m views.Screen = drain.New(viewtest.Context(nil, width, height), f, node, time.Minute)
	m = drive(m, m.Init(), &answers)
	v := m.View()
	viewtest.Size(t, v, width, height)
	viewtest.Golden(t, "plan", v)
	_, cmd := m.Update(viewtest.Key("y"))
	m = drive(m, cmd, &answers)
	if f.ran != 1 || len(answers) != 1 || answers[0].Outcomes[0].Op.Action != kube.ActionDrain {
		t.Fatalf("ran %d, answers %+v", f.ran, answers)
	}
	v = m.View()
	viewtest.Size(t, v, width, height)
	viewtest.Golden(t, "drained", v)
}

func TestProgressAndCancel(t *testing.T) {
	f := &fake{block: true, events: []kube.DrainEvent{
		{Pod: pod("web-1"), State: "gone"}, {Pod: pod("web-2"), State: "blocked", Budget: "web-pdb", Detail: "The disruption budget web-pdb needs 2 healthy pods"}}}
	var answers []views.AnswerMsg
	m := drain.New(viewtest.Context(nil, width, height), f, node, time.Minute)
	drive(m, m.Init(), &answers)
	_, cmd := m.Update(viewtest.Key("y"))
	// Run the drain and take its two events by hand, then esc.
	batch := cmd().(tea.BatchMsg)
	done := make(chan tea.Msg, 1)
	go func() { done <- batch[0]() }()
	waiter := batch[1]
	for range 2 {
		_, waiter = m.Update(waiter())
	}
	v := m.View()
	viewtest.Size(t, v, width, height)
	viewtest.Golden(t, "running", v)
	if !m.CapturesBack() {
		t.Fatal("esc would leave the screen while the drain runs")
	}
	m.Update(viewtest.Key("esc"))
	feed(m, <-done, &answers)
	if len(answers) != 1 || answers[0].Outcomes[0].Reason != kube.ReasonCancelled {
		t.Fatalf("answers %+v", answers)
	}
	if v := m.View(); !strings.Contains(v, "cancelled") || !strings.Contains(v, "stays cordoned") {
		t.Fatalf("after cancel:\n%s", v)
	}
}

func TestRefusedPlanSendsNothing(t *testing.T) {
	f := &fake{verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: "may not create pods/eviction in demo"}}}
	var answers []views.AnswerMsg
	var m views.Screen = drain.New(viewtest.Context(nil, width, height), f, node, time.Minute)
	m = drive(m, m.Init(), &answers)
	_, cmd := m.Update(viewtest.Key("y"))
	if cmd != nil || f.ran != 0 {
		t.Fatal("a refused drain ran")
	}
	if v := m.View(); !strings.Contains(v, "refused: nothing sent") || !strings.Contains(v, "✗ forbidden") {
		t.Fatalf("refused plan:\n%s", v)
	}
}

// TestDrainKeyRebound: with `drain: {drain: D, cancel: none}`, y does not
// drain and n does not leave; D drains; the question and the help line
// name D (and esc, the cancel left).
func TestDrainKeyRebound(t *testing.T) {
	f := &fake{}
	var answers []views.AnswerMsg
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"drain": {"drain": {"D"}, "cancel": {}}}
	var m views.Screen = drain.New(vc, f, node, time.Minute)
	m = drive(m, m.Init(), &answers)
	if v := m.View(); !strings.Contains(v, "drain nodes/kwok-node-1? D/esc") || !strings.Contains(v, "D drain · esc cancel") {
		t.Fatalf("the plan does not name D:\n%s", v)
	}
	for _, k := range []string{"y", "n"} {
		if _, cmd := m.Update(viewtest.Key(k)); cmd != nil || f.ran != 0 {
			t.Fatalf("%s acted (ran %d)", k, f.ran)
		}
	}
	_, cmd := m.Update(viewtest.Key("D"))
	drive(m, cmd, &answers)
	if f.ran != 1 {
		t.Fatalf("D did not drain (ran %d)", f.ran)
	}
}
