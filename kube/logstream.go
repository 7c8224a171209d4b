package kube

// Container logs live in package kube/internal/logstream (which does not
// import kube); kube re-exports its types, constants and errors under the
// same names for the screens, and Client.Logs reads through a
// logstream.Streamer on the Client's clientset and kind plugins. Each name
// below is logstream's (or vocab's), the same type or value: see its
// documentation there.

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/logstream"
	"github.com/kyyard/kyyard/kube/vocab"
)

// The log types (aliases of kube/internal/logstream's).
type (
	// ContainerChoiceError is vocab.ContainerChoiceError, also exec's.
	ContainerChoiceError = vocab.ContainerChoiceError
	// LogBatch is logstream.LogBatch.
	LogBatch = logstream.LogBatch
	// LogLine is logstream.LogLine.
	LogLine = logstream.LogLine
	// LogNote is logstream.LogNote.
	LogNote = logstream.LogNote
	// LogNoteKind is logstream.LogNoteKind.
	LogNoteKind = logstream.LogNoteKind
	// LogOptions is logstream.LogOptions.
	LogOptions = logstream.LogOptions
	// LogRequest is logstream.LogRequest.
	LogRequest = logstream.LogRequest
	// LogSink is logstream.LogSink.
	LogSink = logstream.LogSink
	// PlacedLogNote is logstream.PlacedLogNote.
	PlacedLogNote = logstream.PlacedLogNote
)

// The log constants (kube/internal/logstream's).
const (
	// DefaultMaxLogStreams is logstream.DefaultMaxLogStreams.
	DefaultMaxLogStreams = logstream.DefaultMaxLogStreams
	// LogJumpCheck is logstream.LogJumpCheck.
	LogJumpCheck = logstream.LogJumpCheck
	// LogNoteEnded is logstream.LogNoteEnded.
	LogNoteEnded = logstream.LogNoteEnded
	// LogNoteGap is logstream.LogNoteGap.
	LogNoteGap = logstream.LogNoteGap
	// LogNoteNoPrevious is logstream.LogNoteNoPrevious.
	LogNoteNoPrevious = logstream.LogNoteNoPrevious
	// LogNotePodAdmitted is logstream.LogNotePodAdmitted.
	LogNotePodAdmitted = logstream.LogNotePodAdmitted
	// LogNotePodGone is logstream.LogNotePodGone.
	LogNotePodGone = logstream.LogNotePodGone
	// LogNotePodJoined is logstream.LogNotePodJoined.
	LogNotePodJoined = logstream.LogNotePodJoined
	// LogNotePodsLeftOut is logstream.LogNotePodsLeftOut.
	LogNotePodsLeftOut = logstream.LogNotePodsLeftOut
	// LogNoteResumed is logstream.LogNoteResumed.
	LogNoteResumed = logstream.LogNoteResumed
	// LogNoteRetrying is logstream.LogNoteRetrying.
	LogNoteRetrying = logstream.LogNoteRetrying
	// LogNoteStarted is logstream.LogNoteStarted.
	LogNoteStarted = logstream.LogNoteStarted
	// LogNoteWaiting is logstream.LogNoteWaiting.
	LogNoteWaiting = logstream.LogNoteWaiting
	// LogPartialFlush is logstream.LogPartialFlush.
	LogPartialFlush = logstream.LogPartialFlush
	// LogReorderWindow is logstream.LogReorderWindow.
	LogReorderWindow = logstream.LogReorderWindow
	// LogStallProbe is logstream.LogStallProbe.
	LogStallProbe = logstream.LogStallProbe
	// LogStallProbeMax is logstream.LogStallProbeMax.
	LogStallProbeMax = logstream.LogStallProbeMax
)

// Errors of Client.Logs (kube/internal/logstream's; ErrLogContainerRequired
// is vocab's, also exec's). ReasonOf answers the API errors as usual.
var (
	// ErrLogContainerRequired is vocab.ErrLogContainerRequired.
	ErrLogContainerRequired = vocab.ErrLogContainerRequired
	// ErrLogKind is logstream.ErrLogKind.
	ErrLogKind = logstream.ErrLogKind
	// ErrLogNoContainer is logstream.ErrLogNoContainer.
	ErrLogNoContainer = logstream.ErrLogNoContainer
	// ErrLogNoPods is logstream.ErrLogNoPods.
	ErrLogNoPods = logstream.ErrLogNoPods
	// ErrLogNoPrevious is logstream.ErrLogNoPrevious.
	ErrLogNoPrevious = logstream.ErrLogNoPrevious
	// ErrLogPodReplaced is logstream.ErrLogPodReplaced.
	ErrLogPodReplaced = logstream.ErrLogPodReplaced
)

// Logs streams the container logs req names to sink, in batches, and
// blocks until it is done: not following, when every stream has ended;
// following, when the pod of a pod request is gone (LogNotePodGone) or
// its container terminated for good, and for a workload only when ctx is
// cancelled (pods may still join). A cancelled ctx ends it with nil.
//
// Every stream is read with timestamps=true and split into lines without
// a length limit (LogLine). While following, a stream that ends while its
// container runs, breaks, or whose container restarts (a new container ID)
// is reconnected from the last timestamp seen (sinceTime) with the lines
// already delivered from that second skipped, and marked with
// LogNoteResumed (Restarted, after reading the previous instance's last
// lines with previous=true); failed attempts back off from 0.5 s to 30 s
// (LogNoteRetrying). A followed stream quiet for LogStallProbe is checked
// against the last line of the container's current log file: a newer one
// means the kubelet stopped serving the log after a rotation of its file,
// and the stream is reconnected the same way (LogNoteResumed), with a
// LogNoteGap when the current file begins after the last line delivered. Previous reads are never followed. A workload's pods
// (its spec.selector, as kubectl logs deployment/x) are streamed up to
// MaxStreams streams, pods beyond named in LogNotePodsLeftOut and each
// streamed when a stream ends for good (LogNotePodAdmitted); new pods
// join while following (LogNotePodJoined); lines of several streams are
// merged by time within LogReorderWindow. LimitBytes counts the bytes of
// each stream, timestamp prefixes included, across reconnections.
//
// Errors, before anything is written: ErrLogKind (the kind's plugin has
// no CanLogs); a *ContainerChoiceError
// (errors.Is ErrLogContainerRequired); ErrLogNoContainer; ErrLogPodReplaced
// when req.UID is not the pod's; ErrLogNoPods; ErrLogNoPrevious when
// Options.Previous and no container asked for has a previous instance
// (those that have none are otherwise left out and named in a
// LogNoteNoPrevious); and the API server's own
// (forbidden, not found, the pod's container waiting when not following),
// which ReasonOf classifies. When every stream of a request fails at its
// first read, the first error is returned too; otherwise a stream's
// failure is a LogNoteEnded with Err.
func (c *Client) Logs(ctx context.Context, req LogRequest, sink LogSink) error {
	return logstream.New(c.cs, c.kindInfo).Logs(ctx, req, sink)
}
