package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/exec"
)

// openShell pushes the shell screen (views/exec) for a pod or container
// when the client can open sessions (exec.Execer). A client that cannot
// start debug containers (no exec.Debugger) gets no offer of one when the
// container has no shell: the screen says they are not available.
func (m *Model) openShell(msg views.OpenShellMsg) tea.Cmd {
	ex, ok := m.vc.Client.(exec.Execer)
	if !ok {
		m.status = views.StatusMsg{Text: "shells are not available with this client", Error: true}
		return nil
	}
	dbg, _ := m.vc.Client.(exec.Debugger)
	m.status = views.StatusMsg{}
	return m.push(exec.New(m.vc, ex, dbg, msg, &m.sess.shell), false)
}
