package kube_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2EOverviewEqualsTheAPI: the clusters overview of the local cluster
// counts what lists of the API server count (Nodes Ready of all, Pods by
// status.phase in every namespace, as kubectl's field selectors do), its
// version is /version's, the admin may list, watch and write; the
// read-only user, who may list Pods in demo only, gets demo's counted
// and may not write. Other packages' tests
// change the Pods meanwhile: the counts are compared again until they
// meet (10 tries).
func TestE2EOverviewEqualsTheAPI(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	e := &opEnv{t: t, cfg: cfg, cs: cs}
	c, _ := e.client(cfg, kube.Options{})
	ctx := context.Background()
	var o kube.ClusterOverview
	var want [5]int
	for try := 0; try < 10; try++ {
		o = c.Overview(ctx)
		nodes, err := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		want = [5]int{len(nodes.Items)}
		for _, n := range nodes.Items {
			for _, cond := range n.Status.Conditions {
				if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
					want[1]++
				}
			}
		}
		for i, phase := range []string{"Running", "Pending", "Failed"} {
			pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "status.phase=" + phase})
			if err != nil {
				t.Fatal(err)
			}
			want[2+i] = len(pods.Items)
		}
		if [5]int{o.NodesTotal, o.NodesReady, o.PodsRunning, o.PodsPending, o.PodsFailed} == want {
			break
		}
		time.Sleep(time.Second)
	}
	if got := [5]int{o.NodesTotal, o.NodesReady, o.PodsRunning, o.PodsPending, o.PodsFailed}; got != want {
		t.Fatalf("nodes, ready, running, pending, failed: overview %v, the API %v (%+v)", got, want, o)
	}
	v, err := cs.Discovery().ServerVersion()
	if err != nil || o.Version != v.GitVersion || !o.Reachable() || o.Latency <= 0 {
		t.Fatalf("version %q, /version %v %v", o.Version, v, err)
	}
	if !o.MayList || !o.MayWatch || !o.MayWrite || o.PodsTotal < o.PodsRunning || len(o.Unread) != 0 {
		t.Fatalf("admin: %+v", o)
	}
	// The read-only user may list Pods in demo only: demo's are counted.
	ro, _ := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	ro.SetNamespace(kubetest.DemoNamespace) // the context's namespace
	ov := ro.Overview(ctx)
	demo, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ov.Reachable() || ov.Namespace != kubetest.DemoNamespace || !ov.MayList || ov.MayWrite || ov.PodsTotal != len(demo.Items) {
		t.Fatalf("read-only user: %+v (demo has %d pods)", ov, len(demo.Items))
	}
}
