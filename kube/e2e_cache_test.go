package kube_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// tempPod creates a pod in namespace (it stays Pending: no toleration for
// the kwok nodes' taint) and deletes it when the test ends.
func tempPod(t *testing.T, cs kubernetes.Interface, namespace, prefix string) string {
	t.Helper()
	name := fmt.Sprintf("%s-%d", prefix, time.Now().UnixNano())
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"kyyard.dev/e2e": "temp"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.invalid/app:1"}}}}
	if _, err := cs.CoreV1().Pods(namespace).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		zero := int64(0)
		_ = cs.CoreV1().Pods(namespace).Delete(context.Background(), name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
	})
	return name
}

func hasRow(s kube.Snapshot, kind kube.Kind, name string) bool {
	tb, _ := s.Table(kind)
	for _, r := range tb.Rows {
		if r.Name == name {
			return true
		}
	}
	return false
}

// waitSnapshot takes snapshots of the local cluster until cond holds (at
// most 20 s).
func waitSnapshot(t *testing.T, c *kube.Client, req kube.SnapshotRequest, cond func(kube.Snapshot) bool) kube.Snapshot {
	t.Helper()
	return eventually(t, c, req, 20*time.Second, 200*time.Millisecond, cond)
}

// TestE2EReadOnlyUserRefreshesWithoutWatch is casebook C13's related kind:
// a user who may list but not watch pods still gets refreshing rows (direct
// lists), and one who may not list namespaces is told so.
func TestE2EReadOnlyUserRefreshesWithoutWatch(t *testing.T) {
	admin, err := kubernetes.NewForConfig(kubetest.Local(t))
	if err != nil {
		t.Fatal(err)
	}
	c := kubetest.Client(t, kubetest.LocalReadOnly(t))
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods", "namespaces"}, Namespace: kubetest.DemoNamespace}
	first := c.Snapshot(context.Background(), req)
	pods, ok := first.Table("pods")
	if !ok || pods.Cached || len(pods.Rows) == 0 {
		t.Fatalf("read-only pods: table %v cached %v rows %d; truncated %+v", ok, pods.Cached, len(pods.Rows), first.Truncated)
	}
	if tr, ok := first.Truncation("namespaces"); !ok || tr.Reason != kube.ReasonForbidden {
		t.Fatalf("namespaces: %+v, want forbidden", tr)
	}
	if got := c.CacheStats(); len(got.Kinds) != 0 {
		t.Fatalf("informers run for a user who may not watch: %+v", got)
	}
	name := tempPod(t, admin, kubetest.DemoNamespace, "kyyard-e2e-ro")
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return hasRow(s, "pods", name) })
}

// TestE2ECacheFollowsChangesWithoutListing: an admin's pods come from an
// informer that follows changes; after the cache synced, refreshes issue no
// list at all (the API server's audit log is the oracle).
func TestE2ECacheFollowsChangesWithoutListing(t *testing.T) {
	cfg := kubetest.Local(t)
	agent := fmt.Sprintf("kyyard-e2e-cache-%d", time.Now().UnixNano())
	cfg.UserAgent = agent
	admin, err := kubernetes.NewForConfig(kubetest.Local(t))
	if err != nil {
		t.Fatal(err)
	}
	c := kubetest.Client(t, cfg)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods", "deployments"}, Namespace: kubetest.DemoNamespace}
	first := c.Snapshot(context.Background(), req)
	for _, kind := range []kube.Kind{"pods", "deployments"} {
		if tb, ok := first.Table(kind); !ok || !tb.Cached || len(tb.Rows) == 0 {
			t.Fatalf("%s not served from a synced cache: %+v", kind, first.Truncated)
		}
	}
	synced := time.Now()
	name := tempPod(t, admin, kubetest.DemoNamespace, "kyyard-e2e-cache")
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return hasRow(s, "pods", name) })
	for range 10 {
		if s := c.Snapshot(context.Background(), req); len(s.Truncated) != 0 {
			t.Fatalf("truncated: %+v", s.Truncated)
		}
	}

	logPath := os.Getenv(kubetest.AuditLogEnv)
	if logPath == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	for _, e := range readAuditAfter(t, logPath, agent, synced) {
		if e.Verb == "list" && e.ObjectRef != nil && (e.ObjectRef.Resource == "pods" || e.ObjectRef.Resource == "deployments") {
			t.Errorf("a list of %s after the cache synced", e.ObjectRef.Resource)
		}
	}
}

// TestE2EDisruptiveAPIServerRestart stops the API server mid-session: reads
// say unavailable while it is gone (never stale rows passed off as fresh)
// and come back from the cache, without a new client, once it returns. It
// reads a namespace of its own where nothing happens, so no event arrives
// to show that the informer follows again: the cache must be trusted anew
// without one.
func TestE2EDisruptiveAPIServerRestart(t *testing.T) {
	tool := kubetest.Disruptive(t)
	cfg := kubetest.Local(t)
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, admin, "kyyard-e2e-outage")
	name := tempPod(t, admin, ns, "kyyard-e2e-quiet")
	c := kubetest.Client(t, cfg)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: ns}
	before := waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return hasRow(s, "pods", name) })
	if tb, ok := before.Table("pods"); !ok || !tb.Cached {
		t.Fatalf("pods not cached before the outage: %+v", before.Truncated)
	}
	restart := kubetest.ClusterCommand(tool, "restart-apiserver", "--down", "8s")
	out := make(chan error, 1)
	var output []byte
	go func() {
		var err error
		output, err = restart.CombinedOutput()
		out <- err
	}()
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool {
		tr, ok := s.Truncation("pods")
		return ok && (tr.Reason == kube.ReasonUnavailable || tr.Reason == kube.ReasonTimeout)
	})
	if err := <-out; err != nil {
		t.Fatalf("restart-apiserver: %v\n%s", err, output)
	}
	after := waitSnapshot(t, c, req, func(s kube.Snapshot) bool {
		tb, ok := s.Table("pods")
		return ok && tb.Cached && hasRow(s, "pods", name)
	})
	if tb, _ := after.Table("pods"); len(tb.Rows) != 1 {
		t.Errorf("rows after the restart %d, want 1", len(tb.Rows))
	}
}

func mustTable(t *testing.T, s kube.Snapshot, kind kube.Kind) kube.Table {
	t.Helper()
	tb, ok := s.Table(kind)
	if !ok {
		t.Fatalf("no %s table", kind)
	}
	return tb
}
