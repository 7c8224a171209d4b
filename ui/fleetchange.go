package ui

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleetchange"
	"github.com/kyyard/kyyard/views/workload"
)

// One change applied cluster by cluster: `e` on the drift screen opens the
// workload form on the first context's workload (views.OpenChangeAcrossMsg);
// its preview key hands the edits back (planAcrossMsg), and the plan
// (views/fleetchange) reads, carries and dry-runs them in every context,
// then writes them one cluster at a time.

// planAcrossMsg carries the form's edits to the plan.
type planAcrossMsg struct {
	ref      kube.WorkloadRef
	contexts []string
	change   fleetchange.Change
}

// changeAcross opens the form of a change across the fleet, or its plan.
func (m *Model) changeAcross(msg tea.Msg) tea.Cmd {
	if m.across == nil {
		m.status = views.StatusMsg{Error: true, Text: "no fleet is shown: a change across clusters starts from one (--contexts, :fleet NAME)"}
		return nil
	}
	switch msg := msg.(type) {
	case views.OpenChangeAcrossMsg:
		if msg.Restart {
			return m.openChangePlan(planAcrossMsg{ref: msg.Ref, contexts: msg.Contexts, change: fleetchange.Change{Restart: true}})
		}
		return m.openChangeForm(msg)
	case planAcrossMsg:
		return m.openChangePlan(msg)
	}
	return nil
}

// openChangeForm pushes the workload form on msg.Ref as its first context
// has it, in that context; its preview plans the change in every context.
func (m *Model) openChangeForm(msg views.OpenChangeAcrossMsg) tea.Cmd {
	source := msg.Contexts[0]
	vc, err := m.memberVC(source)
	if err != nil {
		m.status = views.StatusMsg{Error: true, Text: err.Error()}
		return nil
	}
	ed, ok := vc.Client.(workload.Editor)
	info, known := vc.Client.Kind(string(msg.Ref.Kind))
	if !ok || !known {
		m.status = views.StatusMsg{Error: true, Text: "the client of context " + views.Sanitize(source) + " edits no workloads"}
		return nil
	}
	form := workload.New(vc, ed, info, msg.Ref)
	ref, contexts := msg.Ref, msg.Contexts
	form.PlanAcross(func(base, edited kube.Workload) tea.Cmd {
		plan := planAcrossMsg{ref: ref, contexts: contexts, change: fleetchange.Change{Source: source, Base: base, Edited: edited}}
		return func() tea.Msg { return plan }
	})
	m.status = views.StatusMsg{Text: fmt.Sprintf("the change is edited as %s has it; ctrl+s plans it in %d contexts", views.Sanitize(source), len(contexts))}
	cmd := m.push(form, false)
	m.tags[len(m.tags)-1] = vc
	return cmd
}

// openChangePlan pushes the plan of the form's edits in every context.
func (m *Model) openChangePlan(msg planAcrossMsg) tea.Cmd {
	targets := make([]fleetchange.Target, len(msg.contexts))
	for i, name := range msg.contexts {
		targets[i].Context = name
		vc, err := m.memberVC(name)
		if err != nil {
			targets[i].Err = err
			continue
		}
		if ed, ok := vc.Client.(fleetchange.Editor); ok {
			targets[i].Editor = ed
		}
	}
	m.status = views.StatusMsg{}
	cmd := m.push(fleetchange.New(m.across.vc, msg.ref, msg.change, targets), false)
	m.tags[len(m.tags)-1] = m.across.vc
	return cmd
}

// closeFormBelow closes the workload form right below owner on the stack
// (views.CloseBelowMsg): its edits are applied by owner's plan.
func (m *Model) closeFormBelow(owner views.Screen) tea.Cmd {
	for i := 1; i < len(m.stack); i++ {
		if m.stack[i] != owner {
			continue
		}
		if _, ok := m.stack[i-1].(*workload.Model); ok && i-1 > 0 {
			closeScreens(m.stack[i-1])
			m.stack = append(m.stack[:i-1:i-1], m.stack[i:]...)
			m.tags = append(m.tags[:i-1:i-1], m.tags[i:]...)
		}
		return nil
	}
	return nil
}
