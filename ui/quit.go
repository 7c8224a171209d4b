package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// quit ends the program, unless a screen on the stack, or on the other
// pane's of a split, holds unsaved work (views.Unsaved): then the status
// line asks first, and ctrl+c again or y quits (`:q!` quits without
// asking).
func (m *Model) quit() tea.Cmd {
	what := m.unsaved()
	if o := m.other(); what == "" && o != nil {
		if what = o.unsaved(); what != "" {
			what += " in the other pane"
		}
	}
	if what != "" {
		m.quitAsked = what
		m.status = views.StatusMsg{Text: "quit and lose " + what + "? ctrl+c or y quits, any other key stays", Error: true}
		return nil
	}
	return m.exit()
}

// answerQuit takes the key that answers the question of quit: ctrl+c again
// or y quits, any other key stays.
func (m *Model) answerQuit(msg tea.KeyMsg) tea.Cmd {
	asked := m.quitAsked
	m.quitAsked, m.status = "", views.StatusMsg{}
	if msg.Type == tea.KeyCtrlC || msg.String() == "y" || msg.String() == "Y" {
		return m.exit()
	}
	m.status = views.StatusMsg{Text: "not quitting: " + asked + " kept"}
	return nil
}

// unsaved describes the unsaved work of the topmost screen on the stack
// that holds some (views.Unsaved), "" when none does.
func (m *Model) unsaved() string {
	for i := len(m.stack) - 1; i >= 0; i-- {
		if u, ok := m.stack[i].(views.Unsaved); ok {
			if what := u.Unsaved(); what != "" {
				return what
			}
		}
	}
	return ""
}

// closesWork reports whether what (a `:` command, the namespace picker)
// would close a screen holding unsaved work; if so the status line says
// so and nothing is closed: the person applies or discards it first.
func (m *Model) closesWork(what string) bool {
	work := m.unsaved()
	if work == "" {
		return false
	}
	m.status = views.StatusMsg{Error: true, Text: what + " would close " + work + ": apply or discard it first (esc)"}
	return true
}

// forwardStopper is a client whose port-forwards end with kyyard
// (*kube.Client).
type forwardStopper interface {
	StopAllPortForwards()
}

// exit stops every port-forward, every pane's (they end when kyyard ends;
// Close stops them too) and quits.
func (m *Model) exit() tea.Cmd {
	for _, p := range m.everyPane() {
		if s, ok := p.vc.Client.(forwardStopper); ok {
			s.StopAllPortForwards()
		}
	}
	return tea.Quit
}
