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

// headerLines are the lines above the top screen: the two header lines
// and the title bar.
const headerLines = 3

// mouse hands a mouse event to the top screen, its Y made the screen's.
func (m *Model) mouse(msg tea.MouseMsg) tea.Cmd {
	if m.prompting || m.overlay != nil || m.help || m.quitAsked != "" || msg.Y < headerLines {
		return nil
	}
	msg.Y -= headerLines
	return m.toTop(msg)
}
