package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// ownedWeb is a Deployment web (uid d1) owning ReplicaSet web-1 (uid r1)
// owning n Pods, the first CrashLoopBackOff when broken, and a Service
// web selecting app=web.
func ownedWeb(n int, broken bool) []k8sruntime.Object {
	labels := map[string]string{"app": "web"}
	owner := func(kind, name, uid string) []metav1.OwnerReference {
		yes := true
		return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: k8stypes.UID(uid), Controller: &yes}}
	}
	replicas := int32(n)
	objs := []k8sruntime.Object{
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "d1"},
			Spec:   appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}},
			Status: appsv1.DeploymentStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas, UpdatedReplicas: replicas}},
		&appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1", UID: "r1", OwnerReferences: owner("Deployment", "web", "d1")},
			Spec:   appsv1.ReplicaSetSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: labels}},
			Status: appsv1.ReplicaSetStatus{Replicas: replicas, ReadyReplicas: replicas, AvailableReplicas: replicas}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "s1"}, Spec: corev1.ServiceSpec{Selector: labels}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "stray", UID: "stray"}},
	}
	for i := range n {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: fmt.Sprintf("web-1-%04d", i), UID: k8stypes.UID(fmt.Sprintf("p%d", i)),
			Labels: labels, OwnerReferences: owner("ReplicaSet", "web-1", "r1"), CreationTimestamp: metav1.NewTime(time.Now())},
			Spec:   corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:1"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
		if broken && i == 0 {
			p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "app", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}
		}
		objs = append(objs, p)
	}
	return objs
}

// lines draws a tree as kind/name lines indented by depth, with the
// rolled-up health, the target marked *, selected nodes ~.
func lines(n *kube.OwnerNode, depth int, out *[]string) {
	mark := ""
	if n.Target {
		mark = "*"
	}
	if n.Selected {
		mark += "~"
	}
	*out = append(*out, fmt.Sprintf("%s%s/%s %s%s", strings.Repeat("  ", depth), n.Kind, n.Name, n.Worst, mark))
	for _, c := range n.Children {
		lines(c, depth+1, out)
	}
}

// TestOwnerTree: from a Pod the tree goes up to its Deployment and down
// to every Pod of its ReplicaSet, a broken Pod's failure rolled up to the
// top; from the Service, its selected Pods; a Pod that nothing owns is a
// tree of one; an unknown kind and a missing object are errors.
func TestOwnerTree(t *testing.T) {
	c, _ := kubetest.FakeClient(t, ownedWeb(2, true)...)
	ctx := context.Background()
	tree, err := c.OwnerTree(ctx, "po", "demo", "web-1-0001")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	lines(tree.Root, 0, &got)
	want := []string{"deployments/web failed", "  replicasets/web-1 failed", "    pods/web-1-0000 failed", "    pods/web-1-0001 ok*"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tree from a pod:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	tree, err = c.OwnerTree(ctx, "svc", "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	got = nil
	lines(tree.Root, 0, &got)
	want = []string{"services/web failed*", "  pods/web-1-0000 failed~", "  pods/web-1-0001 ok~"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("tree from a Service:\n%s", strings.Join(got, "\n"))
	}
	if tree, err = c.OwnerTree(ctx, "pods", "demo", "stray"); err != nil || tree.Root.Name != "stray" || len(tree.Root.Children) != 0 {
		t.Fatalf("a pod nothing owns: %+v, %v", tree.Root, err)
	}
	if _, err = c.OwnerTree(ctx, "gizmos", "demo", "x"); kube.ReasonOf(err) != kube.ReasonInvalid {
		t.Errorf("an unknown kind: %v", err)
	}
	if _, err = c.OwnerTree(ctx, "pods", "demo", "gone"); kube.ReasonOf(err) != kube.ReasonNotFound {
		t.Errorf("a missing pod: %v", err)
	}
}

// BenchmarkOwnerTree1000Pods: the tree of a Deployment of 1,000 Pods from
// cached rows (the budget: 50 ms).
func BenchmarkOwnerTree1000Pods(b *testing.B) {
	c, _ := kubetest.FakeClient(b, ownedWeb(1000, true)...)
	ctx := context.Background()
	if _, err := c.OwnerTree(ctx, "deployments", "demo", "web"); err != nil { // the caches fill
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		tree, err := c.OwnerTree(ctx, "deployments", "demo", "web")
		if err != nil || len(tree.Root.Children[0].Children) != 1000 {
			b.Fatalf("%v", err)
		}
	}
}
