package kube

// The types of exec sessions, debug containers and port-forwards moved to
// kube/vocab (streams.go) with the rest of the shared vocabulary; kube
// re-exports each name (see vocab.go).

import "github.com/kyyard/kyyard/kube/vocab"

type (
	// CopyDirection is vocab.CopyDirection.
	CopyDirection = vocab.CopyDirection
	// CopyProgress is vocab.CopyProgress.
	CopyProgress = vocab.CopyProgress
	// CopyRequest is vocab.CopyRequest.
	CopyRequest = vocab.CopyRequest
	// CopyResult is vocab.CopyResult.
	CopyResult = vocab.CopyResult
	// DebugRequest is vocab.DebugRequest.
	DebugRequest = vocab.DebugRequest
	// ExecLimits is vocab.ExecLimits.
	ExecLimits = vocab.ExecLimits
	// ExecPlan is vocab.ExecPlan.
	ExecPlan = vocab.ExecPlan
	// ExecRequest is vocab.ExecRequest.
	ExecRequest = vocab.ExecRequest
	// ExecResult is vocab.ExecResult.
	ExecResult = vocab.ExecResult
	// ExecSession is vocab.ExecSession.
	ExecSession = vocab.ExecSession
	// ExecStreams is vocab.ExecStreams.
	ExecStreams = vocab.ExecStreams
	// ForwardState is vocab.ForwardState.
	ForwardState = vocab.ForwardState
	// ForwardStatus is vocab.ForwardStatus.
	ForwardStatus = vocab.ForwardStatus
	// PortForwardRequest is vocab.PortForwardRequest.
	PortForwardRequest = vocab.PortForwardRequest
	// TerminalSize is vocab.TerminalSize.
	TerminalSize = vocab.TerminalSize
	// TerminalSizeQueue is vocab.TerminalSizeQueue.
	TerminalSizeQueue = vocab.TerminalSizeQueue
)

const (
	// CopyFromContainer is vocab.CopyFromContainer.
	CopyFromContainer = vocab.CopyFromContainer
	// CopyToContainer is vocab.CopyToContainer.
	CopyToContainer = vocab.CopyToContainer
	// DefaultDebugImage is vocab.DefaultDebugImage.
	DefaultDebugImage = vocab.DefaultDebugImage
	// DefaultExecSetup is vocab.DefaultExecSetup.
	DefaultExecSetup = vocab.DefaultExecSetup
	// ForwardActive is vocab.ForwardActive.
	ForwardActive = vocab.ForwardActive
	// ForwardFailed is vocab.ForwardFailed.
	ForwardFailed = vocab.ForwardFailed
	// ForwardMoving is vocab.ForwardMoving.
	ForwardMoving = vocab.ForwardMoving
	// ForwardStopped is vocab.ForwardStopped.
	ForwardStopped = vocab.ForwardStopped
)

var (
	// ErrCopyFailed is vocab.ErrCopyFailed.
	ErrCopyFailed = vocab.ErrCopyFailed
	// ErrCopyNoTar is vocab.ErrCopyNoTar.
	ErrCopyNoTar = vocab.ErrCopyNoTar
	// ErrCopyNotFound is vocab.ErrCopyNotFound.
	ErrCopyNotFound = vocab.ErrCopyNotFound
	// ErrExecClosed is vocab.ErrExecClosed.
	ErrExecClosed = vocab.ErrExecClosed
	// ErrExecForbidden is vocab.ErrExecForbidden.
	ErrExecForbidden = vocab.ErrExecForbidden
	// ErrExecIdle is vocab.ErrExecIdle.
	ErrExecIdle = vocab.ErrExecIdle
	// ErrExecLifetime is vocab.ErrExecLifetime.
	ErrExecLifetime = vocab.ErrExecLifetime
	// ErrExecNoShell is vocab.ErrExecNoShell.
	ErrExecNoShell = vocab.ErrExecNoShell
	// ErrExecNotRunning is vocab.ErrExecNotRunning.
	ErrExecNotRunning = vocab.ErrExecNotRunning
	// ErrExecPodReplaced is vocab.ErrExecPodReplaced.
	ErrExecPodReplaced = vocab.ErrExecPodReplaced
	// ErrExecPodSecurity is vocab.ErrExecPodSecurity.
	ErrExecPodSecurity = vocab.ErrExecPodSecurity
	// ErrExecSetup is vocab.ErrExecSetup.
	ErrExecSetup = vocab.ErrExecSetup
	// ErrExecUnavailable is vocab.ErrExecUnavailable.
	ErrExecUnavailable = vocab.ErrExecUnavailable
)
