package kube_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2ELogsPendingPod: following a pod the scheduler cannot place (no
// toleration of the kwok nodes' taint) says once why it waits, in the
// scheduler's words, reads no log meanwhile, and starts the stream when
// the pod is scheduled (a toleration added) and runs, without a "resumed"
// marker.
func TestE2ELogsPendingPod(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	dyn := dynamic.NewForConfigOrDie(cfg)
	c := kubetest.Client(t, cfg)
	ns := kubetest.TempNamespace(t, cs, "klogwait")
	files := &logFiles{dir: t.TempDir()}
	if err := os.Chmod(files.dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	spec := kwokPodSpec("busybox")
	tolerations := spec.Tolerations
	spec.Tolerations = nil
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "pend", Namespace: ns}, Spec: spec}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	files.write(t, "pend.log", criLine(time.Now(), "finally running"))
	applyLogs(t, dyn, ns, "pend", files.path("pend.log"), files.path("pend.log"))
	// Wait for the scheduler's verdict, so the note can quote it.
	deadline := time.Now().Add(60 * time.Second)
	for {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, "pend", metav1.GetOptions{})
		if err == nil && len(p.Status.Conditions) > 0 && p.Status.Conditions[0].Reason == "Unschedulable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the pod was not found unschedulable: %v %+v", err, p.Status)
		}
		time.Sleep(200 * time.Millisecond)
	}

	rec := &logRecorder{}
	done := make(chan error, 1)
	go func() {
		done <- c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "pend",
			Options: kube.LogOptions{Follow: true, TailLines: -1}}, rec)
	}()
	rec.waitFor(t, "[waiting]")
	time.Sleep(3 * time.Second) // several attempts' worth: still one note
	if got := rec.snapshot(); len(got) != 1 {
		t.Fatalf("events while pending %v, want one waiting note", got)
	}
	rec.mu.Lock()
	text := rec.notes[0].Text
	rec.mu.Unlock()
	if !strings.HasPrefix(text, "pod is Pending (Unschedulable: ") || !strings.Contains(text, "untolerated taint") {
		t.Fatalf("waiting note %q", text)
	}

	p, err := cs.CoreV1().Pods(ns).Get(ctx, "pend", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p.Spec.Tolerations = append(p.Spec.Tolerations, tolerations...)
	if _, err := cs.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "pend/app: finally running")
	t.Logf("events %v; waiting: %s", rec.snapshot(), text)
	for _, e := range rec.snapshot() {
		if strings.HasPrefix(e, "[resumed") || strings.HasPrefix(e, "[retrying") {
			t.Fatalf("events %v: no resumed or retrying marker before the first line", rec.snapshot())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
