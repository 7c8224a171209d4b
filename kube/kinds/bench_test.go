package kinds_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/kube/kinds"
)

// benchPods builds n pods as a busy cluster holds them: owned by a
// ReplicaSet, four labels, an app container and a log sidecar with ports
// and resources, scheduled, running and ready, every tenth one restarted.
func benchPods(n int) []*corev1.Pod {
	pods := make([]*corev1.Pod, n)
	for i := range pods {
		app := fmt.Sprintf("svc-%d", i%200)
		started := metav1.NewTime(created.Add(time.Duration(i) * time.Second))
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{
				Name: fmt.Sprintf("%s-7887c59c5c-%05d", app, i), Namespace: fmt.Sprintf("team-%d", i%20),
				UID: types.UID(fmt.Sprintf("0000-%08d", i)), CreationTimestamp: started,
				Labels: map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop",
					"pod-template-hash": "7887c59c5c", "tier": "backend"},
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-7887c59c5c", UID: types.UID("rs-" + app)}},
			},
			Spec: corev1.PodSpec{
				NodeName: fmt.Sprintf("node-%d", i%100),
				Containers: []corev1.Container{
					{Name: "app", Image: "registry.example.com/shop/" + app + ":1.4.2",
						Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}},
						Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
							corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}},
					{Name: "log", Image: "fluent/fluent-bit:3.1.9"},
				},
			},
			Status: corev1.PodStatus{
				Phase:  corev1.PodRunning,
				PodIPs: []corev1.PodIP{{IP: fmt.Sprintf("10.%d.%d.%d", i>>16&255, i>>8&255, i&255)}},
				Conditions: []corev1.PodCondition{
					{Type: corev1.PodInitialized, Status: corev1.ConditionTrue}, {Type: corev1.PodReady, Status: corev1.ConditionTrue},
					{Type: corev1.ContainersReady, Status: corev1.ConditionTrue}, {Type: corev1.PodScheduled, Status: corev1.ConditionTrue},
				},
				ContainerStatuses: []corev1.ContainerStatus{
					{Name: "app", Ready: true, Started: truePointer, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}},
					{Name: "log", Ready: true, Started: truePointer, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}}},
				},
			},
		}
		if i%10 == 0 {
			p.Status.ContainerStatuses[0].RestartCount = 3
			p.Status.ContainerStatuses[0].LastTerminationState = terminated(1, "Error")
		}
		pods[i] = p
	}
	return pods
}

// BenchmarkPodRows measures turning 20,000 pods into rows, as an informer's
// initial sync of a large namespace does; one op is all 20,000.
func BenchmarkPodRows(b *testing.B) {
	pods := benchPods(20000)
	plugin := kinds.Pods{}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range pods {
			if _, ok := plugin.Row(p); !ok {
				b.Fatal("Row refused a pod")
			}
		}
	}
}
