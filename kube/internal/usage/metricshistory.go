package usage

import "time"

// history is one pod's or node's recent samples, the Trend its answers
// carry. Trends are handed out to screens and must never change after: a
// trend is a window buf[start:len(buf)] capped at its length, so an
// append past it goes to a slot no trend handed out covers, and when buf
// is full the window is copied to a new array (the old one stays as the
// trends handed out see it). buf holds at most limit+limit/2 samples, so
// a history costs at most that much memory and an append copies about
// two samples on average.
type history struct {
	buf   []Sample
	start int
	// seen is when a reading last reported the object; the janitor drops
	// histories no reading has reported for a while (Poller.Prune, which package kube's janitor calls).
	seen time.Time
}

// trend returns the window: read only, and never changed later.
func (h *history) trend() []Sample {
	n := len(h.buf)
	return h.buf[h.start:n:n]
}

// add appends s to the history unless its time is not after the last
// sample's (one sample per distinct timestamp: metrics-server answers
// the same sample until its next scrape, and two requests may read the
// same one), keeps at most limit samples (limit >= 1), and returns the
// trend.
func (h *history) add(s Sample, limit int) []Sample {
	if n := len(h.buf); n > h.start && !s.At.After(h.buf[n-1].At) {
		return h.trend()
	}
	if len(h.buf) == cap(h.buf) {
		keep := min(len(h.buf)-h.start, limit-1)
		size := max(limit+limit/2, limit+1)
		// Few samples yet: grow as append does, not to the full size, so
		// that the many objects a short-lived screen reads stay small.
		size = min(size, max(2*(keep+1), 4))
		buf := make([]Sample, keep, size)
		copy(buf, h.buf[len(h.buf)-keep:])
		h.buf, h.start = buf, 0
	}
	h.buf = append(h.buf, s)
	if n := len(h.buf) - h.start; n > limit {
		h.start += n - limit
	}
	return h.trend()
}
