package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/filecopy"
	"github.com/kyyard/kyyard/views/forwards"
	"github.com/kyyard/kyyard/views/ownertree"
	"github.com/kyyard/kyyard/views/portforward"
)

// pushWith pushes the screen screen makes over the client as C (the
// interface the screen reads and writes through), or says on the status
// line that what is not available with this client.
func pushWith[C any](m *Model, what string, screen func(C) views.Screen) tea.Cmd {
	c, ok := m.vc.Client.(C)
	if !ok {
		m.status = views.StatusMsg{Text: what + " are not available", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(screen(c), false)
}

// openPortForward pushes the port-forward dialog (`shift+f`) when the
// client can forward (it implements portforward.Forwarder).
func (m *Model) openPortForward(msg views.OpenPortForwardMsg) tea.Cmd {
	return pushWith(m, "port-forwards", func(fw portforward.Forwarder) views.Screen { return portforward.New(m.vc, fw, msg) })
}

// openCopy pushes the file copy screen (`T`) when the client copies
// files (it implements filecopy.Copier).
func (m *Model) openCopy(msg views.OpenCopyMsg) tea.Cmd {
	return pushWith(m, "file copies", func(cp filecopy.Copier) views.Screen { return filecopy.New(m.vc, cp, msg) })
}

// openOwnerTree pushes the owner tree screen (`o`) when the client reads
// owner trees (it implements ownertree.Reader).
func (m *Model) openOwnerTree(msg views.OpenOwnerTreeMsg) tea.Cmd {
	return pushWith(m, "owner trees", func(rd ownertree.Reader) views.Screen { return ownertree.New(m.vc, rd, msg) })
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
