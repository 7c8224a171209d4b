package rollout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/viewtest"
)

// withUID is status(phase) read from the workload of that UID.
func withUID(phase kube.RolloutPhase, uid string) kube.RolloutStatus {
	st := status(phase)
	st.UID = uid
	return st
}

// TestFollowNoticesARecreatedWorkload: a reading of another UID than the
// first ends the follow, keeping the last reading of the workload
// followed; the summary says what happened.
func TestFollowNoticesARecreatedWorkload(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{
		withUID(kube.RolloutProgressing, "uid-1"), withUID(kube.RolloutProgressing, "uid-1"),
		withUID(kube.RolloutProgressing, "uid-2"), withUID(kube.RolloutComplete, "uid-2"),
	}}
	d := open(r, 80, 24)
	f := d.m.Follow()
	if f.UID != "uid-1" || f.Done {
		t.Fatalf("first reading: UID %q, done %v", f.UID, f.Done)
	}
	d.poll()
	if f.Done {
		t.Fatal("the same UID ended the follow")
	}
	d.clock = d.clock.Add(4 * time.Second)
	d.poll()
	if !f.Done || !f.Recreated || f.Deleted || !f.Gone() || !f.Failed() || f.TimedOut {
		t.Fatalf("recreated: %+v", f)
	}
	if f.Status.UID != "uid-1" {
		t.Errorf("the last reading kept is the new workload's: %q", f.Status.UID)
	}
	want := "deployments/web was deleted and created again (new UID); the rollout followed is gone"
	if got := f.Summary("demo/deployments/web"); got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	polls := d.polls
	if r.calls != 3 || d.polls != polls {
		t.Errorf("read %d times after the end", r.calls)
	}
	viewtest.Size(t, d.m.View(), 80, 24)
	viewtest.Golden(t, "rollout-recreated-80x24", d.m.View())
}

// TestFollowNoticesADeletedWorkload: a Missing reading ends the follow,
// the first or a later one.
func TestFollowNoticesADeletedWorkload(t *testing.T) {
	missing := kube.RolloutStatus{Missing: true}
	r := &reader{statuses: []kube.RolloutStatus{withUID(kube.RolloutProgressing, "uid-1"), missing}}
	d := open(r, 80, 24)
	d.poll()
	f := d.m.Follow()
	if !f.Done || !f.Deleted || f.Recreated || !f.Failed() {
		t.Fatalf("deleted: %+v", f)
	}
	if f.Status.Missing || !f.Have || f.Status.Updated != 2 {
		t.Errorf("the last reading of the workload is not kept: %+v", f.Status)
	}
	if got, want := f.Summary("demo/deployments/web"), "deployments/web was deleted"; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	if v := d.m.View(); !strings.Contains(v, "deployments/web was deleted") || !strings.Contains(v, "deleted ·") {
		t.Errorf("view:\n%s", v)
	}

	first := open(&reader{statuses: []kube.RolloutStatus{missing}}, 80, 24)
	if f := first.m.Follow(); !f.Done || !f.Deleted || f.Have || first.polls != 0 {
		t.Fatalf("deleted at the first reading: %+v", f)
	}
}

// TestFollowKnownUID: the UID the person saw is the one followed: a first
// reading of another UID is a recreated workload, and undo is no longer
// offered.
func TestFollowKnownUID(t *testing.T) {
	r := &reader{statuses: []kube.RolloutStatus{withUID(kube.RolloutFailed, "uid-new")}}
	d := &driver{clock: viewtest.Now}
	d.m = rollout.New(viewtest.Context(nil, 80, 24), r, kinds.Deployments{}.Info(), webRef, "", rollout.WithUID("uid-web"),
		rollout.WithClock(func() time.Time { return d.clock }, 0))
	d.run(d.m.Init())
	f := d.m.Follow()
	if !f.Recreated || f.Have {
		t.Fatalf("a first reading of another UID: %+v", f)
	}
	if v := d.m.View(); strings.Contains(v, "u undo") || !strings.Contains(v, "created again (new UID)") {
		t.Errorf("view:\n%s", v)
	}
	if _, cmd := d.m.Update(viewtest.Key("u")); cmd != nil {
		t.Error("u undoes a workload that was created again")
	}
}

// TestFollowWithoutUIDs: readings without a UID (an older reader) never
// end the follow as recreated.
func TestFollowWithoutUIDs(t *testing.T) {
	f := rollout.NewFollow(webRef, viewtest.Now, time.Minute, 0)
	for _, uid := range []string{"", "uid-1", ""} {
		st := withUID(kube.RolloutProgressing, uid)
		f.Take(statusMsg(t, f, st), viewtest.Now)
		if f.Done {
			t.Fatalf("ended on UID %q: %+v", uid, f)
		}
	}
}

// statusMsg is f's reading of st.
func statusMsg(t *testing.T, f *rollout.Follow, st kube.RolloutStatus) rollout.StatusMsg {
	t.Helper()
	msg, ok := f.Read(&reader{statuses: []kube.RolloutStatus{st}})().(rollout.StatusMsg)
	if !ok || !f.Owns(msg) {
		t.Fatalf("reading: %#v", msg)
	}
	return msg
}
