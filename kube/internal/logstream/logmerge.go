package logstream

import "time"

// logMerger orders the lines of several streams by their timestamps
// (casebook C37) and places notes among them. Each stream's own order is
// kept; across streams, the line with the earliest time at the head of a
// stream's queue goes first once every other live stream has delivered a
// line at or after it (so nothing earlier can still come from there) or it
// has waited window (LogReorderWindow) since it arrived. A line without a
// timestamp sorts with the line before it in its stream. A note goes out
// as soon as it reaches the head of its stream's queue; a request's own
// notes (stream -1) at once. With one stream, every line goes out at once.
// It is pure: the caller passes the time.
type logMerger struct {
	window  time.Duration
	streams []*mergeStream
	queued  int // lines queued
}

type mergeStream struct {
	q      []mergeItem // q[head:] are queued
	head   int
	live   bool
	latest time.Time // the latest key received
	last   time.Time // the key of the last item received (for lines without time)
}

type mergeItem struct {
	line    LogLine
	note    *LogNote
	key     time.Time
	arrived time.Time
}

func newLogMerger(window time.Duration) *logMerger { return &logMerger{window: window} }

// ensure registers stream id (and those below it) as live.
func (m *logMerger) ensure(id int) {
	for len(m.streams) <= id {
		m.streams = append(m.streams, &mergeStream{live: true})
	}
}

// end marks stream id ended: it no longer holds the others back.
func (m *logMerger) end(id int) { m.streams[id].live = false }

// addLines queues lines of stream id that arrived at now.
func (m *logMerger) addLines(id int, lines []LogLine, now time.Time) {
	s := m.streams[id]
	for _, l := range lines {
		key := l.Time
		if key.IsZero() {
			key = s.last
			if key.IsZero() {
				key = now
			}
		}
		s.last = key
		if key.After(s.latest) {
			s.latest = key
		}
		s.q = append(s.q, mergeItem{line: l, key: key, arrived: now})
	}
	m.queued += len(lines)
}

// addNote queues a note of stream id, or of the request when id < 0.
func (m *logMerger) addNote(id int, n LogNote, dst *LogBatch) {
	if id < 0 {
		dst.Notes = append(dst.Notes, PlacedLogNote{At: len(dst.Lines), Note: n})
		return
	}
	s := m.streams[id]
	s.q = append(s.q, mergeItem{note: &n})
}

// pending is the number of lines queued.
func (m *logMerger) pending() int { return m.queued }

// release appends to dst what may go out at now; all releases everything
// (the request ends).
func (m *logMerger) release(now time.Time, all bool, dst *LogBatch) {
	for {
		// Notes at the heads go out first; find the earliest line head and
		// the latest key whose wait is over.
		var best *mergeStream
		var forced time.Time
		for _, s := range m.streams {
			for len(s.queued()) > 0 && s.queued()[0].note != nil {
				dst.Notes = append(dst.Notes, PlacedLogNote{At: len(dst.Lines), Note: *s.queued()[0].note})
				s.pop()
			}
			if len(s.queued()) == 0 {
				continue
			}
			h := &s.queued()[0]
			if best == nil || h.key.Before(best.queued()[0].key) {
				best = s
			}
			if !now.Before(h.arrived.Add(m.window)) && h.key.After(forced) {
				forced = h.key
			}
		}
		if best == nil {
			return
		}
		key := best.queued()[0].key
		if !all && key.After(forced) && !m.caughtUp(best, key) {
			return
		}
		if dst.Lines == nil {
			dst.Lines = make([]LogLine, 0, min(m.queued, logBatchLines))
		}
		dst.Lines = append(dst.Lines, best.queued()[0].line)
		best.pop()
		m.queued--
	}
}

// caughtUp reports whether every live stream but s has delivered a line at
// or after key (streams with queued lines have, key being the earliest).
func (m *logMerger) caughtUp(s *mergeStream, key time.Time) bool {
	for _, o := range m.streams {
		if o == s || !o.live || len(o.queued()) > 0 {
			continue
		}
		if o.latest.Before(key) {
			return false
		}
	}
	return true
}

func (s *mergeStream) pop() {
	s.q[s.head] = mergeItem{}
	s.head++
	switch {
	case s.head == len(s.q):
		s.q, s.head = s.q[:0], 0
	case s.head > 1024 && s.head > len(s.q)/2: // a queue that never empties
		n := copy(s.q, s.q[s.head:])
		clear(s.q[n:])
		s.q, s.head = s.q[:n], 0
	}
}

// queued is the stream's queue.
func (s *mergeStream) queued() []mergeItem { return s.q[s.head:] }
