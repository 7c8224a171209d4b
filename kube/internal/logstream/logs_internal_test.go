package logstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

var logT0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func logAt(ms int) time.Time { return logT0.Add(time.Duration(ms) * time.Millisecond) }

// logKinds answers the kinds whose logs the tests read with CanLogs,
// every other kind without: what the kinds' plugins declare is tested in
// kube/kinds (TestCapabilities*).
func logKinds(kind vocab.Kind) vocab.KindInfo {
	switch kind {
	case vocab.KindPods, vocab.KindContainers, vocab.KindDeployments, vocab.KindStatefulSets, vocab.KindDaemonSets, vocab.KindReplicaSets, vocab.KindJobs:
		return vocab.KindInfo{ID: kind, Resource: string(kind), Namespaced: true, Capabilities: vocab.CanLogs}
	}
	return vocab.KindInfo{ID: kind}
}

// newLogStreamer is a log streamer on a fake clientset holding objs.
func newLogStreamer(t *testing.T, objs ...runtime.Object) (*Streamer, *fake.Clientset) {
	t.Helper()
	cs := fake.NewClientset(objs...)
	return &Streamer{cs: cs, kindInfo: logKinds}, cs
}

// runLogs runs Streamer.logs in the background; wait returns its error.
func runLogs(t *testing.T, c *Streamer, req LogRequest, sink LogSink, deps logDeps) (cancel func(), wait func() error) {
	ctx, cancelCtx := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- c.logs(ctx, req, sink, deps) }()
	t.Cleanup(cancelCtx)
	return cancelCtx, func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(20 * time.Second):
			t.Fatal("Logs did not return")
			return nil
		}
	}
}

func TestLogsContainerChoice(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	multi := testPod("multi", "web")
	multi.Annotations = map[string]string{objects.DefaultContainerAnnotation: "web"}
	multi.Spec.InitContainers = []corev1.Container{{Name: "migrate"}, {Name: "shipper", RestartPolicy: &always}}
	withInit := testPod("init", "web")
	withInit.Spec.InitContainers = []corev1.Container{{Name: "migrate"}}
	c, cs := newLogStreamer(t, multi, withInit,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "empty", UID: "dep"},
			Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "none"}}}})
	srv := newFakeLogServer()
	srv.write("init", "web", false, logAt(1), "hello")
	ctx := context.Background()

	err := c.logs(ctx, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "multi"}, &fakeSink{}, testDeps(srv))
	var choice *vocab.ContainerChoiceError
	if !errors.As(err, &choice) || !errors.Is(err, vocab.ErrLogContainerRequired) {
		t.Fatalf("got %v, want a ContainerChoiceError", err)
	}
	if got := strings.Join(choice.Containers, ","); got != "migrate,shipper,web" || choice.DefaultContainer != "web" {
		t.Errorf("choice %+v, want migrate,shipper,web with default web", choice)
	}
	if !strings.Contains(err.Error(), "migrate, shipper, web") {
		t.Errorf("message %q does not list the names", err)
	}

	sink := &fakeSink{}
	if err := c.logs(ctx, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "init", Options: LogOptions{TailLines: -1}}, sink, testDeps(srv)); err != nil {
		t.Fatalf("a pod with one container besides its init container: %v", err)
	}
	if got := sink.lines(); len(got) != 1 || got[0] != "init/web: hello" {
		t.Errorf("lines %v", got)
	}
	for _, tc := range []struct {
		name string
		req  LogRequest
		want error
	}{
		{"no such container", LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "multi", Container: "nope"}, ErrLogNoContainer},
		{"replaced", LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "init", UID: "other"}, ErrLogPodReplaced},
		{"kind", LogRequest{Kind: "services", Namespace: "ns", Name: "x"}, ErrLogKind},
		{"no pods", LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "empty"}, ErrLogNoPods},
		{"workload replaced", LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "empty", UID: "old"}, ErrLogPodReplaced},
	} {
		if err := c.logs(ctx, tc.req, &fakeSink{}, testDeps(srv)); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	if err := c.logs(ctx, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "gone"}, &fakeSink{}, testDeps(srv)); vocab.ReasonOf(err) != vocab.ReasonNotFound {
		t.Errorf("a missing pod: got %v (%s)", err, vocab.ReasonOf(err))
	}
	cs.PrependReactor("get", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "init", errors.New("no"))
	})
	if err := c.logs(ctx, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "init"}, &fakeSink{}, testDeps(srv)); vocab.ReasonOf(err) != vocab.ReasonForbidden {
		t.Errorf("forbidden: got %v (%s)", err, vocab.ReasonOf(err))
	}
}

