package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/clusters"
)

// WithFleet names the contexts the clusters overview (`:clusters`) shows,
// in that order (cmd: --contexts, --fleet); without it, every context of
// the kubeconfig.
func WithFleet(contexts []string) Option {
	return func(m *Model) { m.fleet = append([]string(nil), contexts...) }
}

// openClusters starts the clusters overview afresh over the fleet's
// contexts (else the kubeconfig's), the context in use marked.
func (m *Model) openClusters(_ commandLine) tea.Cmd {
	if m.kubeconfig == nil {
		m.status = noKubeconfig
		return nil
	}
	names, current, err := m.kubeconfig.Contexts()
	if err != nil {
		m.status = views.StatusMsg{Error: true, Text: "cannot read the kubeconfig's contexts: " + err.Error()}
		return nil
	}
	if m.context != "" {
		current = m.context
	}
	if m.fleet != nil {
		names = m.fleet
	}
	m.status = views.StatusMsg{}
	return m.afresh(clusters.New(m.vc, m.kubeconfig, names, current))
}
