package logs

import (
	"bytes"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// tabWidth is the distance between tab stops, the terminal's default.
const tabWidth = 8

// maxSGR bounds the bytes of one kept colour sequence (ESC [ ... m): a
// longer one is shown escaped rather than trusted.
const maxSGR = 64

// Visible stand-ins for what a log line may carry but the terminal must
// never receive: ESC and the other C0 controls are shown as their Unicode
// control pictures (ESC as "␛", BEL as "␇", U+2400 + the byte), DEL as
// "␡", and C1 controls, bidirectional formatting characters and bytes that
// are not UTF-8 as U+FFFD.
const (
	escPicture = "␛"
	delPicture = "␡"
	badRune    = "\uFFFD"
)

// clean reports whether raw is printable ASCII only (the common log line):
// it is then drawn as it is, with no copy.
func clean(raw []byte) bool {
	for _, c := range raw {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// sanitize turns one log line's raw bytes (untrusted, any length, possibly
// invalid UTF-8) into text that is safe to draw and returns it with
// whether it holds colour sequences:
//
//   - a carriage return never reaches the terminal: the line shows what a
//     terminal would leave visible last, its last non-empty segment after
//     a "\r" (casebook C40: "10%\r55%\r100%" shows "100%");
//   - colour sequences (SGR, ESC [ digits ; : m, casebook C02) are kept,
//     well-formed as they came; every other escape sequence (OSC 52
//     clipboard writes, OSC 0 titles, OSC 8 links, CSI cursor moves and
//     reports, ESC c, DCS strings; casebook C39) is shown escaped: its ESC
//     becomes "␛" and the rest of it shows as the text it is, so an
//     unterminated one swallows nothing;
//   - tabs become spaces up to the next tab stop (every 8 cells);
//   - other C0 controls become their control pictures (U+2400 + byte), DEL
//     "␡", and C1 controls (U+0080-U+009F), bidirectional formatting
//     characters and invalid UTF-8 (8-bit C1 bytes such as 0x9B included)
//     U+FFFD.
//
// Brackets and every other printable character are text (casebook C01).
// The result is valid UTF-8; dst is appended to and returned.
func sanitize(dst, raw []byte) (out []byte, hasSGR bool) {
	raw = lastSegment(raw)
	col := 0             // cells before colStart
	colStart := len(dst) // bytes from here on are not yet counted in col
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c >= 0x20 && c < 0x7f:
			j := i + 1
			for j < len(raw) && raw[j] >= 0x20 && raw[j] < 0x7f {
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		case c == 0x1b:
			if n := sgrLen(raw[i:]); n > 0 {
				dst = append(dst, raw[i:i+n]...)
				hasSGR = true
				i += n
				continue
			}
			dst = append(dst, escPicture...)
			i++
		case c == '\t':
			col += ansi.StringWidth(string(dst[colStart:]))
			n := tabWidth - col%tabWidth
			for range n {
				dst = append(dst, ' ')
			}
			col += n
			colStart = len(dst)
			i++
		case c < 0x20:
			dst = utf8.AppendRune(dst, 0x2400+rune(c))
			i++
		case c == 0x7f:
			dst = append(dst, delPicture...)
			i++
		default:
			r, size := utf8.DecodeRune(raw[i:])
			if r == utf8.RuneError || r < 0xa0 || isBidi(r) {
				dst = append(dst, badRune...)
			} else {
				dst = append(dst, raw[i:i+size]...)
			}
			i += size
		}
	}
	return dst, hasSGR
}

// decoded makes text decoded from a log line (a JSON string value that
// fields mode shows, its escapes such as "\u001b" now the characters they
// stand for) safe to draw the one way log text is: sanitize's, so that a
// control character shows as it does in the raw view (ESC "␛", BEL "␇",
// C1 and bidirectional controls U+FFFD). A decoded colour sequence is not
// obeyed: its ESC shows as "␛" too (only the line's own bytes carry
// colours, casebook C02, C39).
func decoded(s string) string {
	out, sgr := sanitize(nil, []byte(s))
	if sgr {
		out = bytes.ReplaceAll(out, []byte{0x1b}, []byte(escPicture))
	}
	return string(out)
}

// lastSegment returns what is left of a line after its carriage returns:
// the last segment that is not empty ("x\r" is "x"), or the line itself
// when it has none.
func lastSegment(raw []byte) []byte {
	for {
		i := lastIndexCR(raw)
		if i < 0 {
			return raw
		}
		if i < len(raw)-1 {
			return raw[i+1:]
		}
		raw = raw[:i]
	}
}

func lastIndexCR(b []byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '\r' {
			return i
		}
	}
	return -1
}

// sgrLen returns the length of the colour sequence b starts with (ESC [,
// parameters made of digits, ';' and ':', then 'm'), or 0 when b does not
// start with a well-formed one of at most maxSGR bytes.
func sgrLen(b []byte) int {
	if len(b) < 3 || b[0] != 0x1b || b[1] != '[' {
		return 0
	}
	for i := 2; i < len(b) && i < maxSGR; i++ {
		c := b[i]
		switch {
		case c == 'm':
			return i + 1
		case c >= '0' && c <= '9', c == ';', c == ':':
		default:
			return 0
		}
	}
	return 0
}

// stripSGR returns text without its colour sequences; text is sanitised
// (every ESC in it starts a well-formed SGR sequence). dst is appended to.
func stripSGR(dst, text []byte) []byte {
	for i := 0; i < len(text); {
		if text[i] == 0x1b {
			if n := sgrLen(text[i:]); n > 0 {
				i += n
				continue
			}
		}
		j := i + 1
		for j < len(text) && text[j] != 0x1b {
			j++
		}
		dst = append(dst, text[i:j]...)
		i = j
	}
	return dst
}

// isBidi reports the bidirectional formatting characters (Unicode's
// Bidi_Control property), which could make text display in another order
// than it is stored.
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
