package forwarding

// Starting a port-forward (portforward.go): the ports an object offers
// (Ports), the request checked and its guards run, the object it names
// read fresh against the UID the person saw (forwardTarget), the pod it
// goes to chosen (choosePod), dialed and the local port listened on
// (Start).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// Ports returns the ports an object declares, for the dialog
// to offer: a pod's container ports (and its native sidecars'), a
// workload's pod template's, a Service's ports with their targetPorts.
// Kind is a plugin id whose plugin has CanPortForward (pods, services and
// the workloads). Errors: another kind (invalid), or the read's
// (not_found, forbidden, ...).
func (fw Forwarder) Ports(ctx context.Context, kind vocab.Kind, namespace, name string) ([]ForwardPort, error) {
	if !fw.supports(kind, vocab.ActionPortForward) {
		return nil, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", vocab.ErrInvalid, kind)
	}
	if kind == kindServices {
		svc, err := fw.CS.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return servicePorts(svc), nil
	}
	spec, _, _, err := fw.forwardSpec(ctx, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	return containerPorts(spec), nil
}

// forwardSpec reads a pod or a workload (objects.Read): its pod spec,
// UID and (for a workload) its pod selector.
func (fw Forwarder) forwardSpec(ctx context.Context, kind vocab.Kind, ns, name string) (*corev1.PodSpec, string, *metav1.LabelSelector, error) {
	if kind == vocab.KindPods {
		o, err := fw.CS.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, "", nil, err
		}
		return &o.Spec, string(o.UID), nil, nil
	}
	wo, err := objects.Read(ctx, fw.CS, kind, ns, name)
	if errors.Is(err, objects.ErrNotPodOwner) {
		return nil, "", nil, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", vocab.ErrInvalid, kind)
	}
	if err != nil {
		return nil, "", nil, err
	}
	return &wo.Template.Spec, string(wo.Meta.UID), wo.Selector, nil
}

// forwardTarget reads what req names, checks its UID against the one the
// person saw, and returns how to find its pods.
func (fw Forwarder) forwardTarget(ctx context.Context, req vocab.PortForwardRequest) (forwardTarget, error) {
	var t forwardTarget
	what := string(req.Kind) + "/" + req.Name
	replaced := func(uid string) error {
		if req.UID != "" && uid != req.UID {
			return &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: what + " was replaced since it was listed (its UID changed)"}
		}
		return nil
	}
	if req.Kind == kindServices {
		svc, err := fw.CS.CoreV1().Services(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
		if err != nil {
			return t, err
		}
		if err := replaced(string(svc.UID)); err != nil {
			return t, err
		}
		if len(svc.Spec.Selector) == 0 {
			return t, fmt.Errorf("%w: Service %s has no selector, so no pods to forward to", vocab.ErrInvalid, req.Name)
		}
		t.svc, t.selector = svc, labels.SelectorFromSet(svc.Spec.Selector)
		return t, nil
	}
	_, uid, sel, err := fw.forwardSpec(ctx, req.Kind, req.Namespace, req.Name)
	if err != nil {
		return t, err
	}
	if err := replaced(uid); err != nil {
		return t, err
	}
	if req.Kind == vocab.KindPods {
		return t, nil
	}
	if t.selector, err = metav1.LabelSelectorAsSelector(sel); err != nil {
		return t, fmt.Errorf("%w: %s's selector: %v", vocab.ErrInvalid, what, err)
	}
	return t, nil
}

// choosePod returns the pod a forward goes to now and the container port
// on it: the pod itself when it runs, or the ready pod of the target's
// selector that pickPod chooses, pods whose UID is in avoid left out.
func (fw Forwarder) choosePod(ctx context.Context, req vocab.PortForwardRequest, t forwardTarget, avoid map[string]bool) (*corev1.Pod, int32, error) {
	if t.selector == nil {
		pod, err := fw.CS.CoreV1().Pods(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
		if err != nil {
			return nil, 0, err
		}
		if req.UID != "" && string(pod.UID) != req.UID {
			return nil, 0, &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: "pod " + req.Name + " was replaced (its UID changed)"}
		}
		if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
			return nil, 0, fmt.Errorf("%w: pod %s is %s, not running", vocab.ErrExecNotRunning, req.Name, pod.Status.Phase)
		}
		return pod, req.RemotePort, nil
	}
	list, err := fw.CS.CoreV1().Pods(req.Namespace).List(ctx, metav1.ListOptions{LabelSelector: t.selector.String()})
	if err != nil {
		return nil, 0, err
	}
	pod := pickPod(list.Items, avoid)
	if pod == nil {
		return nil, 0, fmt.Errorf("%s/%s has no ready pod", req.Kind, req.Name)
	}
	remote := req.RemotePort
	if t.svc != nil {
		if remote, err = serviceTarget(t.svc, req.RemotePort, pod); err != nil {
			return nil, 0, err
		}
	}
	return pod, remote, nil
}

