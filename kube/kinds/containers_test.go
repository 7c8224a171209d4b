package kinds_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// sidecarPod is a running pod with a native sidecar, a finished init
// container, a crash-looping main container, a ready one and an ephemeral
// debug container.
func sidecarPod() *corev1.Pod {
	p := pod("sidecar-demo", corev1.PodRunning)
	p.UID = "uid-pod"
	p.Spec.InitContainers = []corev1.Container{
		{Name: "setup", Image: "busybox:1"},
		{Name: "proxy", Image: "envoy:1", RestartPolicy: &always, Ports: []corev1.ContainerPort{{Name: "admin", ContainerPort: 9901}}},
	}
	p.Spec.Containers = []corev1.Container{
		{Name: "app", Image: "app:1", Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: 80}, {ContainerPort: 53, Protocol: corev1.ProtocolUDP}}},
		{Name: "worker", Image: "worker:1"},
	}
	p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "debugger", Image: "busybox:1"}}}
	started := metav1.NewTime(created.Add(30 * time.Minute))
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{
		{Name: "setup", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 0, Reason: "Completed", StartedAt: metav1.NewTime(created)}}},
		{Name: "proxy", Ready: true, Started: truePointer, RestartCount: 1, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
			LastTerminationState: terminated(1, "Error")},
	}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{
		{Name: "app", Ready: true, State: running()},
		{Name: "worker", RestartCount: 7, State: waiting("CrashLoopBackOff"), LastTerminationState: terminated(2, "Error")},
	}
	return p
}

func TestContainersExpand(t *testing.T) {
	rows := kinds.Containers{}.Expand(sidecarPod())
	want := []struct {
		cells  []string
		health kube.Health
	}{
		{[]string{"setup", "busybox:1", "false", "Terminated:Completed", "true", "0", "<none>", "90m"}, kube.HealthOK},
		{[]string{"proxy", "envoy:1", "true", "Running", "sidecar", "1 (89m ago)", "admin:9901/TCP", "60m"}, kube.HealthOK},
		{[]string{"app", "app:1", "true", "Running", "false", "0", "http:80/TCP,53/UDP", "90m"}, kube.HealthOK},
		{[]string{"worker", "worker:1", "false", "Waiting:CrashLoopBackOff", "false", "7 (89m ago)", "<none>", "<unknown>"}, kube.HealthFailed},
		{[]string{"debugger", "busybox:1", "false", "Waiting", "ephemeral", "0", "<none>", "<unknown>"}, kube.HealthProgressing},
	}
	if len(rows) != len(want) {
		t.Fatalf("%d rows, want %d", len(rows), len(want))
	}
	columns := kinds.Containers{}.Info().Columns
	for i, w := range want {
		r := rows[i]
		if len(r.Cells) != len(columns) {
			t.Fatalf("%s: %d cells for %d columns", r.Name, len(r.Cells), len(columns))
		}
		equal(t, texts(r), w.cells)
		if r.Health != w.health || r.Status != w.cells[3] {
			t.Errorf("%s: %s/%v, want %s/%v", r.Name, r.Status, r.Health, w.cells[3], w.health)
		}
		if r.Name != w.cells[0] || r.Namespace != "demo" || r.UID != "uid-pod/"+w.cells[0] {
			t.Errorf("identity %s/%s %s", r.Namespace, r.Name, r.UID)
		}
		if len(r.Owners) != 1 || r.Owners[0] != "uid-pod" {
			t.Errorf("%s: Owners %v, want the pod's UID", r.Name, r.Owners)
		}
	}
	if rows := (kinds.Containers{}).Expand(&corev1.Node{}); rows != nil {
		t.Errorf("a Node expanded to %d rows", len(rows))
	}
}

