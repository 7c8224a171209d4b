package shells

// The session of an exec: client-go's remotecommand over the WebSocket
// executor first, falling back to SPDY once when the upgrade fails or an
// HTTPS proxy refuses it (casebook C43, kubectl's own rule in
// k8s.io/kubectl/pkg/cmd/exec), with the limits of ExecLimits and an exit
// status that is the server's or an error, never a guessed 0.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"
	utilexec "k8s.io/client-go/util/exec"
	"k8s.io/streaming/pkg/httpstream"
)

// Call is one exec request's parameters (namespace, pod, container,
// argv, whether stdin is sent and a TTY asked for), as OpenExec and Run
// make them; a Dialer passes it on to Endpoint.
type Call struct {
	namespace, pod, container string
	argv                      []string
	stdin, tty                bool
}

// Streamer is the part of client-go's remotecommand.Executor a session
// uses.
type Streamer interface {
	StreamWithContext(ctx context.Context, options remotecommand.StreamOptions) error
}

// Transport records which protocol a Run used: fallback is the
// WebSocket executor's error when the SPDY one was tried after it. The
// zero value is a Run over WebSocket; it is safe for concurrent use.
type Transport struct {
	mu       sync.Mutex
	fallback error
}

// fellBack returns the WebSocket error that made the session fall back to
// SPDY, nil when it did not.
func (t *Transport) fellBack() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fallback
}

// SetFallback records err as the WebSocket executor's error the session
// fell back to SPDY after (a test's dialer choosing SPDY says why).
func (t *Transport) SetFallback(err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.fallback = err
}

// Dialer builds the executor of one Run of call; established is to be
// called once the stream is up (the upgrade answered 101). Shells'
// dialExec is the real one; tests put a fake in Shells.Dial.
type Dialer func(call Call, established func()) (Streamer, *Transport, error)

// shouldFallback is kubectl's rule for leaving the WebSocket executor for
// SPDY: the upgrade failed (403, no 101, a wrong subprotocol) or an HTTPS
// proxy cannot carry WebSockets (kubernetes/kubernetes#126134).
func shouldFallback(err error) bool {
	return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
}

// dialExec builds the fallback executor (WebSocket, then SPDY) for call
// from the REST config (Shells.Config), or with Shells.Dial when set. Errors: ErrExecUnavailable without one;
// the executors' construction errors (a bad TLS configuration).
func (c *Shells) dialExec(call Call, established func()) (Streamer, *Transport, error) {
	if c.Dial != nil {
		return c.Dial(call, established)
	}
	if c.Config == nil {
		return nil, nil, vocab.ErrExecUnavailable
	}
	cfg, u := c.Endpoint(call, established)
	return fallbackExecutor(cfg, u)
}

// Endpoint returns the REST config of call's streams (a copy of
// Shells.Config, calling established when the upgrade is answered 101) and
// the URL of its pods/exec request (built with Shells.CS). Config must not
// be nil.
func (c *Shells) Endpoint(call Call, established func()) (*rest.Config, string) {
	cfg := rest.CopyConfig(c.Config)
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(req *http.Request) (*http.Response, error) {
			resp, err := rt.RoundTrip(req)
			if err == nil && resp.StatusCode == http.StatusSwitchingProtocols {
				established()
			}
			return resp, err
		})
	})
	u := c.CS.CoreV1().RESTClient().Post().Namespace(call.namespace).Resource("pods").Name(call.pod).
		SubResource("exec").VersionedParams(execOptions(call), scheme.ParameterCodec).URL()
	return cfg, u.String()
}

