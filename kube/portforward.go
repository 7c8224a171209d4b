package kube

// Port-forwards: a local port on 127.0.0.1 carried to a container port
// through the API server's pods/portforward (what kubectl port-forward
// does), owned by the Client's registry until stopped or the Client
// closes. A forward to a Service or a workload goes to one of its ready
// pods and moves to another when that pod goes away.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/httpstream"
)

// ErrForwardListen: the local port cannot be listened on (taken by
// another program, or below 1024 without the privilege); errors.Is finds
// it in StartPortForward's error, whose text is "cannot listen on
// 127.0.0.1:<port>: <the system's reason>".
var ErrForwardListen = errors.New("the local port cannot be listened on")

// listenError is StartPortForward's error for a local port it cannot
// listen on.
type listenError struct {
	port int32
	err  error
}

// Error returns "cannot listen on 127.0.0.1:<port>: <reason>", the reason
// without net's "listen tcp <addr>:" prefix.
func (e *listenError) Error() string {
	why := e.err.Error()
	var op *net.OpError
	if errors.As(e.err, &op) && op.Err != nil {
		why = op.Err.Error()
	}
	return fmt.Sprintf("cannot listen on 127.0.0.1:%d: %s", e.port, why)
}

// Unwrap returns ErrForwardListen (not the net error: ReasonOf would call
// it the API server's unavailability).
func (e *listenError) Unwrap() error { return ErrForwardListen }

// ErrForwardUnknown: StopPortForward was given an id no forward has.
var ErrForwardUnknown = errors.New("no such port-forward")

// forwardPoll is how often a forward reads its pod to see it is still
// there and ready, and how often a moving forward looks for another.
const forwardPoll = time.Second

// forwardConnWait is how long a local connection accepted while the
// forward is moving waits for it to be active again before it is closed.
const forwardConnWait = 15 * time.Second

// forwardRegistry holds a Client's forwards.
type forwardRegistry struct {
	mu    sync.Mutex
	next  int
	items map[int]*forward
	// dial and poll replace dialPortForward and forwardPoll (tests).
	dial forwardDialer
	poll time.Duration
}

// forwardTarget is what a forward goes to: a pod by name, or the pods of
// a selector (a Service's, a workload's).
type forwardTarget struct {
	svc      *corev1.Service // for a Service: translates its port per pod
	selector labels.Selector // nil for a pod
}

// forward is one running port-forward.
type forward struct {
	id      int
	req     PortForwardRequest
	local   int32
	started time.Time
	ln      net.Listener
	cancel  context.CancelFunc
	done    chan struct{}
	in, out atomic.Int64
	conns   atomic.Int64
	nfailed atomic.Int64
	reqIDs  atomic.Int64

	mu     sync.Mutex
	state  ForwardState
	err    string
	last   string // the last failed connection's error
	pod    *corev1.Pod
	remote int32
	conn   httpstream.Connection
	active chan struct{} // closed while the state is active
	// moves and lastMove are ForwardStatus.Moves and LastMove.
	moves    int
	lastMove string
}

// status is the forward as :pf lists it.
func (f *forward) status() ForwardStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := ForwardStatus{ID: f.id, Request: f.req, LocalPort: f.local, State: f.state, Err: f.err,
		BytesIn: f.in.Load(), BytesOut: f.out.Load(), Connections: int(f.conns.Load()), Started: f.started,
		Failed: int(f.nfailed.Load()), LastError: f.last, Moves: f.moves, LastMove: f.lastMove}
	if f.pod != nil {
		st.Pod = f.pod.Name
	}
	return st
}

// failed records a connection that failed with err: counted, and kept
// as the last error (which no change of state clears).
func (f *forward) failed(err error) {
	f.nfailed.Add(1)
	f.mu.Lock()
	f.last = err.Error()
	f.mu.Unlock()
}

