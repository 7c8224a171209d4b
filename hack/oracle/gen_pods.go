package oracle

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// genPod draws a Pod covering what printPod reads: phase and reason,
// conditions (repeated types included), containers and init containers
// (native sidecars among them) with statuses in every state, reasons, exit
// codes, signals, restart counts and last terminations, deletion, readiness
// gates, scheduling gates, nominated node, node and IPs.
func genPod(g *gen) runtime.Object {
	pod := &corev1.Pod{ObjectMeta: g.meta(true)}
	names := []string{"app", "sidecar", "init", "한글", ""}
	pod.Spec.Containers = some(g, 3, func(i int) corev1.Container {
		return corev1.Container{Name: pick(g, names...), Image: "img"}
	})
	pod.Spec.InitContainers = some(g, 3, func(i int) corev1.Container {
		c := corev1.Container{Name: pick(g, names...), Image: "img"}
		if g.chance(0.4) {
			c.RestartPolicy = ptr(pick(g, corev1.ContainerRestartPolicyAlways, corev1.ContainerRestartPolicy("Never"), corev1.ContainerRestartPolicy("")))
		}
		return c
	})
	if g.chance(0.2) {
		pod.Spec.ReadinessGates = some(g, 2, func(int) corev1.PodReadinessGate {
			return corev1.PodReadinessGate{ConditionType: pick(g, corev1.PodConditionType("example.com/gate"), corev1.PodReady, corev1.PodConditionType("other"))}
		})
	}
	if g.chance(0.1) {
		pod.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "example.com/wait"}}
	}
	if g.chance(0.6) {
		pod.Spec.NodeName = pick(g, "node-1", "kwok-node-0", "")
	}
	st := &pod.Status
	st.Phase = pick(g, corev1.PodPending, corev1.PodRunning, corev1.PodSucceeded, corev1.PodFailed, corev1.PodUnknown, "")
	if g.chance(0.2) {
		st.Reason = g.reason()
	}
	if g.chance(0.1) {
		st.NominatedNodeName = pick(g, "node-2", "")
	}
	if g.chance(0.6) {
		st.PodIPs = some(g, 2, func(int) corev1.PodIP { return corev1.PodIP{IP: pick(g, "10.0.0.1", "fd00::1", "")} })
		if len(st.PodIPs) > 0 {
			st.PodIP = st.PodIPs[0].IP
		}
	}
	st.Conditions = some(g, 5, func(int) corev1.PodCondition {
		return corev1.PodCondition{
			Type:   pick(g, corev1.PodScheduled, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodConditionType("example.com/gate"), corev1.PodConditionType("other")),
			Status: pick(g, corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown, ""),
			Reason: pick(g, "", corev1.PodReasonSchedulingGated, corev1.PodReasonUnschedulable, "PodCompleted"),
		}
	})
	st.InitContainerStatuses = containerStatuses(g, pod.Spec.InitContainers, names)
	st.ContainerStatuses = containerStatuses(g, pod.Spec.Containers, names)
	return pod
}

// containerStatuses draws statuses for specs: usually one per container in
// order, sometimes fewer, more, or under names no container has.
func containerStatuses(g *gen, specs []corev1.Container, names []string) []corev1.ContainerStatus {
	n := len(specs)
	if g.chance(0.15) {
		n = g.intn(4)
	}
	out := make([]corev1.ContainerStatus, n)
	for i := range out {
		name := pick(g, names...)
		if i < len(specs) && g.chance(0.8) {
			name = specs[i].Name
		}
		cs := corev1.ContainerStatus{Name: name, Image: "img", RestartCount: pick[int32](g, 0, 0, 1, int32(g.intn(50)))}
		cs.Ready = g.chance(0.5)
		if g.chance(0.7) {
			cs.Started = ptr(g.chance(0.6))
		}
		cs.State = containerState(g)
		if g.chance(0.4) {
			cs.LastTerminationState = corev1.ContainerState{Terminated: terminated(g)}
		}
		out[i] = cs
	}
	return out
}

func containerState(g *gen) corev1.ContainerState {
	switch g.intn(6) {
	case 0:
		return corev1.ContainerState{}
	case 1:
		return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: g.time()}}
	case 2:
		return corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: g.reason()}}
	case 3:
		// More than one state set: an API server accepts it from a kubelet.
		return corev1.ContainerState{Running: &corev1.ContainerStateRunning{}, Waiting: &corev1.ContainerStateWaiting{Reason: g.reason()}}
	}
	return corev1.ContainerState{Terminated: terminated(g)}
}

