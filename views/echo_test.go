package views_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// TestEcho: typed text is cleaned and cut with "…" to a third of the
// width, within EchoMin and EchoMax cells; short text stays whole.
func TestEcho(t *testing.T) {
	long := strings.Repeat("é", 5000)
	for _, c := range []struct {
		typed string
		width int
		cells int
	}{
		{long, 80, 26}, {long, 200, views.EchoMax}, {long, 30, views.EchoMin}, {long, 0, views.EchoMax},
		{"web", 80, 3}, {"a\x1b[2Jb", 80, 6},
	} {
		got := views.Echo(c.typed, c.width)
		if w := ansi.StringWidth(got); w != c.cells || strings.ContainsRune(got, '\x1b') {
			t.Errorf("Echo(%.10q, %d) = %q, %d cells, want %d", c.typed, c.width, got, w, c.cells)
		}
		if len(c.typed) > 100 && !strings.HasSuffix(got, "…") {
			t.Errorf("Echo(%.10q, %d) = %q, not cut with …", c.typed, c.width, got)
		}
	}
}
