package kube_test

import (
	"context"
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func labelled(pod *corev1.Pod, node string, labels map[string]string, owner string) *corev1.Pod {
	pod.Labels = labels
	pod.Spec.NodeName = node
	if owner != "" {
		pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "rs", UID: k8stypes.UID(owner)}}
	}
	return pod
}

// eventually polls a snapshot until cond holds, every pause, for at most
// within: informers deliver changes asynchronously, and a real cluster
// takes its time.
func eventually(t *testing.T, c *kube.Client, req kube.SnapshotRequest, within, pause time.Duration, cond func(kube.Snapshot) bool) kube.Snapshot {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		snap := c.Snapshot(context.Background(), req)
		if cond(snap) {
			return snap
		}
		if time.Now().After(deadline) {
			t.Fatalf("condition not met; last snapshot: tables %+v, truncated %+v", snap.Tables, snap.Truncated)
		}
		time.Sleep(pause)
	}
}

func TestSnapshotReadsFromInformerAndIdleCostsNothing(t *testing.T) {
	c, cs := kubetest.FakeClient(t, readyPod("demo", "a"), readyPod("other", "z"))
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"}
	first := c.Snapshot(context.Background(), req)
	pods, ok := first.Table("pods")
	if !ok || !pods.Cached || len(pods.Rows) != 1 || pods.Rows[0].Name != "a" {
		t.Fatalf("first snapshot %+v, want pod a from the cache", first)
	}
	if got := c.CacheStats(); len(got.Kinds) != 1 || got.Kinds[0] != "pods/demo" || got.Objects != 1 {
		t.Fatalf("cache stats %+v, want one informer for pods in demo", got)
	}
	second := c.Snapshot(context.Background(), req)
	again, _ := second.Table("pods")
	if second.Generation != first.Generation || &again.Rows[0] != &pods.Rows[0] {
		t.Fatal("an idle snapshot rebuilt its rows or moved the generation")
	}
	if _, err := cs.CoreV1().Pods("demo").Create(context.Background(), readyPod("demo", "b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	third := eventually(t, c, req, 5*time.Second, 20*time.Millisecond, func(s kube.Snapshot) bool { p, _ := s.Table("pods"); return len(p.Rows) == 2 })
	if third.Generation == first.Generation {
		t.Fatal("generation did not move when a pod was added")
	}
	if err := cs.CoreV1().Pods("demo").Delete(context.Background(), "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, c, req, 5*time.Second, 20*time.Millisecond, func(s kube.Snapshot) bool {
		p, _ := s.Table("pods")
		return len(p.Rows) == 1 && p.Rows[0].Name == "b"
	})
}

func TestSnapshotListsWhenTheUserMayNotWatch(t *testing.T) {
	c, cs := kubetest.FakeClient(t, readyPod("demo", "a"))
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"}
	snap := c.Snapshot(context.Background(), req)
	pods, ok := snap.Table("pods")
	if !ok || pods.Cached || len(pods.Rows) != 1 {
		t.Fatalf("snapshot %+v, want pod a from a direct list", snap)
	}
	if got := c.CacheStats(); len(got.Kinds) != 0 {
		t.Fatalf("an informer runs for a kind the user may not watch: %+v", got)
	}
	// Listed kinds still refresh: a new pod shows in the next snapshot.
	if _, err := cs.CoreV1().Pods("demo").Create(context.Background(), readyPod("demo", "b"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if p, _ := c.Snapshot(context.Background(), req).Table("pods"); len(p.Rows) != 2 {
		t.Fatalf("listed pods did not refresh: %+v", p.Rows)
	}
}

func TestForbiddenWatchFallsBackToList(t *testing.T) {
	c, cs := kubetest.FakeClient(t, readyPod("demo", "a"))
	cs.PrependWatchReactor("pods", func(k8stesting.Action) (bool, watch.Interface, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("may not watch"))
	})
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"}
	snap := eventually(t, c, req, 5*time.Second, 20*time.Millisecond, func(s kube.Snapshot) bool { p, ok := s.Table("pods"); return ok && !p.Cached })
	if p, _ := snap.Table("pods"); len(p.Rows) != 1 {
		t.Fatalf("rows %+v after the watch was refused", p.Rows)
	}
	eventually(t, c, req, 5*time.Second, 20*time.Millisecond, func(kube.Snapshot) bool { return len(c.CacheStats().Kinds) == 0 })
}

func TestIdleInformerStops(t *testing.T) {
	cs := fake.NewClientset(readyPod("demo", "a"))
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), CacheIdle: 50 * time.Millisecond})
	t.Cleanup(c.Close)
	c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"})
	if len(c.CacheStats().Kinds) != 1 {
		t.Fatal("no informer started")
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(c.CacheStats().Kinds) != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the idle informer still runs: %+v", c.CacheStats())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSelectorsOnCachedAndListedRows(t *testing.T) {
	objs := []runtime.Object{
		labelled(readyPod("demo", "web-1"), "n1", map[string]string{"app": "web", "tier": "front"}, "rs-1"),
		labelled(readyPod("demo", "web-2"), "n2", map[string]string{"app": "web", "tier": "front"}, "rs-1"),
		labelled(readyPod("demo", "db-0"), "n1", map[string]string{"app": "db"}, ""),
	}
	cached, _ := kubetest.FakeClient(t, objs...)
	listed, lcs := kubetest.FakeClient(t, objs...)
	lcs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	tests := []struct {
		sel  kube.Selector
		want []string
	}{
		{kube.Selector{Labels: "app=web"}, []string{"web-1", "web-2"}},
		{kube.Selector{Labels: "app!=web"}, []string{"db-0"}},
		{kube.Selector{Labels: "app in (web,db),tier"}, []string{"web-1", "web-2"}},
		{kube.Selector{Fields: "spec.nodeName=n1"}, []string{"db-0", "web-1"}},
		{kube.Selector{Owner: "rs-1"}, []string{"web-1", "web-2"}},
		{kube.Selector{Labels: "app=web", Fields: "metadata.name=web-2"}, []string{"web-2"}},
	}
	for name, c := range map[string]*kube.Client{"cached": cached, "listed": listed} {
		for _, tt := range tests {
			snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo", Selector: tt.sel})
			p, ok := snap.Table("pods")
			var got []string
			for _, r := range p.Rows {
				got = append(got, r.Name)
			}
			if !ok || p.Cached != (name == "cached") || len(got) != len(tt.want) {
				t.Errorf("%s %+v: rows %v (cached %v), want %v", name, tt.sel, got, p.Cached, tt.want)
				continue
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("%s %+v: rows %v, want %v", name, tt.sel, got, tt.want)
				}
			}
		}
	}
	snap := cached.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Selector: kube.Selector{Labels: "app=(web"}})
	if tr, ok := snap.Truncation("pods"); !ok || tr.Reason != kube.ReasonInvalid {
		t.Fatalf("a malformed selector gave %+v, want an invalid truncation", snap)
	}
}

func TestDrillDown(t *testing.T) {
	replicas := int32(2)
	deploy := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
		Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
	}
	empty := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "empty"}, Spec: appsv1.DeploymentSpec{}}
	c, _ := kubetest.FakeClient(t, deploy, empty, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}},
		labelled(readyPod("demo", "web-1"), "n1", map[string]string{"app": "web"}, ""),
		labelled(readyPod("other", "x"), "n1", map[string]string{"app": "x"}, ""))
	ctx := context.Background()

	req, err := c.DrillDown(ctx, "deploy", "demo", "web")
	if err != nil || req.Kinds[0] != "pods" || req.Namespace != "demo" || req.Selector.Labels != "app=web" {
		t.Fatalf("deployment drill-down %+v, %v", req, err)
	}
	if p, _ := c.Snapshot(ctx, req).Table("pods"); len(p.Rows) != 1 || p.Rows[0].Name != "web-1" {
		t.Fatalf("the deployment's pods %+v", p.Rows)
	}
	req, err = c.DrillDown(ctx, "nodes", "", "n1")
	if err != nil || req.Namespace != "" || req.Selector.Fields != "spec.nodeName=n1" {
		t.Fatalf("node drill-down %+v, %v", req, err)
	}
	if p, _ := c.Snapshot(ctx, req).Table("pods"); len(p.Rows) != 2 {
		t.Fatalf("the node's pods in all namespaces: %+v", p.Rows)
	}
	req, err = c.DrillDown(ctx, "ns", "", "demo")
	if err != nil || req.Namespace != "demo" || !req.Selector.IsZero() {
		t.Fatalf("namespace drill-down %+v, %v", req, err)
	}
	if _, err := c.DrillDown(ctx, "deploy", "demo", "empty"); !errors.Is(err, kube.ErrSelectsNothing) {
		t.Fatalf("a deployment without a selector: %v, want ErrSelectsNothing", err)
	}
	if _, err := c.DrillDown(ctx, "deploy", "demo", "gone"); kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Fatalf("a deleted deployment: %v, want not_found", err)
	}
	if _, err := c.DrillDown(ctx, "bogus", "demo", "x"); kube.ReasonOf(err) != kube.ReasonInvalid {
		t.Fatalf("an unknown kind: %v, want invalid", err)
	}
}

// TestSelectorViaNeedsAReadableOwnerKind: a Via selector without its
// Owner, or through a kind no plugin serves, is refused as invalid.
func TestSelectorViaNeedsAReadableOwnerKind(t *testing.T) {
	c, _ := kubetest.FakeClient(t, readyPod("demo", "a"))
	for _, sel := range []kube.Selector{{Via: "jobs"}, {Owner: "uid", Via: "widgets"}} {
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo", Selector: sel})
		if tr, ok := snap.Truncation("pods"); !ok || tr.Reason != kube.ReasonInvalid {
			t.Errorf("%+v: %+v, want an invalid truncation", sel, snap)
		}
	}
}
