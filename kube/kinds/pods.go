package kinds

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Pods serves pods: NAME READY STATUS RESTARTS AGE, and with -o wide IP NODE
// NOMINATED NODE READINESS GATES, as `kubectl get pods` prints them.
type Pods struct{}

var podColumns = []vocab.Column{
	{Name: "NAME"}, {Name: "READY"}, {Name: "STATUS"}, {Name: "RESTARTS"}, {Name: "AGE"},
	{Name: "IP", Wide: true}, {Name: "NODE", Wide: true}, {Name: "NOMINATED NODE", Wide: true}, {Name: "READINESS GATES", Wide: true},
}

// Info describes pods; opening one shows its containers.
func (Pods) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "pods", Version: "v1", Resource: "pods", Namespaced: true,
		Aliases:      []string{"pod", "po"},
		Columns:      podColumns,
		Capabilities: vocab.CanLogs | vocab.CanExec | vocab.CanEditOwner | vocab.CanDelete | vocab.CanPortForward,
		DrillDown:    "containers",
	}
}

// List lists pods in namespace ("" for all) as *corev1.Pod.
func (Pods) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Pods(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Pod into its row (PodRow).
func (Pods) Row(obj any) (vocab.Row, bool) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return vocab.Row{}, false
	}
	return PodRow(pod), true
}

// PodRow turns a Pod into its row. READY, STATUS and RESTARTS follow kubectl's
// printPod (k8s.io/kubernetes v1.37 pkg/printers/internalversion): native
// sidecars (init containers with restartPolicy Always) count in READY and
// RESTARTS, a failing init container shows as Init:<reason>, the last
// container with a waiting or terminated reason names the status, and a pod
// with a deletionTimestamp shows Terminating until its phase is terminal
// (NodeLost pods show Unknown). CannotStart names the reason of the first
// container that cannot start (vocab.PodCannotStart), by which a Snapshot
// judges the Pod's workload (casebook C10).
func PodRow(pod *corev1.Pod) vocab.Row {
	s := podStatus(pod)
	restarts := vocab.Text(strconv.Itoa(s.restarts))
	if s.restarts != 0 && !s.lastRestart.IsZero() {
		restarts.Since = s.lastRestart
	}
	ip := "<none>"
	if len(pod.Status.PodIPs) > 0 && pod.Status.PodIPs[0].IP != "" {
		ip = pod.Status.PodIPs[0].IP
	}
	row := identity(&pod.ObjectMeta)
	row.Status, row.Health = s.reason, podHealth(s)
	row.Fields = map[string]string{"spec.nodeName": pod.Spec.NodeName, "status.phase": string(pod.Status.Phase)}
	row.Resources = podResources(&pod.Spec)
	if _, reason, _, ok := vocab.PodCannotStart(pod); ok {
		row.CannotStart = reason
	}
	row.Cells = []vocab.Cell{
		vocab.Text(pod.Name),
		vocab.Text(fmt.Sprintf("%d/%d", s.ready, s.total)),
		vocab.Text(s.reason),
		restarts,
		vocab.Age(pod.CreationTimestamp.Time),
		vocab.Text(ip),
		vocab.Text(orNone(pod.Spec.NodeName)),
		vocab.Text(orNone(pod.Status.NominatedNodeName)),
		vocab.Text(readinessGates(pod)),
	}
	return row
}

type podSummary struct {
	// unschedulable: the scheduler found no node (PodScheduled False,
	// reason Unschedulable); such a Pending pod is not progressing.
	unschedulable bool
	reason        string
	ready         int
	total         int
	restarts      int
	lastRestart   time.Time
}

func isRestartableInit(c *corev1.Container) bool {
	return c != nil && c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// podStatus computes READY, STATUS and RESTARTS the way kubectl's printPod does.
func podStatus(pod *corev1.Pod) podSummary {
	s := podSummary{total: len(pod.Spec.Containers), reason: string(pod.Status.Phase)}
	if pod.Status.Reason != "" {
		s.reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			s.reason = corev1.PodReasonSchedulingGated
		}
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			s.unschedulable = true
		}
	}
	inits := make(map[string]*corev1.Container, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		inits[c.Name] = c
		if isRestartableInit(c) {
			s.total++
		}
	}

	var sidecarRestarts int
	var lastSidecarRestart time.Time
	initializing := false
