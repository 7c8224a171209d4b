package logstream

// One container's log stream for a Logs request (logStream): the
// container's instances as the pod reports them, and the loop (run) that
// reads the log and, while following, reconnects it across ended streams,
// broken connections and container restarts, from the last timestamp seen.
// Each connection is read by pump (logpump.go); the kubelet's log rotation
// is probed in logrotation.go.

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// logStream reads one container's log for a request and, while
// following, keeps reading it across ended streams, broken connections
// and container restarts (see Streamer.Logs).
type logStream struct {
	r                  *logRun
	id                 int
	t                  logTarget
	ns, pod, container string
	uid                string

	ctx    context.Context
	cancel context.CancelCauseFunc
	// restart is signalled (by the pod tracker) when the container has a
	// new instance; changed on every update of the pod (a waiting stream
	// looks again at once).
	restart, changed chan struct{}

	mu       sync.Mutex
	instance containerInstance // the instance being read
}

// containerInstance identifies one run of a container: the kubelet gives
// each a new container ID and counts restarts.
type containerInstance struct {
	id       string
	restarts int32
}

// after reports whether o is a later instance than i.
func (i containerInstance) after(o containerInstance) bool {
	return i.restarts > o.restarts || (i.id != "" && o.id != "" && i.id != o.id)
}

// containerStatus finds a container's status among a pod's init, regular
// and ephemeral container statuses; nil when the kubelet reported none.
func containerStatus(pod *corev1.Pod, name string) *corev1.ContainerStatus {
	for _, list := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses,
		pod.Status.EphemeralContainerStatuses} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

func instanceOf(pod *corev1.Pod, name string) containerInstance {
	st := containerStatus(pod, name)
	if st == nil {
		return containerInstance{}
	}
	return containerInstance{id: st.ContainerID, restarts: st.RestartCount}
}

// terminated reports whether a container ran and will not run again: the
// pod finished, or the container terminated and its restart policy (the
// container's own for a sidecar, else the pod's; init containers succeed
// once) does not restart it.
func terminated(pod *corev1.Pod, name string) bool {
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return true
	}
	st := containerStatus(pod, name)
	if st == nil || st.State.Terminated == nil {
		return false
	}
	for _, c := range pod.Spec.InitContainers {
		if c.Name == name {
			return !objects.IsSidecar(c) && st.State.Terminated.ExitCode == 0
		}
	}
	switch pod.Spec.RestartPolicy {
	case corev1.RestartPolicyNever:
		return true
	case corev1.RestartPolicyOnFailure:
		return st.State.Terminated.ExitCode == 0
	}
	return false
}

// transientLogErr reports whether a failed pods/log read may succeed
// later: the API server or the node away, a timeout, a container not
// started yet (the kubelet's "is waiting to start"). Forbidden, not found
// and other refusals are final.
func transientLogErr(err error) bool {
	switch {
	case apierrors.IsForbidden(err), apierrors.IsUnauthorized(err), apierrors.IsNotFound(err),
		apierrors.IsInvalid(err), apierrors.IsMethodNotSupported(err):
		return false
	case apierrors.IsBadRequest(err):
		msg := err.Error()
		return strings.Contains(msg, "waiting to start") || strings.Contains(msg, "ContainerCreating") ||
			strings.Contains(msg, "PodInitializing")
	}
	return true
}

func newLogStream(r *logRun, id int, t logTarget) *logStream {
	s := &logStream{r: r, id: id, t: t, ns: t.pod.Namespace, pod: t.pod.Name, container: t.container,
		uid: string(t.pod.UID), restart: make(chan struct{}, 1), changed: make(chan struct{}, 1),
		instance: instanceOf(t.pod, t.container)}
	s.ctx, s.cancel = context.WithCancelCause(r.ctx)
	return s
}

// observe takes the pod as the tracker sees it: a new instance of the
// container makes the stream reconnect.
func (s *logStream) observe(pod *corev1.Pod) {
	inst := instanceOf(pod, s.container)
	s.mu.Lock()
	newer := inst.after(s.instance)
	s.mu.Unlock()
	if newer {
		select {
		case s.restart <- struct{}{}:
		default:
		}
	}
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// pause waits d, or less when the tracker sees the pod change; false when
// the stream is over first.
func (s *logStream) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.changed:
		return true
	case <-s.ctx.Done():
		return false
	}
}

