package shells

// The end of a SPDY session told apart from a lost connection. Over SPDY,
// client-go's remotecommand reads the error stream to its end and takes an
// empty one for success (watchErrorStream: no message is a nil error), so
// a connection that breaks in the middle of a command (the API server
// stopped, the network gone: spdystream then ends every stream with EOF)
// comes back as exit 0 (kubernetes/kubectl#1208, #1726). From protocol v4
// on, the server always ends the error stream with its status, a Success
// one included (the kubelet's streaming server, remotecommand
// v4WriteStatusFunc): so a session of v4 or v5 whose error stream carried
// nothing did not end with the server's word.

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apihttpstream "k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	"k8s.io/client-go/transport/spdy"
)

// errNoStatus: a SPDY session of protocol v4 or v5 ended without the
// server's status on its error stream: the connection was lost, the exit
// status is unknown. Run reports it as ErrExecClosed.
var errNoStatus = errors.New("the stream ended without the server's exit status")

// statusProtocols are the remotecommand protocols whose server always
// writes a status on the error stream (k8s.io/apimachinery's
// remotecommand.StreamProtocolV4Name and V5Name).
var statusProtocols = map[string]bool{"v4.channel.k8s.io": true, "v5.channel.k8s.io": true}

// statusWatch records what one SPDY connection negotiated and how many
// bytes its error stream delivered.
type statusWatch struct {
	protocol atomic.Value // string
	read     atomic.Int64
}

// missing reports whether a session that ended without an error ended
// without the server's status: its protocol promises one and the error
// stream carried none.
func (w *statusWatch) missing() bool {
	p, _ := w.protocol.Load().(string)
	return statusProtocols[p] && w.read.Load() == 0
}

// statusUpgrader is a SPDY upgrader whose connections count what their
// error stream delivers.
type statusUpgrader struct {
	spdy.Upgrader
	watch *statusWatch
}

// NewConnection upgrades resp and notes the protocol it negotiated.
func (u statusUpgrader) NewConnection(resp *http.Response) (apihttpstream.Connection, error) {
	conn, err := u.Upgrader.NewConnection(resp)
	if err != nil {
		return nil, err
	}
	u.watch.protocol.Store(resp.Header.Get(apihttpstream.HeaderProtocolVersion))
	return statusConn{Connection: conn, watch: u.watch}, nil
}

// statusConn wraps the error stream it creates in a statusStream.
type statusConn struct {
	apihttpstream.Connection
	watch *statusWatch
}

// CreateStream creates the stream, counting what an error stream reads.
func (c statusConn) CreateStream(headers http.Header) (apihttpstream.Stream, error) {
	s, err := c.Connection.CreateStream(headers)
	if err != nil || headers.Get(corev1.StreamType) != corev1.StreamTypeError {
		return s, err
	}
	return statusStream{Stream: s, watch: c.watch}, nil
}

// statusStream counts the bytes read from the error stream.
type statusStream struct {
	apihttpstream.Stream
	watch *statusWatch
}

// Read reads and counts.
func (s statusStream) Read(p []byte) (int, error) {
	n, err := s.Stream.Read(p)
	s.watch.read.Add(int64(n))
	return n, err
}

// spdyExecutor is client-go's SPDY executor (what
// remotecommand.NewSPDYExecutor builds) whose end without the server's
// status is errNoStatus rather than success.
type spdyExecutor struct {
	remotecommand.Executor
	watch *statusWatch
}

// NewSPDYExecutor returns client-go's SPDY executor of u (POST) for cfg,
// whose end without the server's status (protocol v4 and v5) is
// errNoStatus, reported by Run as ErrExecClosed, rather than success: the
// executor a session falls back to, for a Dialer that wants SPDY alone.
// Errors: the transport's construction (a bad TLS configuration).
func NewSPDYExecutor(cfg *rest.Config, u *url.URL) (Streamer, error) {
	ex, err := newSPDYExecutor(cfg, u)
	if err != nil {
		return nil, err
	}
	return ex, nil
}

// newSPDYExecutor is NewSPDYExecutor's executor.
func newSPDYExecutor(cfg *rest.Config, u *url.URL) (*spdyExecutor, error) {
	rt, upgrader, err := spdy.RoundTripperFor(cfg)
	if err != nil {
		return nil, err
	}
	w := &statusWatch{}
	ex, err := remotecommand.NewSPDYExecutorForTransports(rt, statusUpgrader{Upgrader: upgrader, watch: w}, "POST", u)
	if err != nil {
		return nil, err
	}
	return &spdyExecutor{Executor: ex, watch: w}, nil
}

// StreamWithContext streams; a nil end without the server's status is
// errNoStatus.
func (e *spdyExecutor) StreamWithContext(ctx context.Context, opts remotecommand.StreamOptions) error {
	err := e.Executor.StreamWithContext(ctx, opts)
	if err == nil && e.watch.missing() {
		return errNoStatus
	}
	return err
}

// Stream is StreamWithContext without a context.
func (e *spdyExecutor) Stream(opts remotecommand.StreamOptions) error {
	return e.StreamWithContext(context.Background(), opts)
}