initLoop:
	for i, cs := range pod.Status.InitContainerStatuses {
		s.restarts += int(cs.RestartCount)
		if t := cs.LastTerminationState.Terminated; t != nil && s.lastRestart.Before(t.FinishedAt.Time) {
			s.lastRestart = t.FinishedAt.Time
		}
		sidecar := isRestartableInit(inits[cs.Name])
		if sidecar {
			sidecarRestarts += int(cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil && lastSidecarRestart.Before(t.FinishedAt.Time) {
				lastSidecarRestart = t.FinishedAt.Time
			}
		}
		term, wait := cs.State.Terminated, cs.State.Waiting
		switch {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecar && cs.Started != nil && *cs.Started:
			if cs.Ready {
				s.ready++
			}
			continue
		case term != nil:
			switch {
			case term.Reason != "":
				s.reason = "Init:" + term.Reason
			case term.Signal != 0:
				s.reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				s.reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case wait != nil && wait.Reason != "" && wait.Reason != "PodInitializing":
			s.reason = "Init:" + wait.Reason
		default:
			s.reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break initLoop
	}

	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		s.restarts = sidecarRestarts
		s.lastRestart = lastSidecarRestart
		hasRunning := false
		errorReason := ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := pod.Status.ContainerStatuses[i]
			s.restarts += int(cs.RestartCount)
			if t := cs.LastTerminationState.Terminated; t != nil && s.lastRestart.Before(t.FinishedAt.Time) {
				s.lastRestart = t.FinishedAt.Time
			}
			switch term := cs.State.Terminated; {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				s.reason = cs.State.Waiting.Reason
			case term != nil:
				switch {
				case term.Reason != "":
					s.reason = term.Reason
				case term.Signal != 0:
					s.reason = fmt.Sprintf("Signal:%d", term.Signal)
				default:
					s.reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
				}
				if term.ExitCode != 0 {
					errorReason = s.reason
				}
			case cs.Ready && cs.State.Running != nil:
				hasRunning = true
				s.ready++
			}
		}
		// A completed container next to a running one: the pod is still Running.
		if s.reason == "Completed" {
			switch {
			case hasRunning && podAnyConditionTrue(pod, corev1.PodReady):
				s.reason = "Running"
			case errorReason != "":
				s.reason = errorReason
			case hasRunning:
				s.reason = "NotReady"
			}
		}
	}

	if pod.DeletionTimestamp != nil {
		terminal := pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed
		switch {
		case pod.Status.Reason == "NodeLost":
			s.reason = "Unknown"
		case !terminal:
			s.reason = "Terminating"
		}
	}
	return s
}

// podConditionTrue reports whether the pod's condition of type t is True.
// Like kubectl, only the first condition of that type counts.
func podConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// podAnyConditionTrue reports whether any of the pod's conditions of type t
// is True: kubectl's hasPodReadyCondition, which decides whether a
// completed container next to a running one leaves the pod Running, looks
// at every condition, not only the first of the type.
func podAnyConditionTrue(pod *corev1.Pod, t corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == t && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}

var initProgress = regexp.MustCompile(`^Init:\d+/\d+$`)

// podHealth judges a pod by its STATUS: Running with every container ready
// and Completed are ok; Pending that the scheduler cannot place is a
// warning; other Pending, ContainerCreating, PodInitializing,
// SchedulingGated and Init:n/m are progressing; Terminating, NotReady and
// Running with unready containers are warnings; every other reason (CrashLoopBackOff,
// ImagePullBackOff, ErrImagePull, CreateContainerConfigError, Error,
// OOMKilled, Init:Error, Unknown, ...) is failed.
func podHealth(s podSummary) vocab.Health {
	if s.reason == "Pending" && s.unschedulable {
		return vocab.HealthWarning
	}
	switch s.reason {
	case "Running":
		if s.ready == s.total {
			return vocab.HealthOK
		}
		return vocab.HealthWarning
	case "Completed", "Succeeded":
		return vocab.HealthOK
	case "Pending", "ContainerCreating", "PodInitializing", corev1.PodReasonSchedulingGated:
		return vocab.HealthProgressing
	case "Terminating", "NotReady":
		return vocab.HealthWarning
	}
	if initProgress.MatchString(s.reason) {
		return vocab.HealthProgressing
	}
	return vocab.HealthFailed
}

func readinessGates(pod *corev1.Pod) string {
	if len(pod.Spec.ReadinessGates) == 0 {
		return "<none>"
	}
	ready := 0
	for _, gate := range pod.Spec.ReadinessGates {
		if podConditionTrue(pod, gate.ConditionType) {
			ready++
		}
	}
	return fmt.Sprintf("%d/%d", ready, len(pod.Spec.ReadinessGates))
}

func orNone(s string) string {
	if s == "" {
		return "<none>"
	}
	return s
}
