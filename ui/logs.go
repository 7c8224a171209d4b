package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleet"
	"github.com/kyyard/kyyard/views/logs"
)

// openLogs pushes the log viewer for a pod, a container or a workload
// (`l`, `p`) when the client can stream logs (it implements
// logs.Streamer). Asked for beside (`L`), it asks Panes to show it in the
// other pane (besideMsg), unless the screen reads one cluster of a fleet
// or several clusters' logs: the other pane reads the home context.
func (m *Model) openLogs(msg views.OpenLogsMsg) tea.Cmd {
	if msg.Beside && m.sess.hosted && m.routing == nil && len(msg.Across) == 0 {
		return func() tea.Msg { return besideMsg{logs: msg} }
	}
	if len(msg.Across) > 0 {
		return m.openLogsAcross(msg)
	}
	s, ok := m.vc.Client.(logs.Streamer)
	if !ok {
		m.status = views.StatusMsg{Text: "logs are not available with this client", Error: true}
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(logs.New(m.vc, s, msg.Request), false)
}

// openLogsAcross pushes the log viewer of objects of several clusters of
// the fleet, merged in timestamp order (views/fleet.Logs), each part read
// through its own cluster's client.
func (m *Model) openLogsAcross(msg views.OpenLogsMsg) tea.Cmd {
	var parts []fleet.LogPart
	contexts := map[string]bool{}
	for _, a := range msg.Across {
		vc, err := m.memberVC(a.Context)
		if err != nil {
			m.status = views.StatusMsg{Error: true, Text: err.Error()}
			return nil
		}
		s, ok := vc.Client.(logs.Streamer)
		if !ok {
			m.status = views.StatusMsg{Error: true, Text: "logs are not available with the client of context " + views.Sanitize(a.Context)}
			return nil
		}
		parts = append(parts, fleet.LogPart{Context: a.Context, Streamer: s, Request: a.Request})
		contexts[a.Context] = true
	}
	what := fmt.Sprintf("%d %s", len(parts), msg.Request.Kind)
	if first := msg.Across[0].Request; len(contexts) == len(parts) && allNamed(msg.Across, first.Namespace, first.Name) {
		what = fmt.Sprintf("%s/%s (%s)", first.Kind, first.Name, first.Namespace) // one workload, several clusters
	}
	what += fmt.Sprintf(" in %d contexts", len(contexts))
	m.status = views.StatusMsg{}
	return m.push(logs.New(m.vc, fleet.NewLogs(parts), msg.Request, logs.Across(what)), false)
}

// allNamed reports whether every object is namespace/name.
func allNamed(objs []views.ContextLogRequest, namespace, name string) bool {
	for _, o := range objs {
		if o.Request.Namespace != namespace || o.Request.Name != name {
			return false
		}
	}
	return true
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
