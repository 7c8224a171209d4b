package filecopy

import (
	"sync"
	"time"
)

// Progress is how far a copy is: Done bytes of the files' contents of
// Total (-1 when the total is not known, as for a copy out of a container
// whose size could not be read), and Final on the last report.
type Progress struct {
	// Done is the bytes of file contents copied so far.
	Done int64
	// Total is the bytes expected; -1 when unknown. Done never goes over
	// it in a report: an estimate below the real size reports Total.
	Total int64
	// Final is set on the report Finish makes.
	Final bool
}

// DefaultEvery is the shortest time between two reports of a Meter.
const DefaultEvery = 100 * time.Millisecond

// Meter counts the bytes of a copy and reports them at most once per
// Every (plus the final report), so that a screen redraws a bounded
// number of times whatever the file sizes. A nil *Meter counts nothing.
// It is safe for concurrent use.
type Meter struct {
	mu     sync.Mutex
	done   int64
	total  int64
	every  time.Duration
	now    func() time.Time
	last   time.Time
	report func(Progress)
}

// NewMeter returns a meter of total bytes (-1 unknown) calling report
// (nil: none) at most once per every (0: DefaultEvery), reading the time
// from now (nil: time.Now).
func NewMeter(total int64, every time.Duration, now func() time.Time, report func(Progress)) *Meter {
	if every <= 0 {
		every = DefaultEvery
	}
	if now == nil {
		now = time.Now
	}
	return &Meter{total: total, every: every, now: now, report: report}
}

// progress returns the state to report, Done capped at a known Total.
func (m *Meter) progress(final bool) Progress {
	p := Progress{Done: m.done, Total: m.total, Final: final}
	if p.Total >= 0 && p.Done > p.Total {
		p.Total = p.Done
	}
	return p
}

// Add counts n more bytes and reports when Every has passed since the
// last report.
func (m *Meter) Add(n int64) {
	if m == nil {
		return
	}
	m.mu.Lock()
	m.done += n
	var p *Progress
	if t := m.now(); t.Sub(m.last) >= m.every {
		m.last = t
		pr := m.progress(false)
		p = &pr
	}
	m.mu.Unlock()
	if p != nil && m.report != nil {
		m.report(*p)
	}
}

// Finish makes the final report (always, whatever the time since the
// last) and returns it.
func (m *Meter) Finish() Progress {
	if m == nil {
		return Progress{Total: -1, Final: true}
	}
	m.mu.Lock()
	p := m.progress(true)
	m.mu.Unlock()
	if m.report != nil {
		m.report(p)
	}
	return p
}

// Done returns the bytes counted so far.
func (m *Meter) Done() int64 {
	if m == nil {
		return 0
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.done
}
