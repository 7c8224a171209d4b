package kinds_test

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestBuiltinAliases: the singular and kubectl's short names of the kinds
// added beside pods, deployments, nodes and namespaces.
func TestBuiltinAliases(t *testing.T) {
	r := kinds.Builtin()
	for alias, want := range map[string]kube.Kind{
		"rs": "replicasets", "ds": "daemonsets", "daemonset": "daemonsets", "replicaset": "replicasets", "sts": "statefulsets", "StatefulSet": "statefulsets",
		"job": "jobs", "cj": "cronjobs", "cronjob": "cronjobs",
		"hpa": "horizontalpodautoscalers", "horizontalpodautoscaler": "horizontalpodautoscalers",
		"pdb": "poddisruptionbudgets", "poddisruptionbudget": "poddisruptionbudgets", "container": "containers",
	} {
		p, ok := r.Lookup(alias)
		if !ok || p.Info().ID != want {
			t.Errorf("Lookup(%q) = %v, want %s", alias, p, want)
		}
	}
	groups := map[kube.Kind]string{"replicasets": "apps/v1", "statefulsets": "apps/v1", "daemonsets": "apps/v1", "jobs": "batch/v1", "cronjobs": "batch/v1",
		"horizontalpodautoscalers": "autoscaling/v2", "poddisruptionbudgets": "policy/v1", "containers": "/v1"}
	for _, k := range r.Kinds() {
		if gv, ok := groups[k.ID]; ok && k.Group+"/"+k.Version != gv {
			t.Errorf("%s served from %s/%s, want %s", k.ID, k.Group, k.Version, gv)
		}
		if k.ID != "containers" && k.Resource != string(k.ID) {
			t.Errorf("%s: resource %q, want the id", k.ID, k.Resource)
		}
	}
}

// TestDrillDownThroughClient: through a Client over the fake clientset, a
// StatefulSet opens the pods its selector matches, a CronJob the pods of
// the Jobs it owns (and no other Job's), a Pod its containers.
func TestDrillDownThroughClient(t *testing.T) {
	labels := map[string]string{"app": "db"}
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "demo", UID: "uid-sts"},
		Spec: appsv1.StatefulSetSpec{Selector: &metav1.LabelSelector{MatchLabels: labels}}}
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "nightly", Namespace: "demo", UID: "uid-cron"}}
	owned := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "nightly-1", Namespace: "demo", UID: "uid-j1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "CronJob", Name: "nightly", UID: "uid-cron"}}}}
	other := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "migrate", Namespace: "demo", UID: "uid-j2"}}
	db0 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "demo", Labels: labels}}
	web := sidecarPod()
	ownedBy := func(name, job, uid string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", OwnerReferences: []metav1.OwnerReference{{
			APIVersion: "batch/v1", Kind: "Job", Name: job, UID: k8stypes.UID(uid)}}}}
	}
	nightlyPod, migratePod := ownedBy("nightly-1-abcde", "nightly-1", "uid-j1"), ownedBy("migrate-xyz12", "migrate", "uid-j2")
	c, _ := kubetest.FakeClient(t, sts, cj, owned, other, db0, web, nightlyPod, migratePod)
	ctx := context.Background()

	names := func(req kube.SnapshotRequest, kind kube.Kind) []string {
		t.Helper()
		snap := c.Snapshot(ctx, req)
		table, ok := snap.Table(kind)
		if !ok {
			t.Fatalf("%s truncated: %+v", kind, snap.Truncated)
		}
		var out []string
		for _, r := range table.Rows {
			out = append(out, r.Name)
		}
		return out
	}

	req, err := c.DrillDown(ctx, "sts", "demo", "db")
	if err != nil {
		t.Fatal(err)
	}
	if req.Kinds[0] != "pods" || req.Selector.Labels != "app=db" {
		t.Fatalf("statefulset opens %+v", req)
	}
	equal(t, names(req, "pods"), []string{"db-0"})

	req, err = c.DrillDown(ctx, "cj", "demo", "nightly")
	if err != nil {
		t.Fatal(err)
	}
	if req.Kinds[0] != "pods" || req.Selector != (kube.Selector{Owner: "uid-cron", Via: "jobs"}) || req.Namespace != "demo" {
		t.Fatalf("cronjob opens %+v", req)
	}
	equal(t, names(req, "pods"), []string{"nightly-1-abcde"})

	req, err = c.DrillDown(ctx, "pods", "demo", "sidecar-demo")
	if err != nil {
		t.Fatal(err)
	}
	equal(t, names(req, "containers"), []string{"setup", "proxy", "app", "worker", "debugger"})
}
