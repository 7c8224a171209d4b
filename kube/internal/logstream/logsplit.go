package logstream

import (
	"bytes"
	"unicode/utf8"
)

// logSplitter turns the bytes of one log stream into lines, whatever the
// sizes of the reads: a line may be of any length (there is no maximum,
// unlike bufio.Scanner's), "\n" and "\r\n" end it, and bytes without their
// newline wait in pending until it comes, the stream ends (flush with
// final) or the follower's idle timer fires (flush without final, casebook
// C04). A flush that is not final cuts only between whole UTF-8 characters
// and escape sequences and never after a lone "\r", so splitting the input
// into reads anywhere gives the lines, and the bytes of every line, one read
// gives (C35). Each line's timestamp prefix (timestamps=true) is parsed by
// parseLogPrefix; a Continued line has none.
//
// Raw slices are carved from a slab the splitter never writes again, so
// each line's bytes are the receiver's without an allocation per line.
type logSplitter struct {
	namespace, pod, container string

	pending  []byte  // bytes of the current line not yet delivered
	cont     bool    // part of the current line was delivered (Partial)
	contLine LogLine // that part's source and Time, for the rest
	slab     []byte  // free memory Raw slices are carved from
}

// logSlabSize is the memory carved at a time into Raw slices; a line
// longer than a quarter of it gets its own allocation.
const logSlabSize = 64 << 10

// newLogSplitter returns a splitter that labels its lines with the source.
func newLogSplitter(namespace, pod, container string) *logSplitter {
	return &logSplitter{namespace: namespace, pod: pod, container: container}
}

// feed appends to dst the lines p completes and keeps the rest.
func (s *logSplitter) feed(p []byte, dst []LogLine) []LogLine {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.pending = append(s.pending, p...)
			return dst
		}
		line := p[:i]
		if len(s.pending) > 0 {
			s.pending = append(s.pending, line...)
			line = s.pending
		}
		p = p[i+1:]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		dst = append(dst, s.line(line, false))
		s.pending = s.pending[:0]
	}
	return dst
}

// line builds the LogLine of b, the bytes of (the rest of) a line; partial
// marks it delivered before its end.
func (s *logSplitter) line(b []byte, partial bool) LogLine {
	var l LogLine
	if s.cont {
		l = s.contLine
		l.Continued = true
	} else {
		l.Namespace, l.Pod, l.Container = s.namespace, s.pod, s.container
		l.Time, b, _ = parseLogPrefix(b)
	}
	l.Raw = s.own(b)
	l.Partial = partial
	s.cont = partial
	if partial {
		s.contLine = LogLine{Namespace: l.Namespace, Pod: l.Pod, Container: l.Container, Time: l.Time}
	}
	return l
}

// flush appends the pending bytes to dst as a Partial line. A final flush
// (the stream ended) delivers all of them, less a trailing "\r", and
// forgets the line; otherwise (the stream idles while following) it keeps
// back a timestamp prefix not yet whole, an incomplete UTF-8 character or
// escape sequence and a trailing "\r", and delivers nothing when nothing
// else is there.
func (s *logSplitter) flush(final bool, dst []LogLine) []LogLine {
	if len(s.pending) == 0 {
		if final {
			s.cont = false
		}
		return dst
	}
	if final {
		b := s.pending
		if n := len(b); b[n-1] == '\r' {
			b = b[:n-1]
		}
		dst = append(dst, s.line(b, true))
		s.pending = s.pending[:0]
		s.cont = false
		return dst
	}
	b := s.pending
	head := 0
	if !s.cont {
		sp := bytes.IndexByte(b[:min(len(b), logTimePrefixMax+1)], ' ')
		if sp < 0 && len(b) <= logTimePrefixMax {
			return dst // the timestamp may not be whole yet
		}
		if sp >= 0 {
			head = sp + 1
		}
	}
	cut := head + safeCut(b[head:])
	if cut == head {
		return dst
	}
	dst = append(dst, s.line(b[:cut], true))
	rest := copy(s.pending, b[cut:])
	s.pending = s.pending[:rest]
	return dst
}

// safeCut returns how many leading bytes of b can be delivered before the
// rest arrives: it keeps back a trailing "\r" (it may be half of "\r\n"),
// an incomplete UTF-8 character and an escape sequence not yet ended.
func safeCut(b []byte) int {
	n := len(b)
	if n > 0 && b[n-1] == '\r' {
		n--
	}
	// An incomplete UTF-8 character: a lead byte among the last three
	// whose sequence is not whole.
	for i := n - 1; i >= 0 && i >= n-3; i-- {
		c := b[i]
		if c < utf8.RuneSelf {
			break
		}
		if utf8.RuneStart(c) {
			if !utf8.FullRune(b[i:n]) {
				n = i
			}
			break
		}
	}
	// An escape sequence begun in the last escapeWindow bytes and not
	// ended.
	from := max(0, n-escapeWindow)
	if e := bytes.LastIndexByte(b[from:n], 0x1b); e >= 0 {
		e += from
		if !escapeEnded(b[e:n]) {
			n = e
		}
	}
	return n
}

// escapeWindow is how far back safeCut looks for an unfinished escape
// sequence; a longer one is cut like text (the viewer sanitises it anyway).
const escapeWindow = 256

// escapeEnded reports whether b, starting with ESC, holds a whole escape
// sequence (ECMA-48): CSI ends with a byte in 0x40-0x7E, OSC, DCS, SOS, PM
// and APC strings with BEL or ESC \, and other escapes with their one
// final byte.
func escapeEnded(b []byte) bool {
	if len(b) < 2 {
		return false
	}
	switch b[1] {
	case '[':
		for _, c := range b[2:] {
			if c >= 0x40 && c <= 0x7e {
				return true
			}
			if c < 0x20 || c > 0x3f {
				return true // not a CSI byte: malformed, nothing to wait for
			}
		}
		return false
	case ']', 'P', 'X', '^', '_':
		return bytes.IndexByte(b[2:], 0x07) >= 0 || bytes.Contains(b[2:], []byte{0x1b, '\\'})
	}
	return true
}

// own copies b into the slab and returns the copy, capped so that an
// append by the receiver cannot reach the next line's bytes.
func (s *logSplitter) own(b []byte) []byte {
	if len(b) == 0 {
		return []byte{}
	}
	if len(b) > logSlabSize/4 {
		return bytes.Clone(b)
	}
	if len(b) > len(s.slab) {
		s.slab = make([]byte, logSlabSize)
	}
	r := s.slab[:len(b):len(b)]
	copy(r, b)
	s.slab = s.slab[len(b):]
	return r
}
