package forwarding

// A running port-forward (portforward.go): each local connection accepted
// and carried to the forward's current pod (accept), the pod and the
// streaming connection watched (supervise), and the forward moved to another
// ready pod, or failed, when its pod goes away (relocate).

import (
	"context"
	"errors"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
func (fw Forwarder) supervise(ctx context.Context, f *forward, t forwardTarget) {
	defer close(f.done)
	defer f.ln.Close()
	poll := fw.Forwards.poll
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
			f.leave(vocab.ForwardStopped, "")
			return
		case <-lost:
			if !fw.relocate(ctx, f, t, nil, "the connection to pod "+pod.Name+" was lost") {
				return
			}
		case <-tick.C:
			fresh, err := fw.CS.CoreV1().Pods(f.req.Namespace).Get(ctx, pod.Name, metav1.GetOptions{})
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
			if why != "" && !fw.relocate(ctx, f, t, map[string]bool{string(pod.UID): true}, why) {
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
func (fw Forwarder) relocate(ctx context.Context, f *forward, t forwardTarget, avoid map[string]bool, why string) bool {
	f.leave(vocab.ForwardMoving, why)
	poll := fw.Forwards.poll
	if poll <= 0 {
		poll = forwardPoll
	}
	for {
		fresh, err := fw.forwardTarget(ctx, f.req)
		var refusal *vocab.Refusal
		switch {
		case ctx.Err() != nil:
			f.leave(vocab.ForwardStopped, "")
			return false
		case apierrors.IsNotFound(err), errors.As(err, &refusal):
			f.leave(vocab.ForwardFailed, why+"; "+string(f.req.Kind)+"/"+f.req.Name+" is gone or was replaced")
			return false
		case err == nil:
			t = fresh
			pod, remote, err := fw.choosePod(ctx, f.req, t, avoid)
			if err == nil {
				conn, err := fw.forwardDial()(ctx, f.req.Namespace, pod.Name)
				if err == nil {
					f.mu.Lock()
					f.moves++
					f.lastMove = why + "; now pod " + pod.Name
					f.mu.Unlock()
					f.setActive(pod, remote, conn)
					return true
				}
			}
			if t.selector == nil && (apierrors.IsNotFound(err) || errors.As(err, &refusal) || errors.Is(err, vocab.ErrExecNotRunning)) {
				f.leave(vocab.ForwardFailed, why)
				return false
			}
			f.mu.Lock()
			f.err = why + "; " + err.Error()
			f.mu.Unlock()
			avoid = nil // the old pod may be ready again
		}
		select {
		case <-ctx.Done():
			f.leave(vocab.ForwardStopped, "")
			return false
		case <-time.After(poll):
		}
	}
}
