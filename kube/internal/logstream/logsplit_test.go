package logstream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// splitAll feeds reads to a fresh splitter, flushing (not final) after
// each read whose index is in idle, then ends the stream.
func splitAll(reads [][]byte, idle map[int]bool) []LogLine {
	s := newLogSplitter("ns", "pod", "c")
	var out []LogLine
	for i, r := range reads {
		out = s.feed(r, out)
		if idle[i] {
			out = s.flush(false, out)
		}
	}
	return s.flush(true, out)
}

// joinContinued glues every Continued line onto the line before it, as a
// viewer does, and reports whether the result was well formed.
func joinContinued(lines []LogLine) ([]LogLine, error) {
	var out []LogLine
	for _, l := range lines {
		if l.Continued {
			if len(out) == 0 || !out[len(out)-1].Partial {
				return nil, fmt.Errorf("continued line %q after no partial one", l.Raw)
			}
			p := &out[len(out)-1]
			if !p.Time.Equal(l.Time) {
				return nil, fmt.Errorf("continued line %q has time %v, its line %v", l.Raw, l.Time, p.Time)
			}
			p.Raw = append(bytes.Clone(p.Raw), l.Raw...)
			p.Partial = l.Partial
			continue
		}
		out = append(out, l)
	}
	return out, nil
}

