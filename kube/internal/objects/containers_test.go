package objects

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestPodDefaultContainer: kubectl's rule (podcmd.FindOrDefaultContainerByName):
// the annotation when it names one of the pod's containers, else the first
// of spec.containers; never a native sidecar or an init container listed
// before it.
func TestPodDefaultContainer(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	pod := func(annotation string, init []corev1.Container, containers ...string) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}}
		if annotation != "" {
			p.Annotations = map[string]string{DefaultContainerAnnotation: annotation}
		}
		p.Spec.InitContainers = init
		for _, c := range containers {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
		}
		return p
	}
	sidecar := []corev1.Container{{Name: "log-shipper", RestartPolicy: &always}}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		want string
	}{
		{"native sidecar, no annotation", pod("", sidecar, "app"), "app"},
		{"init container, no annotation", pod("", []corev1.Container{{Name: "migrate"}}, "app", "metrics"), "app"},
		{"several, no annotation", pod("", nil, "app", "metrics"), "app"},
		{"annotation", pod("metrics", sidecar, "app", "metrics"), "metrics"},
		{"annotation names the sidecar", pod("log-shipper", sidecar, "app"), "log-shipper"},
		{"annotation names no container", pod("gone", sidecar, "app", "metrics"), "app"},
		{"no containers", pod("", nil), ""},
	} {
		if got := DefaultContainer(tc.pod); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}