func (s *logStream) note(n LogNote) bool {
	n.Namespace, n.Pod, n.Container = s.ns, s.pod, s.container
	return s.r.note(s.id, n)
}

// run reads until the stream is over. first receives the first read's
// error, when the stream gives up at once, or nil.
func (s *logStream) run(first chan<- error) {
	defer s.cancel(nil)
	opts := s.r.req.Options
	follow := opts.Follow && !opts.Previous
	resume := newLogResume()
	split := newLogSplitter(s.ns, s.pod, s.container)
	left := opts.LimitBytes
	var (
		reported, resumed, restarted, started bool
		attempt                               int
		why, waiting                          string
		delivered                             int // lines, over every read
		// gap is said after the next resume: lines the kubelet may no
		// longer serve (rotationGap).
		gap *LogNote
	)
	report := func(err error) {
		if !reported {
			reported = true
			first <- err
		}
	}
	defer report(nil)
	// wait notes why the container cannot be read yet (once per reason)
	// and waits for the pod to change; false when the stream is over.
	wait := func(reason string) bool {
		report(nil)
		if reason != waiting {
			waiting = reason
			s.note(LogNote{Kind: LogNoteWaiting, Text: reason, Containers: s.t.containers, DefaultContainer: s.t.dflt})
		}
		attempt++
		if !s.pause(s.r.deps.backoff(attempt)) {
			s.finish()
			return false
		}
		resumed = true
		return true
	}
	for {
		pod := s.t.pod
		if resumed {
			var err error
			pod, err = s.r.c.cs.CoreV1().Pods(s.ns).Get(s.ctx, s.pod, metav1.GetOptions{})
			switch {
			case s.ctx.Err() != nil:
				s.finish()
				return
			case apierrors.IsNotFound(err) || (err == nil && string(pod.UID) != s.uid):
				s.goneNote()
				return
			case err == nil:
				inst := instanceOf(pod, s.container)
				s.mu.Lock()
				newer := inst.after(s.instance)
				s.instance = inst
				s.mu.Unlock()
				if newer {
					restarted = true
					why = "the container restarted"
					if !s.readPrevious(resume) {
						why += " (the previous instance's log could not be read)"
					}
				} else if terminated(pod, s.container) {
					s.note(LogNote{Kind: LogNoteEnded, Text: "the container terminated"})
					return
				}
			default:
				pod = nil
			}
			select { // a restart signalled before this check is handled
			case <-s.restart:
			default:
			}
		}
		if follow && pod != nil {
			if reason := logWaiting(pod, s.container); reason != "" {
				if !wait(reason) {
					return
				}
				continue
			}
		}
		rc, err := s.r.deps.open(s.ctx, s.ns, s.pod, s.options(resume, resumed, left))
		if err != nil && opts.Previous {
			err = previousReadErr(err, s.container)
		}
		if err != nil {
			if s.ctx.Err() != nil {
				s.finish()
				return
			}
			transient := follow && transientLogErr(err)
			if !transient {
				if !reported {
					report(err)
					return
				}
				s.note(LogNote{Kind: LogNoteEnded, Err: err, Text: "the log could not be read"})
				return
			}
			if waitingLogErr(err) {
				// The status read next says why in its own words; until
				// then the kubelet's.
				reason := waiting
				if reason == "" {
					reason = oneLine(err.Error())
				}
				if !wait(reason) {
					return
				}
				continue
			}
			report(nil)
			attempt++
			d := s.r.deps.backoff(attempt)
			s.note(LogNote{Kind: LogNoteRetrying, Backoff: d, Err: err, Text: "retrying"})
			if !sleepCtx(s.ctx, d) {
				s.finish()
				return
			}
			resumed = true
			continue
		}
		waiting = ""
		switch {
		case !started:
			started = true
			report(nil)
			s.note(LogNote{Kind: LogNoteStarted, Containers: s.t.containers, DefaultContainer: s.t.dflt})
		case delivered > 0 || restarted:
			if why == "" {
				why = "reconnected"
			}
			s.note(LogNote{Kind: LogNoteResumed, Time: resume.since(), Restarted: restarted, Text: why})
		}
		if gap != nil {
			s.note(*gap)
			gap = nil
		}
		restarted, why = false, ""
		resume.begin()
		n, lines, readErr, cut := s.pump(rc, split, resume, follow)
		delivered += lines
		if s.ctx.Err() != nil {
			s.finish()
			return
		}
		if opts.LimitBytes > 0 {
			if left -= n; left <= 0 {
				s.note(LogNote{Kind: LogNoteEnded, Text: "the byte limit was reached"})
				return
			}
		}
		if !follow {
			if readErr != nil {
				s.note(LogNote{Kind: LogNoteEnded, Err: readErr, Text: "the stream broke"})
			} else {
				s.note(LogNote{Kind: LogNoteEnded, Text: "the log ended"})
			}
			return
		}
		if lines > 0 {
			attempt = 0
		}
		resumed = true
		switch {
		case cut == cutRestart:
			why = "the container restarted"
		case cut == cutStalled:
			why = "the kubelet stopped serving the log after a rotation of its file"
			gap = rotationGap(resume.last, s.probeRead(false))
		case readErr != nil:
			attempt++
			d := s.r.deps.backoff(attempt)
			s.note(LogNote{Kind: LogNoteRetrying, Backoff: d, Err: readErr, Text: "the connection broke"})
			why = "the connection broke"
			if !sleepCtx(s.ctx, d) {
				s.finish()
				return
			}
		default:
			why = "the stream ended"
			if lines == 0 {
				// Ended again at once: wait before the next attempt.
				attempt++
				if !sleepCtx(s.ctx, s.r.deps.backoff(attempt)) {
					s.finish()
					return
				}
			}
		}
	}
}

