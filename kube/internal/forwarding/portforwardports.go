package forwarding

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// The pure part of port-forwards (portforward.go): the ports an object
// declares, a Service port's target on one pod, and which ready pod a
// forward to a Service or a workload goes to.

// kindServices is the plugin id of core/v1 Services.
const kindServices vocab.Kind = "services"

// ForwardPort is one port a forward can go to, as the object's spec
// declares it.
type ForwardPort struct {
	// Port is the number to put in PortForwardRequest.RemotePort: a
	// container port, or for a Service its port.
	Port int32
	// Name is the port's name ("" when unnamed).
	Name string
	// Protocol is TCP, UDP or SCTP; only TCP can be forwarded (the API
	// server's port-forward carries TCP streams).
	Protocol string
	// Container is the container that declares it ("" for a Service).
	Container string
	// TargetPort is a Service port's targetPort as written: a number, or
	// the name of a container port resolved on each pod ("" for a
	// container port).
	TargetPort string
}

// Label is the port as the dialog lists it: "8080/TCP http (app)" or,
// for a Service, "80/TCP web → http".
func (p ForwardPort) Label() string {
	s := strconv.Itoa(int(p.Port)) + "/" + p.Protocol
	if p.Name != "" {
		s += " " + p.Name
	}
	if p.TargetPort != "" {
		s += " → " + p.TargetPort
	}
	if p.Container != "" {
		s += " (" + p.Container + ")"
	}
	return s
}

// containerPorts returns the ports a pod spec's containers (and native
// sidecars, the init containers that restart Always) declare, in spec
// order.
func containerPorts(spec *corev1.PodSpec) []ForwardPort {
	var out []ForwardPort
	add := func(c corev1.Container) {
		for _, p := range c.Ports {
			out = append(out, ForwardPort{Port: p.ContainerPort, Name: p.Name, Protocol: protocolOf(p.Protocol), Container: c.Name})
		}
	}
	for _, c := range spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			add(c)
		}
	}
	for _, c := range spec.Containers {
		add(c)
	}
	return out
}

// servicePorts returns a Service's ports with their targetPorts (an unset
// targetPort is the port itself, the API server's default).
func servicePorts(svc *corev1.Service) []ForwardPort {
	out := make([]ForwardPort, 0, len(svc.Spec.Ports))
	for _, p := range svc.Spec.Ports {
		target := p.TargetPort.String()
		if p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0 {
			target = strconv.Itoa(int(p.Port))
		}
		out = append(out, ForwardPort{Port: p.Port, Name: p.Name, Protocol: protocolOf(p.Protocol), TargetPort: target})
	}
	return out
}

func protocolOf(p corev1.Protocol) string {
	if p == "" {
		return string(corev1.ProtocolTCP)
	}
	return string(p)
}

// serviceTarget returns the container port on pod that the Service port
// numbered port goes to, as kubectl port-forward translates it
// (k8s.io/kubectl/pkg/util.LookupContainerPortNumberByServicePort): a
// numeric targetPort is itself (unset: the port), a named one the
// container port of that name on pod. Errors: the Service has no such
// port, the port is not TCP, or no container of pod declares the name.
func serviceTarget(svc *corev1.Service, port int32, pod *corev1.Pod) (int32, error) {
	for _, p := range svc.Spec.Ports {
		if p.Port != port {
			continue
		}
		if protocolOf(p.Protocol) != string(corev1.ProtocolTCP) {
			return 0, fmt.Errorf("%w: Service port %d is %s; only TCP can be forwarded", vocab.ErrInvalid, port, p.Protocol)
		}
		switch {
		case p.TargetPort.Type == intstr.Int && p.TargetPort.IntVal == 0:
			return p.Port, nil
		case p.TargetPort.Type == intstr.Int:
			return p.TargetPort.IntVal, nil
		}
		for _, cp := range containerPorts(&pod.Spec) {
			if cp.Name == p.TargetPort.StrVal {
				return cp.Port, nil
			}
		}
		return 0, fmt.Errorf("%w: pod %s declares no container port named %q (Service port %d's targetPort)",
			vocab.ErrInvalid, pod.Name, p.TargetPort.StrVal, port)
	}
	return 0, fmt.Errorf("%w: Service %s has no port %d", vocab.ErrInvalid, svc.Name, port)
}

// podReady reports whether a pod can take a forward: Running, not being
// deleted, its Ready condition True.
func podReady(pod *corev1.Pod) bool {
	if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
		return false
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// readySince is when a ready pod became ready (its Ready condition's
// lastTransitionTime), zero when unknown.
func readySince(pod *corev1.Pod) int64 {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.LastTransitionTime.UnixNano()
		}
	}
	return 0
}

// pickPod chooses the pod a forward goes to among pods: a ready one (see
// podReady) whose UID is not in avoid, the one ready longest (as kubectl
// prefers the pod running longest, k8s.io/kubectl/pkg/util/podutils
// ActivePods), ties broken by name. nil when none is ready.
func pickPod(pods []corev1.Pod, avoid map[string]bool) *corev1.Pod {
	var ready []*corev1.Pod
	for i := range pods {
		if podReady(&pods[i]) && !avoid[string(pods[i].UID)] {
			ready = append(ready, &pods[i])
		}
	}
	if len(ready) == 0 {
		return nil
	}
	sort.Slice(ready, func(i, j int) bool {
		a, b := readySince(ready[i]), readySince(ready[j])
		if a != b {
			return a < b
		}
		return ready[i].Name < ready[j].Name
	})
	return ready[0]
}
