package kube

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"
)

// reachability records whether the API server answered the Client's last
// requests, at the transport level: any response (whatever its status) is
// an answer; a failed connection is not. Informers retry a refused watch
// silently, so this is how the Client learns that a cache is no longer
// followed: while the server cannot be reached, Snapshots read with direct
// lists, which say so (ReasonUnavailable) instead of passing off cached rows
// as current.
type reachability struct {
	lastOK, lastFail atomic.Int64 // unix nanoseconds
}

// down reports whether the last transport outcome was a failure.
func (r *reachability) down() bool { return r.lastFail.Load() > r.lastOK.Load() }

// transport wraps a RoundTripper to record outcomes. A request cancelled by
// its own context (a screen closed, a deadline kyyard set) says nothing
// about the server and is not recorded.
func (r *reachability) transport(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		now := time.Now().UnixNano()
		switch {
		case err == nil:
			r.lastOK.Store(now)
		case req.Context().Err() != nil, errors.Is(err, context.Canceled):
		default:
			r.lastFail.Store(now)
		}
		return resp, err
	})
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

// errUnreachable marks a cache the Client stopped trusting because the API
// server could not be reached.
var errUnreachable = errors.New("the API server cannot be reached")

// Reachable reports whether the last request that reached the network got
// an answer from the API server (any status), as opposed to a transport
// failure (connection refused, a timeout); true before any request, and
// for a Client made from a clientset (tests). The header's banner uses it
// to notice at once that the server answers again.
func (c *Client) Reachable() bool {
	return c.reach == nil || !c.reach.down()
}
