package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/filecopy"
	"github.com/kyyard/kyyard/views/forwards"
	"github.com/kyyard/kyyard/views/portforward"
)

// openPortForward pushes the port-forward dialog (`shift+f`) when the
// client can forward (it implements portforward.Forwarder).
func (m *Model) openPortForward(msg views.OpenPortForwardMsg) tea.Cmd {
	fw, ok := m.vc.Client.(portforward.Forwarder)
	if !ok {
		m.status = views.StatusMsg{Text: "port-forwards are not available", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(portforward.New(m.vc, fw, msg), false)
}

// openCopy pushes the file copy screen (`T`) when the client copies
// files (it implements filecopy.Copier).
func (m *Model) openCopy(msg views.OpenCopyMsg) tea.Cmd {
	cp, ok := m.vc.Client.(filecopy.Copier)
	if !ok {
		m.status = views.StatusMsg{Text: "file copies are not available", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(filecopy.New(m.vc, cp, msg), false)
}

// openForwards shows the `:pf` list when the client runs forwards: afresh
// for the command (fresh), else pushed.
func (m *Model) openForwards(fresh bool) tea.Cmd {
	fw, ok := m.vc.Client.(forwards.Forwards)
	if !ok {
		m.status = views.StatusMsg{Text: "port-forwards are not available", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.place(forwards.New(m.vc, fw), fresh)
}
