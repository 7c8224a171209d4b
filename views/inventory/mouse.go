package inventory

// The mouse (issue 27; off unless --mouse or the configuration file's
// mouse: true turn it on): a click on a row moves the cursor there, a click
// on a column's header sorts by it (again: the other way), the wheel
// scrolls. The root hands the screen its mouse events with X and Y counted
// from the screen's own top-left cell (views.MouseMsg).

import (
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// wheelRows is how many rows one turn of the wheel scrolls.
const wheelRows = 3

// mouse acts on one mouse event; Y is counted from the screen's first
// line (the notice line), X from its first column.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.typing || !m.loaded || len(m.shown) == 0 {
		return nil
	}
	switch {
	case msg.Button == tea.MouseButtonWheelUp:
		m.cursor -= wheelRows
		m.offset -= wheelRows
	case msg.Button == tea.MouseButtonWheelDown:
		m.cursor += wheelRows
		m.offset += wheelRows
	case msg.Button == tea.MouseButtonLeft && msg.Action == tea.MouseActionPress:
		header := 1 + len(m.stateLines(m.vc.Width))
		switch {
		case msg.Y == header:
			m.sortByClick(msg.X)
			return nil
		case msg.Y > header && msg.Y <= header+m.bodyHeight():
			row := m.offset + msg.Y - header - 1
			if row >= len(m.shown) {
				return nil
			}
			m.cursor = row
		default:
			return nil
		}
	default:
		return nil
	}
	m.offset = max(min(m.offset, len(m.shown)-m.bodyHeight()), 0)
	m.cursor = max(min(m.cursor, len(m.shown)-1), 0)
	m.scroll()
	return nil
}

// sortByClick sorts by the column whose header is drawn at cell x (the
// marker column sorts by nothing), as > and < would step to it; a second
// click on the sort column flips the order.
func (m *Model) sortByClick(x int) {
	visible := m.visibleCells(m.lay)
	widths, shown := m.lay.widths(visible, m.vc.Width)
	left := 0
	for c := 0; c < shown; c++ {
		if x >= left && x < left+widths[c] {
			if c == 0 {
				return // the cursor and health markers
			}
			m.sortOn(strings.TrimRight(m.lay.headers[c], "↑↓"))
			return
		}
		left += widths[c] + columnGap
	}
}
