package kinds_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func texts(r kube.Row) []string {
	out := make([]string, len(r.Cells))
	for i, c := range r.Cells {
		out[i] = c.Render(now)
	}
	return out
}

func equal(t *testing.T, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func TestBuiltinRegistry(t *testing.T) {
	r := kinds.Builtin()
	for alias, want := range map[string]kube.Kind{"po": "pods", "Pod": "pods", "deploy": "deployments", "no": "nodes", "ns": "namespaces"} {
		p, ok := r.Lookup(alias)
		if !ok || p.Info().ID != want {
			t.Errorf("Lookup(%q) = %v, want %s", alias, p, want)
		}
	}
	if _, ok := r.Lookup("nope"); ok {
		t.Error("Lookup(nope) found a plugin")
	}
	for _, k := range r.Kinds() {
		// kubectl leads every table with NAME but events' (LAST SEEN first,
		// NAME last and wide).
		if len(k.Columns) == 0 || (k.Columns[0].Name != "NAME" && k.ID != "events") {
			t.Errorf("%s: first column must be NAME, got %v", k.ID, k.Columns)
		}
	}
}

func TestNewRegistryRejectsDuplicateNames(t *testing.T) {
	if _, err := kube.NewRegistry(kinds.Pods{}, kinds.Pods{}); err == nil {
		t.Fatal("two plugins with the same id were accepted")
	}
}

func deployment(replicas int32, st appsv1.DeploymentStatus) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", Generation: 2, CreationTimestamp: metav1.NewTime(created)},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:1"}, {Name: "log", Image: "log:2"}}}},
		},
		Status: st,
	}
}

func TestDeploymentRow(t *testing.T) {
	tests := []struct {
		name   string
		d      *appsv1.Deployment
		status string
		health kube.Health
		cells  []string
	}{
		{"available", deployment(3, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}),
			"Available", kube.HealthOK, []string{"web", "3/3", "3", "3", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"rolling", deployment(3, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 4, UpdatedReplicas: 1, ReadyReplicas: 3, AvailableReplicas: 3}),
			"Progressing", kube.HealthProgressing, []string{"web", "3/3", "1", "3", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"none available", deployment(1, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 1, UpdatedReplicas: 1, UnavailableReplicas: 1}),
			"Unavailable", kube.HealthFailed, []string{"web", "0/1", "1", "0", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"degraded", deployment(3, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 2, AvailableReplicas: 2}),
			"Degraded", kube.HealthWarning, nil},
		{"deadline", deployment(3, appsv1.DeploymentStatus{ObservedGeneration: 2, Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded"}}}),
			"ProgressDeadlineExceeded", kube.HealthFailed, nil},
		{"scaled to zero", deployment(0, appsv1.DeploymentStatus{ObservedGeneration: 2}), "ScaledToZero", kube.HealthOK, nil},
		// A new Deployment whose pods are not up yet is rolling out, not failed
		// (Progressing True, ReplicaSetUpdated: within its deadline).
		{"new, pods starting", deployment(2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}}}),
			"Progressing", kube.HealthProgressing, nil},
		// After a completed rollout, losing every pod is a failure.
		{"rolled out, then none available", deployment(2, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 2, UpdatedReplicas: 2, UnavailableReplicas: 2,
			Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}}}),
			"Unavailable", kube.HealthFailed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.DeploymentRow(tt.d)
			if row.Status != tt.status || row.Health != tt.health {
				t.Fatalf("got %s/%v, want %s/%v", row.Status, row.Health, tt.status, tt.health)
			}
			if tt.cells != nil {
				equal(t, texts(row), tt.cells)
			}
		})
	}
}

func TestNodeRow(t *testing.T) {
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: "n1", CreationTimestamp: metav1.NewTime(created), Labels: map[string]string{
			"node-role.kubernetes.io/control-plane": "", "node-role.kubernetes.io/agent": "", "kubernetes.io/role": "agent"}},
		Spec: corev1.NodeSpec{Unschedulable: true},
		Status: corev1.NodeStatus{
			Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}},
			Addresses:  []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}},
			NodeInfo:   corev1.NodeSystemInfo{KubeletVersion: "fake", Architecture: "amd64"},
		},
	}
	row := kinds.NodeRow(n)
	equal(t, texts(row), []string{"n1", "Ready,SchedulingDisabled", "agent,control-plane", "90m", "fake", "127.0.0.1", "<none>", "<unknown>", "<unknown> (amd64)", "<unknown>"})
	if row.Health != kube.HealthWarning {
		t.Errorf("cordoned ready node: health %v, want warning", row.Health)
	}
	n.Spec.Unschedulable = false
	n.Status.Conditions[0].Status = corev1.ConditionUnknown
	if row := kinds.NodeRow(n); row.Status != "NotReady" || row.Health != kube.HealthFailed {
		t.Errorf("got %s/%v, want NotReady/failed", row.Status, row.Health)
	}
	n.Status.Conditions = nil
	if row := kinds.NodeRow(n); row.Status != "Unknown" {
		t.Errorf("no Ready condition: got %s, want Unknown", row.Status)
	}
}

func TestNamespaceRow(t *testing.T) {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo", CreationTimestamp: metav1.NewTime(created)},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating}}
	row := kinds.NamespaceRow(ns)
	equal(t, texts(row), []string{"demo", "Terminating", "90m"})
	if row.Health != kube.HealthWarning {
		t.Errorf("health %v, want warning", row.Health)
	}
}
