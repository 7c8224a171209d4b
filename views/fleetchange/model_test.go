package fleetchange_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleetchange"
	"github.com/kyyard/kyyard/views/viewtest"
)

var ref = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}

func web(image string) kube.Workload {
	return kube.Workload{Ref: ref, UID: "u", ResourceVersion: "1", HasReplicas: true, Replicas: 2,
		Containers: []kube.Container{{Name: "web", Image: image}}}
}

// editor is one fake cluster: its workload, the dry run's verdicts, the
// rollout's phase after a write, and the writes it got.
type editor struct {
	mu       sync.Mutex
	w        kube.Workload
	verdicts kube.Verdicts
	phase    kube.RolloutPhase
	writes   []string // the images written, in order
}

func (e *editor) ReadWorkload(context.Context, kube.WorkloadRef) (kube.Workload, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.w, nil
}

func (e *editor) DryRun(_ context.Context, before, after kube.Workload) (kube.Preview, error) {
	return kube.Preview{Changes: kube.Changes(before, after), Verdicts: e.verdicts}, nil
}

func (e *editor) ApplyWorkload(_ context.Context, before, after kube.Workload, confirmed []kube.Reason) (kube.ApplyResult, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if before.ResourceVersion != e.w.ResourceVersion {
		return kube.ApplyResult{}, &kube.Refusal{Reason: kube.ReasonConflict}
	}
	if r := e.verdicts.Refusal(); r != nil {
		return kube.ApplyResult{}, r
	}
	n, _ := strconv.Atoi(e.w.ResourceVersion)
	after.ResourceVersion = strconv.Itoa(n + 1)
	e.w = after
	e.writes = append(e.writes, after.Containers[0].Image)
	return kube.ApplyResult{Workload: after, Changes: kube.Changes(before, after)}, nil
}

func (e *editor) RolloutStatus(context.Context, kube.WorkloadRef) (kube.RolloutStatus, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	phase := e.phase
	if phase == "" {
		phase = kube.RolloutComplete
	}
	return kube.RolloutStatus{UID: "u", Phase: phase, Message: "ImagePullBackOff: nginx:bad", Desired: 2, Updated: 2}, nil
}

// driver drives the screen as the root would (viewtest.Driver), and
// reads the history's lines it was told, each in its context.
type driver struct {
	viewtest.Driver
	m *fleetchange.Model
}

func (d *driver) run(cmd tea.Cmd) { d.Run(cmd) }

func (d *driver) key(k string) { d.Key(k) }

// history lists the outcomes told, "context: action reason written".
func (d *driver) history() string {
	var out []string
	for _, msg := range d.Out {
		c, ok := msg.(views.ContextMsg)
		if !ok {
			continue
		}
		var outs []kube.OperateOutcome
		switch in := c.Msg.(type) {
		case views.OutcomesMsg:
			outs = in.Outcomes
		case views.AnswerMsg:
			outs = in.Outcomes
		}
		for _, o := range outs {
			out = append(out, fmt.Sprintf("%s: %s %s %v", c.Context, o.Op.Action, o.Reason, o.Written))
		}
	}
	return strings.Join(out, ",")
}

// plan is a change of web's image to nginx:1.28 made in eu, applied to
// eu, us and ap.
func plan(t *testing.T, eds ...*editor) *driver {
	t.Helper()
	base := web("nginx:1.27")
	edited := web("nginx:1.28")
	var targets []fleetchange.Target
	for i, e := range eds {
		targets = append(targets, fleetchange.Target{Context: []string{"eu", "us", "ap"}[i], Editor: e})
	}
	m := fleetchange.New(viewtest.Context(nil, 120, 40), ref, fleetchange.Change{Source: "eu", Base: base, Edited: edited}, targets)
	m.Poll = 0
	d := &driver{Driver: viewtest.Driver{T: t, Screen: m}, m: m}
	d.run(m.Init())
	return d
}

