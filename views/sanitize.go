package views

import (
	"strings"
	"unicode/utf8"
)

// Sanitize replaces control characters (C0 including ESC, DEL, and C1),
// Unicode's bidirectional formatting characters (U+061C, U+200E-U+200F,
// U+202A-U+202E, U+2066-U+2069, which can make text display in another order
// than it is stored, the "Trojan Source" trick) and bytes that are not UTF-8
// with U+FFFD, so that text from the cluster or a kubeconfig is drawn, never
// interpreted by the terminal (no cursor moves, colours, titles or
// clipboard writes from object names or messages), and is measured as wide
// as it is drawn.
func Sanitize(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	if strings.IndexFunc(s, isControl) < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return '\uFFFD'
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return r < 0x20 || (r >= 0x7f && r < 0xa0) || isBidi(r)
}

// isBidi reports the bidirectional formatting characters (Unicode's
// Bidi_Control property).
func isBidi(r rune) bool {
	return r == 0x061c || r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}
