package logstream

import (
	"errors"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
)

// The types of container logs (Streamer.Logs, logs*.go). A log stream is
// read as bytes, split into lines without a length limit, its
// timestamps (always requested with timestamps=true) parsed, and handed to
// a LogSink in batches; while following, a stream that ends or breaks is
// reconnected from the last timestamp seen.

// LogRequest names what to stream: one container of a pod, every
// container of a pod, or the pods a workload selects.
type LogRequest struct {
	// Kind is the plugin id of the object, one whose plugin has CanLogs:
	// KindPods, KindContainers (Name is then the pod and Container the
	// row's container), KindDeployments, KindStatefulSets, KindDaemonSets,
	// KindReplicaSets or KindJobs.
	Kind vocab.Kind
	// Namespace and Name name the object.
	Namespace, Name string
	// UID is the metadata.uid the person saw, "" when unknown; a pod read
	// back with another UID (recreated under the same name) is refused
	// with ErrLogPodReplaced.
	UID string
	// Container is the container to read; "" means the pod's only
	// container, and a pod with several is refused with a
	// *vocab.ContainerChoiceError (unless AllContainers). For a workload, ""
	// means each pod's default container (the
	// kubectl.kubernetes.io/default-container annotation, else the first).
	Container string
	// AllContainers streams every container (init containers and native
	// sidecars included) of each pod, one stream each.
	AllContainers bool
	// MaxStreams bounds the concurrent streams (kubectl's
	// --max-log-requests, default DefaultMaxLogStreams when 0); the pods
	// left out are reported in a LogNotePodsLeftOut note, and each takes
	// the place of a stream that ends for good (LogNotePodAdmitted).
	MaxStreams int
	// Options apply to every stream.
	Options LogOptions
}

// DefaultMaxLogStreams is the bound on concurrent streams when
// LogRequest.MaxStreams is 0 (kubectl's --max-log-requests default is 5;
// kyyard allows a few more because each stream is cheap for it).
const DefaultMaxLogStreams = 10

// LogOptions are the pods/log query parameters (PodLogOptions) kyyard
// exposes. Timestamps are always requested and are not an option.
type LogOptions struct {
	// Follow keeps the stream open (follow=true) and reconnects it (see
	// Streamer.Logs).
	Follow bool
	// Previous reads the previous (terminated) instance of the container
	// (previous=true); it is never followed.
	Previous bool
	// Since, when positive, starts at lines newer than this duration
	// (sinceSeconds, rounded up to a whole second).
	Since time.Duration
	// SinceTime, when not zero and Since is zero, starts at lines at or
	// after this instant (sinceTime, RFC 3339 at second precision).
	SinceTime time.Time
	// TailLines, when zero or positive, starts at that many last lines
	// (tailLines); negative means every line.
	TailLines int64
	// LimitBytes, when positive, ends each stream after that many bytes
	// (limitBytes).
	LimitBytes int64
}

// LogLine is one line of one container's log.
type LogLine struct {
	// Context is the kubeconfig context of the source, set only on the
	// lines of a merge across several clusters (views/fleet); "" otherwise.
	Context string
	// Namespace, Pod and Container name the source.
	Namespace, Pod, Container string
	// Time is the instant the API server stamped (timestamps=true), zero
	// when the line had no parsable timestamp.
	Time time.Time
	// Raw is the line's own bytes, without the timestamp prefix and the
	// line ending ("\n" or "\r\n"): untrusted, of any length, possibly
	// invalid UTF-8. It is owned by the receiver (never reused by kube).
	Raw []byte
	// Partial is set on a line delivered before its newline arrived: the
	// stream ended without one, or, while following, no byte came for
	// LogPartialFlush. More of it may follow in a line with Continued.
	Partial bool
	// Continued is set on bytes that extend the Partial line delivered
	// before from the same stream (no timestamp prefix precedes them).
	Continued bool
}

// LogPartialFlush is how long, while following, the bytes of a line
// without its newline wait for more before they are delivered as a Partial
// line (casebook C04: "progress: 50%" shown while the stream stays open).
const LogPartialFlush = 250 * time.Millisecond

// LogNoteKind names what a LogNote reports.
type LogNoteKind string

