package operate

import (
	"context"
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// created returns the object the one action shown created (a trigger's
// Job: kube.OperateOutcome.Created), and whether there is one: the result
// page then opens its pods with enter.
func (m *Model) created() (kube.ObjectRef, bool) {
	if m.phase != phaseResult || len(m.items) != 1 {
		return kube.ObjectRef{}, false
	}
	out := m.items[0].out
	return out.Created, out.OK() && out.Written && out.Created.Name != ""
}

// openCreated opens what the created object opens (a Job's pods, through
// the client's DrillDown, as enter on its row does) instead of this
// screen; nil when nothing was created. A Job just made may not have its
// pods yet: the inventory shows them as they come.
func (m *Model) openCreated() tea.Cmd {
	ref, ok := m.created()
	if !ok {
		return nil
	}
	client := m.vc.Client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		req, err := client.DrillDown(ctx, ref.Kind, ref.Namespace, ref.Name)
		if err != nil {
			return views.StatusMsg{Error: true, Text: views.Sanitize(fmt.Sprintf("cannot open %s/%s: %s (%s)",
				ref.Kind, ref.Name, kube.ReasonOf(err).Sentence(), err))}
		}
		return views.OpenKindMsg{Kind: req.Kinds[0], Namespace: req.Namespace, Selector: req.Selector,
			Parent: string(ref.Kind) + "/" + ref.Name, Replace: true}
	}
}
