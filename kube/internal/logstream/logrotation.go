package logstream

// What a followed stream (logfollow.go) does about the kubelet's rotation of a
// container's log file: a stream quiet for LogStallProbe is probed against
// the current file (probeStalled) and reconnected when the kubelet stopped
// serving it, a leap of the lines' timestamps is checked (logJumps,
// LogJumpCheck), and the lines that may be missing are said in a LogNoteGap
// (rotationGap, gapNote).

import (
	"context"
	"io"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// LogStallProbe is how long a followed stream may go without a byte
// before kyyard asks the kubelet whether the container wrote a line it has
// not served (probeStalled); LogStallProbeMax bounds the wait between the
// next probes of a stream that stays quiet (it doubles after each).
//
// The kubelet follows a container's log file with inotify and, at a
// rotation (containerLogMaxSize, checked every
// containerLogMonitorInterval), reopens the file when it sees the new one
// created. On the local real node (kubelet 1.37, containerd 2), once,
// under heavy load, a follower stayed on the rotated file while the
// container wrote to the new one: kubectl logs -f showed nothing for 10 s,
// until the next rotation, and never the 30,171 lines of the file in
// between. A probe finds such a follower while the file it misses is
// still the current one, and the stream is reconnected to it.
const (
	LogStallProbe    = 3 * time.Second
	LogStallProbeMax = time.Minute
)

// logProbeBytes bounds what a probe reads: the timestamp of one line.
const logProbeBytes = logTimePrefixMax + 1

// probeRead reads the timestamp of one line of the container's current
// log file: its last (tail true) or its first; zero when the read fails
// or the file is empty.
func (s *logStream) probeRead(tail bool) time.Time {
	ctx, cancel := context.WithTimeout(s.ctx, 10*time.Second)
	defer cancel()
	limit := int64(logProbeBytes)
	o := &corev1.PodLogOptions{Container: s.container, Timestamps: true, LimitBytes: &limit}
	if tail {
		one := int64(1)
		o.TailLines = &one
	}
	rc, err := s.r.deps.open(ctx, s.ns, s.pod, o)
	if err != nil {
		return time.Time{}
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, logProbeBytes))
	if err != nil && len(b) == 0 {
		return time.Time{}
	}
	t, _, _ := parseLogPrefix(b)
	return t
}

// probeStalled reports whether the container's current log file holds a
// line newer than the last one the stream delivered (tailLines=1): the
// kubelet is no longer serving the file the container writes to.
func (s *logStream) probeStalled(resume *logResume) bool {
	if resume.last.IsZero() {
		return false
	}
	t := s.probeRead(true)
	return !t.IsZero() && t.After(resume.last)
}

// rotationGap is the note for a stream reconnected because the kubelet
// stalled: the current file's first line (head) came after the last line
// delivered (last), so the lines written between, if any, are in a
// rotated file the kubelet no longer serves; nil when the current file
// begins at or before last.
func rotationGap(last, head time.Time) *LogNote {
	if last.IsZero() || head.IsZero() || !head.After(last) {
		return nil
	}
	n := gapNote(last, head, "the kubelet rotated the log file and serves only the current one")
	return &n
}

// gapNote is a LogNoteGap for the lines written after from and before
// to, with why.
func gapNote(from, to time.Time, why string) LogNote {
	const at = "15:04:05.000"
	return LogNote{Kind: LogNoteGap, Time: from,
		Text: "lines written between " + from.UTC().Format(at) + " and " + to.UTC().Format(at) + " UTC may be missing: " + why}
}

// LogJumpCheck is how far a followed stream's timestamps may run ahead of
// the clock between two lines before kyyard asks whether the kubelet
// skipped a file: a kubelet whose reader is behind the container (a fast
// writer, a busy node) and reopens the log path after a rotation gets the
// file current then, and a file in between is never served (what the
// stall above looked like to kubectl logs -f: 30,171 lines gone at once,
// silently). Such a leap is checked against the current file's first
// line (a LogNoteGap when the leap ends at or before it).
const LogJumpCheck = time.Second

// logJumps finds, in a followed connection, a line stamped later than the
// line before it by more than the clock moved between their arrivals plus
// jump: lines read from a backlog whose times leap forward. A writer that
// paused while the reader kept up does not (its lines arrive as late as
// they were written). It is pure.
type logJumps struct {
	jump           time.Duration // 0: never
	lastTS, lastAt time.Time
}

// check takes line l, arrived at now, and reports the previous line's
// time when l leaps forward.
func (j *logJumps) check(l *LogLine, now time.Time) (from time.Time, ok bool) {
	if l.Time.IsZero() || l.Continued || !l.Time.After(j.lastTS) {
		return time.Time{}, false
	}
	prev, at := j.lastTS, j.lastAt
	j.lastTS, j.lastAt = l.Time, now
	if j.jump <= 0 || prev.IsZero() {
		return time.Time{}, false
	}
	if l.Time.Sub(prev)-now.Sub(at) > j.jump {
		return prev, true
	}
	return time.Time{}, false
}
