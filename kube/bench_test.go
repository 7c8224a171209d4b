package kube_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// realisticPod is a pod as a Deployment makes it: labels, an owner, two
// containers with requests, a status, and the managedFields and
// last-applied annotation the cache strips.
func realisticPod(i int) *corev1.Pod {
	start := metav1.NewTime(time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC))
	name := fmt.Sprintf("web-7d9f8c6b5-%05d", i)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: fmt.Sprintf("ns-%d", i%10), Name: name, UID: k8stypes.UID(fmt.Sprintf("00000000-0000-0000-0000-%012d", i)),
			CreationTimestamp: start, ResourceVersion: fmt.Sprint(1000 + i),
			Labels: map[string]string{"app": "web", "pod-template-hash": "7d9f8c6b5", "tier": "frontend"},
			Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"` + name + `"}}`,
				"prometheus.io/scrape": "true"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "web-7d9f8c6b5", UID: "rs-uid"}},
			ManagedFields:   []metav1.ManagedFieldsEntry{{Manager: "kube-controller-manager", Operation: "Update", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: make([]byte, 600)}}},
		},
		Spec: corev1.PodSpec{NodeName: fmt.Sprintf("node-%d", i%100), Containers: []corev1.Container{
			{Name: "app", Image: "registry.example/web:1.2.3", Ports: []corev1.ContainerPort{{ContainerPort: 8080}}},
			{Name: "proxy", Image: "registry.example/proxy:2.0"},
		}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", StartTime: &start,
			Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{
				{Name: "app", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}}},
				{Name: "proxy", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: start}}},
			}},
	}
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// BenchmarkCachedPodMemory reports the heap the Client holds per cached
// pod (the informer's stripped object plus its row), as bytes/pod.
func BenchmarkCachedPodMemory(b *testing.B) {
	const n = 10000
	objs := make([]k8sruntime.Object, n)
	for i := range objs {
		objs[i] = realisticPod(i)
	}
	for range b.N {
		cs := fake.NewClientset(objs...)
		cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
		before := heapInUse()
		c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin()})
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}})
		if tb, ok := snap.Table("pods"); !ok || !tb.Cached || len(tb.Rows) != n {
			b.Fatalf("pods not cached: %d rows, truncated %+v", len(tb.Rows), snap.Truncated)
		}
		after := heapInUse()
		b.ReportMetric(float64(after-before)/n, "bytes/pod")
		runtime.KeepAlive(snap)
		c.Close()
	}
}

// BenchmarkSnapshotFromCache measures a Snapshot of 10,000 cached pods when
// nothing changed: the idle refresh, which must cost next to nothing.
func BenchmarkSnapshotFromCache(b *testing.B) {
	const n = 10000
	objs := make([]k8sruntime.Object, n)
	for i := range objs {
		objs[i] = realisticPod(i)
	}
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin()})
	defer c.Close()
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}}
	c.Snapshot(context.Background(), req)
	b.Run("idle", func(b *testing.B) {
		for range b.N {
			c.Snapshot(context.Background(), req)
		}
	})
}