// fallbackExecutor is remotecommand's FallbackExecutor from the WebSocket
// executor (GET) to the SPDY one (POST) at url, recording the WebSocket
// error when it falls back. The SPDY executor is NewSPDYExecutor's: its end
// without the server's status is errNoStatus, never a success
// (execstatus.go).
func fallbackExecutor(cfg *rest.Config, rawURL string) (Streamer, *Transport, error) {
	ws, err := remotecommand.NewWebSocketExecutor(cfg, "GET", rawURL)
	if err != nil {
		return nil, nil, err
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, nil, err
	}
	spdy, err := newSPDYExecutor(cfg, u)
	if err != nil {
		return nil, nil, err
	}
	t := &Transport{}
	fb, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		if !shouldFallback(err) {
			return false
		}
		t.SetFallback(err)
		return true
	})
	return fb, t, err
}

// execSession is an ExecSession of OpenExec.
type execSession struct {
	client *Shells
	call   Call
	note   string
	ran    atomic.Bool
}

// Argv returns the command that runs.
func (s *execSession) Argv() []string { return s.call.argv }

// Container returns the container it runs in.
func (s *execSession) Container() string { return s.call.container }

// Note says how the shell was chosen ("" when the first choice was there).
func (s *execSession) Note() string { return s.note }

// errRanTwice: Run was called a second time.
var errRanTwice = errors.New("a session runs once")

// Run streams the session (see ExecSession.Run): stdin is sent when
// streams.Stdin is set, stdout (and stderr without a TTY) are written as
// they arrive, the sizes of streams.Sizes passed on. It ends with the
// remote command: exit code 0 only when the server reported success, a
// non-zero code from the server's status (client-go's exec.CodeExitError)
// with a nil error; else ErrExecSetup (the stream was not up within
// limits.Setup), ErrExecIdle (no input for limits.Idle), ErrExecLifetime,
// an *ExecServerError (ErrExecServer: the API server or the kubelet ended
// the session with an error of its own; the exit code instead, with
// ExitReportedAsError, when that error is kwok's "exit status N"),
// ErrExecClosed (the stream broke or ctx ended it after it was up: the exit
// status is unknown), or the setup's own error (an upgrade refused: when
// the WebSocket executor fell back to SPDY and SPDY failed too, the error
// names both).
func (s *execSession) Run(ctx context.Context, streams vocab.ExecStreams, limits vocab.ExecLimits) (vocab.ExecResult, error) {
	if !s.ran.CompareAndSwap(false, true) {
		return vocab.ExecResult{}, errRanTwice
	}
	if limits.Setup <= 0 {
		limits.Setup = vocab.DefaultExecSetup
	}
	call := s.call
	call.stdin = streams.Stdin != nil
	runCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	up := make(chan struct{})
	var upOnce sync.Once
	established := func() { upOnce.Do(func() { close(up) }) }
	exec, transport, err := s.client.dialExec(call, established)
	if err != nil {
		return vocab.ExecResult{}, err
	}
	watch := &sessionWatch{last: time.Now()}
	go watch.limits(runCtx, cancel, up, limits)

	opts := remotecommand.StreamOptions{Tty: call.tty}
	if streams.Stdin != nil {
		opts.Stdin = &inputReader{r: streams.Stdin, watch: watch}
	}
	if streams.Stdout != nil {
		opts.Stdout = &outputWriter{w: streams.Stdout, established: established}
	}
	if streams.Stderr != nil && !call.tty {
		opts.Stderr = &outputWriter{w: streams.Stderr, established: established}
	}
	if call.tty && streams.Sizes != nil {
		opts.TerminalSizeQueue = sizeQueue{streams.Sizes}
	}
	err = exec.StreamWithContext(runCtx, opts)
	return sessionResult(err, context.Cause(runCtx), ctx.Err(), isClosed(up), transport)
}

