package logstream

// One Logs call while it runs (logRun, logs.go): its streams started and
// counted by pod (start), the events they send (send, note), and the
// collector that merges their lines by time (logmerge.go) and writes them to
// the sink in batches (collect, apply).

import (
	"context"
	"slices"
	"sync"
	"time"
)

// logRun is one Logs call: its streams, the pods they read and the
// collector that merges their lines and writes them to the sink.
type logRun struct {
	c    *Streamer
	req  LogRequest
	deps logDeps
	sink LogSink
	max  int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	events chan logEvent
	merger *logMerger // the collector's

	// queueMu orders each change of the queue with its note (taken before
	// mu): the counts the notes carry arrive in the order they were taken.
	queueMu sync.Mutex

	mu     sync.Mutex
	pods   map[string]*logPod // by pod name
	active int                // streams running
	known  map[string]bool    // UIDs of the pods a workload request has met
	// tracker follows the pods while following; nil otherwise.
	tracker *podTracker
	// queue holds the targets left out (MaxStreams), in order: each takes
	// the place of a stream that ends for good.
	queue  []logTarget
	nextID int
}

// logPod is a pod being streamed: its UID and its streams.
type logPod struct {
	uid     string
	streams []*logStream
}

// logEvent is what a stream hands the collector: lines and notes placed
// among them, of stream id (-1: the request's).
type logEvent struct {
	id    int
	batch LogBatch
	end   bool // the stream ended for good
}

// send hands an event to the collector; false when the request is over.
func (r *logRun) send(ev logEvent) bool {
	select {
	case r.events <- ev:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// note sends one note of stream id (-1: the request's).
func (r *logRun) note(id int, n LogNote) bool {
	if n.Time.IsZero() {
		n.Time = time.Now()
	}
	return r.send(logEvent{id: id, batch: LogBatch{Notes: []PlacedLogNote{{Note: n}}}})
}

// start launches the stream of one target and returns the channel its
// first read's error (nil once it reads) arrives on.
func (r *logRun) start(t logTarget) chan error {
	r.mu.Lock()
	id := r.nextID
	r.nextID++
	r.active++
	p := r.pods[t.pod.Name]
	if p == nil {
		p = &logPod{uid: string(t.pod.UID)}
		r.pods[t.pod.Name] = p
	}
	s := newLogStream(r, id, t)
	p.streams = append(p.streams, s)
	r.mu.Unlock()
	first := make(chan error, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		s.run(first)
		r.refill()
		r.mu.Lock()
		r.active--
		if r.active == 0 && r.tracker != nil && !r.tracker.workload {
			r.tracker.cancel() // a pod request is over with its streams
		}
		if p := r.pods[t.pod.Name]; p != nil {
			p.streams = slices.DeleteFunc(p.streams, func(o *logStream) bool { return o == s })
			if len(p.streams) == 0 {
				delete(r.pods, t.pod.Name)
			}
		}
		r.mu.Unlock()
		r.send(logEvent{id: id, end: true})
	}()
	return first
}

// collect merges the streams' events and writes batches to the sink until
// every producer is done or the request is cancelled.
func (r *logRun) collect(batch LogBatch) {
	tick := time.NewTicker(r.deps.flushEvery)
	defer tick.Stop()
	write := func() {
		if len(batch.Lines) == 0 && len(batch.Notes) == 0 {
			return
		}
		r.sink.Write(batch)
		batch = LogBatch{}
	}
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				r.merger.release(time.Now(), true, &batch)
				write()
				return
			}
			r.apply(ev, &batch)
			if r.merger.pending() >= logBatchLines {
				r.merger.release(time.Now(), false, &batch)
			}
			if len(batch.Lines) >= logBatchLines {
				write()
			}
		case <-tick.C:
			r.merger.release(time.Now(), false, &batch)
			write()
		case <-r.ctx.Done():
			// The caller is gone: drop what is left; the producers see
			// the cancelled ctx and stop.
			go func() {
				for range r.events {
				}
			}()
			return
		}
	}
}

// apply queues an event's lines and notes in the merger.
func (r *logRun) apply(ev logEvent, batch *LogBatch) {
	if ev.id < 0 {
		for _, n := range ev.batch.Notes {
			r.merger.addNote(-1, n.Note, batch)
		}
		return
	}
	r.merger.ensure(ev.id)
	now := time.Now()
	at := 0
	for _, n := range ev.batch.Notes {
		if n.At > at {
			r.merger.addLines(ev.id, ev.batch.Lines[at:n.At], now)
			at = n.At
		}
		r.merger.addNote(ev.id, n.Note, batch)
	}
	if at < len(ev.batch.Lines) {
		r.merger.addLines(ev.id, ev.batch.Lines[at:], now)
	}
	if ev.end {
		r.merger.end(ev.id)
	}
}
