package kube

// Port-forwards live in package kube/internal/forwarding (which does not
// import kube); the Client holds their forwarding.Registry and starts
// forwards through a forwarding.Forwarder on its clientset, REST config,
// kind plugins and guards. ForwardPort and the errors are forwarding's,
// re-exported under the same names; the request and status types are
// vocab's (vocabstreams.go).

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/forwarding"
)

// ForwardPort is forwarding.ForwardPort: one port a forward can go to, as
// the object's spec declares it (PortForwardPorts).
type ForwardPort = forwarding.ForwardPort

// Errors of the port-forwards (kube/internal/forwarding's).
var (
	// ErrForwardListen is forwarding.ErrForwardListen: the local port
	// cannot be listened on; errors.Is finds it in StartPortForward's
	// error, whose text is "cannot listen on 127.0.0.1:<port>: <the
	// system's reason>".
	ErrForwardListen = forwarding.ErrForwardListen
	// ErrForwardUnknown is forwarding.ErrForwardUnknown: StopPortForward
	// was given an id no forward has.
	ErrForwardUnknown = forwarding.ErrForwardUnknown
)

// forwarder starts port-forwards into c's registry over c's clientset,
// REST config (nil for NewFromClientset: dials fail with
// ErrExecUnavailable), kind plugins and guards.
func (c *Client) forwarder() forwarding.Forwarder {
	return forwarding.Forwarder{CS: c.cs, Config: c.restConfig, KindInfo: c.kindInfo, Guards: c.guards, Forwards: &c.forwards}
}

// PortForwardPorts returns the ports an object declares, for the dialog
// to offer: a pod's container ports (and its native sidecars'), a
// workload's pod template's, a Service's ports with their targetPorts.
// Kind is a plugin id whose plugin has CanPortForward (pods, services and
// the workloads). Errors: another kind (invalid), or the read's
// (not_found, forbidden, ...).
func (c *Client) PortForwardPorts(ctx context.Context, kind Kind, namespace, name string) ([]ForwardPort, error) {
	return c.forwarder().Ports(ctx, kind, namespace, name)
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
// replaced), no ready pod, the local port taken (ErrForwardListen), the
// read's or the dial's error.
func (c *Client) StartPortForward(ctx context.Context, req PortForwardRequest) (ForwardStatus, error) {
	return c.forwarder().Start(ctx, req)
}

// PortForwards returns the forwards that run or failed, by ID.
func (c *Client) PortForwards() []ForwardStatus { return c.forwards.List() }

// StopPortForward stops the forward id (its local port is released, its
// connections end) and removes it from PortForwards. Errors:
// ErrForwardUnknown.
func (c *Client) StopPortForward(id int) error { return c.forwards.Stop(id) }

// StopAllPortForwards stops every forward (kyyard's end; Close calls it).
func (c *Client) StopAllPortForwards() { c.forwards.StopAll() }
