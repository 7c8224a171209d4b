package logstream

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// TestLogsNoPreviousInstance: `p` on a container that never restarted is
// ErrLogNoPrevious with a sentence naming it, before any pods/log read (a
// server may answer with an unrelated error, as kwok's "read .: is a
// directory"); on a workload, the pods that have a previous instance are
// read and the others named in one note; none at all is the error.
func TestLogsNoPreviousInstance(t *testing.T) {
	restarted := testPod("b", "web")
	restarted.Status.ContainerStatuses[0].RestartCount = 2
	terminated := testPod("c", "web")
	terminated.Status.ContainerStatuses[0].LastTerminationState.Terminated = &corev1.ContainerStateTerminated{ExitCode: 1}
	c, _ := newLogStreamer(t, webDeployment(), testPod("a", "web"), restarted, terminated, testPod("solo", "web"))
	srv := newFakeLogServer()
	srv.fail = func(pod string, o *corev1.PodLogOptions) error {
		if o.Previous && pod != "b" && pod != "c" {
			return apierrors.NewBadRequest(`failed to read log file ".": read .: is a directory`)
		}
		return nil
	}
	srv.write("b", "web", true, logAt(1), "b before the restart")
	srv.write("c", "web", true, logAt(2), "c before the restart")
	prev := LogOptions{Previous: true, Follow: true, TailLines: -1}

	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "solo", Options: prev}, &fakeSink{}, testDeps(srv))
	if !errors.Is(err, ErrLogNoPrevious) || err.Error() != "no previous instance of container web (it has not restarted)" {
		t.Fatalf("a pod never restarted: %v", err)
	}
	if len(srv.options()) != 0 {
		t.Errorf("asked the server %+v: the status says there is nothing", srv.options())
	}

	sink := &fakeSink{}
	if err := c.logs(context.Background(), LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web", Options: prev}, sink, testDeps(srv)); err != nil {
		t.Fatal(err)
	}
	if got, want := sink.lines(), []string{"b/web: b before the restart", "c/web: c before the restart"}; !equal(got, want) {
		t.Errorf("lines %v, want %v", got, want)
	}
	var note *LogNote
	for _, n := range sink.notes() {
		if n.Kind == LogNoteNoPrevious {
			note = &n
		}
	}
	// The Deployment selects a, b, c and solo (all app=web).
	if note == nil || note.Count != 2 || strings.Join(note.Names, ",") != "a/web,solo/web" || !strings.Contains(note.Text, "2 of 4") {
		t.Errorf("no-previous note %+v", note)
	}

	// The kubelet's own refusal reads the same.
	kubelet := apierrors.NewBadRequest(`previous terminated container "web" in pod "b" not found`)
	if err := previousReadErr(kubelet, "web"); !errors.Is(err, ErrLogNoPrevious) || !strings.Contains(err.Error(), "container web") {
		t.Errorf("kubelet refusal: %v", err)
	}
	if other := errors.New("boom"); previousReadErr(other, "web") != other {
		t.Error("other errors must stay as they are")
	}
}

// A workload none of whose pods restarted: the error says so.
func TestLogsNoPreviousInWorkload(t *testing.T) {
	c, _ := newLogStreamer(t, webDeployment(), testPod("a", "web"), testPod("b", "web"), testPod("c", "web"))
	err := c.logs(context.Background(), LogRequest{Kind: vocab.KindDeployments, Namespace: "ns", Name: "web",
		Options: LogOptions{Previous: true, TailLines: -1}}, &fakeSink{}, testDeps(newFakeLogServer()))
	if !errors.Is(err, ErrLogNoPrevious) || !strings.Contains(err.Error(), "any of the 3 pods of deployments/web") {
		t.Fatalf("got %v", err)
	}
}