func TestChangeAppliedClusterByCluster(t *testing.T) {
	eu, us, ap := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.26")}, &editor{w: web("nginx:1.27")}
	d := plan(t, eu, us, ap)
	view := d.m.View()
	viewtest.Golden(t, "plan", view)
	for _, want := range []string{"1 eu — planned: 1 change(s), dry run accepted", "web: image: nginx:1.26 → nginx:1.28  (not as in eu before)", "3 ap — planned"} {
		if !strings.Contains(view, want) {
			t.Errorf("plan lacks %q:\n%s", want, view)
		}
	}
	if len(eu.writes)+len(us.writes)+len(ap.writes) != 0 {
		t.Fatal("the plan wrote")
	}
	d.key("y")
	for _, e := range []*editor{eu, us, ap} {
		if len(e.writes) != 1 || e.writes[0] != "nginx:1.28" {
			t.Fatalf("writes %v", e.writes)
		}
	}
	if got := d.history(); got != "eu: apply  true,us: apply  true,ap: apply  true" {
		t.Fatalf("history %q", got)
	}
	if v := d.m.View(); !strings.Contains(v, "3 ap — done: web: rollout complete") {
		t.Fatalf("not done:\n%s", v)
	}
}

// The second cluster's rollout fails: the third is never written, every
// cluster has its line, and u undoes the first two.
func TestChangeStopsAtTheFirstFailureAndUndoes(t *testing.T) {
	eu, us, ap := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27"), phase: kube.RolloutFailed}, &editor{w: web("nginx:1.27")}
	d := plan(t, eu, us, ap)
	d.key("y")
	if len(ap.writes) != 0 || len(us.writes) != 1 {
		t.Fatalf("writes: us %v ap %v", us.writes, ap.writes)
	}
	view := d.m.View()
	viewtest.Golden(t, "stopped", view)
	if !strings.Contains(view, "2 us — failed: us: rollout failed: ImagePullBackOff") || !strings.Contains(view, "3 ap — untouched") {
		t.Fatalf("no stop:\n%s", view)
	}
	// us: its write, then its rollout's failure; ap untouched.
	if got := d.history(); got != "eu: apply  true,us: apply  true,us: apply error true,ap: apply error false" {
		t.Fatalf("history %q", got)
	}
	d.key("u")
	if !strings.Contains(d.m.View(), "u again writes the change back in 2 cluster(s)") || eu.w.Containers[0].Image != "nginx:1.28" {
		t.Fatalf("one u undid without asking:\n%s", d.m.View())
	}
	d.key("u")
	if eu.w.Containers[0].Image != "nginx:1.27" || us.w.Containers[0].Image != "nginx:1.27" || len(ap.writes) != 0 {
		t.Fatalf("undo: eu %s us %s ap writes %v", eu.w.Containers[0].Image, us.w.Containers[0].Image, ap.writes)
	}
	if h := d.history(); !strings.HasSuffix(h, "us: undo  true,eu: undo  true") { // the last changed first
		t.Fatalf("history after the undo %v", d.history())
	}
}

// A read-only cluster refuses its step: the plan says so before anything
// is written; the clusters before it are written, it and the later ones
// are not.
func TestChangeRefusedStepSaidBeforeAnyWrite(t *testing.T) {
	ro := kube.Verdicts{{Outcome: kube.OutcomeRefuse, Reason: kube.ReasonReadOnly, Sentence: "kyyard runs read-only in context us"}}
	eu, us, ap := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27"), verdicts: ro}, &editor{w: web("nginx:1.27")}
	d := plan(t, eu, us, ap)
	if v := d.m.View(); !strings.Contains(v, "2 us — refused: ") || !strings.Contains(v, "the change will stop here") || !strings.Contains(v, "3 ap — planned; not reached") {
		t.Fatalf("the plan does not say:\n%s", v)
	}
	d.key("y")
	if len(eu.writes) != 1 || len(us.writes)+len(ap.writes) != 0 {
		t.Fatalf("writes: eu %v us %v ap %v", eu.writes, us.writes, ap.writes)
	}
	if got := d.history(); got != "eu: apply  true,us: apply read_only false,ap: apply read_only false" {
		t.Fatalf("history %q", got)
	}
}

