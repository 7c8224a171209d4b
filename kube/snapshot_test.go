package kube_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func readyPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: k8stypes.UID("uid-" + name)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{
			Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
}

func newClient(objs ...runtime.Object) (*kube.Client, *fake.Clientset) {
	cs := fake.NewSimpleClientset(objs...)
	return kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin()}), cs
}

func TestSnapshotForbiddenKindIsNamedNotFatal(t *testing.T) {
	c, cs := newClient(readyPod("demo", "b"), readyPod("demo", "a"), readyPod("other", "c"),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}})
	cs.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "", errors.New("no RBAC"))
	})
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"po", "ns", "bogus"}, Namespace: "demo"})

	pods, ok := snap.Table("pods")
	if !ok || len(pods.Rows) != 2 || pods.Rows[0].Name != "a" || pods.Rows[1].Name != "b" {
		t.Fatalf("pods table %+v, want rows a, b of namespace demo", pods)
	}
	tr, ok := snap.Truncation("ns")
	if !ok || tr.Reason != kube.ReasonForbidden {
		t.Fatalf("namespaces truncation %+v, want forbidden", tr)
	}
	if tr, ok := snap.Truncation("bogus"); !ok || tr.Reason != kube.ReasonUnknownKind {
		t.Fatalf("bogus truncation %+v, want unknown_kind", tr)
	}
	if _, ok := snap.Table("ns"); ok {
		t.Fatal("a forbidden kind has a table")
	}
}

func TestSnapshotAllNamespacesAndClusterScoped(t *testing.T) {
	c, _ := newClient(readyPod("demo", "a"), readyPod("other", "c"), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}})
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods", "nodes"}, Namespace: ""})
	pods, _ := snap.Table("pods")
	if len(pods.Rows) != 2 || pods.Rows[0].Namespace != "demo" || pods.Rows[1].Namespace != "other" {
		t.Fatalf("all-namespaces pods %+v", pods.Rows)
	}
	// A namespace on the request must not scope a cluster-scoped kind.
	snap = c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"nodes"}, Namespace: "demo"})
	if nodes, _ := snap.Table("nodes"); len(nodes.Rows) != 1 {
		t.Fatalf("nodes with a namespace: %+v", nodes.Rows)
	}
}

