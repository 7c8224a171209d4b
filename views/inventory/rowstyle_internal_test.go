package inventory

import (
	"testing"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// TestRowStyleRendersAsLipgloss: in every colour profile, a row drawn with
// its style's escape sequences found once is byte for byte what
// lipgloss.Style.Render gives, for ASCII, wide characters, sparkline
// blocks, escapes the sanitiser kept, spaces, and lines lipgloss changes
// (tabs, several lines).
func TestRowStyleRendersAsLipgloss(t *testing.T) {
	styles := []lipgloss.Style{
		lipgloss.NewStyle(),
		lipgloss.NewStyle().Foreground(lipgloss.Color("#ff0000")),
		lipgloss.NewStyle().Foreground(lipgloss.Color("#ffffff")).Background(lipgloss.Color("#005f87")),
		lipgloss.NewStyle().Foreground(lipgloss.Color("3")).Bold(true),
		lipgloss.NewStyle().Padding(0, 1),
		lipgloss.NewStyle().Underline(true),
		lipgloss.NewStyle().Strikethrough(true).Foreground(lipgloss.Color("2")),
		lipgloss.NewStyle().Italic(true).Reverse(true).Faint(true).Blink(true),
	}
	lines := []string{"", "web-1  1/1  Running  0  12m", "  leading and trailing  ", "한글 テスト 🎉 x",
		"cpu ▁▂▃▄▅▆▇█ mem ▁▁▂", "a\tb", "two\nlines", "x"}
	for _, p := range []termenv.Profile{termenv.Ascii, termenv.ANSI, termenv.ANSI256, termenv.TrueColor} {
		lipgloss.SetColorProfile(p)
		for i, s := range styles {
			r := newRowStyle(s)
			for _, l := range lines {
				if got, want := r.render(l), s.Render(l); got != want {
					t.Errorf("profile %v style %d line %q: got %q, want %q", p, i, l, got, want)
				}
			}
		}
	}
	lipgloss.SetColorProfile(termenv.Ascii)
}
