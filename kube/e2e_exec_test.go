package kube_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// runningDemoPod returns a Running pod of namespace demo with one
// container (the seeded ClusterExec serves its exec).
func runningDemoPod(t *testing.T, cs kubernetes.Interface) corev1.Pod {
	t.Helper()
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning && len(p.Spec.Containers) == 1 && len(p.Spec.InitContainers) == 0 &&
			len(p.Status.ContainerStatuses) == 1 && p.Status.ContainerStatuses[0].State.Running != nil && p.DeletionTimestamp == nil {
			return p
		}
	}
	t.Fatal("no Running single-container pod in demo")
	return corev1.Pod{}
}

// syncBuffer is a bytes.Buffer safe for the session's writer and the
// test's reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// oneSize is a size queue that gives one size, then waits for done.
type oneSize struct {
	first *kube.TerminalSize
	done  chan struct{}
}

func (q *oneSize) Next() *kube.TerminalSize {
	if f := q.first; f != nil {
		q.first = nil
		return f
	}
	<-q.done
	return nil
}

// TestE2EExecShell: a shell opened through the API server runs a command
// and its output comes back; the terminal size reaches it.
func TestE2EExecShell(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	c := kubetest.Client(t, cfg)
	pod := runningDemoPod(t, cs)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := kube.ExecRequest{Namespace: pod.Namespace, Pod: pod.Name, UID: string(pod.UID), TTY: true}
	plan, err := c.PlanExec(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range plan.Verdicts.Warnings() { // demo enforces no Pod Security level
		req.Confirmed = append(req.Confirmed, w.Reason)
	}
	s, err := c.OpenExec(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Argv()) == 0 || !strings.HasSuffix(s.Argv()[0], "sh") {
		t.Fatalf("shell %q", s.Argv())
	}
	in, inW := io.Pipe()
	out := &syncBuffer{}
	sizes := &oneSize{first: &kube.TerminalSize{Width: 123, Height: 45}, done: make(chan struct{})}
	defer close(sizes.done)
	go func() {
		// The size is sent beside stdin, on its own stream: a command typed
		// at once may run before the pty has been resized (seen on a loaded
		// machine: "0 0"). So wait for the prompt, then ask for the size
		// until it is the one sent, for at most 30 seconds; exit only once
		// the output is back (the local cluster's kwok may send the exit
		// status before the last output of its pty, which would end the
		// stream without it).
		deadline := time.Now().Add(30 * time.Second)
		for out.String() == "" && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		for time.Now().Before(deadline) {
			_, _ = io.WriteString(inW, "stty size; echo hel''lo\n")
			asked := time.Now()
			for time.Since(asked) < 2*time.Second && !(strings.Contains(out.String(), "hello") && strings.Contains(out.String(), "45 123")) {
				time.Sleep(20 * time.Millisecond)
			}
			if o := out.String(); strings.Contains(o, "hello") && strings.Contains(o, "45 123") {
				break
			}
		}
		_, _ = io.WriteString(inW, "exit\n")
	}()
	res, err := s.Run(ctx, kube.ExecStreams{Stdin: in, Stdout: out, Sizes: sizes}, kube.ExecLimits{})
	_ = inW.Close()
	if err != nil {
		t.Fatalf("Run = %+v, %v; output %q", res, err, out.String())
	}
	if !strings.Contains(out.String(), "hello") || !strings.Contains(out.String(), "45 123") {
		t.Fatalf("output %q: want hello and the size 45 123", out.String())
	}
	t.Logf("shell %q in %s/%s (%s), transport %s, exit %d", s.Argv(), pod.Name, s.Container(), s.Note(), res.Transport, res.ExitCode)
}

// TestE2EExecRefusals: each refusal from a real situation, with its reason.
func TestE2EExecRefusals(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "kyyard-exec")
	create := func(name string, spec corev1.PodSpec) *corev1.Pod {
		p, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: spec}, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	waitRunning := func(name string) *corev1.Pod {
		// kwok marks a pod Running within a second alone; under the whole
		// suite's load it once took over 30 s (CI): wait up to 2 minutes.
		for i := 0; i < 1200; i++ {
			p, err := cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
			if err == nil && p.Status.Phase == corev1.PodRunning {
				return p
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Fatalf("pod %s never Running", name)
		return nil
	}
	spec := kwokPodSpec("registry.example/app:1")
	old := create("again", spec)
	waitRunning("again")
	if err := cs.CoreV1().Pods(ns).Delete(ctx, "again", metav1.DeleteOptions{GracePeriodSeconds: ptr(int64(0))}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 300; i++ {
		if _, err := cs.CoreV1().Pods(ns).Get(ctx, "again", metav1.GetOptions{}); err != nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	create("again", spec)
	waitRunning("again")
	pending := spec
	pending.NodeSelector = map[string]string{"type": "no-such-node"}
	stuck := create("stuck", pending)
	running := create("running", spec)
	waitRunning("running")

	admin := kubetest.Client(t, cfg)
	strictCfg, err := kube.NewFromConfig(cfg, kube.Options{Policy: kube.PolicyStrict})
	if err != nil {
		t.Fatal(err)
	}
	defer strictCfg.Close()
	readOnly := kubetest.Client(t, kubetest.LocalReadOnly(t))
	demoPod := runningDemoPod(t, cs)

	cases := []struct {
		name   string
		c      *kube.Client
		req    kube.ExecRequest
		want   error
		reason kube.Reason
		sayIn  string
	}{
		{name: "pod recreated", c: admin, req: kube.ExecRequest{Namespace: ns, Pod: "again", UID: string(old.UID)},
			want: kube.ErrExecPodReplaced, reason: kube.ReasonConflict, sayIn: "UID changed"},
		{name: "pod not Running", c: admin, req: kube.ExecRequest{Namespace: ns, Pod: "stuck", UID: string(stuck.UID)},
			want: kube.ErrExecNotRunning, reason: kube.ReasonNotRunning, sayIn: "Pending"},
		{name: "list-only user", c: readOnly, req: kube.ExecRequest{Namespace: demoPod.Namespace, Pod: demoPod.Name, UID: string(demoPod.UID)},
			want: kube.ErrExecForbidden, reason: kube.ReasonForbidden, sayIn: "create pods/exec"},
		{name: "strict, no enforce label", c: strictCfg, req: kube.ExecRequest{Namespace: ns, Pod: "running", UID: string(running.UID)},
			want: kube.ErrExecPodSecurity, reason: kube.ReasonPodSecurity, sayIn: "enforces no Pod Security level"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.c.OpenExec(ctx, tc.req)
			if !errors.Is(err, tc.want) || kube.ReasonOf(err) != tc.reason || !strings.Contains(err.Error(), tc.sayIn) {
				t.Fatalf("OpenExec error %v (%s); want %v, %s, saying %q", err, kube.ReasonOf(err), tc.want, tc.reason, tc.sayIn)
			}
		})
	}
}
