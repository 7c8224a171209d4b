package kinds_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

var (
	created     = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	now         = created.Add(90 * time.Minute)
	always      = corev1.ContainerRestartPolicyAlways
	truePointer = func() *bool { b := true; return &b }()
)

func running() corev1.ContainerState {
	return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(created)}}
}

func waiting(reason string) corev1.ContainerState {
	return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason}}
}

func terminated(code int32, reason string) corev1.ContainerState {
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, FinishedAt: metav1.NewTime(created.Add(time.Minute))}}
}

func pod(name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", UID: "uid-" + "name", CreationTimestamp: metav1.NewTime(created)},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
		Status:     corev1.PodStatus{Phase: phase},
	}
}

func condition(t corev1.PodConditionType, s corev1.ConditionStatus) corev1.PodCondition {
	return corev1.PodCondition{Type: t, Status: s}
}

// cells renders a row's READY, STATUS and RESTARTS at the fixed time now.
func cells(r kube.Row) (ready, status, restarts string) {
	return r.Cells[1].Render(now), r.Cells[2].Render(now), r.Cells[3].Render(now)
}

// TestC06NativeSidecar: an init container with restartPolicy Always, started
// and ready, next to a ready main container: Running 2/2, and the sidecar's
// restarts count.
func TestC06NativeSidecar(t *testing.T) {
	p := pod("sidecar", corev1.PodRunning)
	p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: &always}}
	p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodInitialized, corev1.ConditionTrue), condition(corev1.PodReady, corev1.ConditionTrue)}
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{
		Name: "proxy", Ready: true, Started: truePointer, State: running(), RestartCount: 2,
		LastTerminationState: terminated(1, "Error"),
	}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, Started: truePointer, State: running()}}

	row := kinds.PodRow(p)
	ready, status, restarts := cells(row)
	if ready != "2/2" || status != "Running" || restarts != "2 (89m ago)" {
		t.Fatalf("got READY %q STATUS %q RESTARTS %q, want 2/2 Running \"2 (89m ago)\"", ready, status, restarts)
	}
	if row.Health != kube.HealthOK {
		t.Errorf("health %v, want ok", row.Health)
	}
}

// TestC07FinishedJobWithSidecar: a Succeeded pod whose main container
// completed and whose sidecar was killed (exit 143) shows Completed.
func TestC07FinishedJobWithSidecar(t *testing.T) {
	p := pod("job-x", corev1.PodSucceeded)
	p.Spec.InitContainers = []corev1.Container{{Name: "proxy", RestartPolicy: &always}}
	p.Status.Conditions = []corev1.PodCondition{condition(corev1.PodInitialized, corev1.ConditionTrue), condition(corev1.PodReady, corev1.ConditionFalse)}
	p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "proxy", State: terminated(143, "Error")}}
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}}

	row := kinds.PodRow(p)
	ready, status, _ := cells(row)
	if status != "Completed" || ready != "0/2" {
		t.Fatalf("got READY %q STATUS %q, want 0/2 Completed", ready, status)
	}
	if row.Health != kube.HealthOK {
		t.Errorf("health %v, want ok", row.Health)
	}
}

// TestC09Terminating: a Running pod with a deletionTimestamp is Terminating;
// a terminal one keeps its phase's status.
func TestC09Terminating(t *testing.T) {
	p := pod("going", corev1.PodRunning)
	p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", Ready: true, State: running()}}
	del := metav1.NewTime(now)
	p.DeletionTimestamp = &del
	row := kinds.PodRow(p)
	if _, status, _ := cells(row); status != "Terminating" || row.Health != kube.HealthWarning {
		t.Fatalf("got %q/%v, want Terminating/warning", status, row.Health)
	}

	done := pod("done", corev1.PodSucceeded)
	done.DeletionTimestamp = &del
	done.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}}
	if _, status, _ := cells(kinds.PodRow(done)); status != "Completed" {
		t.Fatalf("terminal pod being deleted: got %q, want Completed", status)
	}

	lost := pod("lost", corev1.PodRunning)
	lost.DeletionTimestamp = &del
	lost.Status.Reason = "NodeLost"
	if _, status, _ := cells(kinds.PodRow(lost)); status != "Unknown" {
		t.Fatalf("NodeLost pod being deleted: got %q, want Unknown", status)
	}
}

