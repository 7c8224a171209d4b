package shells

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"
)

// DebugStreamer streams a debug session's attach: it returns the
// transport used ("websocket" or "spdy"), why the WebSocket one was not
// used (for "spdy"), and the stream's end. Tests replace the real one
// (Shells.debugAttach) through Shells.DebugStream.
type DebugStreamer func(ctx context.Context, s *DebugSession, opts remotecommand.StreamOptions) (transport, fallback string, err error)

// DebugSession is the ExecSession OpenDebug returns: an attach (stdin and
// TTY) to the debug container it added (or Attach's container).
type DebugSession struct {
	c                         *Shells
	namespace, pod, container string
	image                     string
	ran                       atomic.Bool
}

// Attach returns the session OpenDebug returns for a debug container,
// attached to the container named container of pod in namespace (any
// running container: the attach path on its own, without adding one);
// image is what Argv and Note name. Nothing is sent until Run.
func (c *Shells) Attach(namespace, pod, container, image string) *DebugSession {
	return &DebugSession{c: c, namespace: namespace, pod: pod, container: container, image: image}
}

// Argv is the debug image's own entrypoint: kyyard runs no command of
// its own in it (as `kubectl debug -it` with no command).
func (s *DebugSession) Argv() []string { return []string{"(" + s.image + " entrypoint)"} }

// Container is the debug container's name ("debugger-xxxxx").
func (s *DebugSession) Container() string { return s.container }

// Note says what the session is, for the banner.
func (s *DebugSession) Note() string {
	return "ephemeral debug container " + s.container + " (" + s.image + "); it stays in the pod until the pod ends"
}

// debugExitWait is how long Run waits, after the stream ended, for the
// kubelet to report the debug container terminated with its exit code.
const debugExitWait = 3 * time.Second

// Run attaches to the debug container (pods/attach with stdin, stdout and
// a TTY, WebSocket first and SPDY when the upgrade is refused, casebook
// C43) until the stream ends, ctx is done or a limit is reached. The exit
// code is the one the kubelet reports for the container once the stream
// ended (an attach itself carries none); a container still running then
// (the stream closed under it) is ErrExecClosed. Errors: ErrExecSetup,
// ErrExecIdle, ErrExecLifetime, ErrExecClosed (wrapping the stream's
// error), ctx's error; a second Run is ErrExecClosed.
func (s *DebugSession) Run(ctx context.Context, streams vocab.ExecStreams, limits vocab.ExecLimits) (vocab.ExecResult, error) {
	if s.ran.Swap(true) {
		return vocab.ExecResult{}, fmt.Errorf("%w: a session runs once", vocab.ErrExecClosed)
	}
	if limits.Setup <= 0 {
		limits.Setup = vocab.DefaultExecSetup
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)

	// The stream is established when it first moves bytes or asks for
	// the terminal's size: remotecommand does so only once its streams
	// are made.
	var up atomic.Bool
	var lastInput atomic.Int64
	lastInput.Store(time.Now().UnixNano())
	established := func() { up.Store(true) }
	opts := remotecommand.StreamOptions{Tty: true}
	if streams.Stdin != nil {
		opts.Stdin = &debugInput{r: streams.Stdin, start: established, input: func() { lastInput.Store(time.Now().UnixNano()) }}
	}
	out := streams.Stdout
	if out == nil {
		out = io.Discard
	}
	opts.Stdout = &debugOutput{w: out, on: established}
	if streams.Sizes != nil {
		opts.TerminalSizeQueue = &debugSizes{q: streams.Sizes, on: established}
	}

	var wg sync.WaitGroup
	watchDone := make(chan struct{})
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.watchLimits(ctx, cancel, limits, &up, &lastInput, watchDone)
	}()
	stream := s.c.DebugStream
	if stream == nil {
		stream = s.c.debugAttach
	}
	transport, fallback, err := stream(ctx, s, opts)
	close(watchDone)
	wg.Wait()
	res := vocab.ExecResult{Transport: transport, Fallback: fallback}
	if cause := context.Cause(ctx); cause != nil && !errors.Is(cause, context.Canceled) {
		return res, cause
	}
	var exit interface{ ExitStatus() int }
	switch {
	case err != nil && errors.As(err, &exit):
		res.ExitCode = exit.ExitStatus()
		return res, nil
	case err != nil && ctx.Err() != nil:
		return res, ctx.Err()
	case err != nil:
		return res, fmt.Errorf("%w: %v", vocab.ErrExecClosed, err)
	}
	code, ok := s.exitCode(ctx)
	if !ok {
		return res, fmt.Errorf("%w: debug container %s is still running (the attach closed)", vocab.ErrExecClosed, s.container)
	}
	res.ExitCode = code
	return res, nil
}

