package logstream

import (
	"bytes"
	"hash/maphash"
	"maps"
	"time"
)

// logResume remembers what a followed stream delivered so that a
// reconnection from the last timestamp seen (sinceTime, which the API
// server takes at second precision) delivers neither a gap nor a line
// twice (casebook C38). It keeps the lines of the latest second delivered
// (timestamp and a hash of the bytes, counted, so that two identical lines
// stay two) and the line delivered Partial and not yet ended: when the
// reconnected stream sends that line whole again, only its rest goes out,
// Continued. It is pure.
type logResume struct {
	seed   maphash.Seed
	last   time.Time       // the latest timestamp delivered
	second int64           // the Unix second the seen set covers
	seen   map[seenKey]int // lines delivered in that second
	budget map[seenKey]int // what the current connection may still skip
	// active is set while a reconnected stream is still in the second it
	// resumed from (from).
	active bool
	from   int64
	// open is the line delivered Partial and not ended: its time and the
	// bytes delivered so far.
	open     bool
	openTime time.Time
	openRaw  []byte
}

type seenKey struct {
	nanos int64
	hash  uint64
	size  int
}

func newLogResume() *logResume {
	return &logResume{seed: maphash.MakeSeed(), seen: map[seenKey]int{}}
}

// since is the sinceTime of a reconnection: the latest timestamp
// delivered, at the second the API server resolves it to; zero when no
// line had a timestamp.
func (r *logResume) since() time.Time {
	if r.last.IsZero() {
		return time.Time{}
	}
	return r.last.Truncate(time.Second)
}

// record notes a line delivered.
func (r *logResume) record(l *LogLine) {
	if l.Time.IsZero() {
		return
	}
	if l.Continued {
		if !r.open || !l.Time.Equal(r.openTime) {
			return
		}
		r.openRaw = append(r.openRaw, l.Raw...)
		if !l.Partial {
			r.open = false
			r.remember(l.Time, r.openRaw)
		}
		return
	}
	if l.Partial {
		r.open, r.openTime = true, l.Time
		r.openRaw = append(r.openRaw[:0], l.Raw...)
		r.advance(l.Time)
		return
	}
	r.open = false
	r.remember(l.Time, l.Raw)
}

func (r *logResume) advance(t time.Time) {
	if t.After(r.last) {
		r.last = t
	}
	if sec := t.Unix(); sec > r.second {
		clear(r.seen)
		r.second = sec
	}
}

func (r *logResume) remember(t time.Time, raw []byte) {
	r.advance(t)
	if t.Unix() == r.second {
		r.seen[r.key(t, raw)]++
	}
}

func (r *logResume) key(t time.Time, raw []byte) seenKey {
	return seenKey{nanos: t.UnixNano(), hash: maphash.Bytes(r.seed, raw), size: len(raw)}
}

// begin starts a connection: each line delivered in the latest second may
// be skipped once by filter.
func (r *logResume) begin() {
	r.budget = maps.Clone(r.seen)
	r.active, r.from = !r.last.IsZero(), r.second
}

// filter passes a line of a reconnected stream: false drops a line
// already delivered (or older than the second resumed from); a line that
// repeats the open Partial line whole comes back as its rest, Continued.
func (r *logResume) filter(l *LogLine) bool {
	if !r.active || l.Time.IsZero() || l.Continued {
		return true
	}
	sec := l.Time.Unix()
	if sec < r.from {
		return false
	}
	if r.open && l.Time.Equal(r.openTime) && bytes.HasPrefix(l.Raw, r.openRaw) {
		l.Raw = l.Raw[len(r.openRaw):]
		l.Continued = true
		return true
	}
	if sec > r.from {
		r.active = false // past the second resumed from: nothing more to skip
		return true
	}
	if !l.Partial {
		k := r.key(l.Time, l.Raw)
		if n := r.budget[k]; n > 0 {
			r.budget[k] = n - 1
			return false
		}
	}
	return true
}
