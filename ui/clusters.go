package ui

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/clusters"
)

// WithFleet chooses contexts (cmd: --contexts, --fleet): the clusters
// overview (`:clusters`) shows them, in that order (without it, every
// context of the kubeconfig), and every kind opens across them (fleet.go).
func WithFleet(contexts []string) Option {
	return func(m *Model) { m.fleet, m.fleetOn = append([]string(nil), contexts...), true }
}

// WithNamespaceChosen says the namespace kyyard starts in was chosen on
// the command line (cmd: -n, -A): a fleet started with it (WithFleet)
// reads that namespace in every context; without it each context's own
// (views.OwnNamespaces).
func WithNamespaceChosen() Option {
	return func(m *Model) { m.nsChosen = true }
}

// WithFleetName names the configuration file's fleet WithFleet's contexts
// are (--fleet), for the title bar ("@fleet prod").
func WithFleetName(name string) Option {
	return func(m *Model) { m.fleetName = name }
}

// fleets is a kubeconfig that also knows the configuration file's fleets
// (cmd's); `:fleet` needs it.
type fleets interface {
	// Fleets names the fleets, sorted.
	Fleets() []string
	// Fleet returns a fleet's contexts, chosen as --fleet chooses them.
	Fleet(name string) ([]string, error)
}

// fleetNames are what `:fleet ` completes.
func (m *Model) fleetNames(string) []string {
	if f, ok := m.kubeconfig.(fleets); ok {
		return f.Fleets()
	}
	return nil
}

// chooseFleet runs `:fleet NAME`: the clusters overview of that fleet
// (and kinds across it from then on); `:fleet` alone comes back to the
// fleet chosen last (after :ctx left it), or says there is none.
func (m *Model) chooseFleet(l commandLine) tea.Cmd {
	if len(l.args) == 0 {
		if m.fleet == nil {
			cmd := m.openClusters(l)
			if m.kubeconfig != nil {
				m.status = views.StatusMsg{Text: "no fleet chosen: :fleet NAME, --contexts, or tab on several in :ctx; here every context"}
			}
			return cmd
		}
		m.fleetOn, m.namespace = true, views.OwnNamespaces
		return m.openClusters(l)
	}
	f, ok := m.kubeconfig.(fleets)
	if !ok {
		m.status = views.StatusMsg{Error: true, Text: "no fleets: kyyard was started without a kubeconfig"}
		return nil
	}
	names, err := f.Fleet(l.args[0])
	if err != nil {
		m.status = views.StatusMsg{Error: true, Text: err.Error()}
		return nil
	}
	if m.fleetName != l.args[0] || !m.fleetOn {
		m.leaveFleet() // its connections are the old fleet's
	}
	m.fleet, m.fleetName, m.fleetOn = names, l.args[0], true
	m.namespace = views.OwnNamespaces
	return m.openClusters(l)
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
