package usage

import "time"

// This file decides when a polled metrics request is read next (pure: no
// clock, no I/O; metrics.go feeds it each read's times and the newest
// sample timestamp the read answered).
//
// metrics-server scrapes every --metric-resolution (15s by default) and
// then serves the new samples, each stamped with its scrape's time (the
// kubelet's, on the server's clock). Reading it every 15s from an
// arbitrary phase aliases: a read that lands just before a scrape is
// published gets the old sample, the next gets the new one, and now and
// then one sample is skipped over. So the schedule aligns each read to
// the next sample's expected appearance instead:
//
//   - The resolution R is the smallest step between the newest timestamps
//     of the last few reads (a read that skipped a sample sees 2R), or
//     MetricsInterval until two samples were seen.
//   - The delay D from a sample's timestamp to when a read can get it
//     (publication lag plus the clocks' skew, on the local clock) is
//     bracketed by the reads themselves: a read ending at E that got
//     timestamp T says D <= E-T; a read starting at S that still got T,
//     the sample after it not yet, says D > S-(T+R); a read that got a new
//     T after the previous read (at S') did not says D > S'-T.
//   - The next read is due at T + k·R + D's upper bound + metricsGrace,
//     where k = max(1, ⌊(MetricsInterval+metricsGrace)/R⌋): each sample
//     (every k-th when MetricsInterval is a multiple of the resolution)
//     is read once, soon after it appears. While the bracket is wider than
//     metricsFloor, the read is placed in its middle instead (a probe): a
//     probe that finds the new sample halves the bracket from above, one
//     that does not from below, and the read at the upper bound follows.
//     The bracket narrows to metricsFloor in a few samples (15s → 2s in
//     three), each costing at most one extra read.
//   - A read that finds the old sample although the bracket said it was
//     due (the delay grew: a slow scrape) forgets the upper bound and
//     reads again after metricsFloor, then 2×, 4×... (at most
//     MetricsInterval), until a new sample comes; its read starts a new
//     bracket.
//   - Whatever the above says, the next read of a request is at least
//     metricsFloor and at most MetricsInterval+metricsGrace after the
//     previous one's start; a read that failed or got no timestamp (no
//     pods) is next due MetricsInterval after it started.

const (
	// metricsFloor is the shortest time between two scheduled reads of a
	// request (MetricsRequest.Fresh aside), and the width of the delay
	// bracket under which no more probes are made.
	metricsFloor = 2 * time.Second
	// metricsGrace is added after a sample's expected appearance, for the
	// jitter of scrapes and round trips.
	metricsGrace = 500 * time.Millisecond
	// metricsSteps is how many steps between newest timestamps the
	// resolution is the smallest of.
	metricsSteps = 4
)

// metricsSchedule is one polled request's schedule; the zero value
// (interval set) is a request never read.
type metricsSchedule struct {
	// interval is Config.Interval (kube's Options.MetricsInterval): the
	// longest gap between reads.
	interval time.Duration
	// newest is the newest sample timestamp any read got (server clock);
	// zero before one.
	newest time.Time
	// steps holds the last steps between successive newest timestamps,
	// next is where the next goes.
	steps [metricsSteps]time.Duration
	next  int
	// lo < D <= hi brackets the delay from a sample's timestamp to when a
	// read gets it (local clock); hasLo, hasHi say whether each is known.
	lo, hi       time.Duration
	hasLo, hasHi bool
	// lastStart is when the last read that answered started.
	lastStart time.Time
	// misses counts the reads since the last new sample that found none.
	misses int
	// due is when the next read is due.
	due time.Time
}

// resolution is the server's sample step as observed, or the interval
// until two samples have been seen.
func (s *metricsSchedule) resolution() time.Duration {
	var r time.Duration
	for _, d := range s.steps {
		if d > 0 && (r == 0 || d < r) {
			r = d
		}
	}
	if r == 0 {
		return s.interval
	}
	return r
}

// observe takes a read that started at start and ended at end: ok is
// whether it answered, newest the newest sample timestamp it got (zero:
// none). It sets s.due.
func (s *metricsSchedule) observe(start, end, newest time.Time, ok bool) {
	if !ok || newest.IsZero() {
		s.due = start.Add(s.interval)
		return
	}
	r := s.resolution()
	if s.newest.IsZero() || newest.After(s.newest) {
		if !s.newest.IsZero() {
			s.steps[s.next] = newest.Sub(s.newest)
			s.next = (s.next + 1) % metricsSteps
			r = s.resolution()
		}
		hi := end.Sub(newest)
		// The sample after this one was not out when this read started.
		lo := start.Sub(newest.Add(r))
		if !s.lastStart.IsZero() && s.lastStart.Sub(newest) > lo {
			lo = s.lastStart.Sub(newest) // nor this one when the last read started
		}
		s.bracket(lo, hi)
		s.newest, s.misses = newest, 0
	} else {
		// The sample after newest was not out when this read started.
		s.misses++
		if lo := start.Sub(s.newest.Add(r)); !s.hasLo || lo > s.lo {
			s.lo, s.hasLo = lo, true
		}
		if s.hasHi && s.lo >= s.hi {
			s.hasHi = false // later than it ever was: the delay grew
		}
	}
	s.lastStart = start
	s.due = s.schedule(start, r)
}

// bracket narrows the delay bracket with a new sample's lo < D <= hi, or
// starts it again from them when they contradict it (the delay moved).
func (s *metricsSchedule) bracket(lo, hi time.Duration) {
	if lo >= hi {
		lo = hi - s.resolution() // a wrong resolution guess: keep hi
	}
	if !s.hasHi || !s.hasLo || lo >= s.hi || hi <= s.lo {
		s.lo, s.hi, s.hasLo, s.hasHi = lo, hi, true, true
		return
	}
	s.lo, s.hi = max(s.lo, lo), min(s.hi, hi)
}

// schedule is when the read after one that started at start is due.
func (s *metricsSchedule) schedule(start time.Time, r time.Duration) time.Time {
	k := max(1, int64((s.interval+metricsGrace)/r))
	expected := s.newest.Add(time.Duration(k) * r)
	var due time.Time
	switch {
	case !s.hasHi:
		backoff := metricsFloor << min(max(s.misses-1, 0), 8)
		due = start.Add(min(backoff, s.interval))
	case s.hasLo && s.hi-s.lo > metricsFloor:
		due = expected.Add(s.lo + (s.hi-s.lo)/2)
	default:
		due = expected.Add(s.hi + metricsGrace)
	}
	if early := start.Add(metricsFloor); due.Before(early) {
		due = early
	}
	if late := start.Add(s.interval + metricsGrace); due.After(late) {
		due = late
	}
	return due
}