func TestLogSplitter(t *testing.T) {
	ts := time.Date(2026, 1, 2, 3, 4, 5, 331385000, time.UTC)
	for _, tc := range []struct {
		name string
		in   string
		want []LogLine
	}{
		{"lines", "2026-01-02T03:04:05.331385Z a\n2026-01-02T03:04:05.331385Z b\n",
			[]LogLine{{Time: ts, Raw: []byte("a")}, {Time: ts, Raw: []byte("b")}}},
		{"crlf", "2026-01-02T03:04:05.331385Z a\r\n\r\n", []LogLine{{Time: ts, Raw: []byte("a")}, {Raw: []byte("")}}},
		{"lone cr kept", "2026-01-02T03:04:05.331385Z 10%\r55%\n", []LogLine{{Time: ts, Raw: []byte("10%\r55%")}}},
		{"empty text", "2026-01-02T03:04:05.331385Z \n", []LogLine{{Time: ts, Raw: []byte("")}}},
		{"no timestamp", "plain\n", []LogLine{{Raw: []byte("plain")}}},
		{"long line", "2026-01-02T03:04:05.331385Z " + strings.Repeat("x", 1<<20) + "\n",
			[]LogLine{{Time: ts, Raw: []byte(strings.Repeat("x", 1<<20))}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := splitAll([][]byte{[]byte(tc.in)}, nil)
			if len(got) != len(tc.want) {
				t.Fatalf("got %d lines, want %d", len(got), len(tc.want))
			}
			for i := range got {
				g, w := got[i], tc.want[i]
				if !g.Time.Equal(w.Time) || !bytes.Equal(g.Raw, w.Raw) || g.Partial || g.Continued ||
					g.Namespace != "ns" || g.Pod != "pod" || g.Container != "c" {
					t.Errorf("line %d: got %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestC04PartialLines: a stream that ends without a newline delivers its
// last line; one that stays open delivers it on the idle flush.
func TestC04PartialLines(t *testing.T) {
	got := splitAll([][]byte{[]byte("2026-01-02T03:04:05Z full\n2026-01-02T03:04:05Z partial no newline")}, nil)
	if len(got) != 2 || string(got[0].Raw) != "full" || got[0].Partial || string(got[1].Raw) != "partial no newline" || !got[1].Partial {
		t.Fatalf("ended stream: got %+v", got)
	}
	s := newLogSplitter("ns", "pod", "c")
	out := s.feed([]byte("2026-01-02T03:04:05Z progress: 50%"), nil)
	if len(out) != 0 {
		t.Fatalf("delivered before the idle flush: %+v", out)
	}
	out = s.flush(false, out)
	if len(out) != 1 || string(out[0].Raw) != "progress: 50%" || !out[0].Partial || out[0].Continued || out[0].Time.IsZero() {
		t.Fatalf("idle flush: got %+v", out)
	}
	out = s.feed([]byte(" 100%\n"), nil)
	if len(out) != 1 || string(out[0].Raw) != " 100%" || out[0].Partial || !out[0].Continued || !out[0].Time.Equal(got[0].Time) {
		t.Fatalf("rest: got %+v", out)
	}
	// A timestamp not yet whole is kept back.
	s = newLogSplitter("ns", "pod", "c")
	s.feed([]byte("2026-01-02T03:04"), nil)
	if out := s.flush(false, nil); len(out) != 0 {
		t.Fatalf("flushed half a timestamp: %+v", out)
	}
}

// TestC35SplitReads: reads split inside an escape sequence or a UTF-8
// character, with idle flushes between them, give the unsplit line; no
// flushed piece cuts a character or a sequence.
func TestC35SplitReads(t *testing.T) {
	line := "2026-01-02T03:04:05Z \x1b[48;2;0;0;0mé😀\x1b]8;;http://x\x07link\r\n"
	whole := splitAll([][]byte{[]byte(line)}, nil)
	b := []byte(line)
	for i := 1; i < len(b); i++ {
		for _, idle := range []map[int]bool{nil, {0: true}} {
			got := splitAll([][]byte{b[:i], b[i:]}, idle)
			for _, l := range got {
				if !utf8.Valid(l.Raw) || bytes.ContainsRune(l.Raw, utf8.RuneError) {
					t.Fatalf("split at %d: piece %q is not valid UTF-8", i, l.Raw)
				}
				if e := bytes.LastIndexByte(l.Raw, 0x1b); l.Partial && e >= 0 && !escapeEnded(l.Raw[e:]) {
					t.Fatalf("split at %d: piece %q ends inside an escape sequence", i, l.Raw)
				}
			}
			joined, err := joinContinued(got)
			if err != nil {
				t.Fatal(err)
			}
			if len(joined) != 1 || !bytes.Equal(joined[0].Raw, whole[0].Raw) || !joined[0].Time.Equal(whole[0].Time) || joined[0].Partial {
				t.Fatalf("split at %d (idle %v): got %+v, want %+v", i, idle, joined, whole)
			}
		}
	}
}

// FuzzLogSplitter: any split of the input into reads, with idle flushes
// anywhere, gives the lines one read gives once Continued pieces are
// joined, and no piece of a valid line is invalid UTF-8.
func FuzzLogSplitter(f *testing.F) {
	f.Add([]byte("2026-01-02T03:04:05.331385Z a\r\nb\n2026-01-02T03:04:05Z \x1b[1mé\xf0\x9f\x98\x80"), []byte{3, 9, 1, 40})
	f.Add([]byte("x\r\r\n\n\r"), []byte{1, 1, 1, 0x81})
	f.Fuzz(func(t *testing.T, in, cuts []byte) {
		whole := splitAll([][]byte{in}, nil)
		var reads [][]byte
		idle := map[int]bool{}
		rest := in
		for _, c := range cuts {
			n := int(c&0x7f) % (len(rest) + 1)
			reads = append(reads, rest[:n])
			rest = rest[n:]
			if c&0x80 != 0 {
				idle[len(reads)-1] = true
			}
		}
		reads = append(reads, rest)
		got := splitAll(reads, idle)
		joined, err := joinContinued(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(joined) != len(whole) {
			t.Fatalf("got %d lines, want %d", len(joined), len(whole))
		}
		for i := range whole {
			g, w := joined[i], whole[i]
			if !bytes.Equal(g.Raw, w.Raw) || !g.Time.Equal(w.Time) || g.Partial != w.Partial {
				t.Fatalf("line %d: got %q %v %v, want %q %v %v", i, g.Raw, g.Time, g.Partial, w.Raw, w.Time, w.Partial)
			}
		}
		if utf8.Valid(in) {
			for _, l := range got {
				if !utf8.Valid(l.Raw) {
					t.Fatalf("piece %q of valid input is not valid UTF-8", l.Raw)
				}
			}
		}
	})
}
