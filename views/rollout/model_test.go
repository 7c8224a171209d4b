package rollout_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/viewtest"
)

// reader answers the statuses in turn, the last one again and again.
type reader struct {
	statuses []kube.RolloutStatus
	errs     []error
	calls    int
}

func (r *reader) RolloutStatus(_ context.Context, ref kube.WorkloadRef) (kube.RolloutStatus, error) {
	i := min(r.calls, len(r.statuses)-1)
	r.calls++
	if i < len(r.errs) && r.errs[i] != nil {
		return kube.RolloutStatus{}, r.errs[i]
	}
	st := r.statuses[i]
	st.Ref = ref
	return st, nil
}

var webRef = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}

func status(phase kube.RolloutPhase) kube.RolloutStatus {
	st := kube.RolloutStatus{Phase: phase, Desired: 3, Updated: 2, Ready: 2, Available: 2,
		NewRevision: "web-7c9d5", Revision: "7", OldRevisions: []string{"web-5f6b8 (rev 6)"},
		Pods: []kube.RolloutPod{
			{Name: "web-7c9d5-x2k", Ready: "1/1", Status: "Running", New: true, PodReady: true},
			{Name: "web-7c9d5-zz1", Ready: "0/1", Status: "ContainerCreating", New: true},
			{Name: "web-5f6b8-p9q", Ready: "1/1", Status: "Terminating", Terminating: true},
		}}
	switch phase {
	case kube.RolloutFailed:
		st.Message = `pod web-7c9d5-zz1: container web: ImagePullBackOff: Back-off pulling image "registry.local/web:nope"`
	case kube.RolloutComplete:
		st.Updated, st.Ready, st.Available, st.OldRevisions = 3, 3, 3, nil
		st.Pods = []kube.RolloutPod{
			{Name: "web-7c9d5-x2k", Ready: "1/1", Status: "Running", New: true, PodReady: true},
			{Name: "web-7c9d5-zz1", Ready: "1/1", Status: "Running", New: true, PodReady: true},
			{Name: "web-7c9d5-q7w", Ready: "1/1", Status: "Running", New: true, PodReady: true},
		}
	}
	return st
}

// drive runs cmd and the commands it returns, handing each message to m;
// poll ticks are counted, and the last one kept in tick.
type driver struct {
	m     *rollout.Model
	clock time.Time
	polls int
	tick  tea.Msg
	out   []tea.Msg
}

func (d *driver) run(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case rollout.PollMsg:
			d.polls++
			d.tick = msg
		case rollout.StatusMsg:
			_, next := d.m.Update(msg)
			queue = append(queue, next)
		default:
			d.out = append(d.out, msg)
		}
	}
}

func (d *driver) poll() {
	_, cmd := d.m.Update(d.tick)
	d.run(cmd)
}

func open(r *reader, w, h int) *driver {
	vc := viewtest.Context(nil, w, h)
	d := &driver{clock: viewtest.Now}
	d.m = rollout.New(vc, r, kinds.Deployments{}.Info(), webRef, "restarted demo/deployments/web: its pods are replaced",
		rollout.WithClock(func() time.Time { return d.clock }, 0))
	d.run(d.m.Init())
	return d
}

func TestRolloutFollowsToCompletion(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutProgressing), status(kube.RolloutComplete)}}
	d := open(r, 80, 24)
	d.clock = d.clock.Add(3 * time.Second)
	viewtest.Size(t, d.m.View(), 80, 24)
	viewtest.Golden(t, "rollout-progressing-80x24", d.m.View())
	d.poll()
	if !d.m.Follow().Done || d.m.Follow().Failed() {
		t.Fatalf("not complete: %+v", d.m.Follow())
	}
	polls := d.polls
	if !strings.Contains(d.m.View(), "rollout complete (3/3 updated)") {
		t.Fatalf("no completion:\n%s", d.m.View())
	}
	if d.polls != polls || r.calls != 2 {
		t.Fatalf("still polled after the end: %d calls", r.calls)
	}
	_, cmd := d.m.Update(viewtest.Key("esc"))
	d.run(cmd)
	var back, st bool
	for _, m := range d.out {
		switch m := m.(type) {
		case views.BackMsg:
			back = true
		case views.StatusMsg:
			st = strings.Contains(m.Text, "rollout complete") && !m.Error
		}
	}
	if !back || !st {
		t.Fatalf("esc: %#v", d.out)
	}
}