func TestSnapshotGenerationChangesOnlyWithRows(t *testing.T) {
	c, cs := newClient(readyPod("demo", "a"))
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"}
	first := c.Snapshot(context.Background(), req)
	second := c.Snapshot(context.Background(), req)
	if first.Generation != second.Generation {
		t.Fatalf("generation moved without a change: %d -> %d", first.Generation, second.Generation)
	}
	if _, err := cs.CoreV1().Pods("demo").Create(context.Background(), readyPod("demo", "b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	third := c.Snapshot(context.Background(), req)
	if third.Generation == second.Generation {
		t.Fatal("generation did not move after a pod was added")
	}
	// Another request never shares a generation with this one, even when
	// both see the same rows: a screen whose selector changed must not
	// take the new rows for the old (a drill-down following its parent).
	other := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo", Selector: kube.Selector{Labels: "app!=zzz"}})
	if other.Generation == third.Generation || other.Generation == first.Generation || other.Generation == 0 {
		t.Fatalf("a new request's generation %d; this one's were %d, %d", other.Generation, first.Generation, third.Generation)
	}
	if again := c.Snapshot(context.Background(), req); again.Generation != third.Generation {
		t.Fatalf("the first request's generation moved from %d to %d without a change", third.Generation, again.Generation)
	}
}

// blockingPlugin is a kind whose List waits for release, so that a test can
// see whether lists run at once.
type blockingPlugin struct {
	id      kube.Kind
	started chan<- kube.Kind
	release <-chan struct{}
}

func (p blockingPlugin) Info() kube.KindInfo {
	return kube.KindInfo{ID: p.id, Version: "v1", Resource: string(p.id), Columns: []kube.Column{{Name: "NAME"}}}
}

func (p blockingPlugin) Row(obj any) (kube.Row, bool) {
	name, ok := obj.(string)
	return kube.Row{Name: name}, ok
}

func (p blockingPlugin) List(ctx context.Context, _ kubernetes.Interface, _ string, _ kube.Selector) ([]any, error) {
	p.started <- p.id
	select {
	case <-p.release:
		return []any{string(p.id)}, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestSnapshotListsAtOnce(t *testing.T) {
	release := make(chan struct{})
	started := make(chan kube.Kind, 2)
	reg, err := kube.NewRegistry(blockingPlugin{"one", started, release}, blockingPlugin{"two", started, release})
	if err != nil {
		t.Fatal(err)
	}
	c := kube.NewFromClientset(fake.NewSimpleClientset(), kube.Options{Registry: reg})
	done := make(chan kube.Snapshot)
	go func() {
		done <- c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"one", "two"}})
	}()
	// Both lists must be in flight together before either may finish.
	for range 2 {
		select {
		case <-started:
		case <-time.After(10 * time.Second):
			t.Fatal("the second list did not start while the first was blocked")
		}
	}
	close(release)
	snap := <-done
	if len(snap.Truncated) != 0 || len(snap.Tables) != 2 || snap.Tables[0].Kind != "one" || snap.Tables[1].Kind != "two" {
		t.Fatalf("snapshot %+v", snap)
	}
}

func TestSnapshotTimeoutIsNamed(t *testing.T) {
	cs := fake.NewSimpleClientset()
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), ListTimeout: 50 * time.Millisecond})
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		// The fake clientset ignores contexts; answer the way client-go does
		// when the request's deadline passes.
		time.Sleep(60 * time.Millisecond)
		return true, nil, fmt.Errorf("list pods: %w", context.DeadlineExceeded)
	})
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"})
	if tr, ok := snap.Truncation("pods"); !ok || tr.Reason != kube.ReasonTimeout {
		t.Fatalf("truncation %+v, want timeout", tr)
	}
}

func TestReasonOf(t *testing.T) {
	gr := schema.GroupResource{Resource: "pods"}
	tests := []struct {
		err  error
		want kube.Reason
	}{
		{nil, ""},
		{apierrors.NewForbidden(gr, "x", errors.New("no")), kube.ReasonForbidden},
		{apierrors.NewUnauthorized("expired"), kube.ReasonUnauthorized},
		{apierrors.NewNotFound(gr, "x"), kube.ReasonNotFound},
		{apierrors.NewServiceUnavailable("etcd"), kube.ReasonUnavailable},
		{apierrors.NewTooManyRequests("slow down", 1), kube.ReasonUnavailable},
		{apierrors.NewTimeoutError("slow", 1), kube.ReasonTimeout},
		{fmt.Errorf("get: %w", context.DeadlineExceeded), kube.ReasonTimeout},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, kube.ReasonUnavailable},
		{fmt.Errorf("wrapped: %w", syscall.ECONNRESET), kube.ReasonUnavailable},
		{&net.DNSError{Err: "no such host", Name: "api.example"}, kube.ReasonUnavailable},
		{apierrors.NewBadRequest("bad"), kube.ReasonInvalid},
		{errors.New("boom"), kube.ReasonError},
	}
	for _, tt := range tests {
		if got := kube.ReasonOf(tt.err); got != tt.want {
			t.Errorf("ReasonOf(%v) = %q, want %q", tt.err, got, tt.want)
		}
		if tt.want != "" && tt.want.Sentence() == "" {
			t.Errorf("%q has no sentence", tt.want)
		}
	}
}

func TestCellRender(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		cell kube.Cell
		want string
	}{
		{kube.Text("Running"), "Running"},
		{kube.Age(now.Add(-50 * time.Hour)), "2d2h"},
		{kube.Age(time.Time{}), "<unknown>"},
		{kube.Cell{Text: "3", Since: now.Add(-5 * time.Minute)}, "3 (5m ago)"},
	}
	for _, tt := range tests {
		if got := tt.cell.Render(now); got != tt.want {
			t.Errorf("%+v.Render = %q, want %q", tt.cell, got, tt.want)
		}
	}
}
