package operate

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
)

// listRow is one action of the list and what its plan said.
type listRow struct {
	action kube.Action
	// key is the tables' key of the action in force (views.Actions, as
	// the key map binds it), "" when unbound.
	key     string
	planned bool
	// why is the reason the action is disabled ("" when it may be done);
	// warn the warnings it would ask to confirm; nothing, when set, says
	// the object already is as the action asks (already paused).
	why, warn, nothing string
	// reason is why's code (invalid, read_only, forbidden, ...).
	reason kube.Reason
}

// List is the action list of one object (`a`): every action, each one
// planned (kube.Client.PlanOperation, which writes nothing), and the reason
// each disabled one is: the kind has no such action, read-only mode, the
// access review, the action's own rules (a paused Deployment, no previous
// revision). enter opens the chosen action's confirmation. Use NewList.
type List struct {
	vc       *views.Context
	op       Operator
	target   kube.ObjectRef
	replicas int32
	rows     []listRow
	cursor   int
	token    int
	note     string
	offset   int
	keys     ListKeys
}

// listPlanMsg carries one action's plan.
type listPlanMsg struct {
	owner    *List
	token    int
	i        int
	verdicts kube.Verdicts
	err      error
}

// NewList returns the action list of msg's object, planned through op.
func NewList(vc *views.Context, op Operator, msg views.ActionsMsg) *List {
	l := &List{vc: vc, op: op, target: msg.Target, replicas: msg.Replicas, keys: views.BoundKeys(vc, ListKeyTable, DefaultListKeys)}
	// The key column names the tables' keys in force (the key map's), an
	// unbound action none.
	table := views.BoundKeys(vc, inventory.KeyTable, inventory.DefaultKeys)
	for i, ak := range views.Actions {
		a := ak.Action
		r := listRow{action: a}
		if i < len(table.Operate) && table.Operate[i].Binding.Enabled() {
			r.key = table.Operate[i].Binding.Help().Key
		}
		switch {
		case !msg.Kind.Supports(a):
			r.planned, r.why, r.reason = true, "not offered on "+string(msg.Target.Kind), kube.ReasonInvalid
		case vc.ReadOnly():
			r.planned, r.why, r.reason = true, "kyyard runs read-only", kube.ReasonReadOnly
		}
		l.rows = append(l.rows, r)
	}
	return l
}

// Init plans every action the kind has (nothing in read-only mode).
func (l *List) Init() tea.Cmd {
	l.token++
	owner, token, op := l, l.token, l.op
	var cmds []tea.Cmd
	for i, r := range l.rows {
		if r.planned {
			continue
		}
		o := kube.Operation{Ref: l.target, Action: r.action, Replicas: max(l.replicas, 0)}
		cmds = append(cmds, func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			vs, err := op.PlanOperation(ctx, o)
			return listPlanMsg{owner: owner, token: token, i: i, verdicts: vs, err: err}
		})
	}
	return tea.Batch(cmds...)
}

// Update takes the plans and keys.
func (l *List) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case listPlanMsg:
		if msg.owner == l && msg.token == l.token {
			r := &l.rows[msg.i]
			r.planned = true
			switch ref := msg.verdicts.Refusal(); {
			case msg.err != nil:
				r.why, r.reason = views.ErrText(msg.err), kube.ReasonOf(msg.err)
				if r.reason == "" {
					r.reason = kube.ReasonError
				}
			case ref != nil:
				r.why, r.reason = fmt.Sprintf("%s: %s", ref.Reason, views.Sanitize(ref.Detail)), ref.Reason
			}
			for _, v := range msg.verdicts.Warnings() {
				r.warn = fmt.Sprintf("asks to confirm: %s", views.Sanitize(v.Sentence))
			}
			if s, ok := msg.verdicts.NothingToDo(); ok {
				r.nothing = views.Sanitize(s)
			}
		}
	case tea.KeyMsg:
		l.note = ""
		switch {
		case key.Matches(msg, l.keys.Up):
			l.cursor = max(l.cursor-1, 0)
		case key.Matches(msg, l.keys.Down):
			l.cursor = min(l.cursor+1, len(l.rows)-1)
		case key.Matches(msg, l.keys.Open):
			r := l.rows[l.cursor]
			if !r.planned {
				l.note = "still checking " + string(r.action)
				return l, nil
			}
			if r.why != "" {
				// Refused before any request: the history keeps it, as it
				// keeps a write key refused on the table.
				l.note = fmt.Sprintf("%s is disabled: %s", r.action, r.why)
				return l, views.Report(views.StatusMsg{}, kube.OperateOutcome{Op: kube.Operation{Ref: l.target, Action: r.action},
					Reason: r.reason, Detail: r.why + " (not sent)"})
			}
			if r.nothing != "" {
				l.note = r.nothing
				return l, nil
			}
			open := views.OperateMsg{Action: r.action, Targets: []kube.ObjectRef{l.target}, Replicas: l.replicas, Replace: true}
			return l, func() tea.Msg { return open }
		}
	}
	return l, nil
}

// View lists the actions: key, name, and ✓ or ✗ with the reason.
func (l *List) View() string {
	st := l.vc.Styles
	body := []string{fmt.Sprintf("actions on %s", objectName(l.target))}
	for i, r := range l.rows {
		text := fmt.Sprintf("%-6s  %-9s  ", r.key, r.action)
		switch {
		case !r.planned:
			text = st.Muted.Render(text + "… checking")
		case r.why != "":
			text = st.Muted.Render(text + "✗ " + r.why)
		case r.nothing != "":
			text = st.Muted.Render(text + "– " + r.nothing)
		case r.warn != "":
			text += "! " + r.warn
		default:
			text += "✓ may be done"
		}
		if i == l.cursor {
			text = "> " + text
		} else {
			text = "  " + text
		}
		body = append(body, text)
	}
	if l.note != "" {
		body = append(body, "", st.Error.Render(l.note))
	}
	help := views.Hints(views.Hint("choose", l.keys.Up, l.keys.Down), views.Hint("confirm it", l.keys.Open), views.Hint("back", l.vc.Keys.Back))
	return views.Page(st, l.vc.Width, l.vc.Height, body, help, &l.offset)
}

// Title is "actions <kind>/<name>(<namespace>)".
func (l *List) Title() string {
	return fmt.Sprintf("actions %s/%s(%s)", l.target.Kind, l.target.Name, l.target.Namespace)
}

// Bindings are the list's keys, for the help overlay.
func (l *List) Bindings() []key.Binding {
	return []key.Binding{views.HelpOf("choose an action", l.keys.Up, l.keys.Down), l.keys.Open}
}

// Capturing is false: the list takes no text.
func (l *List) Capturing() bool { return false }
