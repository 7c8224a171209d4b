package views

import "strings"

// Sanitize replaces control characters (C0 including ESC, DEL, and C1) with
// U+FFFD, so that text from the cluster or a kubeconfig is drawn, never
// interpreted by the terminal (no cursor moves, colours, titles or
// clipboard writes from object names or messages).
func Sanitize(s string) string {
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
