package kube

// Exec sessions and ephemeral debug containers live in package
// kube/internal/shells (which does not import kube); kube re-exports its
// exported types, constants and errors under the same names for the
// screens, and PlanExec, OpenExec, PlanDebug and OpenDebug delegate to a
// shells.Shells on the Client's clientset, REST config, guards and
// configured shell. Each name below is shells' (the same type or value:
// see its documentation there); the request and session types are
// kube/vocab's (vocabstreams.go).

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/shells"
)

// The exec and debug types (aliases of kube/internal/shells').
type (
	// DebugAddedError is shells.DebugAddedError.
	DebugAddedError = shells.DebugAddedError
	// ExecServerError is shells.ExecServerError.
	ExecServerError = shells.ExecServerError
)

// The exec and debug constants (kube/internal/shells').
const (
	// DefaultDebugStart is shells.DefaultDebugStart.
	DefaultDebugStart = shells.DefaultDebugStart
	// ExecPodSecuritySentence is shells.ExecPodSecuritySentence.
	ExecPodSecuritySentence = shells.ExecPodSecuritySentence
	// PodSecurityStandards is shells.PodSecurityStandards.
	PodSecurityStandards = shells.PodSecurityStandards
)

// The exec and debug errors (kube/internal/shells').
var (
	// ErrDebugNotStarted is shells.ErrDebugNotStarted.
	ErrDebugNotStarted = shells.ErrDebugNotStarted
	// ErrExecServer is shells.ErrExecServer.
	ErrExecServer = shells.ErrExecServer
)

// execDialer, the type of Client.execDialer, is shells.Dialer: when set
// (tests), it builds exec streams instead of client-go's executors.
type execDialer = shells.Dialer

// debugStreamer, the type of Client.debugExec, is shells.DebugStreamer:
// when set (tests), it streams debug sessions instead of client-go's
// attach executors.
type debugStreamer = shells.DebugStreamer

// shells returns the exec and debug part on c's clientset, REST config
// (nil for a clientset handed in: no stream can be made), guards,
// configured shell (Options.Shell) and test stream builders, read now.
func (c *Client) shells() *shells.Shells {
	return &shells.Shells{CS: c.cs, Config: c.restConfig, Guards: c.guards, Shell: c.opts.Shell,
		Dial: c.execDialer, DebugStream: c.debugExec}
}

// PlanExec runs an exec's guards without running anything, for a
// confirmation screen, through the guard pipeline (guards.Checker.Run), in this
// order, stopping at the first refusal:
// read-only (no request at all), the SelfSubjectAccessReview of create
// pods/exec in the namespace (cached 30 s), the pod read fresh against the
// UID the person saw (ReasonConflict when it changed), the container
// (Plan.Container), the pod Running with that container running
// (ReasonNotRunning), then Pod Security: a pass only when the namespace
// enforces baseline or restricted and the pod meets baseline (the official
// Pod Security Admission checks); otherwise a warning, a refusal under the
// strict policy (ReasonPodSecurity). Errors: a malformed request (ErrInvalid),
// the pod cannot be read (ReasonOf: not_found, forbidden, unavailable), or
// several containers and none named (*ContainerChoiceError, listing them
// with the kubectl.kubernetes.io/default-container annotation's).
func (c *Client) PlanExec(ctx context.Context, req ExecRequest) (ExecPlan, error) {
	return c.shells().PlanExec(ctx, req)
}

// OpenExec runs the guards (PlanExec) and, when none refuses and every
// warning's reason is in req.Confirmed, chooses the argv: req.Command when
// set, else the shell found by one exec of a probe inside the container
// (no TTY, no stdin; the configured shell req.Shell, else the Client's
// Options.Shell, then bash, then sh). Nothing else runs until the session's
// Run. Errors: ErrExecUnavailable (a client without cluster configuration,
// before any request); PlanExec's errors; a refusal as an error that
// errors.Is one of ErrExecForbidden, ErrExecPodReplaced, ErrExecNotRunning,
// ErrExecPodSecurity (and errors.As a *Refusal; read-only is the *Refusal
// alone); ErrExecNoShell when the container has no shell (casebook C16:
// the runtime cannot find sh, or the probe found none); the probe's own
// failure otherwise.
func (c *Client) OpenExec(ctx context.Context, req ExecRequest) (ExecSession, error) {
	return c.shells().OpenExec(ctx, req)
}

// PlanDebug runs the guards of a debug container without writing, through
// the guard pipeline (guards.Checker.Run): read-only (refused before any request),
// the SelfSubjectAccessReviews of patch pods/ephemeralcontainers (the verb
// of the request OpenDebug sends) and create pods/attach, the pod read
// fresh (gone: not_found; another UID than req.UID: conflict, the pod was
// replaced; not Running, or no container req.Target: invalid), and the
// namespace's Pod Security level (the guards' PodSecurity: a namespace enforcing
// no level warns, strict refuses), then the pod with the debug container
// added checked against that level as the API server's admission checks
// it, the whole pod (a pod that does not meet it warns,
// strict refuses, since the server is expected to reject the patch). It
// stops after the stage of the first refusal. Errors: req has no
// namespace, pod or target (invalid), or a read failed for another reason
// than the pod being gone.
func (c *Client) PlanDebug(ctx context.Context, req DebugRequest) (Verdicts, error) {
	return c.shells().PlanDebug(ctx, req)
}

// OpenDebug runs the guards (PlanDebug) and, when none refuses and every
// warning's reason is in req.Confirmed, adds an ephemeral container
// "debugger-<5 random characters>" (kubectl's naming) running req.Image
// (DefaultDebugImage when "") with stdin and a TTY, targeting req.Target's
// process namespace, with a securityContext the namespace's Pod Security
// level admits (casebook C44). The write is a
// strategic merge patch of the pods/ephemeralcontainers subresource
// carrying the guards' resourceVersion as its precondition. It then reads
// the pod every 500 ms until the container runs, calling progress (may be
// nil) with each new waiting reason, for at most req.StartTimeout
// (DefaultDebugStart when 0), and returns a session attached to the
// container (pods/attach, as `kubectl debug -it` does).
// Errors: ErrExecUnavailable (no REST config to attach with), a
// *Refusal (a guard refused, a warning was not confirmed, or the API
// server refused the patch: admission_denied with its text for Pod
// Security or a webhook, conflict for a pod changed meanwhile), an
// ErrDebugNotStarted wrapping error naming the waiting reason, ctx's
// error, or a failed read; once the patch was sent, every error is a
// *DebugAddedError wrapping the cause.
func (c *Client) OpenDebug(ctx context.Context, req DebugRequest, progress func(string)) (ExecSession, error) {
	return c.shells().OpenDebug(ctx, req, progress)
}
