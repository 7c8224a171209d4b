package kube

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/tools/clientcmd"
)

// lineWriter collects output and says when it holds want.
type lineWriter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

// The attach of a debug session through the local cluster: kwok serves
// pods/attach from an Attach CR's log file (output only: it follows the
// file, and has no process to take input), so the session's transport and
// output path are proven here; its exit codes, input and limits with a
// fake executor (TestDebugSessionRun). kwok reports no ephemeral
// container status, so the session is attached to the pod's own
// container, which the attach path treats the same.
func TestE2EDebugAttachThroughKwok(t *testing.T) {
	path := os.Getenv("KYYARD_E2E_KUBECONFIG")
	if path == "" {
		if os.Getenv("KYYARD_E2E") == "1" {
			t.Fatal("KYYARD_E2E=1 but KYYARD_E2E_KUBECONFIG is not set")
		}
		t.Skip("no local cluster")
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil || !strings.HasPrefix(cfg.Host, "https://127.0.0.1") {
		t.Fatalf("local cluster only: %v %v", cfg, err)
	}
	c, err := NewFromConfig(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	ns := fmt.Sprintf("kpf-attach-%06x", rand.Uint32()&0xffffff)
	if _, err := c.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.cs.CoreV1().Namespaces().Delete(context.Background(), ns, metav1.DeleteOptions{}) })
	zero := int64(0)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Spec: corev1.PodSpec{
		Containers:   []corev1.Container{{Name: "app", Image: "registry.local/app:1", Stdin: true, TTY: true}},
		NodeSelector: map[string]string{"type": "kwok"},
		Tolerations: []corev1.Toleration{{Key: "kwok.x-k8s.io/node", Operator: corev1.TolerationOpEqual, Value: "fake",
			Effect: corev1.TaintEffectNoSchedule}},
		TerminationGracePeriodSeconds: &zero,
	}}
	if _, err := c.cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "attach.log")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(log), 0o755); err != nil {
		t.Fatal(err)
	}
	attach := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kwok.x-k8s.io/v1alpha1", "kind": "Attach",
		"metadata": map[string]any{"name": "app", "namespace": ns},
		"spec":     map[string]any{"attaches": []any{map[string]any{"logsFile": log}}},
	}}
	gvr := schema.GroupVersionResource{Group: "kwok.x-k8s.io", Version: "v1alpha1", Resource: "attaches"}
	if _, err := dynamic.NewForConfigOrDie(cfg).Resource(gvr).Namespace(ns).Create(ctx, attach, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		p, err := c.cs.CoreV1().Pods(ns).Get(ctx, "app", metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pod not running: %v", err)
		}
	}

	s := c.shells().Attach(ns, "app", "app", "registry.local/app:1")
	out := &lineWriter{want: "hello through attach", seen: make(chan struct{})}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		// Lines appended while the attach follows the file reach it.
		for i := 0; i < 50; i++ {
			select {
			case <-out.seen:
				cancel()
				return
			case <-time.After(200 * time.Millisecond):
			}
			f, err := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
			if err == nil {
				fmt.Fprintf(f, "%s stdout F hello through attach\n", time.Now().UTC().Format(time.RFC3339Nano))
				f.Close()
			}
		}
		cancel()
	}()
	res, err := s.Run(runCtx, ExecStreams{Stdout: out}, ExecLimits{Setup: 20 * time.Second})
	out.mu.Lock()
	got := out.b.String()
	out.mu.Unlock()
	if !strings.Contains(got, "hello through attach") {
		t.Fatalf("attach output %q; result %+v, %v", got, res, err)
	}
	if res.Transport != "websocket" {
		t.Fatalf("transport %+v", res)
	}
	t.Logf("attach through kwok: %+v, %v", res, err)
}
