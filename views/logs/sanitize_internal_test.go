package logs

import (
	"bytes"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

func TestSanitize(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		sgr            bool
	}{
		{"plain", "hello", "hello", false},
		{"brackets", "from [YELLOW] to [GREEN] ([[idx-1][0]])", "from [YELLOW] to [GREEN] ([[idx-1][0]])", false},
		{"sgr kept", "\x1b[30;47mdbug\x1b[0m message", "\x1b[30;47mdbug\x1b[0m message", true},
		{"truecolour sgr", "\x1b[38:2::1:2:3mx", "\x1b[38:2::1:2:3mx", true},
		{"clear screen escaped", "a\x1b[2Jb", "a␛[2Jb", false},
		{"report escaped", "\x1b[6n", "␛[6n", false},
		{"private mode escaped", "\x1b[?1049h", "␛[?1049h", false},
		{"osc 52", "\x1b]52;c;aGk=\x07x", "␛]52;c;aGk=␇x", false},
		{"osc 8 st", "\x1b]8;;http://x\x1b\\link", "␛]8;;http://x␛\\link", false},
		{"reset terminal", "\x1bc", "␛c", false},
		{"dcs", "\x1bPq#0\x1b\\", "␛Pq#0␛\\", false},
		{"unterminated osc", "\x1b]0;title", "␛]0;title", false},
		{"8-bit c1 bytes", "a\x9b2Jb\x9d0;t\x07", "a\uFFFD2Jb\uFFFD0;t␇", false},
		{"utf-8 c1", "a\u009b2J", "a\uFFFD2J", false},
		{"invalid utf-8", "a\xff\xfeb", "a\uFFFD\uFFFDb", false},
		{"valid utf-8", "é 日本 🎉", "é 日本 🎉", false},
		{"bidi", "a\u202eb", "a\uFFFDb", false},
		{"tab", "a\tb", "a       b", false},
		{"tab after wide", "日\tb", "日      b", false},
		{"tab after sgr", "\x1b[1mab\x1b[0m\tc", "\x1b[1mab\x1b[0m      c", true},
		{"carriage returns", "10%\r55%\r100%", "100%", false},
		{"trailing cr", "x\r", "x", false},
		{"del and bel", "a\x7fb\x07", "a␡b␇", false},
		{"nul", "a\x00b", "a␀b", false},
		{"long sgr escaped", "\x1b[" + string(bytes.Repeat([]byte("1;"), 40)) + "m", "␛[" + string(bytes.Repeat([]byte("1;"), 40)) + "m", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, sgr := sanitize(nil, []byte(c.in))
			if string(got) != c.want || sgr != c.sgr {
				t.Fatalf("sanitize(%q) = %q, %v; want %q, %v", c.in, got, sgr, c.want, c.sgr)
			}
		})
	}
}

// checkSafe asserts what a sanitised text may hold: valid UTF-8, no C0
// or C1 control but ESC starting a well-formed SGR sequence, and a width
// no larger than two cells per input byte plus the tab stops.
func checkSafe(t *testing.T, in, out []byte) {
	t.Helper()
	if !utf8.Valid(out) {
		t.Fatalf("invalid UTF-8 from %q: %q", in, out)
	}
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRune(out[i:])
		switch {
		case r == 0x1b:
			n := sgrLen(out[i:])
			if n == 0 {
				t.Fatalf("ESC outside SGR from %q: %q", in, out)
			}
			i += n
			continue
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			t.Fatalf("control %U from %q: %q", r, in, out)
		case isBidi(r):
			t.Fatalf("bidi control %U from %q: %q", r, in, out)
		}
		i += size
	}
	if w := ansi.StringWidth(string(out)); w > 2*len(in)+tabWidth*bytes.Count(in, []byte("\t")) {
		t.Fatalf("width %d from %d bytes %q", w, len(in), in)
	}
	if bytes.ContainsRune(out, '\r') || bytes.ContainsRune(out, '\n') {
		t.Fatalf("line break from %q: %q", in, out)
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred\x1b[0m", "\x1b]52;c;aGk=\x07", "\x1b[2J\x1bc\x9b\x9d", "a\tb\r\nc",
		"\x1bP1;2q\x1b\\", "\x1b]0;t", "é\xc3", "\u202e", "\x1b[38;2;0;\x1b[0m"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, _ := sanitize(nil, in)
		checkSafe(t, in, out)
		// Stripping colours leaves safe text without any ESC.
		plain := stripSGR(nil, out)
		checkSafe(t, in, plain)
		if bytes.IndexByte(plain, 0x1b) >= 0 {
			t.Fatalf("ESC left after stripping: %q", plain)
		}
	})
}

// FuzzRender: whatever a line holds, its drawn rows are safe and fit.
func FuzzRender(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mred", "\x1b]52;c;aGk=\x07", "{\"level\":\"info\",\"msg\":\"\\u001b[2J\"}", "日本\t🎉"} {
		f.Add([]byte(s), false)
	}
	f.Fuzz(func(t *testing.T, in []byte, wrap bool) {
		m := benchModel(t, 40, 10, 0)
		m.wrap = wrap
		m.ingest([]item{{line: benchLineRaw(in)}})
		m.json = len(in)%2 == 0
		for _, row := range m.rows(m.buf.first) {
			if w := ansi.StringWidth(row); w > 40 {
				t.Fatalf("row %q is %d cells wide", row, w)
			}
			checkSafe(t, []byte(row+"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), []byte(row))
		}
	})
}

func FuzzLowerASCII(f *testing.F) {
	f.Add([]byte("Hello WORLD @[`{ azAZ 0123456789"))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, ok := lowerASCII(nil, b)
		if ok != isASCII(string(b)) {
			t.Fatalf("ok %v for %q", ok, b)
		}
		if ok && string(got) != string(bytes.ToLower(b)) {
			t.Fatalf("lowerASCII(%q) = %q", b, got)
		}
	})
}
