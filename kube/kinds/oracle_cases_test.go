package kinds_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/kinds"
)

// The kinds of input on which hack/oracle (the differential test against
// Kubernetes v1.37.2's printers) found kyyard's cells to differ from
// kubectl's, each with kubectl's cell as the expectation.

func strp(s string) *string { return &s }

// TestRepeatedPodConditions: kubectl's "a completed container next to a
// running one" rule asks whether ANY Ready condition is True
// (hasPodReadyCondition), while Initialized and readiness gates read the
// first condition of their type.
func TestRepeatedPodConditions(t *testing.T) {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	completed := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}
	cond := func(typ corev1.PodConditionType, s corev1.ConditionStatus) corev1.PodCondition {
		return corev1.PodCondition{Type: typ, Status: s}
	}
	tests := []struct {
		name   string
		conds  []corev1.PodCondition
		status string
		gates  string
	}{
		{"Ready False then True", []corev1.PodCondition{cond(corev1.PodReady, corev1.ConditionFalse), cond(corev1.PodReady, corev1.ConditionTrue)}, "Running", "0/1"},
		{"Ready True then False", []corev1.PodCondition{cond(corev1.PodReady, corev1.ConditionTrue), cond(corev1.PodReady, corev1.ConditionFalse)}, "Running", "1/1"},
		{"Ready False twice", []corev1.PodCondition{cond(corev1.PodReady, corev1.ConditionFalse), cond(corev1.PodReady, corev1.ConditionFalse)}, "NotReady", "0/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: demoMeta("p"),
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "a"}, {Name: "b"}}, ReadinessGates: []corev1.PodReadinessGate{{ConditionType: corev1.PodReady}}},
				Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: tt.conds, ContainerStatuses: []corev1.ContainerStatus{
					{Name: "a", Ready: true, State: running}, {Name: "b", State: completed}}}}
			cells := texts(kinds.PodRow(pod))
			if cells[2] != tt.status || cells[8] != tt.gates {
				t.Errorf("STATUS %q READINESS GATES %q, want %q %q", cells[2], cells[8], tt.status, tt.gates)
			}
		})
	}
}

// TestRepeatedNodeConditions: kubectl's printNode keys conditions by type,
// so the last Ready condition decides, and STATUS holds one word for it.
func TestRepeatedNodeConditions(t *testing.T) {
	tests := []struct {
		first, last corev1.ConditionStatus
		want        string
	}{
		{corev1.ConditionTrue, corev1.ConditionTrue, "Ready"},
		{corev1.ConditionFalse, corev1.ConditionTrue, "Ready"},
		{corev1.ConditionTrue, corev1.ConditionFalse, "NotReady"},
		{corev1.ConditionTrue, corev1.ConditionUnknown, "NotReady"},
	}
	for _, tt := range tests {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n", CreationTimestamp: metav1.NewTime(created)}}
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: tt.first}, {Type: corev1.NodeReady, Status: tt.last}}
		if got := kinds.NodeRow(n).Cells[1].Render(now); got != tt.want {
			t.Errorf("Ready %s then %s: STATUS %q, want %q", tt.first, tt.last, got, tt.want)
		}
	}
}

// TestEndpointSliceUnsetPorts: kubectl prints <unset> when the list joins to
// empty text (listWithMoreString), not only when it is empty: a port named
// "" with no number, an address "".
func TestEndpointSliceUnsetPorts(t *testing.T) {
	tests := []struct {
		name      string
		ports     []discoveryv1.EndpointPort
		addresses []string
		want      [2]string
	}{
		{"one port named empty", []discoveryv1.EndpointPort{{Name: strp("")}}, []string{""}, [2]string{"<unset>", "<unset>"}},
		{"two ports named empty", []discoveryv1.EndpointPort{{Name: strp("")}, {Name: strp("")}}, []string{"", ""}, [2]string{",", ","}},
		{"four ports named empty", []discoveryv1.EndpointPort{{Name: strp("")}, {Name: strp("")}, {Name: strp("")}, {Name: strp("")}}, nil, [2]string{",, + 1 more...", "<unset>"}},
		{"no ports", nil, nil, [2]string{"<unset>", "<unset>"}},
	}
	for _, tt := range tests {
		e := &discoveryv1.EndpointSlice{ObjectMeta: demoMeta("s"), AddressType: discoveryv1.AddressTypeIPv4, Ports: tt.ports}
		if tt.addresses != nil {
			e.Endpoints = []discoveryv1.Endpoint{{Addresses: tt.addresses}}
		}
		cells := texts(kinds.EndpointSliceRow(e))
		if got := [2]string{cells[2], cells[3]}; got != tt.want {
			t.Errorf("%s: PORTS, ENDPOINTS %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestZeroTimeAge: a time field that is set but holds the zero time (a Job's
// status.startTime, reachable over protobuf) prints the age of the zero
// time, as kubectl's duration.HumanDuration(time.Since(t)) does: 292y, the
// longest Duration.
func TestZeroTimeAge(t *testing.T) {
	zero := metav1.Time{}
	j := &batchv1.Job{ObjectMeta: demoMeta("j")}
	j.Status.StartTime = &zero
	if got := texts(kinds.JobRow(j))[3]; got != "292y" {
		t.Errorf("running job with a zero start: DURATION %q, want 292y", got)
	}
	done := metav1.NewTime(created)
	j.Status.CompletionTime = &done
	if got := texts(kinds.JobRow(j))[3]; got != "292y" {
		t.Errorf("completed job with a zero start: DURATION %q, want 292y", got)
	}
	j.Status.StartTime = nil
	if got := texts(kinds.JobRow(j))[3]; got != "" {
		t.Errorf("job with no start: DURATION %q, want empty", got)
	}
}

// TestUnsetReplicasPrinted: kubectl prints spec.replicas through the
// internal type, where an unset pointer is 0 (the API server always sets
// it, so only objects that never went through one show this).
func TestUnsetReplicasPrinted(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: demoMeta("d")}
	if got := texts(kinds.DeploymentRow(d))[1]; got != "0/0" {
		t.Errorf("deployment READY %q, want 0/0", got)
	}
	s := &appsv1.StatefulSet{ObjectMeta: demoMeta("s")}
	if got := texts(kinds.StatefulSetRow(s))[1]; got != "0/0" {
		t.Errorf("statefulset READY %q, want 0/0", got)
	}
	rs := &appsv1.ReplicaSet{ObjectMeta: demoMeta("rs")}
	if got := texts(kinds.ReplicaSetRow(rs))[1]; got != "0" {
		t.Errorf("replicaset DESIRED %q, want 0", got)
	}
}

// TestSecretStringDataCounted: kubectl counts stringData's keys with
// data's, as the conversion to the internal Secret merges them.
func TestSecretStringDataCounted(t *testing.T) {
	s := &corev1.Secret{ObjectMeta: demoMeta("s"), Data: map[string][]byte{"a": nil}, StringData: map[string]string{"a": "x", "b": "y"}}
	if got := texts(kinds.SecretRow(s))[2]; got != "2" {
		t.Errorf("DATA %q, want 2", got)
	}
}

// TestUnnamedDefaultStorageClass: kubectl marks the effective default by
// name, and an empty name means there is none.
func TestUnnamedDefaultStorageClass(t *testing.T) {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}}
	if got := texts(kinds.StorageClassRow(sc))[0]; got != "" {
		t.Errorf("NAME %q, want empty", got)
	}
	sc.Name = "standard"
	if got := texts(kinds.StorageClassRow(sc))[0]; got != "standard (default)" {
		t.Errorf("NAME %q, want standard (default)", got)
	}
}