// A warning is confirmed by typing its answer before anything is written.
func TestChangeWarningsConfirmedFirst(t *testing.T) {
	warn := kube.Verdicts{{Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity, Sentence: "the new pods break restricted"}}
	eu, us := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27"), verdicts: warn}
	d := plan(t, eu, us)
	d.key("y")
	if len(eu.writes) != 0 || !strings.Contains(d.m.View(), `type "y" to confirm pod_security in us`) {
		t.Fatalf("wrote before the warning was confirmed:\n%s", d.m.View())
	}
	d.key("y")
	d.key("enter")
	if len(eu.writes) != 1 || len(us.writes) != 1 {
		t.Fatalf("writes eu %v us %v", eu.writes, us.writes)
	}
}

// slowEditor answers its read and its dry run after its delay each.
type slowEditor struct {
	editor
	delay time.Duration
}

func (e *slowEditor) ReadWorkload(ctx context.Context, ref kube.WorkloadRef) (kube.Workload, error) {
	time.Sleep(e.delay)
	return e.editor.ReadWorkload(ctx, ref)
}

func (e *slowEditor) DryRun(ctx context.Context, before, after kube.Workload) (kube.Preview, error) {
	time.Sleep(e.delay)
	return e.editor.DryRun(ctx, before, after)
}

// BenchmarkPlanTenContexts: planning a change in 10 contexts whose read
// and dry run take 5 to 50 ms each (the slowest plan: 100 ms): the plans
// run in parallel, so the whole takes about the slowest one's time
// (budget 1.2×; ratio reported).
func BenchmarkPlanTenContexts(b *testing.B) {
	var targets []fleetchange.Target
	slowest := 100 * time.Millisecond
	for i := range 10 {
		targets = append(targets, fleetchange.Target{Context: fmt.Sprintf("c%d", i),
			Editor: &slowEditor{editor: editor{w: web("nginx:1.27")}, delay: slowest / 2 * time.Duration(i+1) / 10}})
	}
	m := fleetchange.New(viewtest.Context(nil, 200, 50), ref, fleetchange.Change{Source: "c0", Base: web("nginx:1.27"), Edited: web("nginx:1.28")}, targets)
	var total time.Duration
	for b.Loop() {
		start := time.Now()
		m.Update(m.Init()())
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(slowest), "x-slowest")
}

func (e *editor) PlanOperation(context.Context, kube.Operation) (kube.Verdicts, error) {
	return e.verdicts, nil
}

func (e *editor) Operate(_ context.Context, op kube.Operation) (kube.OperateOutcome, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if r := e.verdicts.Refusal(); r != nil {
		return kube.OperateOutcome{Op: op, Reason: r.Reason}, r
	}
	n, _ := strconv.Atoi(e.w.ResourceVersion)
	e.w.ResourceVersion = strconv.Itoa(n + 1)
	e.writes = append(e.writes, string(op.Action))
	return kube.OperateOutcome{Op: op, Written: true, ResourceVersion: e.w.ResourceVersion}, nil
}

// A restart of marked rows across clusters goes through the same plan:
// guards first, then one cluster after the other; it cannot be undone.
func TestRestartClusterByCluster(t *testing.T) {
	eu, us := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27")}
	m := fleetchange.New(viewtest.Context(nil, 120, 30), ref, fleetchange.Change{Restart: true},
		[]fleetchange.Target{{Context: "eu", Editor: eu}, {Context: "us", Editor: us}})
	m.Poll = 0
	d := &driver{Driver: viewtest.Driver{T: t, Screen: m}, m: m}
	d.run(m.Init())
	if v := m.View(); !strings.Contains(v, "1 eu — planned: restart, no guard refuses") || m.Title() != "restart deployments/web(demo)" {
		t.Fatalf("plan %q:\n%s", m.Title(), v)
	}
	d.key("y")
	if strings.Join(eu.writes, ",") != "restart" || strings.Join(us.writes, ",") != "restart" {
		t.Fatalf("writes eu %v us %v", eu.writes, us.writes)
	}
	if got := d.history(); got != "eu: restart  true,us: restart  true" {
		t.Fatalf("history %q", got)
	}
	d.key("u")
	if v := m.View(); !strings.Contains(v, "a restart cannot be undone") || len(eu.writes) != 1 {
		t.Fatalf("u after a restart:\n%s", v)
	}
}

