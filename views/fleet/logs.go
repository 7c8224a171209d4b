package fleet

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kyyard/kyyard/kube"
)

// LogStreamer reads one cluster's logs; *kube.Client is one (it is
// views/logs.Streamer).
type LogStreamer interface {
	// Logs streams req's logs into sink (see kube.Client.Logs).
	Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error
}

// LogPart is one object's logs in one cluster of a merge (Logs): a pod,
// a container or a workload of the context.
type LogPart struct {
	// Context is the kubeconfig context's name.
	Context string
	// Streamer reads that context's cluster.
	Streamer LogStreamer
	// Request names the object; its Options, AllContainers and MaxStreams
	// are the viewer's (Logs.Logs).
	Request kube.LogRequest
}

// Logs merges the logs of objects of several clusters into one stream, in
// timestamp order, each line and note carrying its context
// (kube.LogLine.Context): a views/logs.Streamer for the log viewer's
// merge across clusters (logs.Across). Each part streams as it would
// alone, through its own cluster's client: reconnects, waiting notes,
// its bound on streams (MaxStreams applies to each part) and the
// viewer's count of dropped lines hold per cluster. Use NewLogs.
type Logs struct {
	parts  []LogPart
	window time.Duration
}

// NewLogs returns the merge of parts' logs, lines held at most
// kube.LogReorderWindow to be put in timestamp order.
func NewLogs(parts []LogPart) *Logs {
	return &Logs{parts: parts, window: kube.LogReorderWindow}
}

// Parts returns the merged objects, in order.
func (l *Logs) Parts() []LogPart { return l.parts }

// logEvent is what one part's goroutine hands the merge: a batch, or its
// end (done, with the error Logs returned).
type logEvent struct {
	part  int
	batch kube.LogBatch
	done  bool
	err   error
}

// partSink hands one part's batches to the merge, its context set.
type partSink struct {
	ctx     context.Context
	part    int
	context string
	out     chan<- logEvent
}

// Write tags b's lines and notes with the part's context and passes b on;
// it blocks while the merge is behind (kube's own sink contract), and
// drops b once the merge has ended.
func (s partSink) Write(b kube.LogBatch) {
	for i := range b.Lines {
		b.Lines[i].Context = s.context
	}
	for i := range b.Notes {
		b.Notes[i].Note.Context = s.context
	}
	select {
	case s.out <- logEvent{part: s.part, batch: b}:
	case <-s.ctx.Done():
	}
}

// logItem is one line or note waiting in a part's queue; at is its line's
// time (a note takes the time of the line before it, zero when none),
// came when it arrived.
type logItem struct {
	line *kube.LogLine
	note *kube.LogNote
	at   time.Time
	came time.Time
}

// Logs streams every part at once, each with req's Options, Container
// choice (AllContainers, MaxStreams), and writes to sink, from this
// goroutine, their lines in timestamp order: a line is written once every
// part still streaming has delivered a later one, or once it waited the
// reorder window; lines without a timestamp, and notes, keep their place
// among their own part's lines. A pod part with several containers and
// none chosen reads its default container (kubectl's
// default-container annotation, else the first), as a workload's pods
// do. A part that fails ends with a LogNoteEnded note naming its context
// and error; the others go on. It returns when every part ended (nil, or
// the first part's error when every part failed), or ctx's error.
func (l *Logs) Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events := make(chan logEvent, 16)
	for i, p := range l.parts {
		r := p.Request
		r.Options, r.MaxStreams = req.Options, req.MaxStreams
		if req.AllContainers {
			r.AllContainers, r.Container = true, ""
		}
		go func() {
			s := partSink{ctx: ctx, part: i, context: p.Context, out: events}
			err := p.Streamer.Logs(ctx, r, s)
			var choice *kube.ContainerChoiceError
			if errors.As(err, &choice) && choice.DefaultContainer != "" && r.Container == "" && !r.AllContainers {
				r.Container = choice.DefaultContainer
				err = p.Streamer.Logs(ctx, r, s)
			}
			select {
			case events <- logEvent{part: i, done: true, err: err}:
			case <-ctx.Done():
			}
		}()
	}
	m := newLogMerge(len(l.parts), l.window)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for m.live > 0 {
		select {
		case ev := <-events:
			if ev.done {
				m.end(ev.part, l.parts[ev.part].Context, ev.err, time.Now())
			} else {
				m.add(ev.part, ev.batch, time.Now())
			}
		case <-timer.C:
		case <-ctx.Done():
			return ctx.Err()
		}
		now := time.Now()
		if out := m.release(now); len(out.Lines)+len(out.Notes) > 0 {
			sink.Write(out)
		}
		timer.Reset(m.wait(now))
	}
	if out := m.release(time.Time{}); len(out.Lines)+len(out.Notes) > 0 {
		sink.Write(out)
	}
	return m.failure()
}

