package inventory

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// readOnlyText says why an action key does nothing in read-only mode.
func readOnlyText(a kube.Action) string {
	return fmt.Sprintf("%s is disabled: kyyard runs read-only (--readonly or the context's setting); nothing was sent", a)
}

// operate asks the root for the confirmation screen of action a on the
// marked rows, or on the cursor row when none is marked. In read-only
// mode it only says why it is disabled: no request at all.
func (m *Model) operate(a kube.Action) tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	kind := m.info.ID
	if !m.info.Supports(a) {
		return views.Status(m.info.NotOffered(a), false)
	}
	rows := m.markedRows()
	if len(rows) == 0 {
		rows = []*kube.Row{row}
	}
	msg := views.OperateMsg{Action: a, Replicas: -1}
	for _, r := range rows {
		msg.Targets = append(msg.Targets, kube.ObjectRef{Kind: kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID})
	}
	// Refused before any request: each object's refusal goes to the
	// history.
	if m.vc.ReadOnly() {
		return views.Refuse(a, kube.ReasonReadOnly, readOnlyText(a), msg.Targets...)
	}
	if why := m.off[a]; why != "" {
		return views.Refuse(a, kube.ReasonForbidden, fmt.Sprintf("%s is disabled: %s; nothing was sent", a, why), msg.Targets...)
	}
	if a == kube.ActionScale && len(rows) == 1 {
		msg.Replicas = m.desired(rows[0])
	}
	return func() tea.Msg { return msg }
}

// rollout asks the root for the rollout screen of the cursor row's workload.
func (m *Model) rollout() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if !m.info.Capabilities.Has(kube.CanRollout) {
		return views.Status(fmt.Sprintf("R follows a rollout: %s", m.info.NotOffered("rollout")), false)
	}
	msg := views.OpenRolloutMsg{Ref: kube.WorkloadRef{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name}, UID: row.UID}
	return func() tea.Msg { return msg }
}

// markedRows returns the marked rows among those shown, in display order.
func (m *Model) markedRows() []*kube.Row {
	if len(m.marks) == 0 || m.ix == nil {
		return nil
	}
	var out []*kube.Row
	for _, i := range m.shown {
		if r := &m.ix.rows[i]; m.marks[rowKey(r)] {
			out = append(out, r)
		}
	}
	return out
}

// desired reads the replicas a row wants from its READY cell ("2/3": 3),
// -1 when there is none.
func (m *Model) desired(r *kube.Row) int32 {
	for i, c := range m.table.Columns {
		if c.Name != "READY" || i >= len(r.Cells) {
			continue
		}
		_, want, ok := strings.Cut(r.Cells[i].Text, "/")
		if n, err := strconv.Atoi(want); ok && err == nil {
			return int32(n)
		}
	}
	return -1
}

// disabled returns b with its help saying it is disabled: in read-only
// mode, or because the API server denies it (forbidden).
func disabled(b key.Binding, readOnly, forbidden bool) key.Binding {
	h := b.Help()
	switch {
	case readOnly:
		b.SetHelp(h.Key, h.Desc+" (off: read-only)")
	case forbidden:
		b.SetHelp(h.Key, h.Desc+" (off: forbidden)")
	}
	return b
}

// permissionsRead returns, when the actions' permissions are to be read
// with the next snapshot (the first after Init, when the client can say:
// views.Permitter, and the kind's plugin declares an action Permissions
// asks about), the read; nil otherwise (read-only mode disables every
// action without asking).
func (m *Model) permissionsRead() func(context.Context) map[kube.Action]string {
	p, ok := m.vc.Client.(views.Permitter)
	if !ok || m.off != nil || m.vc.ReadOnly() || kube.SeveralNamespaces(m.namespace) {
		// Several namespaces: what one may do differs between them; each
		// action's guards ask in the row's own namespace when it runs.
		return nil
	}
	kind, ns := m.info.ID, m.namespace
	has := false
	for _, a := range kube.KindActions() {
		has = has || m.info.Supports(a)
	}
	if !has {
		return nil
	}
	return func(ctx context.Context) map[kube.Action]string {
		off := p.Permissions(ctx, kind, ns)
		if off == nil {
			off = map[kube.Action]string{}
		}
		return off
	}
}

// actions asks the root for the cursor row's action list (a), with the
// reason each action is disabled.
func (m *Model) actions() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	msg := views.ActionsMsg{Target: kube.ObjectRef{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name, UID: row.UID},
		Kind: m.info, Replicas: m.desired(row)}
	return func() tea.Msg { return msg }
}
