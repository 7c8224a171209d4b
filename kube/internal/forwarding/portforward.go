package forwarding

// Port-forwards (doc.go): this file holds the Registry, the Forwarder, a
// forward's state and its stopping; starting a forward is in
// portforwardstart.go, running and moving it in portforwardmove.go, its
// streams in portforwardconn.go and the ports in portforwardports.go.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// ErrForwardListen: the local port cannot be listened on (taken by
// another program, or below 1024 without the privilege); errors.Is finds
// it in Forwarder.Start's error (kube.Client.StartPortForward's), whose
// text is "cannot listen on 127.0.0.1:<port>: <the system's reason>".
var ErrForwardListen = errors.New("the local port cannot be listened on")

// listenError is Forwarder.Start's error for a local port it cannot
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

// ErrForwardUnknown: Registry.Stop (kube.Client.StopPortForward) was
// given an id no forward has.
var ErrForwardUnknown = errors.New("no such port-forward")

// forwardPoll is how often a forward reads its pod to see it is still
// there and ready, and how often a moving forward looks for another.
const forwardPoll = time.Second

// forwardConnWait is how long a local connection accepted while the
// forward is moving waits for it to be active again before it is closed.
const forwardConnWait = 15 * time.Second

// Registry holds the forwards that run or failed, from Forwarder.Start
// until Stop or StopAll; its zero value is empty and ready to use, and it
// must not be copied once used. kube.Client holds one for its life.
type Registry struct {
	mu    sync.Mutex
	next  int
	items map[int]*forward
	// dial and poll replace Forwarder.dialPortForward and forwardPoll (tests).
	dial forwardDialer
	poll time.Duration
}

// Forwarder starts port-forwards into Forwards and reads the ports an
// object offers, through a clientset, its REST config and the kinds'
// plugins, with the guards a port-forward needs. It is a value of plain
// inputs: kube.Client builds one per call.
type Forwarder struct {
	// CS reads the objects and pods and makes the API requests.
	CS kubernetes.Interface
	// Config is the connection pods/portforward is dialed with (SPDY or
	// WebSocket); nil (a clientset handed in, tests) makes every dial fail
	// with vocab.ErrExecUnavailable.
	Config *rest.Config
	// KindInfo answers what a plugin id or alias supports
	// (Capabilities has CanPortForward for pods, Services and workloads).
	KindInfo func(vocab.Kind) vocab.KindInfo
	// Guards asks the SelfSubjectAccessReview of create pods/portforward.
	Guards *guards.Checker
	// Forwards is the registry a started forward joins.
	Forwards *Registry
}

// supports reports whether kind has action a (its plugin's Capabilities).
func (fw Forwarder) supports(kind vocab.Kind, a vocab.Action) bool {
	return fw.KindInfo(kind).Supports(a)
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
	req     vocab.PortForwardRequest
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
	state  vocab.ForwardState
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

// status is the forward as :pf lists it (Registry.List).
func (f *forward) status() vocab.ForwardStatus {
	f.mu.Lock()
	defer f.mu.Unlock()
	st := vocab.ForwardStatus{ID: f.id, Request: f.req, LocalPort: f.local, State: f.state, Err: f.err,
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
	f.state, f.err, f.pod, f.remote, f.conn = vocab.ForwardActive, "", pod, remote, conn
	select {
	case <-f.active:
	default:
		close(f.active)
	}
}

// leave ends the current connection and moves to state (moving, failed
// or stopped) with why; failed and stopped release the local port.
func (f *forward) leave(state vocab.ForwardState, why string) {
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
	if state == vocab.ForwardFailed || state == vocab.ForwardStopped {
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
		case state == vocab.ForwardActive && conn != nil:
			return conn, remote, true
		case state == vocab.ForwardFailed || state == vocab.ForwardStopped:
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

// List returns the forwards that run or failed, by ID.
func (r *Registry) List() []vocab.ForwardStatus {
	r.mu.Lock()
	list := make([]*forward, 0, len(r.items))
	for _, f := range r.items {
		list = append(list, f)
	}
	r.mu.Unlock()
	out := make([]vocab.ForwardStatus, 0, len(list))
	for _, f := range list {
		out = append(out, f.status())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Stop stops the forward id (its local port is released, its
// connections end) and removes it from List. Errors: ErrForwardUnknown.
func (r *Registry) Stop(id int) error {
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

// StopAll stops every forward (kyyard's end; kube.Client.Close calls it).
func (r *Registry) StopAll() {
	for _, st := range r.List() {
		_ = r.Stop(st.ID)
	}
}
