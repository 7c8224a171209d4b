package logstream

// The reading of one connection of a log stream (logfollow.go): pump reads
// the body in chunks, splits it into lines, filters what a reconnection
// already delivered and hands the lines to the collector, flushes a partial
// line after LogPartialFlush, and cuts the connection when the container
// restarts or the kubelet stalls (pumpCut).

import (
	"bytes"
	"errors"
	"io"
	"time"
)

// logReadSize is the size of each read of a stream's body.
const logReadSize = 32 << 10

type logChunk struct {
	buf []byte
	n   int
	err error
}

// pumpCut says why pump left a stream that had not ended.
type pumpCut int

const (
	cutNone    pumpCut = iota
	cutRestart         // the tracker saw a new container instance
	cutStalled         // the kubelet stopped following the log (probeStalled)
)

// pump reads rc to its end (or until the stream is cancelled, nudged to
// reconnect or found stalled), splitting, filtering and handing its lines
// to the collector; while following, a line without its newline goes out
// Partial after LogPartialFlush without bytes, and a stream without bytes
// for deps.stall is probed (probeStalled; again after twice the wait each
// time, up to LogStallProbeMax, until bytes come). It returns the bytes
// read, the lines delivered, the read error (nil at the end of the
// stream) and why it cut the stream, if it did.
func (s *logStream) pump(rc io.ReadCloser, split *logSplitter, resume *logResume, follow bool) (n int64, lines int, err error, cut pumpCut) {
	const nbuf = 4
	data := make(chan logChunk, nbuf)
	free := make(chan []byte, nbuf)
	for range nbuf {
		free <- make([]byte, logReadSize)
	}
	go func() {
		for {
			buf := <-free
			k, err := rc.Read(buf)
			if k == 0 && err == nil {
				free <- buf
				continue
			}
			data <- logChunk{buf: buf, n: k, err: err}
			if err != nil {
				return
			}
		}
	}()
	stop := func() {
		rc.Close()
		for ch := range data {
			free <- ch.buf
			if ch.err != nil {
				return
			}
		}
	}
	idle := time.NewTimer(time.Hour)
	idle.Stop()
	defer idle.Stop()
	// quiet fires when the followed stream has had no byte for wait.
	wait := s.r.deps.stall
	quiet := time.NewTimer(time.Hour)
	quiet.Stop()
	defer quiet.Stop()
	if follow && wait > 0 {
		quiet.Reset(wait)
	}
	jumps := logJumps{jump: s.r.deps.jump}
	if !follow {
		jumps.jump = 0
	}
	deliver := func(out []LogLine, now time.Time) bool {
		kept := out[:0]
		for i := range out {
			l := &out[i]
			if !resume.filter(l) {
				continue
			}
			if follow {
				resume.record(l)
			}
			if from, ok := jumps.check(l, now); ok {
				// Send what came before the jump, then say what may be
				// missing there, before the line after it.
				if len(kept) > 0 {
					lines += len(kept)
					if !s.r.send(logEvent{id: s.id, batch: LogBatch{Lines: kept}}) {
						return false
					}
					kept = out[:0:0]
				}
				if head := s.probeRead(false); !head.IsZero() && !head.Before(l.Time) {
					s.note(gapNote(from, l.Time, "the kubelet's reader fell behind across a rotation of the log file and went on from the current one"))
				}
			}
			kept = append(kept, *l)
		}
		if len(kept) == 0 {
			return true
		}
		lines += len(kept)
		return s.r.send(logEvent{id: s.id, batch: LogBatch{Lines: kept}})
	}
	for {
		select {
		case ch := <-data:
			now := time.Now()
			n += int64(ch.n)
			b := ch.buf[:ch.n]
			out := split.feed(b, make([]LogLine, 0, bytes.Count(b, []byte{'\n'})+1))
			free <- ch.buf
			if ch.err != nil {
				out = split.flush(true, out)
				deliver(out, now)
				rc.Close()
				if errors.Is(ch.err, io.EOF) {
					return n, lines, nil, cutNone
				}
				return n, lines, ch.err, cutNone
			}
			if !deliver(out, now) {
				stop()
				return n, lines, nil, cutNone
			}
			if follow && len(split.pending) > 0 {
				idle.Reset(s.r.deps.partialFlush)
			}
			if follow && s.r.deps.stall > 0 {
				wait = s.r.deps.stall
				quiet.Reset(wait)
			}
		case <-idle.C:
			deliver(split.flush(false, nil), time.Now())
		case <-quiet.C:
			if len(data) > 0 {
				quiet.Reset(wait) // bytes wait: not quiet
				continue
			}
			if s.probeStalled(resume) {
				stop()
				deliver(split.flush(true, nil), time.Now())
				return n, lines, nil, cutStalled
			}
			wait = min(2*wait, LogStallProbeMax)
			quiet.Reset(wait)
		case <-s.restart:
			stop()
			deliver(split.flush(true, nil), time.Now())
			return n, lines, nil, cutRestart
		case <-s.ctx.Done():
			stop()
			return n, lines, nil, cutNone
		}
	}
}