// watchLimits cancels ctx with ErrExecSetup, ErrExecIdle or
// ErrExecLifetime when the stream is not up within limits.Setup, the
// input is idle for limits.Idle, or the session reaches limits.Lifetime.
func (s *DebugSession) watchLimits(ctx context.Context, cancel context.CancelCauseFunc, limits vocab.ExecLimits, up *atomic.Bool, lastInput *atomic.Int64, done <-chan struct{}) {
	start := time.Now()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-ctx.Done():
			return
		case now := <-tick.C:
			switch {
			case !up.Load() && now.Sub(start) > limits.Setup:
				cancel(fmt.Errorf("%w (%s)", vocab.ErrExecSetup, limits.Setup))
				return
			case limits.Lifetime > 0 && now.Sub(start) > limits.Lifetime:
				cancel(fmt.Errorf("%w (%s)", vocab.ErrExecLifetime, limits.Lifetime))
				return
			case limits.Idle > 0 && now.Sub(time.Unix(0, lastInput.Load())) > limits.Idle:
				cancel(fmt.Errorf("%w (%s)", vocab.ErrExecIdle, limits.Idle))
				return
			}
		}
	}
}

// exitCode reads the debug container's exit code, waiting up to
// debugExitWait for the kubelet to report it terminated.
func (s *DebugSession) exitCode(ctx context.Context) (int, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), debugExitWait)
	defer cancel()
	for {
		pod, err := s.c.CS.CoreV1().Pods(s.namespace).Get(ctx, s.pod, metav1.GetOptions{})
		if err == nil {
			for _, st := range pod.Status.EphemeralContainerStatuses {
				if st.Name == s.container && st.State.Terminated != nil {
					return int(st.State.Terminated.ExitCode), true
				}
			}
		}
		select {
		case <-ctx.Done():
			return 0, false
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// debugAttach streams an attach through the API server: client-go's
// WebSocket executor (v5.channel.k8s.io), and its SPDY one when the
// WebSocket upgrade is refused or a proxy does not pass it (casebook C43;
// the rule of client-go's remotecommand.NewFallbackExecutor as kubectl
// uses it). When both fail, both errors are reported.
func (c *Shells) debugAttach(ctx context.Context, s *DebugSession, opts remotecommand.StreamOptions) (string, string, error) {
	if c.Config == nil {
		return "", "", vocab.ErrExecUnavailable
	}
	u := c.CS.CoreV1().RESTClient().Post().Resource("pods").Namespace(s.namespace).Name(s.pod).
		SubResource("attach").VersionedParams(&corev1.PodAttachOptions{
		Container: s.container, Stdin: opts.Stdin != nil, Stdout: true, Stderr: false, TTY: true,
	}, scheme.ParameterCodec).URL()
	exec, t, err := fallbackExecutor(c.Config, u.String())
	if err != nil {
		return "", "", err
	}
	err = exec.StreamWithContext(ctx, opts)
	fb := t.fellBack()
	if fb == nil {
		return "websocket", "", err
	}
	if err != nil {
		err = fmt.Errorf("websocket: %v; spdy: %w", fb, err)
	}
	return "spdy", fb.Error(), err
}

// debugInput is the local input: start is called when the stream first
// reads it (the stream is up), input after each read that got bytes.
type debugInput struct {
	r            io.Reader
	start, input func()
}

func (d *debugInput) Read(p []byte) (int, error) {
	d.start()
	n, err := d.r.Read(p)
	if n > 0 {
		d.input()
	}
	return n, err
}

// debugOutput is the local output, noting each write.
type debugOutput struct {
	w  io.Writer
	on func()
}

func (d *debugOutput) Write(p []byte) (int, error) {
	d.on()
	return d.w.Write(p)
}

// debugSizes adapts kyyard's TerminalSizeQueue to client-go's.
type debugSizes struct {
	q  vocab.TerminalSizeQueue
	on func()
}

func (d *debugSizes) Next() *remotecommand.TerminalSize {
	d.on()
	sz := d.q.Next()
	if sz == nil {
		return nil
	}
	return &remotecommand.TerminalSize{Width: sz.Width, Height: sz.Height}
}
