package vocab

import (
	"context"
	"errors"
	"io"
	"time"
)

// The types of exec sessions, debug containers and port-forwards
// (kube/internal/shells, kube/internal/forwarding). An exec runs the guard layer
// like a write (design: "Guards, and two policies"): the pod read back
// against the UID the person saw, Running, with the container; an access
// review of create pods/exec; the Pod Security of the namespace and of the
// pod per the policy.

// ExecRequest names a session to open.
type ExecRequest struct {
	// Namespace and Pod name the pod; UID is the metadata.uid the person
	// saw ("" skips the check, for a typed name).
	Namespace, Pod, UID string
	// Container is the container; "" means the pod's only container, and
	// a pod with several is refused with a *ContainerChoiceError.
	Container string
	// Command is the argv to run; empty means the default shell: the
	// context's configured Shell when set, else bash when the container
	// has it, else sh, chosen inside the container by one exec.
	Command []string
	// Shell is the context's configured shell argv (config), tried before
	// bash and sh when Command is empty; empty means none configured.
	Shell []string
	// TTY allocates a terminal (tty=true); stderr then joins stdout.
	TTY bool
	// Confirmed lists the warning reasons the person accepted (interactive
	// policy); a warning not among them refuses with its reason.
	Confirmed []Reason
}

// ExecPlan is what PlanExec found before anything runs: the guards'
// verdicts and the container the session would use.
type ExecPlan struct {
	// Verdicts are every guard's answers, in the order they ran.
	Verdicts Verdicts
	// Container is the container chosen (the request's, or the pod's
	// only one).
	Container string
}

// TerminalSize is a terminal's size in cells.
type TerminalSize struct {
	Width, Height uint16
}

// TerminalSizeQueue yields the local terminal's sizes: the first call
// returns the size at the start of the session, each later call blocks
// until the next resize, and nil ends the queue (client-go's
// remotecommand.TerminalSizeQueue, in kyyard's own type).
type TerminalSizeQueue interface {
	Next() *TerminalSize
}

// ExecStreams are the local ends of a session. With TTY, Stderr is unused.
type ExecStreams struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Sizes, with TTY, passes the local terminal's size and every resize
	// on; nil sends none.
	Sizes TerminalSizeQueue
}

// ExecLimits bound a session; zero fields take the defaults below.
type ExecLimits struct {
	// Setup bounds the time from the request to the stream being
	// established (ErrExecSetup); default DefaultExecSetup.
	Setup time.Duration
	// Idle ends a session whose input has been idle this long
	// (ErrExecIdle); default 0, no idle limit.
	Idle time.Duration
	// Lifetime ends a session this long after it started
	// (ErrExecLifetime); default 0, no limit.
	Lifetime time.Duration
}

// DefaultExecSetup is the default ExecLimits.Setup.
const DefaultExecSetup = 30 * time.Second

// ExecSession is an opened session: its guards passed and its argv was
// chosen; Run runs it (once). Client.OpenExec returns one for an exec,
// Client.OpenDebug one attached to a new debug container.
type ExecSession interface {
	// Argv is the command that runs (the shell chosen, or the request's).
	Argv() []string
	// Container is the container it runs in.
	Container() string
	// Note says how the shell was chosen, for the banner ("bash not
	// found, using sh"); "" when there is nothing to say.
	Note() string
	// Run runs the session until the remote command ends, the stream
	// closes or ctx is done. It returns the remote exit code (0 only when
	// the server said so) and nil, or an error among the ErrExec* ones
	// (errors.Is); a non-zero exit code is an ExitCode and nil error. An
	// error the API server or the kubelet sent is an *ExecServerError
	// (ErrExecServer), never ErrExecClosed, which is for a broken
	// connection.
	Run(ctx context.Context, streams ExecStreams, limits ExecLimits) (ExecResult, error)
}

// ExecResult is how a session ended.
type ExecResult struct {
	// ExitCode is the remote command's exit status, as the server
	// reported it.
	ExitCode int
	// Transport is the protocol the session used: "websocket" or "spdy".
	Transport string
	// Fallback, when Transport is "spdy", says why the WebSocket
	// executor was not used (casebook C43); "" otherwise.
	Fallback string
	// ExitReportedAsError, when set, says ExitCode was read from the text
	// of a server error rather than from the server's exit-code status:
	// the local cluster's kwok answers a non-zero exit with an internal
	// error ending in "exit status N" (reference section 8). It holds that
	// error's text; "" when the server reported the exit code itself.
	ExitReportedAsError string
}

