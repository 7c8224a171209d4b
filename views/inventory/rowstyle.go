package inventory

import (
	"strings"

	"github.com/charmbracelet/lipgloss"

	"github.com/kyyard/kyyard/kube"
)

// rowStyle draws the rows of one frame in a style without lipgloss
// measuring each of them: lipgloss.Style.Render measures every line it
// renders grapheme cluster by grapheme cluster, which for a screen of
// table rows (the wide view's sparkline blocks especially) costs more than
// the rest of the frame. A style of colours and attributes only, as the
// rows' are, wraps a line in the same escape sequences whatever the line
// holds, so they are found once, by rendering a one-character probe, and
// put around each row.
type rowStyle struct {
	style     lipgloss.Style
	pre, post string
	// probe is false when the probe did not come back whole around its
	// character, or the style underlines or strikes through (lipgloss
	// styles each character and space of those apart): Render then.
	probe bool
}

// rowProbe is the probe's character: one cell, no escaping.
const rowProbe = "x"

func newRowStyle(s lipgloss.Style) rowStyle {
	pre, post, ok := strings.Cut(s.Render(rowProbe), rowProbe)
	ok = ok && !strings.Contains(post, rowProbe) && !s.GetUnderline() && !s.GetStrikethrough()
	return rowStyle{style: s, pre: pre, post: post, probe: ok}
}

// render returns line in the style, exactly as s.Render(line) would. A
// line lipgloss would change besides styling (tabs it expands, more than
// one line) is left to it.
func (r rowStyle) render(line string) string {
	if !r.probe || line == "" || strings.ContainsAny(line, "\t\n\r") {
		return r.style.Render(line)
	}
	return r.pre + line + r.post
}

// rowStyles are the cursor row's style and each health's, found once per
// screen (rowStyles): the theme is built once, at start.
type rowStyles struct {
	selected rowStyle
	health   [4]rowStyle
}

// rowStyles returns the screen's row styles, found on its first frame.
func (m *Model) rowStyles() *rowStyles {
	if m.styled == nil {
		st := m.vc.Styles
		m.styled = &rowStyles{selected: newRowStyle(st.Selected)}
		for h := range m.styled.health {
			m.styled.health[h] = newRowStyle(st.Health(kube.Health(h)))
		}
	}
	return m.styled
}
