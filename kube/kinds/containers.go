package kinds

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Containers serves the containers of one pod, as k9s shows them: NAME
// IMAGE READY STATE INIT RESTARTS PORTS AGE. It is part of pods
// (KindInfo.PartOf): its rows come from Expand on one Pod, never from a
// list of its own.
type Containers struct{}

// Info describes containers: read from pods, their logs can be read and a
// shell opened in them.
func (Containers) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "containers", Version: "v1", Resource: "pods", Namespaced: true,
		Aliases: []string{"container"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "IMAGE"}, {Name: "READY"}, {Name: "STATE"}, {Name: "INIT"},
			{Name: "RESTARTS"}, {Name: "PORTS"}, {Name: "AGE"},
		},
		Capabilities: vocab.CanLogs | vocab.CanExec | vocab.CanPortForward,
		PartOf:       "pods",
	}
}

// List lists the pods containers are read from, as *corev1.Pod (the Client
// expands one pod instead of calling it; see Expand).
func (Containers) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	return Pods{}.List(ctx, cs, namespace, sel)
}

// Row reports ok false: a container is no object of its own (see Expand).
func (Containers) Row(any) (vocab.Row, bool) { return vocab.Row{}, false }

// Expand returns one row per container of a *corev1.Pod: init containers
// first (native sidecars among them, in spec order), then the main
// containers, then ephemeral (debug) containers; nil for any other obj.
// Each row's Name is the container's name, Namespace the pod's, UID
// "<pod uid>/<container name>", Created and Owners the pod's creation time
// and UID; see ContainerRow for the cells.
func (Containers) Expand(obj any) []vocab.Row {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return nil
	}
	spec := &pod.Spec
	rows := make([]vocab.Row, 0, len(spec.InitContainers)+len(spec.Containers)+len(spec.EphemeralContainers))
	for i := range spec.InitContainers {
		c := &spec.InitContainers[i]
		kind := "true"
		if isRestartableInit(c) {
			kind = "sidecar"
		}
		rows = append(rows, ContainerRow(pod, c, containerStatus(pod.Status.InitContainerStatuses, c.Name), kind))
	}
	for i := range spec.Containers {
		c := &spec.Containers[i]
		rows = append(rows, ContainerRow(pod, c, containerStatus(pod.Status.ContainerStatuses, c.Name), "false"))
	}
	for i := range spec.EphemeralContainers {
		c := (*corev1.Container)(&spec.EphemeralContainers[i].EphemeralContainerCommon)
		rows = append(rows, ContainerRow(pod, c, containerStatus(pod.Status.EphemeralContainerStatuses, c.Name), "ephemeral"))
	}
	return rows
}

func containerStatus(statuses []corev1.ContainerStatus, name string) *corev1.ContainerStatus {
	for i := range statuses {
		if statuses[i].Name == name {
			return &statuses[i]
		}
	}
	return nil
}