// A read the API server refuses (pods/log forbidden, no previous
// container) is Logs' error, and nothing is written.
func TestLogsFirstReadRefused(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "app"))
	srv := newFakeLogServer()
	srv.fail = func(string, *corev1.PodLogOptions) error {
		return apierrors.NewForbidden(schema.GroupResource{Resource: "pods/log"}, "p", errors.New("no"))
	}
	sink := &fakeSink{}
	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", Options: LogOptions{Follow: true}}, sink, testDeps(srv))
	if vocab.ReasonOf(err) != vocab.ReasonForbidden || len(sink.events()) != 0 {
		t.Fatalf("got %v, wrote %v", err, sink.events())
	}
}

func TestLogsOnePod(t *testing.T) {
	p := testPod("p", "app")
	p.Status.ContainerStatuses[0].RestartCount = 1
	c, _ := newLogStreamer(t, p)
	srv := newFakeLogServer()
	for i := range 5 {
		srv.write("p", "app", false, logAt(i*1000), fmt.Sprintf("line %d", i))
	}
	srv.write("p", "app", true, logAt(-5000), "previous")
	sink := &fakeSink{}
	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindContainers, Namespace: "ns", Name: "p", Container: "app",
		Options: LogOptions{TailLines: 2, SinceTime: logT0}}, sink, testDeps(srv))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sink.events(), []string{"[started]", "p/app: line 3", "p/app: line 4", "[ended]"}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	o := srv.options()[0]
	if !o.Timestamps || o.Follow || *o.TailLines != 2 || !o.SinceTime.Time.Equal(logT0) || o.Container != "app" {
		t.Errorf("options %+v", o)
	}
	if n := sink.notes()[0]; strings.Join(n.Containers, ",") != "app" {
		t.Errorf("started note %+v", n)
	}
	sink = &fakeSink{}
	err = c.logs(context.Background(), LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p",
		Options: LogOptions{Previous: true, Follow: true, TailLines: -1}}, sink, testDeps(srv))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sink.events(), []string{"[started]", "p/app: previous", "[ended]"}; !equal(got, want) {
		t.Errorf("previous: got %v, want %v", got, want)
	}
	if o := srv.options()[1]; !o.Previous || o.Follow {
		t.Errorf("previous options %+v: a previous read is never followed", o)
	}
}

// TestC04PartialLinesFollow: while following, a line without its newline
// is delivered after the idle flush, and its rest later, Continued.
func TestC04PartialLinesFollow(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "app"))
	srv := newFakeLogServer()
	srv.writeRaw("p", "app", false, "2026-01-02T03:04:05.000000000Z progress: 50%")
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	waitFor(t, "the partial line", func() bool { return len(sink.lines()) == 1 })
	srv.writeRaw("p", "app", false, " 100%\n")
	waitFor(t, "the rest", func() bool { return len(sink.lines()) == 2 })
	if got, want := sink.lines(), []string{"p/app: progress: 50% (partial)", "+p/app:  100%"}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	cancel()
	if err := wait(); err != nil {
		t.Errorf("a cancelled follow returned %v", err)
	}
}

