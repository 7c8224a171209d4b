package logstream

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Why a container's log cannot be read yet. A pod that is not scheduled
// has no kubelet to ask: the API server answers its pods/log with an empty
// body at once, so a follow would end and reconnect for ever; a container
// that has not started is refused ("is waiting to start"). Either way the
// pod's status says why, and the stream waits for it to change instead of
// asking again (LogNoteWaiting).

// logWaiting says why container's log cannot be read yet, from the pod's
// status: "pod is Pending (Unschedulable: 0/3 nodes are available: ...)",
// "container web: ImagePullBackOff (Back-off pulling image ...)"; "" when it can be read: the container runs or ran (a waiting
// container that ran before, as in CrashLoopBackOff, has its last
// instance's log), or the pod finished.
func logWaiting(pod *corev1.Pod, container string) string {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return ""
	}
	if pod.Spec.NodeName == "" {
		return "pod is Pending (" + scheduledText(pod) + ")"
	}
	st := containerStatus(pod, container)
	switch {
	case st == nil:
		return "pod is " + phaseText(pod) + " (container " + container + " not created yet)"
	case st.State.Running != nil, st.State.Terminated != nil:
		return ""
	case st.RestartCount > 0 || st.LastTerminationState.Terminated != nil:
		return ""
	case st.State.Waiting != nil && st.State.Waiting.Reason != "":
		w := st.State.Waiting
		s := "container " + container + ": " + w.Reason
		if msg := oneLine(w.Message); msg != "" {
			s += " (" + msg + ")"
		}
		return s
	}
	return "container " + container + " has not started"
}

// scheduledText is why a pod is not scheduled: its PodScheduled
// condition's reason and message, as kubectl describe shows them.
func scheduledText(pod *corev1.Pod) string {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
			s := c.Reason
			if msg := oneLine(c.Message); msg != "" {
				if s != "" {
					s += ": "
				}
				s += msg
			}
			if s != "" {
				return s
			}
		}
	}
	return "not scheduled yet"
}

func phaseText(pod *corev1.Pod) string {
	if pod.Status.Phase == "" {
		return "Pending"
	}
	return string(pod.Status.Phase)
}

// oneLine joins a message's lines and trims it.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// waitingLogErr reports the kubelet's refusal of a container that has not
// started: a Bad Request "container ... is waiting to start:
// ContainerCreating", or PodInitializing.
func waitingLogErr(err error) bool {
	if !apierrors.IsBadRequest(err) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "waiting to start") || strings.Contains(msg, "ContainerCreating") ||
		strings.Contains(msg, "PodInitializing")
}
