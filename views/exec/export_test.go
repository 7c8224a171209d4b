package exec

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// EndedText is endedText's status line, for tests.
func EndedText(res kube.ExecResult, err error) string {
	s, _ := endedText(res, err)
	return s
}

// EndSession gives the screen the end of its handed-off session.
func EndSession(m *Model, res kube.ExecResult, err error) (views.Screen, tea.Cmd) {
	return m.Update(endedMsg{owner: m, res: res, err: err})
}