// TestC38FollowAcrossRestart: the stream ends while the container runs,
// then breaks, then the container restarts (a new container ID): each
// time the follow resumes from the last timestamp seen with a marker, the
// old instance's last line (written while nobody read) comes from its
// previous log, and no line is lost or repeated.
func TestC38FollowAcrossRestart(t *testing.T) {
	pod := testPod("p", "app")
	c, cs := newLogStreamer(t, pod)
	srv := newFakeLogServer()
	for i := 1; i <= 3; i++ {
		srv.write("p", "app", false, logAt(i*100), fmt.Sprintf("L%d", i))
	}
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", UID: string(pod.UID),
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	waitFor(t, "L1-L3", func() bool { return len(sink.lines()) == 3 })
	waitFor(t, "the pod watch", func() bool { return watching(cs) })

	// The kubelet ends the stream; the container runs on and writes L4 in
	// the same second.
	waitFor(t, "a follower", func() bool { return srv.followers("p", "app") == 1 })
	srv.write("p", "app", false, logAt(400), "L4")
	waitFor(t, "L4", func() bool { return len(sink.lines()) == 4 })
	srv.drop("p", "app", nil)
	waitFor(t, "the reconnection", func() bool { return srv.followers("p", "app") == 1 })
	srv.write("p", "app", false, logAt(500), "L5")
	waitFor(t, "L5", func() bool { return len(sink.lines()) == 5 })

	// The connection breaks.
	srv.drop("p", "app", errors.New("connection reset by peer"))
	waitFor(t, "the reconnection", func() bool { return srv.followers("p", "app") == 1 })

	// The container restarts: its old log (with L6, written while the
	// follower was cut off) becomes the previous one; the new instance
	// writes N1.
	old := srv.current("p", "app")
	srv.replace("p", "app", true, old)
	srv.write("p", "app", true, logAt(600), "L6")
	srv.replace("p", "app", false, nil)
	srv.write("p", "app", false, logAt(2000), "N1")
	pod = pod.DeepCopy()
	st := &pod.Status.ContainerStatuses[0]
	st.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, ContainerID: st.ContainerID}}
	st.ContainerID, st.RestartCount = "containerd://p-app-2", 1
	if _, err := cs.CoreV1().Pods("ns").UpdateStatus(context.Background(), pod, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "N1", func() bool { return len(sink.lines()) == 7 })
	want := []string{"[started]", "p/app: L1", "p/app: L2", "p/app: L3", "p/app: L4", "[resumed]", "p/app: L5",
		"[retrying]", "[resumed]", "p/app: L6", "[resumed restarted]", "p/app: N1"}
	if got := sink.events(); !equal(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for _, n := range sink.notes() {
		if n.Kind == LogNoteResumed && !n.Time.Equal(logT0) {
			t.Errorf("resumed at %v, want the second of the last line %v", n.Time, logT0)
		}
	}
	for _, o := range srv.options()[1:] {
		if o.SinceTime == nil || o.TailLines != nil {
			t.Errorf("a reconnection asked %+v, want sinceTime and no tail", o)
		}
	}

	// The pod is deleted: the follow ends.
	if err := cs.CoreV1().Pods("ns").Delete(context.Background(), "p", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	srv.drop("p", "app", nil)
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if ev := sink.events(); ev[len(ev)-1] != "[pod_gone]" {
		t.Errorf("last event %q, want the pod gone", ev[len(ev)-1])
	}
	cancel()
}

func watching(cs *fake.Clientset) bool {
	for _, a := range cs.Actions() {
		if a.GetVerb() == "watch" && a.GetResource().Resource == "pods" {
			return true
		}
	}
	return false
}

func webDeployment() *appsv1.Deployment {
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web", UID: "dep"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}}
}

// TestC37MergedWorkload: a Deployment's pods, merged by time, each line
// labelled; MaxStreams leaves pods out and says which.
func TestC37MergedWorkload(t *testing.T) {
	c, _ := newLogStreamer(t, webDeployment(), testPod("a", "web"), testPod("b", "web"), testPod("c", "web"))
	srv := newFakeLogServer()
	srv.write("a", "web", false, logAt(1), "t1")
	srv.write("a", "web", false, logAt(3), "t3")
	srv.write("b", "web", false, logAt(2), "t2")
	sink := &fakeSink{}
	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", MaxStreams: 2,
		Options: LogOptions{TailLines: -1}}, sink, testDeps(srv))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sink.lines(), []string{"a/web: t1", "b/web: t2", "a/web: t3"}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	var left *LogNote
	for _, n := range sink.notes() {
		if n.Kind == LogNotePodsLeftOut {
			left = &n
		}
	}
	if left == nil || left.Count != 1 || left.Names[0] != "c" {
		t.Errorf("left out note %+v, want pod c", left)
	}
}