// TestC10WaitingReasons: a waiting container's reason is the pod's STATUS
// and the pod is failed.
func TestC10WaitingReasons(t *testing.T) {
	for _, reason := range []string{"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError"} {
		t.Run(reason, func(t *testing.T) {
			p := pod("w", corev1.PodRunning)
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: waiting(reason), RestartCount: 4,
				LastTerminationState: terminated(1, "Error")}}
			row := kinds.PodRow(p)
			ready, status, restarts := cells(row)
			if status != reason || ready != "0/1" || restarts != "4 (89m ago)" {
				t.Fatalf("got %q %q %q, want 0/1 %s \"4 (89m ago)\"", ready, status, restarts, reason)
			}
			if row.Health != kube.HealthFailed {
				t.Errorf("health %v, want failed", row.Health)
			}
		})
	}
}

// TestC10PodRowNamesWhyItCannotStart: a pod's row carries the reason its
// first container cannot start (init containers first), which a Snapshot
// judges its workload by; a container still being created, and a pod being
// deleted, carry none.
func TestC10PodRowNamesWhyItCannotStart(t *testing.T) {
	for _, tc := range []struct {
		name        string
		init, main  corev1.ContainerState
		deleted     bool
		cannotStart string
	}{
		{"crash loop", running(), waiting("CrashLoopBackOff"), false, "CrashLoopBackOff"},
		{"image pull", running(), waiting("ErrImagePull"), false, "ErrImagePull"},
		{"config", running(), waiting("CreateContainerConfigError"), false, "CreateContainerConfigError"},
		{"init back-off", waiting("ImagePullBackOff"), waiting("PodInitializing"), false, "ImagePullBackOff"},
		{"being created", running(), waiting("ContainerCreating"), false, ""},
		{"running", running(), running(), false, ""},
		{"being deleted", running(), waiting("CrashLoopBackOff"), true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := pod("w", corev1.PodRunning)
			p.Spec.InitContainers = []corev1.Container{{Name: "setup"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "setup", State: tc.init}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: tc.main}}
			if tc.deleted {
				p.DeletionTimestamp = &metav1.Time{Time: now}
			}
			if got := kinds.PodRow(p).CannotStart; got != tc.cannotStart {
				t.Fatalf("CannotStart %q, want %q", got, tc.cannotStart)
			}
		})
	}
}

func TestPodStatusInitContainers(t *testing.T) {
	tests := []struct {
		name   string
		state  corev1.ContainerState
		want   string
		health kube.Health
	}{
		{"failed init", terminated(2, ""), "Init:ExitCode:2", kube.HealthFailed},
		{"failed init with reason", terminated(1, "Error"), "Init:Error", kube.HealthFailed},
		{"init back-off", waiting("CrashLoopBackOff"), "Init:CrashLoopBackOff", kube.HealthFailed},
		{"init running", running(), "Init:0/1", kube.HealthProgressing},
		{"init PodInitializing", waiting("PodInitializing"), "Init:0/1", kube.HealthProgressing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("init", corev1.PodPending)
			p.Spec.InitContainers = []corev1.Container{{Name: "setup"}}
			p.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "setup", State: tt.state}}
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "app", State: waiting("PodInitializing")}}
			row := kinds.PodRow(p)
			if _, status, _ := cells(row); status != tt.want || row.Health != tt.health {
				t.Fatalf("got %q/%v, want %q/%v", status, row.Health, tt.want, tt.health)
			}
		})
	}
}