// setActive makes the forward carry new connections to pod's port remote
// through conn.
func (f *forward) setActive(pod *corev1.Pod, remote int32, conn httpstream.Connection) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.state, f.err, f.pod, f.remote, f.conn = ForwardActive, "", pod, remote, conn
	select {
	case <-f.active:
	default:
		close(f.active)
	}
}

// leave ends the current connection and moves to state (moving, failed
// or stopped) with why; failed and stopped release the local port.
func (f *forward) leave(state ForwardState, why string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conn != nil {
		f.conn.Close()
		f.conn = nil
	}
	select {
	case <-f.active:
		f.active = make(chan struct{})
	default:
	}
	f.state, f.err = state, why
	if state == ForwardFailed || state == ForwardStopped {
		f.ln.Close() // the local port is released before the state says so
	} else {
		f.pod = nil
	}
}

// current returns the connection and port new local connections use,
// waiting up to wait while the forward is moving; ok is false
// when it is not active by then.
func (f *forward) current(ctx context.Context, wait time.Duration) (httpstream.Connection, int32, bool) {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		f.mu.Lock()
		conn, remote, state, active := f.conn, f.remote, f.state, f.active
		f.mu.Unlock()
		switch {
		case state == ForwardActive && conn != nil:
			return conn, remote, true
		case state == ForwardFailed || state == ForwardStopped:
			return nil, 0, false
		}
		select {
		case <-active:
		case <-ctx.Done():
			return nil, 0, false
		case <-timer.C:
			return nil, 0, false
		}
	}
}

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
	wo, err := c.readPodOwner(ctx, kind, ns, name)
	if errors.Is(err, errNotPodOwner) {
		return nil, "", nil, fmt.Errorf("%w: a port-forward goes to pods, Services and workloads, not %s", errInvalid, kind)
	}
	if err != nil {
		return nil, "", nil, err
	}
	return &wo.template.Spec, string(wo.meta.UID), wo.selector, nil
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
	if v := c.guardAccess(ctx, accessCheck{verb: "create", resource: "pods", subresource: "portforward", namespace: req.Namespace}); v.Outcome == OutcomeRefuse {
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

// accept carries each local connection to the pod the forward goes to.
func (f *forward) accept(ctx context.Context) {
	for {
		local, err := f.ln.Accept()
		if err != nil {
			return // the listener closed: stopped or failed
		}
		f.conns.Add(1)
		go func() {
			conn, remote, ok := f.current(ctx, forwardConnWait)
			if !ok {
				local.Close()
				return
			}
			if err := carry(local, conn, remote, int(f.reqIDs.Add(1)), &f.in, &f.out); err != nil {
				f.failed(err)
				// The pod's side reporting an error for this connection
				// leaves the streaming connection as it was (the next
				// connection may succeed; the supervisor watches the pod).
				// Streams that could not be made or read mean the
				// streaming connection broke: it ends, and the supervisor
				// makes a new one.
				var pe *podForwardError
				if !errors.As(err, &pe) {
					conn.Close()
				}
			}
		}()
	}
}

// supervise watches the forward's pod and its connection until ctx ends:
// a lost connection is made again, a pod gone or not ready is left for
// another (or, for a pod forward, the forward fails).
func (c *Client) supervise(ctx context.Context, f *forward, t forwardTarget) {
	defer close(f.done)
	defer f.ln.Close()
	poll := c.forwards.poll
	if poll <= 0 {
		poll = forwardPoll
	}
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		f.mu.Lock()
		conn, pod := f.conn, f.pod
		f.mu.Unlock()
		var lost <-chan bool
		if conn != nil {
			lost = conn.CloseChan()
		}
		select {
		case <-ctx.Done():
			f.leave(ForwardStopped, "")
			return
		case <-lost:
			if !c.relocate(ctx, f, t, nil, "the connection to pod "+pod.Name+" was lost") {
				return
			}
		case <-tick.C:
			fresh, err := c.cs.CoreV1().Pods(f.req.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
			why := ""
			switch {
			case apierrors.IsNotFound(err):
				why = "pod " + pod.Name + " was deleted"
			case err != nil:
				continue // the API server away: the forward may still carry
			case fresh.UID != pod.UID:
				why = "pod " + pod.Name + " was replaced"
			case fresh.DeletionTimestamp != nil:
				// A real kubelet keeps a deleted pod, Ready, for its
				// grace period while it stops the containers.
				why = "pod " + pod.Name + " was deleted (terminating)"
			case !podReady(fresh) && (t.selector != nil || fresh.Status.Phase != corev1.PodRunning || fresh.DeletionTimestamp != nil):
				why = "pod " + pod.Name + " is not ready"
			}
			if why != "" && !c.relocate(ctx, f, t, map[string]bool{string(pod.UID): true}, why) {
				return
			}
		}
	}
}

// relocate leaves the current connection and makes a new one, to another
// ready pod for a Service or a workload, to the same pod for a pod
// forward; it retries every poll while there is none, until ctx ends. It
// reports false when the forward failed or stopped: the object itself is
// gone or replaced, or a pod forward's pod is.
func (c *Client) relocate(ctx context.Context, f *forward, t forwardTarget, avoid map[string]bool, why string) bool {
	f.leave(ForwardMoving, why)
	poll := c.forwards.poll
	if poll <= 0 {
		poll = forwardPoll
	}
	for {
		fresh, err := c.forwardTarget(ctx, f.req)
		var refusal *Refusal
		switch {
		case ctx.Err() != nil:
			f.leave(ForwardStopped, "")
			return false
		case apierrors.IsNotFound(err), errors.As(err, &refusal):
			f.leave(ForwardFailed, why+"; "+string(f.req.Kind)+"/"+f.req.Name+" is gone or was replaced")
			return false
		case err == nil:
			t = fresh
			pod, remote, err := c.choosePod(ctx, f.req, t, avoid)
			if err == nil {
				conn, err := c.forwardDial()(ctx, f.req.Namespace, pod.Name)
				if err == nil {
					f.mu.Lock()
					f.moves++
					f.lastMove = why + "; now pod " + pod.Name
					f.mu.Unlock()
					f.setActive(pod, remote, conn)
					return true
				}
			}
			if t.selector == nil && (apierrors.IsNotFound(err) || errors.As(err, &refusal) || errors.Is(err, ErrExecNotRunning)) {
				f.leave(ForwardFailed, why)
				return false
			}
			f.mu.Lock()
			f.err = why + "; " + err.Error()
			f.mu.Unlock()
			avoid = nil // the old pod may be ready again
		}
		select {
		case <-ctx.Done():
			f.leave(ForwardStopped, "")
			return false
		case <-time.After(poll):
		}
	}
}

// PortForwards returns the forwards that run or failed, by ID.
func (c *Client) PortForwards() []ForwardStatus {
	r := &c.forwards
	r.mu.Lock()
	list := make([]*forward, 0, len(r.items))
	for _, f := range r.items {
		list = append(list, f)
	}
	r.mu.Unlock()
	out := make([]ForwardStatus, 0, len(list))
	for _, f := range list {
		out = append(out, f.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// StopPortForward stops the forward id (its local port is released, its
// connections end) and removes it from PortForwards. Errors:
// ErrForwardUnknown.
func (c *Client) StopPortForward(id int) error {
	r := &c.forwards
	r.mu.Lock()
	f, ok := r.items[id]
	delete(r.items, id)
	r.mu.Unlock()
	if !ok {
		return fmt.Errorf("%w: %d", ErrForwardUnknown, id)
	}
	f.cancel()
	f.ln.Close()
	<-f.done
	return nil
}

// StopAllPortForwards stops every forward (kyyard's end; Close calls it).
func (c *Client) StopAllPortForwards() {
	for _, st := range c.PortForwards() {
		_ = c.StopPortForward(st.ID)
	}
}
