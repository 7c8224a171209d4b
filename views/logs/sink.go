package logs

import (
	"sync"

	"github.com/kyyard/kyyard/kube"
)

// DefaultQueue is how many lines may wait between the stream and the
// screen by default; lines beyond it are dropped, and counted.
const DefaultQueue = 50_000

// maxTake is the most lines one message hands to the screen, so that one
// Update stays short while a burst drains.
const maxTake = 5_000

// item is one thing the stream delivered, in order: a line, a note, or
// a count of lines dropped at that place.
type item struct {
	line    kube.LogLine
	note    *kube.LogNote
	dropped int
}

// sink is the kube.LogSink a viewer hands to Logs: a bounded queue that
// never blocks the stream's goroutine for longer than an append under a
// mutex. When the screen falls behind and more than limit lines wait,
// the newest are dropped and the exact count is queued in their place,
// so the view can say how many went (casebook C05).
type sink struct {
	mu      sync.Mutex
	limit   int
	items   []item
	waiting int // lines in items
	done    bool
	err     error
	// wake is closed (and replaced) when something arrives while the
	// screen waits.
	wake chan struct{}
}

func newSink(limit int) *sink {
	return &sink{limit: max(limit, 1), wake: make(chan struct{})}
}

// Write queues a batch: its lines in order with its notes at their
// places, or, past the limit, the count of the lines dropped.
func (s *sink) Write(b kube.LogBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.done {
		return
	}
	notes := b.Notes
	for i := 0; i <= len(b.Lines); i++ {
		for len(notes) > 0 && notes[0].At <= i {
			n := notes[0].Note
			s.items = append(s.items, item{note: &n})
			notes = notes[1:]
		}
		if i == len(b.Lines) {
			break
		}
		if s.waiting >= s.limit {
			if k := len(s.items) - 1; k >= 0 && s.items[k].dropped > 0 {
				s.items[k].dropped++
			} else {
				s.items = append(s.items, item{dropped: 1})
			}
			continue
		}
		s.items = append(s.items, item{line: b.Lines[i]})
		s.waiting++
	}
	s.signal()
}

// finish records that Logs returned, with its error.
func (s *sink) finish(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done, s.err = true, err
	s.signal()
}

func (s *sink) signal() {
	close(s.wake)
	s.wake = make(chan struct{})
}

// ready returns a channel closed once there is something to take (at once
// when there is already).
func (s *sink) ready() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.items) > 0 || s.done {
		c := make(chan struct{})
		close(c)
		return c
	}
	return s.wake
}

// take removes up to maxTake lines (and the notes and counts among them)
// from the queue. done is set once the stream ended and nothing is left;
// err is then Logs' error.
func (s *sink) take() (items []item, done bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	lines, k := 0, 0
	for ; k < len(s.items) && lines < maxTake; k++ {
		if s.items[k].note == nil && s.items[k].dropped == 0 {
			lines++
		}
	}
	items = s.items[:k:k]
	s.items = s.items[k:]
	if len(s.items) == 0 {
		s.items = nil
	}
	s.waiting -= lines
	return items, s.done && len(s.items) == 0, s.err
}
