package logs

import (
	"time"

	"github.com/kyyard/kyyard/kube"
)

// DefaultCapacity is how many entries (log lines and markers) a viewer
// holds by default; older ones are evicted, and counted.
const DefaultCapacity = 100_000

// Entry kinds.
const (
	kindLine uint8 = iota
	kindNote
)

// Entry flags.
const (
	flagSGR     uint8 = 1 << iota // text holds colour sequences
	flagPartial                   // delivered before its newline
	flagError                     // a marker that reports a failure
)

// entry is one log line or one marker line, held compactly: the line's own
// bytes and, only when they are not plain printable ASCII, one sanitised
// copy (see sanitize).
type entry struct {
	// raw is the log's own bytes (what save writes); nil for a marker.
	raw []byte
	// text is the sanitised text to draw, colour sequences kept; nil when
	// raw is drawn as it is.
	text []byte
	// nanos is the API server's timestamp (Unix nanoseconds), 0 when the
	// line had none.
	nanos int64
	// src is the stream (index into buffer.streams), -1 for none.
	src   int32
	kind  uint8
	flags uint8
}

// display returns the sanitised text, colour sequences kept.
func (e *entry) display() []byte {
	if e.text != nil || e.kind == kindNote {
		return e.text
	}
	return e.raw
}

// plain returns the text without colour sequences (what search matches
// and highlights), using scratch when they must be stripped.
func (e *entry) plain(scratch []byte) []byte {
	if e.flags&flagSGR == 0 {
		return e.display()
	}
	return stripSGR(scratch[:0], e.text)
}

// stream is one container's log within a request.
type stream struct {
	context, namespace, pod, container string
	// last is the seq of its newest line, -1 before any.
	last int64
}

// buffer is the ring of entries a viewer holds: at most cap entries, the
// oldest evicted first. Entries are numbered by seq, from 0 for the first
// ever added; first is the seq of the oldest held.
type buffer struct {
	cap   int
	ring  []entry
	head  int // index in ring of the oldest entry
	n     int
	first int64

	// lines counts the log lines held (markers are not counted);
	// evicted the log lines evicted.
	lines   int
	evicted int64

	streams  []stream
	streamOf map[string]int32

	// search, when not nil, is kept up to date with every change.
	search  *index
	scratch []byte
	// evictedHits counts hits evicted since the caller last looked.
	evictedHits int
}

func newBuffer(capacity int) *buffer {
	return &buffer{cap: max(capacity, 1), streamOf: map[string]int32{}}
}

// end is the seq the next entry gets.
func (b *buffer) end() int64 { return b.first + int64(b.n) }

// at returns entry seq, which must be held (first <= seq < end).
func (b *buffer) at(seq int64) *entry {
	i := b.head + int(seq-b.first)
	if i >= len(b.ring) {
		i -= len(b.ring)
	}
	return &b.ring[i]
}

// held reports whether seq is held.
func (b *buffer) held(seq int64) bool { return seq >= b.first && seq < b.end() }

// push adds e as the newest entry, evicting the oldest when full, and
// indexes it for the search.
func (b *buffer) push(e entry) {
	if b.n == b.cap {
		old := &b.ring[b.head]
		if old.kind == kindLine {
			b.lines--
			b.evicted++
		}
		*old = entry{}
		b.head++
		if b.head == len(b.ring) {
			b.head = 0
		}
		b.n--
		b.first++
		if b.search != nil {
			b.evictedHits += b.search.evict(b.first)
		}
	}
	seq := b.end()
	if len(b.ring) < b.cap {
		b.ring = append(b.ring, e)
	} else {
		i := b.head + b.n
		if i >= len(b.ring) {
			i -= len(b.ring)
		}
		b.ring[i] = e
	}
	b.n++
	if e.kind == kindLine {
		b.lines++
	}
	if b.search != nil && e.kind == kindLine {
		b.search.scan(seq, b.plainOf(b.at(seq)))
	}
}

// plainOf returns e's plain text, reusing the buffer's scratch space.
func (b *buffer) plainOf(e *entry) []byte {
	p := e.plain(b.scratch)
	if e.flags&flagSGR != 0 {
		b.scratch = p
	}
	return p
}

// streamIndex returns the index of the stream of ns/pod/container,
// adding it when new.
func (b *buffer) streamIndex(ctx, ns, pod, container string) int32 {
	k := ctx + "\x00" + ns + "/" + pod + "/" + container
	if i, ok := b.streamOf[k]; ok {
		return i
	}
	i := int32(len(b.streams))
	b.streams = append(b.streams, stream{context: ctx, namespace: ns, pod: pod, container: container, last: -1})
	b.streamOf[k] = i
	return i
}

// addLine adds one log line. A Continued line extends its stream's
// newest line when that is a held Partial one (its entry is rebuilt and
// indexed again: rescanned reports the seq, -1 when the line was new);
// otherwise it is a line of its own.
func (b *buffer) addLine(l kube.LogLine) (rescanned int64) {
	src := b.streamIndex(l.Context, l.Namespace, l.Pod, l.Container)
	st := &b.streams[src]
	if l.Continued && st.last >= 0 && b.held(st.last) && b.at(st.last).flags&flagPartial != 0 {
		e := b.at(st.last)
		e.raw = append(e.raw, l.Raw...)
		b.fill(e, l.Partial)
		if b.search != nil {
			b.search.rescan(st.last, b.plainOf(e))
		}
		return st.last
	}
	e := entry{raw: l.Raw, src: src, kind: kindLine}
	if !l.Time.IsZero() {
		e.nanos = l.Time.UnixNano()
	}
	b.fill(&e, l.Partial)
	st.last = b.end()
	b.push(e)
	return -1
}

// fill sets e's sanitised text and flags from its raw bytes.
func (b *buffer) fill(e *entry, partial bool) {
	e.flags &^= flagSGR | flagPartial
	if partial {
		e.flags |= flagPartial
	}
	if clean(e.raw) {
		e.text = nil
		return
	}
	text, sgr := sanitize(make([]byte, 0, len(e.raw)+8), e.raw)
	e.text = text
	if sgr {
		e.flags |= flagSGR
	}
}

// addNote adds a marker line with text; failure marks it in the error
// style.
func (b *buffer) addNote(text string, at time.Time, src int32, failure bool) {
	e := entry{text: []byte(text), src: src, kind: kindNote}
	if !at.IsZero() {
		e.nanos = at.UnixNano()
	}
	if failure {
		e.flags |= flagError
	}
	b.push(e)
}

// setSearch indexes every held entry for ix (nil ends the search), split
// across the cores (see indexAll).
func (b *buffer) setSearch(ix *index) {
	b.search = ix
	b.evictedHits = 0
	if ix == nil {
		return
	}
	b.indexAll(ix, b.first, b.end())
}

// reset forgets every entry (a new stream starts), keeping the numbering
// going so that stale seqs are never held again.
func (b *buffer) reset() {
	end := b.end()
	*b = buffer{cap: b.cap, first: end, streamOf: map[string]int32{}, search: b.search}
	if b.search != nil {
		b.search.matches, b.search.lines = nil, nil
	}
}