func TestPodStatusMainContainers(t *testing.T) {
	tests := []struct {
		name       string
		phase      corev1.PodPhase
		statuses   []corev1.ContainerStatus
		conditions []corev1.PodCondition
		ready      string
		status     string
		health     kube.Health
	}{
		{name: "pending unscheduled", phase: corev1.PodPending, ready: "0/1", status: "Pending", health: kube.HealthProgressing},
		{name: "creating", phase: corev1.PodPending, statuses: []corev1.ContainerStatus{{Name: "app", State: waiting("ContainerCreating")}},
			ready: "0/1", status: "ContainerCreating", health: kube.HealthProgressing},
		{name: "running not ready", phase: corev1.PodRunning, statuses: []corev1.ContainerStatus{{Name: "app", State: running()}},
			ready: "0/1", status: "Running", health: kube.HealthWarning},
		{name: "oom killed", phase: corev1.PodRunning, statuses: []corev1.ContainerStatus{{Name: "app", State: terminated(137, "OOMKilled")}},
			ready: "0/1", status: "OOMKilled", health: kube.HealthFailed},
		{name: "signal", phase: corev1.PodFailed, statuses: []corev1.ContainerStatus{{Name: "app", State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Signal: 9, ExitCode: 137}}}},
			ready: "0/1", status: "Signal:9", health: kube.HealthFailed},
		{name: "completed beside running and ready", phase: corev1.PodRunning,
			statuses:   []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}, {Name: "b", Ready: true, State: running()}},
			conditions: []corev1.PodCondition{condition(corev1.PodReady, corev1.ConditionTrue)},
			ready:      "1/1", status: "Running", health: kube.HealthOK},
		{name: "completed beside running not ready", phase: corev1.PodRunning,
			statuses: []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}, {Name: "b", Ready: true, State: running()}},
			ready:    "1/1", status: "NotReady", health: kube.HealthWarning},
		{name: "completed beside failed", phase: corev1.PodFailed,
			statuses: []corev1.ContainerStatus{{Name: "app", State: terminated(0, "Completed")}, {Name: "b", State: terminated(3, "Error")}},
			ready:    "0/1", status: "Error", health: kube.HealthFailed},
		{name: "evicted", phase: corev1.PodFailed, ready: "0/1", status: "Evicted", health: kube.HealthFailed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pod("m", tt.phase)
			if tt.status == "Evicted" {
				p.Status.Reason = "Evicted"
			}
			p.Status.ContainerStatuses = tt.statuses
			p.Status.Conditions = tt.conditions
			row := kinds.PodRow(p)
			ready, status, _ := cells(row)
			if ready != tt.ready || status != tt.status || row.Health != tt.health {
				t.Fatalf("got %q %q %v, want %q %q %v", ready, status, row.Health, tt.ready, tt.status, tt.health)
			}
		})
	}
}

func TestPodUnschedulableIsAWarning(t *testing.T) {
	p := pod("stuck", corev1.PodPending)
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable}}
	row := kinds.PodRow(p)
	if _, status, _ := cells(row); status != "Pending" || row.Health != kube.HealthWarning {
		t.Fatalf("got %q/%v, want Pending/warning", status, row.Health)
	}
}

func TestPodSchedulingGated(t *testing.T) {
	p := pod("gated", corev1.PodPending)
	p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}
	if _, status, _ := cells(kinds.PodRow(p)); status != "SchedulingGated" {
		t.Fatalf("got %q, want SchedulingGated", status)
	}
}

func TestPodWideColumns(t *testing.T) {
	p := pod("wide", corev1.PodRunning)
	p.Spec.NodeName = "node-1"
	p.Status.PodIPs = []corev1.PodIP{{IP: "10.0.0.7"}}
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/gate"}, {ConditionType: "example.com/other"}}
	p.Status.Conditions = []corev1.PodCondition{{Type: "example.com/gate", Status: corev1.ConditionTrue}}
	row := kinds.PodRow(p)
	got := []string{row.Cells[5].Text, row.Cells[6].Text, row.Cells[7].Text, row.Cells[8].Text}
	want := []string{"10.0.0.7", "node-1", "<none>", "1/2"}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("wide cells %q, want %q", got, want)
		}
	}
	if age := row.Cells[4].Render(now); age != "90m" {
		t.Fatalf("AGE %q, want 90m", age)
	}
}
