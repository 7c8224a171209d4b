package drain

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MirrorAnnotation marks a mirror pod: the API server's copy of a static
// pod the kubelet runs from a file (corev1.MirrorPodAnnotationKey).
const MirrorAnnotation = "kubernetes.io/config.mirror"

// Classify says whether a drain evicts pod, and why not when it does not,
// with the rules of kubectl drain's filters (k8s.io/kubectl/pkg/drain,
// filters.go) as it runs without its force flags but with
// --ignore-daemonsets, in kubectl's order:
//   - a pod being deleted already is left to finish;
//   - a DaemonSet's pod is left: its controller ignores the cordon and
//     would make it again (daemonSetFilter, --ignore-daemonsets);
//   - a mirror pod is left: the API cannot remove it, its kubelet runs it
//     from a file (mirrorPodFilter);
//   - a pod with emptyDir volumes is left, its data would be lost
//     (localStorageFilter; kubectl refuses it without
//     --delete-emptydir-data);
//   - a pod no controller manages is left, it would not come back
//     (unreplicatedFilter; kubectl refuses it without --force).
//
// A pod that has finished (Succeeded, Failed) is evicted whatever its
// volumes and owner, as kubectl deletes it: nothing is lost.
func Classify(pod *corev1.Pod) (evict bool, why string) {
	if pod.DeletionTimestamp != nil {
		return false, "already being deleted: left to finish"
	}
	controller := metav1.GetControllerOf(pod)
	if controller != nil && controller.Kind == "DaemonSet" {
		return false, fmt.Sprintf("managed by DaemonSet %s: its controller ignores the cordon and would make it again (kubectl drain --ignore-daemonsets leaves it)", controller.Name)
	}
	if _, ok := pod.Annotations[MirrorAnnotation]; ok {
		return false, "a mirror pod (its kubelet runs it from a static file): the API cannot remove it"
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return true, ""
	}
	var dirs []string
	for _, v := range pod.Spec.Volumes {
		if v.EmptyDir != nil {
			dirs = append(dirs, v.Name)
		}
	}
	if len(dirs) > 0 {
		return false, fmt.Sprintf("uses emptyDir volume %s: its data would be lost (kubectl drain refuses it without --delete-emptydir-data)", strings.Join(dirs, ", "))
	}
	if controller == nil {
		return false, "not managed by a controller: once evicted it would not come back (kubectl drain refuses it without --force)"
	}
	return true, ""
}