// Log note kinds.
const (
	// LogNoteStarted: a stream began (Pod, Container; Containers lists the
	// pod's containers, DefaultContainer the default one as in
	// vocab.ContainerChoiceError, for a container picker).
	LogNoteStarted LogNoteKind = "started"
	// LogNoteResumed: a followed stream was reconnected from Time after
	// it ended or broke; Restarted is set when the container was
	// restarted (a new container ID) in between; Text says why. A stream
	// that has delivered no line yet is reconnected without one.
	LogNoteResumed LogNoteKind = "resumed"
	// LogNoteWaiting: while following, the container cannot be read yet:
	// the pod is not scheduled, or the container has not started. Text
	// says why, from the pod's status ("pod is Pending (Unschedulable:
	// 0/3 nodes are available: ...)", "container web: ImagePullBackOff
	// (Back-off pulling image ...)"). It is sent when the stream starts waiting
	// and again only when the reason changes (never once per attempt);
	// the stream starts (LogNoteStarted) when the container runs.
	// Containers and DefaultContainer are set as for LogNoteStarted.
	LogNoteWaiting LogNoteKind = "waiting"
	// LogNoteRetrying: a stream broke and is retried after Backoff; Err
	// says why.
	LogNoteRetrying LogNoteKind = "retrying"
	// LogNotePodJoined: a new pod of a workload joined while following.
	LogNotePodJoined LogNoteKind = "pod_joined"
	// LogNotePodGone: the pod was deleted (or replaced); its stream ended.
	LogNotePodGone LogNoteKind = "pod_gone"
	// LogNotePodsLeftOut: pods (Names: pod, or pod/container when every
	// container is read) were not streamed because of
	// LogRequest.MaxStreams; Count is how many are left out now in all
	// (Names is empty when one left out is gone). Each is streamed, in
	// order, when a stream ends for good (LogNotePodAdmitted).
	LogNotePodsLeftOut LogNoteKind = "pods_left_out"
	// LogNotePodAdmitted: a target left out (Names[0]; Pod, Container) is
	// streamed in place of a stream that ended for good (failed, its
	// container terminated, its pod gone, not following: its log read);
	// Count is how many are still left out.
	LogNotePodAdmitted LogNoteKind = "pod_admitted"
	// LogNoteNoPrevious: reading previous instances (Options.Previous),
	// Count containers (Names: pod/container for a workload, the
	// container for one pod) were not read because they have none (they
	// never restarted).
	LogNoteNoPrevious LogNoteKind = "no_previous"
	// LogNoteGap: lines of the stream may be missing at this place, and
	// kyyard cannot read them: the kubelet stopped serving a followed log
	// after a rotation of its file (see LogStallProbe) and the file it
	// serves now begins after the last line delivered. Time is that last
	// line's; Text names the span ("lines written between 07:08:16.537
	// and 07:08:26.605 UTC may be missing: ...").
	LogNoteGap LogNoteKind = "gap"
	// LogNoteEnded: one stream ended for good (not following, limit
	// reached, previous container read); Err is nil or why.
	LogNoteEnded LogNoteKind = "ended"
)

// LogNote is something the viewer shows between lines or in its header:
// a reconnect marker, a pod joining, streams left out.
type LogNote struct {
	// Kind says what happened.
	Kind LogNoteKind
	// Context is the kubeconfig context of the stream, set only on the
	// notes of a merge across several clusters (views/fleet); "" otherwise.
	Context string
	// Namespace, Pod and Container name the stream ("" Pod for notes of
	// the whole request).
	Namespace, Pod, Container string
	// Time is the instant it concerns: the resume point for
	// LogNoteResumed, when it happened otherwise.
	Time time.Time
	// Restarted is set on a LogNoteResumed after a container restart.
	Restarted bool
	// Backoff is the wait before the next attempt (LogNoteRetrying).
	Backoff time.Duration
	// Count and Names are the pods left out (LogNotePodsLeftOut,
	// LogNotePodAdmitted) or without a previous instance
	// (LogNoteNoPrevious).
	Count int
	Names []string
	// Containers and DefaultContainer are the pod's containers in spec
	// order (init containers and native sidecars first), for
	// LogNoteStarted.
	Containers       []string
	DefaultContainer string
	// Text is a short sentence for people; Err the error, if any.
	Text string
	Err  error
}

// LogBatch is what a LogSink receives: lines in the order to show them
// (per stream in stream order; across streams merged by Time within
// LogReorderWindow) and notes, each placed before Lines[At] (At ==
// len(Lines) places it after the last line).
type LogBatch struct {
	Lines []LogLine
	Notes []PlacedLogNote
}

// PlacedLogNote is a note with its place among a batch's lines.
type PlacedLogNote struct {
	At   int
	Note LogNote
}

// LogReorderWindow is how long lines of a multi-stream request wait to be
// merged in timestamp order (casebook C37): a line is released once every
// live stream has delivered a later one or this much time has passed.
const LogReorderWindow = 300 * time.Millisecond

// LogSink receives a request's batches. Streamer.Logs calls Write from one
// goroutine, in order, and blocks while Write runs: a sink that cannot
// keep up must count what it drops itself (the viewer does) rather than
// block for long.
type LogSink interface {
	Write(LogBatch)
}

// Errors of Streamer.Logs, with vocab.ErrLogContainerRequired;
// vocab.ReasonOf answers the API errors as usual.
var (
	// ErrLogNoContainer: the named container is not in the pod.
	ErrLogNoContainer = errors.New("no such container in the pod")
	// ErrLogPodReplaced: the pod read back has another UID than the one
	// the person chose (it was deleted and created again).
	ErrLogPodReplaced = errors.New("the pod was replaced since it was listed")
	// ErrLogNoPods: the workload selects no pods.
	ErrLogNoPods = errors.New("the workload has no pods")
	// ErrLogNoPrevious: a previous instance was asked for (Options.Previous)
	// and no container of the request has one (restartCount 0 and no
	// lastState.terminated); the error's text names the container.
	ErrLogNoPrevious = errors.New("no previous container instance")
	// ErrLogKind: the kind has no logs.
	ErrLogKind = errors.New("this kind has no logs")
)