// Errors of exec, debug containers and port-forwards.
var (
	// ErrExecUnavailable: the client has no cluster configuration to
	// open streams with (made from a clientset only).
	ErrExecUnavailable = errors.New("exec is not available: no cluster configuration")
	// ErrExecForbidden: RBAC denies create pods/exec (or pods/portforward,
	// pods/ephemeralcontainers) on the pod.
	ErrExecForbidden = errors.New("your account may not open a shell in this pod")
	// ErrExecPodSecurity: the namespace enforces no Pod Security level of
	// baseline or above, or the pod itself does not meet baseline
	// (privileged, host namespaces); refused under the strict policy,
	// warned under the interactive one. The error says which.
	ErrExecPodSecurity = errors.New("Pod Security does not bound this pod")
	// ErrExecPodReplaced: the pod read back has another UID than the one
	// the person chose.
	ErrExecPodReplaced = errors.New("the pod was replaced since it was listed")
	// ErrExecNotRunning: the pod or the container is not running.
	ErrExecNotRunning = errors.New("the container is not running")
	// ErrExecNoShell: the container has neither the configured shell, nor
	// bash, nor sh (casebook C16); a debug container can be offered.
	ErrExecNoShell = errors.New("the container has no shell")
	// ErrExecClosed: the stream closed and the remote exit status is
	// unknown (never reported as exit 0).
	ErrExecClosed = errors.New("the session closed; the exit status is unknown")
	// ErrExecIdle: no input for ExecLimits.Idle.
	ErrExecIdle = errors.New("the session was idle too long")
	// ErrExecLifetime: the session ran for ExecLimits.Lifetime.
	ErrExecLifetime = errors.New("the session reached its time limit")
	// ErrExecSetup: the stream was not established within ExecLimits.Setup.
	ErrExecSetup = errors.New("the session could not be set up in time")
)

// DebugRequest asks for an ephemeral debug container (what kubectl debug
// -it --target does) in a pod, targeting one container's process
// namespace.
type DebugRequest struct {
	// Namespace, Pod and UID name the pod as the person saw it.
	Namespace, Pod, UID string
	// Target is the container whose process namespace the debug container
	// joins.
	Target string
	// Image is the debug container's image; "" means DefaultDebugImage.
	Image string
	// Confirmed lists the warning reasons the person accepted.
	Confirmed []Reason
	// StartTimeout bounds OpenDebug's wait for the container to run; 0
	// means DefaultDebugStart.
	StartTimeout time.Duration
}

// DefaultDebugImage is the debug image offered when none was chosen
// before (kubectl debug's documentation uses busybox).
const DefaultDebugImage = "busybox:1.37"

// PortForwardRequest names a forward from 127.0.0.1 to a container port.
type PortForwardRequest struct {
	// Kind is KindPods, "services" or a workload kind; a Service or a
	// workload forwards to one of its ready pods and moves to another
	// when that pod goes away.
	Kind Kind
	// Namespace and Name name the object; UID the one the person saw.
	Namespace, Name, UID string
	// RemotePort is the port: a container port number, or for a Service
	// its port (translated to the pod's targetPort).
	RemotePort int32
	// LocalPort is the local port on 127.0.0.1; 0 picks a free one.
	LocalPort int32
}

// ForwardState is a forward's state. A forward is listed only once
// StartPortForward has its first connection, so it is active from the
// start; it then moves between active and moving and ends stopped or
// failed.
type ForwardState string

// Forward states.
const (
	ForwardActive  ForwardState = "active"
	ForwardMoving  ForwardState = "moving" // its pod went away; finding another
	ForwardStopped ForwardState = "stopped"
	ForwardFailed  ForwardState = "failed"
)

// ForwardStatus is one forward as :pf lists it.
type ForwardStatus struct {
	// ID identifies the forward in this process.
	ID int
	// Request is what was asked.
	Request PortForwardRequest
	// LocalPort is the port bound on 127.0.0.1.
	LocalPort int32
	// Pod is the pod traffic goes to now ("" while moving).
	Pod string
	// State, and Err when failed or moving.
	State ForwardState
	Err   string
	// BytesIn (to the local client) and BytesOut (to the pod), and
	// Connections accepted.
	BytesIn, BytesOut int64
	Connections       int
	// Failed counts the connections that failed: the pod's side reported
	// an error on the connection's error stream (kubelet: "error
	// forwarding port 8080 to pod …: no forward found for port 8080"), or
	// its streams could not be made. The forward keeps running: later
	// connections may succeed.
	Failed int
	// LastError is the last failed connection's error, its innermost
	// cause first; "" when none failed. Unlike Err it stays after the
	// forward becomes active again.
	LastError string
	// Started is when the forward began.
	Started time.Time
	// Moves counts the times the forward left its pod (deleted, replaced,
	// not ready) or a lost connection and went on, and LastMove says the
	// last one: why, and the pod it went to ("pod web-1 was deleted
	// (terminating); now pod web-2"). Unlike Err they stay once the
	// forward is active again.
	Moves    int
	LastMove string
}
