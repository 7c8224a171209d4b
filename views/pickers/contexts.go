package pickers

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// NewContexts returns the kubeconfig context picker over names (as
// views.Kubeconfig.Contexts returns them); current, the context in use, is
// marked and under the cursor. Picking sends views.SwitchContextMsg; tab
// marks several contexts, and enter with two or more marked sends
// views.ChooseContextsMsg (a fleet of them); esc sends views.BackMsg. Only
// listed contexts can be picked.
func NewContexts(vc *views.Context, names []string, current string) *Model {
	m := newModel(vc, "context", current, func(name string) tea.Cmd {
		return func() tea.Msg { return views.SwitchContextMsg{Context: name} }
	})
	m.pickMany = func(names []string) tea.Cmd {
		return func() tea.Msg { return views.ChooseContextsMsg{Contexts: names} }
	}
	m.title = "context"
	items := make([]item, len(names))
	for i, n := range names {
		items[i] = item{label: n, value: n}
	}
	if len(names) == 0 {
		m.notice = "The kubeconfig names no context."
	}
	m.setItems(items)
	return m
}