// ContainerRow turns one container of pod into its row. init is the INIT
// cell: "true" for an init container, "sidecar" for a native sidecar (an
// init container with restartPolicy Always), "ephemeral" for a debug
// container, "false" for a main container. st is the container's status,
// nil before the kubelet reports one. Cells:
//
//   - READY: the status's ready flag, "true" or "false";
//   - STATE: Running, Waiting:<reason>, Terminated:<reason> (the reason, or
//     ExitCode:<n> / Signal:<n> when the kubelet gave none, as kubectl names
//     them), Waiting when no status has been reported;
//   - RESTARTS: the restart count, with the last termination's finish time
//     rendered "n (5m ago)" like a pod's RESTARTS;
//   - PORTS: each containerPort as [name:]port/protocol, comma separated,
//     "<none>" without;
//   - AGE: the time since the current run started (running or terminated
//     state's startedAt), "<unknown>" when it has not started.
//
// Health: Running is ok when ready, progressing for an init container
// (it runs to completion) or a sidecar not yet started, else a warning (a
// failing readiness probe); Terminated with exit code 0 is ok (Completed),
// any other exit failed, except a sidecar's 143 (stopped by SIGTERM once
// the main containers ended, KEP-753), which is ok; Waiting for
// ContainerCreating, PodInitializing or no reason (not yet started) is
// progressing, for any other reason (CrashLoopBackOff, ImagePullBackOff,
// ErrImagePull, CreateContainerConfigError, ...) failed.
func ContainerRow(pod *corev1.Pod, c *corev1.Container, st *corev1.ContainerStatus, init string) vocab.Row {
	row := vocab.Row{
		Namespace: pod.Namespace, Name: c.Name, UID: string(pod.UID) + "/" + c.Name,
		Created: pod.CreationTimestamp.Time,
	}
	if pod.UID != "" {
		row.Owners = []string{string(pod.UID)}
	}
	var (
		ready    bool
		restarts = vocab.Text("0")
		started  time.Time
	)
	state, health := "Waiting", vocab.HealthProgressing
	if st != nil {
		ready = st.Ready
		restarts = vocab.Text(strconv.Itoa(int(st.RestartCount)))
		if t := st.LastTerminationState.Terminated; st.RestartCount > 0 && t != nil {
			restarts.Since = t.FinishedAt.Time
		}
		state, health, started = containerState(st, init)
	}
	row.Status, row.Health = state, health
	row.Resources = oneContainerResources(c)
	row.Resources.Containers[0].NativeSidecar = init == "sidecar"
	row.Cells = []vocab.Cell{
		vocab.Text(c.Name), vocab.Text(c.Image), vocab.Text(strconv.FormatBool(ready)), vocab.Text(state),
		vocab.Text(init), restarts, vocab.Text(containerPorts(c.Ports)), vocab.Age(started),
	}
	return row
}

// sigtermExit is the exit code of a process ended by SIGTERM (128+15): how
// the kubelet stops a native sidecar once the main containers have exited
// (KEP-753), so for a sidecar it is no failure.
const sigtermExit = 143

// containerState names a reported container's state and judges it (see
// ContainerRow), and returns when its current run started.
func containerState(st *corev1.ContainerStatus, init string) (string, vocab.Health, time.Time) {
	switch s := st.State; {
	case s.Running != nil:
		switch {
		case st.Ready:
			return "Running", vocab.HealthOK, s.Running.StartedAt.Time
		case init == "true" || (init == "sidecar" && (st.Started == nil || !*st.Started)):
			return "Running", vocab.HealthProgressing, s.Running.StartedAt.Time
		default:
			return "Running", vocab.HealthWarning, s.Running.StartedAt.Time
		}
	case s.Terminated != nil:
		t := s.Terminated
		reason := t.Reason
		switch {
		case reason != "":
		case t.Signal != 0:
			reason = fmt.Sprintf("Signal:%d", t.Signal)
		default:
			reason = fmt.Sprintf("ExitCode:%d", t.ExitCode)
		}
		health := vocab.HealthFailed
		if t.ExitCode == 0 || (init == "sidecar" && t.ExitCode == sigtermExit) {
			health = vocab.HealthOK
		}
		return "Terminated:" + reason, health, t.StartedAt.Time
	case s.Waiting != nil && s.Waiting.Reason != "":
		health := vocab.HealthFailed
		if s.Waiting.Reason == "ContainerCreating" || s.Waiting.Reason == "PodInitializing" {
			health = vocab.HealthProgressing
		}
		return "Waiting:" + s.Waiting.Reason, health, time.Time{}
	default:
		return "Waiting", vocab.HealthProgressing, time.Time{}
	}
}

// containerPorts renders a container's ports as [name:]port/protocol.
func containerPorts(ports []corev1.ContainerPort) string {
	if len(ports) == 0 {
		return "<none>"
	}
	var b strings.Builder
	for i, p := range ports {
		if i > 0 {
			b.WriteByte(',')
		}
		if p.Name != "" {
			b.WriteString(p.Name)
			b.WriteByte(':')
		}
		b.WriteString(strconv.Itoa(int(p.ContainerPort)))
		b.WriteByte('/')
		b.WriteString(string(orWordProtocol(p.Protocol)))
	}
	return b.String()
}

// orWordProtocol returns the port's protocol, TCP when unset (the API
// server's default).
func orWordProtocol(p corev1.Protocol) corev1.Protocol {
	if p == "" {
		return corev1.ProtocolTCP
	}
	return p
}
