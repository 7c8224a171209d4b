package views

import (
	"strings"
	"unicode/utf8"
)

// Sanitize replaces control characters (C0 including ESC, DEL, and C1) and
// bytes that are not UTF-8 with U+FFFD, so that text from the cluster or a
// kubeconfig is drawn, never interpreted by the terminal (no cursor moves,
// colours, titles or clipboard writes from object names or messages), and
// is measured as wide as it is drawn.
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

func isControl(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }
