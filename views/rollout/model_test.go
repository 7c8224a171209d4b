package rollout_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
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
			{Name: "web-7c9d5-x2k", Ready: "1/1", Status: "Running", New: true},
			{Name: "web-7c9d5-zz1", Ready: "0/1", Status: "ContainerCreating", New: true},
			{Name: "web-5f6b8-p9q", Ready: "1/1", Status: "Terminating"},
		}}
	switch phase {
	case kube.RolloutFailed:
		st.Message = `pod web-7c9d5-zz1: container web: ImagePullBackOff: Back-off pulling image "registry.local/web:nope"`
	case kube.RolloutComplete:
		st.Updated, st.Ready, st.Available, st.OldRevisions, st.Pods = 3, 3, 3, nil, st.Pods[:2]
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
	d.m = rollout.New(vc, r, webRef, "restarted demo/deployments/web: its pods are replaced",
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
		if v := d.m.View(); !strings.Contains(v, "(1 pod left)") || strings.Contains(v, "draining") {
			t.Fatalf("%s: old pods said to drain:\n%s", ph, v)
		}
	}
}

func TestRolloutUndoAsksForTheConfirmation(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{status(kube.RolloutFailed)}}
	d := &driver{clock: viewtest.Now}
	d.m = rollout.New(viewtest.Context(nil, 80, 24), r, webRef, "", rollout.WithUID("uid-web"),
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