// A workload followed: a new pod joins, a deleted one is gone.
func TestLogsWorkloadJoinAndGone(t *testing.T) {
	c, cs := newLogStreamer(t, webDeployment(), testPod("a", "web"))
	srv := newFakeLogServer()
	srv.write("a", "web", false, logAt(1), "a1")
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web",
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	waitFor(t, "a1", func() bool { return len(sink.lines()) == 1 })
	waitFor(t, "the pod watch", func() bool { return watching(cs) })
	srv.write("b", "web", false, logAt(2), "b1")
	if _, err := cs.CoreV1().Pods("ns").Create(context.Background(), testPod("b", "web"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "b1", func() bool { return len(sink.lines()) == 2 })
	if err := cs.CoreV1().Pods("ns").Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a gone", func() bool {
		for _, n := range sink.notes() {
			if n.Kind == LogNotePodGone && n.Pod == "a" {
				return true
			}
		}
		return false
	})
	var kinds []string
	for _, n := range sink.notes() {
		kinds = append(kinds, string(n.Kind)+":"+n.Pod)
	}
	if want := []string{"started:a", "pod_joined:b", "started:b", "pod_gone:a"}; !equal(kinds, want) {
		t.Errorf("notes %v, want %v", kinds, want)
	}
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
}

// C05 on the adapter's side: a burst to a slow sink arrives whole and in
// order, in batches.
func TestLogsBurstToSlowSink(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "app"))
	srv := newFakeLogServer()
	var b strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&b, "2026-01-02T03:04:05.%09dZ %d\n", i, i)
	}
	srv.writeRaw("p", "app", false, b.String())
	sink := &fakeSink{slow: 2 * time.Millisecond}
	cancel, _ := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	defer cancel()
	waitFor(t, "10000 lines", func() bool { return len(sink.lines()) == 10000 })
	for i, l := range sink.lines() {
		if l != fmt.Sprintf("p/app: %d", i) {
			t.Fatalf("line %d is %q", i, l)
		}
	}
	sink.mu.Lock()
	n := len(sink.batches)
	sink.mu.Unlock()
	if n > 1000 {
		t.Errorf("%d batches for 10000 lines: not batched", n)
	}
}

// LimitBytes counts across reconnections.
func TestLogsLimitBytes(t *testing.T) {
	c, _ := newLogStreamer(t, testPod("p", "app"))
	srv := newFakeLogServer()
	srv.write("p", "app", false, logAt(1), "0123456789") // 42 bytes with prefix and newline
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p",
		Options: LogOptions{Follow: true, TailLines: -1, LimitBytes: 60}}, sink, testDeps(srv))
	defer cancel()
	waitFor(t, "the first line", func() bool { return len(sink.lines()) == 1 })
	waitFor(t, "a follower", func() bool { return srv.followers("p", "app") == 1 })
	srv.drop("p", "app", nil)
	waitFor(t, "the reconnection", func() bool { return srv.followers("p", "app") == 1 })
	srv.write("p", "app", false, logAt(2000), "abcdefghijklmnopqrstuvwxyz")
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	opens := srv.options()
	if got := *opens[len(opens)-1].LimitBytes; got != 60-42 {
		t.Errorf("the reconnection's limitBytes %d, want 60-42", got)
	}
	if ev := sink.events(); ev[len(ev)-1] != "[ended]" {
		t.Errorf("events %v, want the end", ev)
	}
}
