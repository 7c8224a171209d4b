package kube

// Starting a port-forward (portforward.go): the ports an object offers
// (PortForwardPorts), the request checked and its guards run, the object it
// names read fresh against the UID the person saw (forwardTarget), the pod it
// goes to chosen (choosePod), dialed and the local port listened on
// (StartPortForward).

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// PortForwardPorts returns the ports an object declares, for the dialog
// to offer: a pod's container ports (and its native sidecars'), a
// workload's pod template's, a Service's ports with their targetPorts.
// Kind is a plugin id whose plugin has CanPortForward (pods, services and
// the workloads). Errors: another kind (invalid), or the read's
// (not_found, forbidden, ...).
func (c *Client) PortForwardPorts(ctx context.Context, kind Kind, namespace, name string) ([]ForwardPort, error) {
	if !c.supports(kind, ActionPortForward) {
		return nil, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", errInvalid, kind)
	}
	if kind == kindServices {
		svc, err := c.cs.CoreV1().Services(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return servicePorts(svc), nil
	}
	spec, _, _, err := c.forwardSpec(ctx, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	return containerPorts(spec), nil
}

// forwardSpec reads a pod or a workload (readPodOwner): its pod spec,
// UID and (for a workload) its pod selector.
func (c *Client) forwardSpec(ctx context.Context, kind Kind, ns, name string) (*corev1.PodSpec, string, *metav1.LabelSelector, error) {
	if kind == KindPods {
		o, err := c.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return nil, "", nil, err
		}
		return &o.Spec, string(o.UID), nil, nil
	}
	wo, err := objects.Read(ctx, c.cs, kind, ns, name)
	if errors.Is(err, objects.ErrNotPodOwner) {
		return nil, "", nil, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", errInvalid, kind)
	}
	if err != nil {
		return nil, "", nil, err
	}
	return &wo.Template.Spec, string(wo.Meta.UID), wo.Selector, nil
}

// forwardTarget reads what req names, checks its UID against the one the
// person saw, and returns how to find its pods.
func (c *Client) forwardTarget(ctx context.Context, req PortForwardRequest) (forwardTarget, error) {
	var t forwardTarget
	what := string(req.Kind) + "/" + req.Name
	replaced := func(uid string) error {
		if req.UID != "" && uid != req.UID {
			return &Refusal{Reason: ReasonConflict, Detail: what + " was replaced since it was listed (its UID changed)"}
		}
		return nil
	}
	if req.Kind == kindServices {
		svc, err := c.cs.CoreV1().Services(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
		if err != nil {
			return t, err
		}
		if err := replaced(string(svc.UID)); err != nil {
			return t, err
		}
		if len(svc.Spec.Selector) == 0 {
			return t, fmt.Errorf("%w: Service %s has no selector, so no pods to forward to", errInvalid, req.Name)
		}
		t.svc, t.selector = svc, labels.SelectorFromSet(svc.Spec.Selector)
		return t, nil
	}
	_, uid, sel, err := c.forwardSpec(ctx, req.Kind, req.Namespace, req.Name)
	if err != nil {
		return t, err
	}
	if err := replaced(uid); err != nil {
		return t, err
	}
	if req.Kind == KindPods {
		return t, nil
	}
	if t.selector, err = metav1.LabelSelectorAsSelector(sel); err != nil {
		return t, fmt.Errorf("%w: %s's selector: %v", errInvalid, what, err)
	}
	return t, nil
}

// choosePod returns the pod a forward goes to now and the container port
// on it: the pod itself when it runs, or the ready pod of the target's
// selector that pickPod chooses, pods whose UID is in avoid left out.
func (c *Client) choosePod(ctx context.Context, req PortForwardRequest, t forwardTarget, avoid map[string]bool) (*corev1.Pod, int32, error) {
	if t.selector == nil {
		pod, err := c.cs.CoreV1().Pods(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
		if err != nil {
			return nil, 0, err
		}
		if req.UID != "" && string(pod.UID) != req.UID {
			return nil, 0, &Refusal{Reason: ReasonConflict, Detail: "pod " + req.Name + " was replaced (its UID changed)"}
		}
		if pod.DeletionTimestamp != nil || pod.Status.Phase != corev1.PodRunning {
			return nil, 0, fmt.Errorf("%w: pod %s is %s, not running", ErrExecNotRunning, req.Name, pod.Status.Phase)
		}
		return pod, req.RemotePort, nil
	}
	list, err := c.cs.CoreV1().Pods(req.Namespace).List(ctx, metav1.ListOptions{LabelSelector: t.selector.String()})
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

// StartPortForward starts a forward from 127.0.0.1:req.LocalPort (0: a
// free port) to req.RemotePort of a pod, or of a ready pod of a Service or
// a workload (a Service's port is translated to the pod's targetPort,
// by name or number). It runs the guards a port-forward needs: the
// SelfSubjectAccessReview of create pods/portforward in the namespace and
// the object read fresh against the UID the person saw. Read-only mode
// allows it: a port-forward writes nothing to the cluster (k9s allows it
// too). It returns once the local port listens and the first connection
// to the pod is made; the forward then runs until StopPortForward,
// StopAllPortForwards or Close. While it runs, it reads its pod every
// second: when the pod is gone, replaced or not ready, a forward to a
// Service or a workload moves to another ready pod (state moving; the
// connections in flight end, new ones wait for the new pod), and a forward
// to a pod fails (the local port is released). Errors: a malformed
// request (invalid), a *Refusal (forbidden; conflict when the object was
// replaced), no ready pod, the local port taken, the read's or the dial's
// error.
func (c *Client) StartPortForward(ctx context.Context, req PortForwardRequest) (ForwardStatus, error) {
	switch {
	case !c.supports(req.Kind, ActionPortForward):
		return ForwardStatus{}, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", errInvalid, req.Kind)
	case req.Namespace == "" || req.Name == "":
		return ForwardStatus{}, fmt.Errorf("%w: a port-forward needs a namespace and a name", errInvalid)
	case req.RemotePort < 1 || req.RemotePort > 65535:
		return ForwardStatus{}, fmt.Errorf("%w: port %d is not in 1-65535", errInvalid, req.RemotePort)
	case req.LocalPort < 0 || req.LocalPort > 65535:
		return ForwardStatus{}, fmt.Errorf("%w: local port %d is not in 0-65535", errInvalid, req.LocalPort)
	}
	if v := c.guards.Access(ctx, guards.AccessCheck{Verb: "create", Resource: "pods", Subresource: "portforward", Namespace: req.Namespace}); v.Outcome == OutcomeRefuse {
		return ForwardStatus{}, &Refusal{Reason: v.Reason, Detail: v.Sentence}
	}
	t, err := c.forwardTarget(ctx, req)
	if err != nil {
		return ForwardStatus{}, err
	}
	pod, remote, err := c.choosePod(ctx, req, t, nil)
	if err != nil {
		return ForwardStatus{}, err
	}
	dial := c.forwardDial()
	conn, err := dial(ctx, req.Namespace, pod.Name)
	if err != nil {
		return ForwardStatus{}, fmt.Errorf("port-forward to pod %s: %w", pod.Name, err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(int(req.LocalPort))))
	if err != nil {
		conn.Close()
		return ForwardStatus{}, &listenError{port: req.LocalPort, err: err}
	}
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &forward{req: req, local: int32(ln.Addr().(*net.TCPAddr).Port), started: time.Now(), ln: ln,
		cancel: cancel, done: make(chan struct{}), active: make(chan struct{})}
	f.setActive(pod, remote, conn)
	r := &c.forwards
	r.mu.Lock()
	if r.items == nil {
		r.items = map[int]*forward{}
	}
	r.next++
	f.id = r.next
	r.items[f.id] = f
	r.mu.Unlock()
	go f.accept(runCtx)
	go c.supervise(runCtx, f, t)
	return f.status(), nil
}

// forwardDial returns the dialer in use.
func (c *Client) forwardDial() forwardDialer {
	if c.forwards.dial != nil {
		return c.forwards.dial
	}
	return c.dialPortForward
}
