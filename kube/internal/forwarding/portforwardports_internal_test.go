package forwarding

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

func TestPickPod(t *testing.T) {
	now := metav1.Now()
	deleting := pfPod("deleting", true, 1)
	deleting.DeletionTimestamp = &now
	pending := pfPod("pending", true, 1)
	pending.Status.Phase = corev1.PodPending
	for _, tc := range []struct {
		name  string
		pods  []*corev1.Pod
		avoid map[string]bool
		want  string
	}{
		{"none", nil, nil, ""},
		{"only not ready", []*corev1.Pod{pfPod("a", false, 1), deleting, pending}, nil, ""},
		{"ready longest", []*corev1.Pod{pfPod("new", true, 300), pfPod("old", true, 100), pfPod("mid", true, 200)}, nil, "old"},
		{"tie by name", []*corev1.Pod{pfPod("b", true, 100), pfPod("a", true, 100)}, nil, "a"},
		{"avoided", []*corev1.Pod{pfPod("old", true, 100), pfPod("new", true, 300)}, map[string]bool{"uid-old": true}, "new"},
		{"skips deleting", []*corev1.Pod{deleting, pfPod("z", true, 500)}, nil, "z"},
	} {
		var pods []corev1.Pod
		for _, p := range tc.pods {
			pods = append(pods, *p)
		}
		got := pickPod(pods, tc.avoid)
		if (got == nil) != (tc.want == "") || got != nil && got.Name != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, got, tc.want)
		}
	}
}

func TestServiceTarget(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web"}, Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{
		{Port: 80, TargetPort: intstr.FromString("http")},
		{Port: 81, TargetPort: intstr.FromInt32(9090)},
		{Port: 82},
		{Port: 83, TargetPort: intstr.FromString("nope")},
		{Port: 53, Protocol: corev1.ProtocolUDP},
	}}}
	pod := pfPod("web-1", true, 0)
	for port, want := range map[int32]any{80: int32(8080), 81: int32(9090), 82: int32(82), 83: "no container port named \"nope\"",
		53: "only TCP", 99: "has no port 99"} {
		got, err := serviceTarget(svc, port, pod)
		switch w := want.(type) {
		case int32:
			if err != nil || got != w {
				t.Errorf("port %d: %d %v, want %d", port, got, err, w)
			}
		case string:
			if err == nil || vocab.ReasonOf(err) != vocab.ReasonInvalid || !strings.Contains(err.Error(), w) {
				t.Errorf("port %d: %v, want %q", port, err, w)
			}
		}
	}
	// A native sidecar's named port counts; a plain init container's not.
	always := corev1.ContainerRestartPolicyAlways
	pod.Spec.InitContainers = []corev1.Container{
		{Name: "proxy", RestartPolicy: &always, Ports: []corev1.ContainerPort{{Name: "nope", ContainerPort: 15001}}},
		{Name: "init", Ports: []corev1.ContainerPort{{Name: "init", ContainerPort: 1}}},
	}
	if got, err := serviceTarget(svc, 83, pod); err != nil || got != 15001 {
		t.Errorf("sidecar port: %d %v", got, err)
	}
	if n := len(containerPorts(&pod.Spec)); n != 3 {
		t.Errorf("%d container ports, want 3 (the sidecar's and app's two)", n)
	}
}

// FuzzServiceTarget: whatever the Service and pod say, the port chosen is
// one the Service or a container of the pod names, never invented.
func FuzzServiceTarget(f *testing.F) {
	f.Add(int32(80), "http", int32(0), int32(8080), "http", int32(80))
	f.Add(int32(81), "", int32(9090), int32(9090), "m", int32(81))
	f.Fuzz(func(t *testing.T, port int32, targetName string, targetNum, containerPort int32, containerName string, ask int32) {
		tp := intstr.FromInt32(targetNum)
		if targetName != "" {
			tp = intstr.FromString(targetName)
		}
		svc := &corev1.Service{Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: port, TargetPort: tp}}}}
		pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Ports: []corev1.ContainerPort{
			{Name: containerName, ContainerPort: containerPort}}}}}}
		got, err := serviceTarget(svc, ask, pod)
		if err != nil {
			return
		}
		if ask != port || (got != port && got != targetNum && got != containerPort) {
			t.Fatalf("port %d target %v container %s:%d asked %d → %d", port, tp, containerName, containerPort, ask, got)
		}
	})
}