func TestRolloutFailureShowsTheClustersReason(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutFailed)}}
	d := open(r, 200, 50)
	viewtest.Size(t, d.m.View(), 200, 50)
	viewtest.Golden(t, "rollout-failed-200x50", d.m.View())
	if !d.m.Follow().Failed() || !strings.Contains(d.m.View(), "ImagePullBackOff") {
		t.Fatalf("failure not shown:\n%s", d.m.View())
	}
}

func TestRolloutTimeoutPausedUnfollowed(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutProgressing)}, errs: []error{errors.New("connection refused")}}
	d := open(r, 80, 24)
	if !strings.Contains(d.m.View(), "reading the rollout: connection refused") || d.polls != 1 {
		t.Fatalf("a failed reading:\n%s", d.m.View())
	}
	d.clock = d.clock.Add(rollout.DefaultDeadline)
	d.poll()
	if !d.m.Follow().TimedOut || !strings.Contains(d.m.View(), "rollout_timeout") {
		t.Fatalf("no timeout:\n%s", d.m.View())
	}
	for _, ph := range []kube.RolloutPhase{kube.RolloutPaused, kube.RolloutUnfollowed} {
		d := open(&reader{statuses: []kube.RolloutStatus{status(ph)}}, 80, 24)
		if !d.m.Follow().Done || d.polls != 0 {
			t.Fatalf("%s is followed", ph)
		}
		want := map[kube.RolloutPhase]string{kube.RolloutPaused: "is paused", kube.RolloutUnfollowed: "OnDelete"}[ph]
		if !strings.Contains(d.m.View(), want) {
			t.Fatalf("%s:\n%s", ph, d.m.View())
		}
		// Nothing replaces the old pods while paused or under OnDelete.
		if v := d.m.View(); !strings.Contains(v, "(1 pod left, 1 terminating)") || strings.Contains(v, "draining") {
			t.Fatalf("%s: old pods said to drain:\n%s", ph, v)
		}
	}
}

func TestRolloutUndoAsksForTheConfirmation(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutFailed)}}
	d := &driver{clock: viewtest.Now}
	d.m = rollout.New(viewtest.Context(nil, 80, 24), r, kinds.Deployments{}.Info(), webRef, "", rollout.WithUID("uid-web"),
		rollout.WithClock(func() time.Time { return d.clock }, 0))
	d.run(d.m.Init())
	if !strings.Contains(d.m.View(), "u undo") {
		t.Fatalf("no u on a Deployment's rollout:\n%s", d.m.View())
	}
	_, cmd := d.m.Update(viewtest.Key("u"))
	msg, ok := cmd().(views.OperateMsg)
	want := kube.ObjectRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", UID: "uid-web"}
	if !ok || msg.Action != kube.ActionUndo || len(msg.Targets) != 1 || msg.Targets[0] != want {
		t.Fatalf("u: %#v", msg)
	}
	// Without the UID (or on a StatefulSet) there is no undo.
	plain := open(r, 80, 24)
	if _, cmd := plain.m.Update(viewtest.Key("u")); cmd != nil || strings.Contains(plain.m.View(), "u undo") {
		t.Fatal("u without a UID")
	}
}

// TestRolloutUndoIsTheKindsCapability: u is offered on the rollout of a
// kind whose plugin declares kube.CanUndo, whatever its name, and not on
// one whose plugin does not (a StatefulSet's), UID known in both.
func TestRolloutUndoIsTheKindsCapability(t *testing.T) {
	for _, c := range []struct {
		kind kube.KindInfo
		undo bool
	}{
		{kinds.Deployments{}.Info(), true},
		{kinds.StatefulSets{}.Info(), false},
		{kube.KindInfo{ID: "rollouts", Capabilities: kube.CanRollout | kube.CanUndo}, true},
		{kube.KindInfo{ID: kube.KindDeployments, Capabilities: kube.CanRollout}, false},
	} {
		t.Run(string(c.kind.ID)+"/"+c.kind.Capabilities.String(), func(t *testing.T) {
			r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutFailed)}}
			d := &driver{clock: viewtest.Now}
			ref := kube.WorkloadRef{Kind: c.kind.ID, Namespace: "demo", Name: "web"}
			d.m = rollout.New(viewtest.Context(nil, 80, 24), r, c.kind, ref, "", rollout.WithUID("uid-web"),
				rollout.WithClock(func() time.Time { return d.clock }, 0))
			d.run(d.m.Init())
			_, cmd := d.m.Update(viewtest.Key("u"))
			offered := strings.Contains(d.m.View(), "u undo")
			bound := false
			for _, b := range d.m.Bindings() {
				bound = bound || b.Help().Key == "u"
			}
			if offered != c.undo || bound != c.undo || (cmd != nil) != c.undo {
				t.Fatalf("u offered %v, in the help %v, sends %v; want %v:\n%s", offered, bound, cmd != nil, c.undo, d.m.View())
			}
		})
	}
}

