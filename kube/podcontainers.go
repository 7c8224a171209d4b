package kube

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
)

// What logs and exec share about a pod's containers.

// defaultContainerAnnotation names the container kubectl picks when none
// is named (kubectl's podcmd.DefaultContainerAnnotationName, used by
// kubectl logs, exec and attach).
const defaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// podContainers lists a pod's containers in spec order: init containers
// (native sidecars among them), then containers, then ephemeral
// containers (kubectl debug's).
func podContainers(pod *corev1.Pod) []string {
	out := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers)+len(pod.Spec.EphemeralContainers))
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		out = append(out, c.Name)
	}
	return out
}

// runningContainers lists the containers that run for the pod's life, in
// spec order: native sidecars (init containers with restartPolicy Always)
// and spec.containers; not the init containers that run before them, nor
// ephemeral ones.
func runningContainers(pod *corev1.Pod) []string {
	var out []string
	for _, c := range pod.Spec.InitContainers {
		if isSidecar(c) {
			out = append(out, c.Name)
		}
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

// podDefaultContainer is the container kubectl logs and exec pick when
// none is named (k8s.io/kubectl/pkg/cmd/util/podcmd
// FindOrDefaultContainerByName): the one the
// kubectl.kubernetes.io/default-container annotation names when the pod
// has it, else the first of spec.containers (never an init container nor
// a native sidecar); "" only for a pod without containers.
func podDefaultContainer(pod *corev1.Pod) string {
	name := pod.Annotations[defaultContainerAnnotation]
	if name != "" && slices.Contains(podContainers(pod), name) {
		return name
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

// isSidecar reports a native sidecar: an init container with
// restartPolicy Always (Kubernetes 1.29+).
func isSidecar(c corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}
