package ui

// The mouse (issue 27), off unless --mouse or the configuration file's
// mouse: true turn it on (so that, off, the terminal's own text selection
// is untouched): the root hands the top screen its mouse events with Y
// counted from the screen's first line (below the header and the title
// bar); a screen that takes no mouse ignores them. Nothing reaches a
// screen under the prompt, the help or a picker.

import (
	tea "github.com/charmbracelet/bubbletea"
)

// mouse hands a mouse event to the top screen, its Y made the screen's:
// counted from below the header and the title bar (every line of the
// chrome but the status line).
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if msg.Action == tea.MouseActionPress {
		m.dropChord() // a click or the wheel: the keys' chord is dropped
	}
	above := m.chrome() - 1
	if m.prompting || m.overlay != nil || m.help || m.quitAsked != "" || msg.Y < above {
		return nil
	}
	msg.Y -= above
	return m.toTop(msg)
}