// A cluster's number leaves it out of the plan: a refusing one then no
// longer stops the change, and it gets its line, nothing sent.
func TestChangeClusterLeftOut(t *testing.T) {
	ro := kube.Verdicts{{Outcome: kube.OutcomeRefuse, Reason: kube.ReasonReadOnly, Sentence: "kyyard runs read-only in context us"}}
	eu, us, ap := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27"), verdicts: ro}, &editor{w: web("nginx:1.27")}
	d := plan(t, eu, us, ap)
	d.key("2")
	if v := d.m.View(); !strings.Contains(v, "2 us — left out of the plan (2 puts it back)") || !strings.Contains(v, "3 ap — planned: 1 change(s)") {
		t.Fatalf("2 did not leave us out:\n%s", v)
	}
	d.key("1")
	d.key("3") // the last in: it stays
	if v := d.m.View(); !strings.Contains(v, "at least one of the 3 clusters stays in the plan") {
		t.Fatalf("every cluster left out:\n%s", v)
	}
	d.key("2") // us back in, first: it refuses
	d.key("y")
	if v := d.m.View(); !strings.Contains(v, "cannot apply: the first cluster in the plan refuses") || len(eu.writes)+len(ap.writes) != 0 {
		t.Fatalf("y with the refusing cluster first:\n%s", v)
	}
	d.key("2")
	d.key("1") // eu and ap in, us out
	d.key("y")
	if len(eu.writes) != 1 || len(us.writes) != 0 || len(ap.writes) != 1 {
		t.Fatalf("writes eu %v us %v ap %v", eu.writes, us.writes, ap.writes)
	}
	if got := d.history(); got != "eu: apply  true,us: apply  false,ap: apply  true" {
		t.Fatalf("history %q", got)
	}
}

// TestChangeKeysRebound: with `change: {apply: A, leave-out: [f1, f2,
// f3]}`, y applies nothing and 2 leaves nothing out; f2 leaves the second
// cluster out (f2 puts it back), A applies to the others.
func TestChangeKeysRebound(t *testing.T) {
	eu, us, ap := &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27")}, &editor{w: web("nginx:1.27")}
	vc := viewtest.Context(nil, 120, 40)
	vc.KeyMap = views.KeyMap{"change": {"apply": {"A"}, "leave-out": {"f1", "f2", "f3"}}}
	targets := []fleetchange.Target{{Context: "eu", Editor: eu}, {Context: "us", Editor: us}, {Context: "ap", Editor: ap}}
	m := fleetchange.New(vc, ref, fleetchange.Change{Source: "eu", Base: web("nginx:1.27"), Edited: web("nginx:1.28")}, targets)
	m.Poll = 0
	d := &driver{Driver: viewtest.Driver{T: t, Screen: m}, m: m}
	d.run(m.Init())
	d.key("2")
	d.key("y")
	if v := m.View(); strings.Contains(v, "left out") || len(eu.writes)+len(us.writes)+len(ap.writes) != 0 || !strings.Contains(v, "A apply cluster by cluster · f1/f2/f3 leave a cluster out") {
		t.Fatalf("2 or y (old keys) acted, or the help line names them:\n%s", v)
	}
	d.Send(tea.KeyMsg{Type: tea.KeyF2})
	if v := m.View(); !strings.Contains(v, "2 us — left out of the plan (f2 puts it back)") {
		t.Fatalf("f2 did not leave us out:\n%s", v)
	}
	d.key("A")
	if len(eu.writes) != 1 || len(us.writes) != 0 || len(ap.writes) != 1 {
		t.Fatalf("writes eu %v us %v ap %v", eu.writes, us.writes, ap.writes)
	}
}
