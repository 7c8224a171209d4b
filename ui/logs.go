package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
)

// openLogs pushes the log viewer for a pod, a container or a workload
// (`l`, `p`) when the client can stream logs (it implements
// logs.Streamer).
func (m *Model) openLogs(msg views.OpenLogsMsg) tea.Cmd {
	s, ok := m.vc.Client.(logs.Streamer)
	if !ok {
		m.status = views.StatusMsg{Text: "logs are not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(logs.New(m.vc, s, msg.Request), false)
}

// closeScreens tells the screens that leave the stack (views.Closer) to
// stop what they started.
func closeScreens(screens ...views.Screen) {
	for _, s := range screens {
		if c, ok := s.(views.Closer); ok {
			c.Close()
		}
	}
}