func terminated(g *gen) *corev1.ContainerStateTerminated {
	return &corev1.ContainerStateTerminated{
		ExitCode:   pick[int32](g, 0, 0, 1, 2, 137, 143, -1),
		Signal:     pick[int32](g, 0, 0, 9, 15),
		Reason:     pick(g, "", "Completed", "Error", "OOMKilled", "ContainerCannotRun", "Weird"),
		StartedAt:  g.time(),
		FinishedAt: g.time(),
	}
}

// podCorners are hand-written pods: Kubernetes' own printer test cases and
// the inputs issue 13 names.
func podCorners(g *gen) []runtime.Object {
	running := corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	done := corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "Completed"}}
	always := ptr(corev1.ContainerRestartPolicyAlways)
	base := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: g.metaNamed(name), Spec: corev1.PodSpec{NodeName: "node-1"}}
	}
	var out []runtime.Object
	// Two Ready conditions, the first False, the second True: kubectl's
	// "Completed next to Running" rule looks at any True Ready condition.
	p := base("repeated-ready")
	p.Spec.Containers = []corev1.Container{{Name: "a"}, {Name: "b"}}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionFalse}, {Type: corev1.PodReady, Status: corev1.ConditionTrue}},
		ContainerStatuses: []corev1.ContainerStatus{
			{Name: "a", Ready: true, State: running},
			{Name: "b", State: done},
		}}
	out = append(out, p)
	// Two Initialized conditions, first False then True.
	p = base("repeated-initialized")
	p.Spec.InitContainers = []corev1.Container{{Name: "i"}}
	p.Spec.Containers = []corev1.Container{{Name: "a"}}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending,
		Conditions:            []corev1.PodCondition{{Type: corev1.PodInitialized, Status: corev1.ConditionFalse}, {Type: corev1.PodInitialized, Status: corev1.ConditionTrue}},
		InitContainerStatuses: []corev1.ContainerStatus{{Name: "i", State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "PodInitializing"}}}},
		ContainerStatuses:     []corev1.ContainerStatus{{Name: "a", Ready: true, State: running}},
	}
	out = append(out, p)
	// A native sidecar that started, next to a failing init container.
	p = base("sidecar-then-failing-init")
	p.Spec.InitContainers = []corev1.Container{{Name: "s", RestartPolicy: always}, {Name: "i"}}
	p.Spec.Containers = []corev1.Container{{Name: "a"}}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending,
		InitContainerStatuses: []corev1.ContainerStatus{
			{Name: "s", Ready: true, Started: ptr(true), RestartCount: 3, State: running,
				LastTerminationState: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{FinishedAt: g.time()}}},
			{Name: "i", RestartCount: 2, State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 1, Signal: 9}}},
		}}
	out = append(out, p)
	// Deleted pods: terminal, NodeLost, running.
	for i, phase := range []corev1.PodPhase{corev1.PodSucceeded, corev1.PodRunning, corev1.PodFailed} {
		p = base(fmt.Sprintf("deleted-%d", i))
		p.DeletionTimestamp = ptr(g.time())
		p.Status = corev1.PodStatus{Phase: phase}
		if i == 1 {
			p.Status.Reason = "NodeLost"
		}
		out = append(out, p)
	}
	// Scheduling gated and unschedulable.
	p = base("gated")
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}}
	p.Status = corev1.PodStatus{Phase: corev1.PodPending, Conditions: []corev1.PodCondition{
		{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonSchedulingGated}}}
	out = append(out, p)
	// Readiness gates with a repeated condition type.
	p = base("readiness-gates")
	p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "x"}, {ConditionType: "y"}}
	p.Status = corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{
		{Type: "x", Status: corev1.ConditionFalse}, {Type: "x", Status: corev1.ConditionTrue}, {Type: "y", Status: corev1.ConditionTrue}}}
	out = append(out, p)
	// No creation time at all.
	p = &corev1.Pod{ObjectMeta: g.metaNamed("no-time")}
	p.CreationTimestamp = g.zeroTime()
	out = append(out, p)
	return out
}