// TestRolloutBarCountsReadyPodsNotUpdatedOnes: a failed rollout whose two
// new pods exist but crash-loop draws no full bar: its cells are updated
// but not ready (▒) and it says 0/2 new ready; a complete one is
// full.
func TestRolloutBarCountsReadyPodsNotUpdatedOnes(t *testing.T) {
	st := kube.RolloutStatus{Phase: kube.RolloutFailed, Desired: 2, Updated: 2,
		NewRevision: "crashy-6d8f", Revision: "1",
		Message: "pod crashy-6d8f-a1: container crashy: CrashLoopBackOff: back-off 2m40s restarting failed container",
		Pods: []kube.RolloutPod{
			{Name: "crashy-6d8f-a1", Ready: "0/1", Status: "CrashLoopBackOff", New: true},
			{Name: "crashy-6d8f-b2", Ready: "0/1", Status: "CrashLoopBackOff", New: true},
		}}
	d := open(&reader{statuses: []kube.RolloutStatus{st}}, 200, 50)
	view := d.m.View()
	viewtest.Size(t, view, 200, 50)
	viewtest.Golden(t, "rollout-none-ready-200x50", view)
	if !strings.Contains(view, "▒▒▒▒▒▒▒▒▒▒▒▒ 0/2 new ready") || strings.Contains(view, "█") {
		t.Fatalf("a rollout with no ready pod drawn as done:\n%s", view)
	}
	done := open(&reader{statuses: []kube.RolloutStatus{status(kube.RolloutComplete)}}, 80, 24)
	if v := done.m.View(); !strings.Contains(v, "████████████ 3/3 new ready") {
		t.Fatalf("a complete rollout:\n%s", v)
	}
}

// TestRolloutOldPodsAreNotDrainingUnlessTerminating: under maxUnavailable
// 0 a new pod that cannot pull its image leaves the three old pods running:
// none of them is said to drain; only pods being deleted are terminating.
func TestRolloutOldPodsAreNotDrainingUnlessTerminating(t *testing.T) {
	st := kube.RolloutStatus{Phase: kube.RolloutFailed, Desired: 3, Updated: 1, Ready: 3, Available: 3,
		NewRevision: "web-7c9d5", Revision: "7", OldRevisions: []string{"web-5f6b8 (rev 6)"},
		Message: `pod web-7c9d5-zz1: container web: ImagePullBackOff: Back-off pulling image "registry.local/web:nope"`,
		Pods: []kube.RolloutPod{
			{Name: "web-7c9d5-zz1", Ready: "0/1", Status: "ImagePullBackOff", New: true},
			{Name: "web-5f6b8-a", Ready: "1/1", Status: "Running", PodReady: true},
			{Name: "web-5f6b8-b", Ready: "1/1", Status: "Running", PodReady: true},
			{Name: "web-5f6b8-c", Ready: "1/1", Status: "Running", PodReady: true},
		}}
	d := open(&reader{statuses: []kube.RolloutStatus{st}}, 80, 24)
	view := d.m.View()
	viewtest.Size(t, view, 80, 24)
	viewtest.Golden(t, "rollout-old-kept-80x24", view)
	if !strings.Contains(view, "(3 pods, none terminating)") || strings.Contains(view, "draining") {
		t.Fatalf("old pods said to drain:\n%s", view)
	}
	if !strings.Contains(view, "▒▒▒▒░░░░░░░░ 0/3 new ready") {
		t.Fatalf("bar:\n%s", view)
	}
	// Old pods whose ReplicaSet is already scaled to 0 (no old revision
	// left) but that still terminate are shown.
	st.OldRevisions = nil
	for i := 1; i < len(st.Pods); i++ {
		st.Pods[i].Terminating, st.Pods[i].Status = true, "Terminating"
	}
	gone := open(&reader{statuses: []kube.RolloutStatus{st}}, 80, 24)
	if v := gone.m.View(); !strings.Contains(v, "old  (3 pods terminating)") || !strings.Contains(v, "web-5f6b8-c") {
		t.Fatalf("terminating old pods:\n%s", v)
	}
}
