package logstream

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestLogsLeftOutTakeFreedStreams: a Deployment of 12 pods read with at
// most 10 streams, whose logs cannot be read: the 10 streams end with
// their errors, and the 2 pods left out are then streamed in their
// place (each said), so every pod is tried once; the notes' Text does not
// repeat their Err.
func TestLogsLeftOutTakeFreedStreams(t *testing.T) {
	objs := []runtime.Object{webDeployment()}
	for i := range 12 {
		objs = append(objs, testPod(fmt.Sprintf("web-%02d", i), "nginx"))
	}
	c, _ := newLogStreamer(t, objs...)
	srv := newFakeLogServer()
	srv.fail = func(pod string, o *corev1.PodLogOptions) error {
		return apierrors.NewBadRequest(fmt.Sprintf("no logs found for container %q in pod %q", o.Container, pod))
	}
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web",
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, testDeps(srv))
	ended := func() []LogNote {
		var out []LogNote
		for _, n := range sink.notes() {
			if n.Kind == LogNoteEnded {
				out = append(out, n)
			}
		}
		return out
	}
	waitFor(t, "12 failed streams", func() bool { return len(ended()) == 12 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	var admitted, left []string
	for _, n := range sink.notes() {
		switch n.Kind {
		case LogNotePodsLeftOut:
			left = append(left, fmt.Sprintf("%d:%s", n.Count, strings.Join(n.Names, ",")))
		case LogNotePodAdmitted:
			admitted = append(admitted, fmt.Sprintf("%s:%d", n.Pod, n.Count))
		}
	}
	if got, want := strings.Join(left, " "), "2:web-10,web-11"; got != want {
		t.Errorf("left out %q, want %q", got, want)
	}
	if got, want := strings.Join(admitted, " "), "web-10:1 web-11:0"; got != want {
		t.Errorf("admitted %q, want %q", got, want)
	}
	if n := len(srv.options()); n != 12 {
		t.Errorf("%d reads, want 12 (one per pod)", n)
	}
	for _, n := range ended() {
		if n.Err == nil || strings.Contains(n.Text, n.Err.Error()) {
			t.Errorf("ended note %+v: Text repeats Err", n)
		}
	}
}

// Not following, a pod left out is read once another's log ended.
func TestLogsLeftOutReadAfterOthers(t *testing.T) {
	c, _ := newLogStreamer(t, webDeployment(), testPod("a", "web"), testPod("b", "web"), testPod("c", "web"))
	srv := newFakeLogServer()
	srv.write("a", "web", false, logAt(1), "a1")
	srv.write("b", "web", false, logAt(2), "b1")
	srv.write("c", "web", false, logAt(3), "c1")
	sink := &fakeSink{}
	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", MaxStreams: 2,
		Options: LogOptions{TailLines: -1}}, sink, testDeps(srv))
	if err != nil {
		t.Fatal(err)
	}
	got := sink.lines()
	if len(got) != 3 || got[2] != "c/web: c1" {
		t.Errorf("lines %v, want c's after a's and b's", got)
	}
}