// finish ends a stream whose ctx is done: with LogNotePodGone when the
// tracker found the pod gone.
func (s *logStream) finish() {
	if errors.Is(context.Cause(s.ctx), errLogPodGone) {
		s.goneNote()
	}
}

func (s *logStream) goneNote() {
	s.note(LogNote{Kind: LogNotePodGone, Text: "the pod " + s.pod + " is gone"})
}

// options are the pods/log parameters of the next read: the request's,
// or, reconnecting, sinceTime at the last timestamp seen.
func (s *logStream) options(resume *logResume, resumed bool, left int64) *corev1.PodLogOptions {
	opts := s.r.req.Options
	o := &corev1.PodLogOptions{Container: s.container, Follow: opts.Follow && !opts.Previous, Previous: opts.Previous,
		Timestamps: true}
	if since := resume.since(); resumed && !since.IsZero() {
		t := metav1.NewTime(since)
		o.SinceTime = &t
	} else {
		switch {
		case opts.Since > 0:
			secs := int64(math.Ceil(opts.Since.Seconds()))
			o.SinceSeconds = &secs
		case !opts.SinceTime.IsZero():
			t := metav1.NewTime(opts.SinceTime)
			o.SinceTime = &t
		}
		if opts.TailLines >= 0 && !resumed {
			tail := opts.TailLines
			o.TailLines = &tail
		}
	}
	if opts.LimitBytes > 0 {
		o.LimitBytes = &left
	}
	return o
}

// readPrevious delivers the lines the previous instance wrote after the
// last one seen (previous=true, sinceTime); false when it could not be
// read.
func (s *logStream) readPrevious(resume *logResume) bool {
	since := resume.since()
	o := &corev1.PodLogOptions{Container: s.container, Previous: true, Timestamps: true}
	if !since.IsZero() {
		t := metav1.NewTime(since)
		o.SinceTime = &t
	}
	rc, err := s.r.deps.open(s.ctx, s.ns, s.pod, o)
	if err != nil {
		return false
	}
	resume.begin()
	_, _, readErr, _ := s.pump(rc, newLogSplitter(s.ns, s.pod, s.container), resume, false)
	return readErr == nil
}