// sessionResult maps how a stream ended to the session's result: streamErr
// is StreamWithContext's error, cause the run context's cause, parentErr
// the caller's context's error, wasUp whether the stream was established.
func sessionResult(streamErr, cause, parentErr error, wasUp bool, t *Transport) (vocab.ExecResult, error) {
	res := vocab.ExecResult{Transport: "websocket"}
	if t != nil {
		if fb := t.fellBack(); fb != nil {
			res.Transport, res.Fallback = "spdy", fb.Error()
		}
	}
	var exitErr utilexec.ExitError
	switch {
	case errors.Is(cause, vocab.ErrExecSetup), errors.Is(cause, vocab.ErrExecIdle), errors.Is(cause, vocab.ErrExecLifetime):
		return res, cause
	case streamErr == nil:
		return res, nil
	case errors.As(streamErr, &exitErr) && exitErr.Exited():
		res.ExitCode = exitErr.ExitStatus()
		return res, nil
	}
	if se, ok := execServerError(streamErr); ok {
		if code, ok := reportedExitCode(se); ok {
			res.ExitCode, res.ExitReportedAsError = code, se.Error()
			return res, nil
		}
		if !wasUp && res.Fallback != "" {
			return res, fmt.Errorf("websocket: %s; then spdy: %w", res.Fallback, se)
		}
		return res, se
	}
	switch {
	case parentErr != nil:
		return res, fmt.Errorf("%w: the session was ended (%v)", vocab.ErrExecClosed, parentErr)
	case !wasUp:
		if res.Fallback != "" {
			return res, fmt.Errorf("websocket: %s; then spdy: %w", res.Fallback, streamErr)
		}
		return res, streamErr
	}
	return res, fmt.Errorf("%w: connection lost (%v)", vocab.ErrExecClosed, streamErr)
}

// isClosed reports whether ch is closed.
func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// sessionWatch tracks the last input of a session.
type sessionWatch struct {
	mu   sync.Mutex
	last time.Time
}

// input records input now.
func (w *sessionWatch) input() {
	w.mu.Lock()
	w.last = time.Now()
	w.mu.Unlock()
}

// idleFor returns the time since the last input.
func (w *sessionWatch) idleFor() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return time.Since(w.last)
}

// limits cancels the run with ErrExecSetup when up is not closed within
// Setup, ErrExecLifetime after Lifetime, ErrExecIdle after Idle without
// input; it returns when ctx ends.
func (w *sessionWatch) limits(ctx context.Context, cancel context.CancelCauseFunc, up chan struct{}, l vocab.ExecLimits) {
	setup := time.NewTimer(l.Setup)
	defer setup.Stop()
	var lifetime <-chan time.Time
	if l.Lifetime > 0 {
		t := time.NewTimer(l.Lifetime)
		defer t.Stop()
		lifetime = t.C
	}
	var idle <-chan time.Time
	if l.Idle > 0 {
		t := time.NewTicker(max(min(l.Idle/4, time.Second), time.Millisecond))
		defer t.Stop()
		idle = t.C
	}
	upCh := up
	for {
		select {
		case <-ctx.Done():
			return
		case <-upCh:
			setup.Stop()
			upCh = nil
		case <-setup.C:
			if !isClosed(up) {
				cancel(vocab.ErrExecSetup)
				return
			}
		case <-lifetime:
			cancel(vocab.ErrExecLifetime)
			return
		case <-idle:
			if w.idleFor() >= l.Idle {
				cancel(vocab.ErrExecIdle)
				return
			}
		}
	}
}

// inputReader passes stdin on and records each input.
type inputReader struct {
	r     io.Reader
	watch *sessionWatch
}

// Read reads from the local stdin.
func (r *inputReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if n > 0 {
		r.watch.input()
	}
	return n, err
}

// outputWriter passes output on; output proves the stream is up.
type outputWriter struct {
	w           io.Writer
	established func()
}

// Write writes to the local stdout or stderr.
func (w *outputWriter) Write(p []byte) (int, error) {
	w.established()
	return w.w.Write(p)
}

// sizeQueue adapts a TerminalSizeQueue to remotecommand's.
type sizeQueue struct{ q vocab.TerminalSizeQueue }

// Next returns the next size, nil at the end.
func (s sizeQueue) Next() *remotecommand.TerminalSize {
	sz := s.q.Next()
	if sz == nil {
		return nil
	}
	return &remotecommand.TerminalSize{Width: sz.Width, Height: sz.Height}
}