// Start starts a forward from 127.0.0.1:req.LocalPort (0: a
// free port) to req.RemotePort of a pod, or of a ready pod of a Service or
// a workload (a Service's port is translated to the pod's targetPort,
// by name or number). It runs the guards a port-forward needs: the
// SelfSubjectAccessReview of create pods/portforward in the namespace
// (Guards) and the object read fresh against the UID the person saw.
// Read-only mode (a Guards refusing writes) allows it: a port-forward
// writes nothing to the cluster (k9s allows it too). It returns once the
// local port listens and the first connection to the pod is made; the
// forward joins Forwards and then runs until Registry.Stop or StopAll
// (ctx's end does not stop it). While it runs, it reads its pod every
// second: when the pod is gone, replaced or not ready, a forward to a
// Service or a workload moves to another ready pod (state moving; the
// connections in flight end, new ones wait for the new pod), and a forward
// to a pod fails (the local port is released). Errors: a malformed
// request (invalid), a *vocab.Refusal (forbidden; conflict when the
// object was replaced), no ready pod, the local port taken
// (ErrForwardListen), the read's or the dial's error.
func (fw Forwarder) Start(ctx context.Context, req vocab.PortForwardRequest) (vocab.ForwardStatus, error) {
	switch {
	case !fw.supports(req.Kind, vocab.ActionPortForward):
		return vocab.ForwardStatus{}, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", vocab.ErrInvalid, req.Kind)
	case req.Namespace == "" || req.Name == "":
		return vocab.ForwardStatus{}, fmt.Errorf("%w: a port-forward needs a namespace and a name", vocab.ErrInvalid)
	case req.RemotePort < 1 || req.RemotePort > 65535:
		return vocab.ForwardStatus{}, fmt.Errorf("%w: port %d is not in 1-65535", vocab.ErrInvalid, req.RemotePort)
	case req.LocalPort < 0 || req.LocalPort > 65535:
		return vocab.ForwardStatus{}, fmt.Errorf("%w: local port %d is not in 0-65535", vocab.ErrInvalid, req.LocalPort)
	}
	if v := fw.Guards.Access(ctx, guards.AccessCheck{Verb: "create", Resource: "pods", Subresource: "portforward", Namespace: req.Namespace}); v.Outcome == vocab.OutcomeRefuse {
		return vocab.ForwardStatus{}, &vocab.Refusal{Reason: v.Reason, Detail: v.Sentence}
	}
	t, err := fw.forwardTarget(ctx, req)
	if err != nil {
		return vocab.ForwardStatus{}, err
	}
	pod, remote, err := fw.choosePod(ctx, req, t, nil)
	if err != nil {
		return vocab.ForwardStatus{}, err
	}
	dial := fw.forwardDial()
	conn, err := dial(ctx, req.Namespace, pod.Name)
	if err != nil {
		return vocab.ForwardStatus{}, fmt.Errorf("port-forward to pod %s: %w", pod.Name, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(req.LocalPort))))
	if err != nil {
		conn.Close()
		return vocab.ForwardStatus{}, &listenError{port: req.LocalPort, err: err}
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &forward{req: req, local: int32(ln.Addr().(*net.TCPAddr).Port), started: time.Now(), ln: ln,
		cancel: cancel, done: make(chan struct{}), active: make(chan struct{})}
	f.setActive(pod, remote, conn)
	r := fw.Forwards
	r.mu.Lock()
	if r.items == nil {
		r.items = map[int]*forward{}
	}
	r.next++
	f.id = r.next
	r.items[f.id] = f
	r.mu.Unlock()
	go f.accept(runCtx)
	go fw.supervise(runCtx, f, t)
	return f.status(), nil
}

// forwardDial returns the dialer in use.
func (fw Forwarder) forwardDial() forwardDialer {
	if fw.Forwards.dial != nil {
		return fw.Forwards.dial
	}
	return fw.dialPortForward
}