// logMerge is the merge's state: each part's queue, whether it still
// streams, the time of its newest line, and how it ended.
type logMerge struct {
	window time.Duration
	queues [][]logItem
	done   []bool
	newest []time.Time
	errs   []error
	live   int
}

func newLogMerge(n int, window time.Duration) *logMerge {
	return &logMerge{window: window, queues: make([][]logItem, n), done: make([]bool, n),
		newest: make([]time.Time, n), errs: make([]error, n), live: n}
}

// add queues one batch of part p, its notes in their places.
func (m *logMerge) add(p int, b kube.LogBatch, now time.Time) {
	last := m.newest[p]
	note := 0
	for i := 0; i <= len(b.Lines); i++ {
		for ; note < len(b.Notes) && b.Notes[note].At <= i; note++ {
			n := b.Notes[note].Note
			m.queues[p] = append(m.queues[p], logItem{note: &n, at: last, came: now})
		}
		if i == len(b.Lines) {
			break
		}
		line := b.Lines[i]
		if !line.Time.IsZero() {
			last = line.Time
		}
		m.queues[p] = append(m.queues[p], logItem{line: &line, at: line.Time, came: now})
	}
	if last.After(m.newest[p]) {
		m.newest[p] = last
	}
}

// end records that part p stopped streaming; a failure (not a
// cancellation) becomes a note at the end of its queue.
func (m *logMerge) end(p int, name string, err error, now time.Time) {
	m.done[p] = true
	m.live--
	if err == nil || errors.Is(err, context.Canceled) {
		return
	}
	m.errs[p] = fmt.Errorf("context %s: %w", name, err)
	n := kube.LogNote{Kind: kube.LogNoteEnded, Context: name, Time: now, Err: err,
		Text: fmt.Sprintf("context %s: %s (%s)", name, kube.ReasonOf(err), err)}
	m.queues[p] = append(m.queues[p], logItem{note: &n, at: m.newest[p], came: now})
}

// release takes out every item that may be written at now, in order:
// the queue heads by time, a head held while a live part with nothing
// queued may still send an earlier line and it waited less than the
// window. A zero now releases everything.
func (m *logMerge) release(now time.Time) kube.LogBatch {
	var out kube.LogBatch
	for {
		best := -1
		for p, q := range m.queues {
			if len(q) > 0 && (best < 0 || q[0].at.Before(m.queues[best][0].at)) {
				best = p
			}
		}
		if best < 0 {
			return out
		}
		head := m.queues[best][0]
		if !now.IsZero() && !head.at.IsZero() && now.Sub(head.came) < m.window && m.awaited(best, head.at) {
			return out
		}
		m.queues[best] = m.queues[best][1:]
		if head.note != nil {
			out.Notes = append(out.Notes, kube.PlacedLogNote{At: len(out.Lines), Note: *head.note})
		} else {
			out.Lines = append(out.Lines, *head.line)
		}
	}
}

// awaited reports whether a live part other than p, with nothing queued,
// has not yet delivered a line later than at (it may still send an
// earlier one).
func (m *logMerge) awaited(p int, at time.Time) bool {
	for o := range m.queues {
		if o != p && !m.done[o] && len(m.queues[o]) == 0 && !m.newest[o].After(at) {
			return true
		}
	}
	return false
}

// wait is how long until the oldest held item has waited the window
// (an hour when nothing is held).
func (m *logMerge) wait(now time.Time) time.Duration {
	d := time.Hour
	for _, q := range m.queues {
		if len(q) > 0 {
			d = min(d, max(q[0].came.Add(m.window).Sub(now), time.Millisecond))
		}
	}
	return d
}

// failure is the first part's error when every part failed, else nil.
func (m *logMerge) failure() error {
	for _, err := range m.errs {
		if err == nil {
			return nil
		}
	}
	return m.errs[0]
}