func TestContainerStates(t *testing.T) {
	tests := []struct {
		name   string
		init   string
		st     *corev1.ContainerStatus
		state  string
		health kube.Health
	}{
		{"not reported", "false", nil, "Waiting", kube.HealthProgressing},
		{"creating", "false", &corev1.ContainerStatus{State: waiting("ContainerCreating")}, "Waiting:ContainerCreating", kube.HealthProgressing},
		{"pod initializing", "false", &corev1.ContainerStatus{State: waiting("PodInitializing")}, "Waiting:PodInitializing", kube.HealthProgressing},
		{"image pull", "false", &corev1.ContainerStatus{State: waiting("ImagePullBackOff")}, "Waiting:ImagePullBackOff", kube.HealthFailed},
		{"config error", "false", &corev1.ContainerStatus{State: waiting("CreateContainerConfigError")}, "Waiting:CreateContainerConfigError", kube.HealthFailed},
		{"running not ready", "false", &corev1.ContainerStatus{State: running()}, "Running", kube.HealthWarning},
		{"init running", "true", &corev1.ContainerStatus{State: running()}, "Running", kube.HealthProgressing},
		{"sidecar starting", "sidecar", &corev1.ContainerStatus{State: running()}, "Running", kube.HealthProgressing},
		{"sidecar started, not ready", "sidecar", &corev1.ContainerStatus{State: running(), Started: truePointer}, "Running", kube.HealthWarning},
		{"oom killed", "false", &corev1.ContainerStatus{State: terminated(137, "OOMKilled")}, "Terminated:OOMKilled", kube.HealthFailed},
		{"exit code", "false", &corev1.ContainerStatus{State: terminated(3, "")}, "Terminated:ExitCode:3", kube.HealthFailed},
		{"signal", "false", &corev1.ContainerStatus{State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Signal: 9}}},
			"Terminated:Signal:9", kube.HealthFailed},
		{"sidecar stopped after the main containers", "sidecar", &corev1.ContainerStatus{State: terminated(143, "Error")}, "Terminated:Error", kube.HealthOK},
		{"main container ended by SIGTERM", "false", &corev1.ContainerStatus{State: terminated(143, "Error")}, "Terminated:Error", kube.HealthFailed},
		{"completed", "true", &corev1.ContainerStatus{State: terminated(0, "Completed")}, "Terminated:Completed", kube.HealthOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("p", corev1.PodRunning)
			row := kinds.ContainerRow(p, &p.Spec.Containers[0], tt.st, tt.init)
			if row.Status != tt.state || row.Health != tt.health || row.Cells[3].Text != tt.state || row.Cells[4].Text != tt.init {
				t.Fatalf("got %s/%v INIT %q, want %s/%v", row.Status, row.Health, row.Cells[4].Text, tt.state, tt.health)
			}
		})
	}
}

// TestPodsOpenContainers: pods drill down into containers, which are part
// of pods and can be logged and exec'd into.
func TestPodsOpenContainers(t *testing.T) {
	r := kinds.Builtin()
	pods, _ := r.Lookup("po")
	containers, ok := r.Lookup(string(pods.Info().DrillDown))
	if !ok || containers.Info().ID != "containers" {
		t.Fatalf("pods open %q", pods.Info().DrillDown)
	}
	info := containers.Info()
	if info.PartOf != "pods" || info.Resource != "pods" || !info.Namespaced || !info.Capabilities.Has(kube.CanLogs|kube.CanExec) {
		t.Fatalf("containers: %+v", info)
	}
	if _, ok := containers.(kube.Expander); !ok {
		t.Fatal("containers is no Expander")
	}
}

// TestContainerRowMarksNativeSidecars: only the native sidecar's row
// carries NativeSidecar (its metrics cells then say n/a, not "-").
func TestContainerRowMarksNativeSidecars(t *testing.T) {
	for _, r := range (kinds.Containers{}).Expand(sidecarPod()) {
		if r.Resources == nil || len(r.Resources.Containers) != 1 {
			t.Fatalf("%s: resources %+v", r.Name, r.Resources)
		}
		if got := r.Resources.Containers[0].NativeSidecar; got != (r.Name == "proxy") {
			t.Errorf("%s: NativeSidecar %v", r.Name, got)
		}
	}
}
