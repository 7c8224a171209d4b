package vocab

import corev1 "k8s.io/api/core/v1"

// cannotStart are the container waiting reasons that say a container
// cannot start until something changes: the kubelet's back-off after
// crashes and its image and configuration errors (k8s.io/kubernetes
// pkg/kubelet/images ErrImagePullBackOff, ErrImagePull, ErrImageNeverPull,
// ErrInvalidImageName; pkg/kubelet/kuberuntime ErrCreateContainerConfig;
// pkg/kubelet/container ErrCrashLoopBackOff). ErrImagePull counts at once,
// before its back-off: a person expects to learn of an unpullable image
// now, not after the Deployment's progress deadline.
var cannotStart = map[string]bool{
	"CrashLoopBackOff":           true,
	"ImagePullBackOff":           true,
	"ErrImagePull":               true,
	"ErrImageNeverPull":          true,
	"InvalidImageName":           true,
	"CreateContainerConfigError": true,
}

// CannotStart reports whether a container waiting with reason (its
// state.waiting.reason) cannot start without a change: CrashLoopBackOff,
// ImagePullBackOff, ErrImagePull, ErrImageNeverPull, InvalidImageName or
// CreateContainerConfigError (the kubelet's reasons; see cannotStart).
// It is the one rule for "these pods cannot start": a rollout with such a
// new pod is failed (RolloutStatus), a deploy stops on it, a Pod row names
// it (Row.CannotStart) and a workload's row is judged by it (Snapshot).
func CannotStart(reason string) bool { return cannotStart[reason] }

// PodCannotStart returns the first init container, then container, of pod
// that waits with a reason CannotStart names: its name, the reason and the
// kubelet's message ("Back-off pulling image ..."). ok is false when none
// does, and for a pod being deleted (metadata.deletionTimestamp set: its
// containers are stopping, not starting) or nil.
func PodCannotStart(pod *corev1.Pod) (container, reason, message string, ok bool) {
	if pod == nil || pod.DeletionTimestamp != nil {
		return "", "", "", false
	}
	for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
		for _, cs := range statuses {
			if w := cs.State.Waiting; w != nil && CannotStart(w.Reason) {
				return cs.Name, w.Reason, w.Message, true
			}
		}
	}
	return "", "", "", false
}
