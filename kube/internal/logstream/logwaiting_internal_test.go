package logstream

import (
	"context"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func pendingPod(name, container string) *corev1.Pod {
	p := testPod(name, container)
	p.Spec.NodeName = ""
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{{Type: corev1.PodScheduled,
		Status: corev1.ConditionFalse, Reason: "Unschedulable",
		Message: "0/3 nodes are available: 3 node(s) had untolerated taint {kwok.x-k8s.io/node: fake}.\n preemption: 0/3 nodes are available."}}}
	return p
}

func waitingPod(name, container, reason, message string, restarts int32) *corev1.Pod {
	p := testPod(name, container)
	p.Status.Phase = corev1.PodPending
	p.Status.ContainerStatuses[0].State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: message}}
	p.Status.ContainerStatuses[0].ContainerID = ""
	p.Status.ContainerStatuses[0].RestartCount = restarts
	return p
}

func TestLogWaiting(t *testing.T) {
	noStatus := testPod("p", "web")
	noStatus.Status.ContainerStatuses = nil
	noStatus.Status.Phase = corev1.PodPending
	done := waitingPod("p", "web", "ContainerCreating", "", 0)
	done.Status.Phase = corev1.PodSucceeded
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"running", testPod("p", "web"), ""},
		{"unschedulable", pendingPod("p", "web"),
			"pod is Pending (Unschedulable: 0/3 nodes are available: 3 node(s) had untolerated taint {kwok.x-k8s.io/node: fake}. preemption: 0/3 nodes are available.)"},
		{"not scheduled yet", func() *corev1.Pod { p := pendingPod("p", "web"); p.Status.Conditions = nil; return p }(),
			"pod is Pending (not scheduled yet)"},
		{"no status yet", noStatus, "pod is Pending (container web not created yet)"},
		{"creating", waitingPod("p", "web", "ContainerCreating", "", 0), "container web: ContainerCreating"},
		{"image pull", waitingPod("p", "web", "ImagePullBackOff", `Back-off pulling image "nope:1"`, 0),
			`container web: ImagePullBackOff (Back-off pulling image "nope:1")`},
		{"crash loop: the last instance's log is there", waitingPod("p", "web", "CrashLoopBackOff", "back-off 5m", 3), ""},
		{"finished", done, ""},
	} {
		if got := logWaiting(tc.pod, "web"); got != tc.want {
			t.Errorf("%s: got %q\nwant %q", tc.name, got, tc.want)
		}
	}
}

// kinds lists the kinds of the notes written, in order.
func kinds(sink *fakeSink) []string {
	var out []string
	for _, n := range sink.notes() {
		out = append(out, string(n.Kind))
	}
	return out
}

// TestLogsPendingPodWaits: following an unschedulable pod reads no log
// (the API server would answer with an empty body at once, and a follow
// would reconnect for ever) and says why once, from the pod's status; when
// it runs, the stream starts, with no "resumed" marker since nothing was
// delivered before.
func TestLogsPendingPodWaits(t *testing.T) {
	c, cs := newLogStreamer(t, pendingPod("pend", "web"))
	srv := newFakeLogServer()
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "pend",
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	waitFor(t, "the waiting note", func() bool { return len(sink.notes()) == 1 })
	n := sink.notes()[0]
	if n.Kind != LogNoteWaiting || !strings.HasPrefix(n.Text, "pod is Pending (Unschedulable: 0/3 nodes") || n.Pod != "pend" ||
		strings.Join(n.Containers, ",") != "web" || n.DefaultContainer != "web" {
		t.Fatalf("note %+v", n)
	}
	waitFor(t, "the pod watch", func() bool { return watching(cs) })
	// Scheduled: the container is created.
	creating := waitingPod("pend", "web", "ContainerCreating", "", 0)
	if _, err := cs.CoreV1().Pods("ns").Update(context.Background(), creating, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the second reason", func() bool { return len(sink.notes()) == 2 })
	if n := sink.notes()[1]; n.Kind != LogNoteWaiting || n.Text != "container web: ContainerCreating" {
		t.Fatalf("note %+v", n)
	}
	if len(srv.options()) != 0 {
		t.Fatalf("read the log of a container not started: %+v", srv.options())
	}
	srv.write("pend", "web", false, logAt(1), "hello")
	if _, err := cs.CoreV1().Pods("ns").Update(context.Background(), testPod("pend", "web"), metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the first line", func() bool { return len(sink.lines()) == 1 })
	// Ended with nothing more delivered: reconnections are silent.
	waitFor(t, "a follower", func() bool { return srv.followers("pend", "web") == 1 })
	srv.drop("pend", "web", nil)
	waitFor(t, "the reconnection", func() bool { return len(sink.notes()) == 4 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got, want := kinds(sink), []string{"waiting", "waiting", "started", "resumed"}; !equal(got, want) {
		t.Errorf("notes %v, want %v", got, want)
	}
}

// TestLogsNoResumeBeforeALine: a stream that ends again and again before
// it delivered a line (an empty log) is reconnected without markers.
func TestLogsNoResumeBeforeALine(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "web"))
	srv := newFakeLogServer()
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p",
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	for range 3 {
		waitFor(t, "a follower", func() bool { return srv.followers("p", "web") == 1 })
		srv.drop("p", "web", nil)
	}
	waitFor(t, "a follower", func() bool { return srv.followers("p", "web") == 1 })
	// A line after the reconnections: every note they made came before it.
	srv.write("p", "web", false, logAt(1), "at last")
	waitFor(t, "the line", func() bool { return len(sink.lines()) == 1 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got := kinds(sink); !equal(got, []string{"started"}) {
		t.Errorf("notes %v, want only started", got)
	}
}

// TestLogsKubeletSaysWaiting: the kubelet refuses a container it has not
// started (a status not updated yet says it runs): one waiting note in the
// kubelet's words, not a "retrying" marker per attempt.
func TestLogsKubeletSaysWaiting(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "web"))
	srv := newFakeLogServer()
	refusals := 0
	srv.fail = func(string, *corev1.PodLogOptions) error {
		if refusals < 4 {
			refusals++
			return apierrors.NewBadRequest(`container "web" in pod "p" is waiting to start: ContainerCreating`)
		}
		return nil
	}
	srv.write("p", "web", false, logAt(1), "up")
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p",
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	waitFor(t, "the line", func() bool { return len(sink.lines()) == 1 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got := kinds(sink); !equal(got, []string{"waiting", "started"}) {
		t.Errorf("notes %v, want waiting, started", got)
	}
	if n := sink.notes()[0]; !strings.Contains(n.Text, "is waiting to start: ContainerCreating") {
		t.Errorf("waiting note %+v", n)
	}
}
