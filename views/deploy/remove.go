package deploy

import (
	"context"
	"fmt"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// RemoveModel is the remove confirmation of one kyyard-managed instance
// (`ctrl+d` on :apps): PlanRemove's steps as what will be deleted and what
// is kept (claims), the instance name typed to confirm, then Remove's live
// steps. Use NewRemove.
type RemoveModel struct {
	vc                  *views.Context
	r                   Remover
	namespace, instance string
	token               int
	planning            bool
	plan                kube.DeployResult
	err                 error
	input               textinput.Model
	note                string
	run                 *run
	offset              int
	keys                RemoveKeys
}

// NewRemove returns the confirmation of removing namespace/instance
// through r; it plans at Init.
func NewRemove(vc *views.Context, r Remover, namespace, instance string) *RemoveModel {
	in := textinput.New()
	in.Prompt = ""
	in.Cursor.SetMode(cursor.CursorStatic)
	in.TextStyle = vc.Styles.Prompt
	in.Width = max(len(instance), 3) + 2
	return &RemoveModel{vc: vc, r: r, namespace: namespace, instance: instance, input: in, planning: true,
		keys: views.BoundKeys(vc, RemoveKeyTable, DefaultRemoveKeys)}
}

// Init plans the remove (once).
func (m *RemoveModel) Init() tea.Cmd {
	if !m.planning {
		return nil
	}
	m.token++
	return planRemoveCmd(m, m.token, m.r, m.namespace, m.instance)
}

// Close stops a remove still running.
func (m *RemoveModel) Close() { m.run.stop() }

// Update takes the plan, the steps and keys.
func (m *RemoveModel) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case planMsg:
		if msg.owner == m && msg.token == m.token {
			m.planning, m.plan, m.err = false, msg.remove, msg.err
			if m.err != nil {
				// Nothing can be removed: the refusal is the outcome.
				return m, views.Report(views.StatusMsg{},
					views.RefusedOutcome(instanceRef(m.namespace, m.instance), kube.ActionRemove, m.err, "nothing was deleted"))
			}
			if len(m.plan.Steps) > 0 {
				return m, m.input.Focus()
			}
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	if m.run != nil {
		if ours, cmd := m.run.update(msg); ours {
			if _, done := msg.(runDoneMsg); done {
				return m, m.finish()
			}
			return m, cmd
		}
	}
	return m, nil
}

// key handles a key: the screen's keys first, even while the instance
// name is typed; the others are typed.
func (m *RemoveModel) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case m.run != nil:
		switch {
		case key.Matches(msg, k.Back) && !m.run.done:
			m.note = "the remove is running: wait for its end"
		case key.Matches(msg, k.Back), key.Matches(msg, k.Remove) && m.run.done:
			return back
		case key.Matches(msg, k.Down):
			m.offset++
		case key.Matches(msg, k.Up):
			m.offset = max(m.offset-1, 0)
		}
		return nil
	case key.Matches(msg, k.Back):
		m.token++
		return tea.Batch(back, views.Status(fmt.Sprintf("remove of %s cancelled: nothing was deleted", views.Sanitize(m.instance)), false))
	case m.planning || m.err != nil || len(m.plan.Steps) == 0:
		return nil
	case key.Matches(msg, k.Remove):
		if m.input.Value() != m.instance {
			m.note = fmt.Sprintf("that is not %q: type the instance name exactly to confirm", m.instance)
			return nil
		}
		m.input.Blur()
		m.token++
		r, ns, inst := m.r, m.namespace, m.instance
		var cmd tea.Cmd
		left := func(r *run) kube.OperateOutcome { return removeOutcome(ns, inst, r) }
		m.run, cmd = startRun(m, m.token, m.plan.Steps, left, func(ctx context.Context, progress func(kube.DeployStep)) (kube.DeployResult, error) {
			return r.Remove(ctx, ns, inst, progress)
		})
		return cmd
	case key.Matches(msg, k.Down):
		m.offset++
		return nil
	case key.Matches(msg, k.Up):
		m.offset = max(m.offset-1, 0)
		return nil
	}
	m.note = ""
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	return cmd
}

// finish puts the outcome on the status line.
func (m *RemoveModel) finish() tea.Cmd {
	return report(removeOutcome(m.namespace, m.instance, m.run))
}

// kept counts the claims kept.
func kept(steps []kube.DeployStep) int {
	n := 0
	for _, s := range steps {
		if s.Action == kube.StepKeep {
			n++
		}
	}
	return n
}

// View draws the plan and the question, or the live steps.
func (m *RemoveModel) View() string {
	st := m.vc.Styles
	inst, ns := views.Sanitize(m.instance), views.Sanitize(m.namespace)
	var body []string
	k := m.keys
	back := views.Hint("back", k.Back)
	help := views.Hint("cancel", k.Back)
	switch {
	case m.run != nil:
		done, failed, skipped := stepCounts(m.run.steps)
		head := fmt.Sprintf("removing %s from %s: %d of %s done", inst, ns, done, kube.Plural(len(m.run.steps), "step"))
		help = "the remove goes on; wait for its end"
		if b := views.HintKeys(k.Back); b != "" {
			help = b + ": " + help
		}
		if m.run.done {
			help = views.Hint("back", k.Remove, k.Back)
			head = fmt.Sprintf("✓ removed %s from %s: %d deleted, %d kept", inst, ns, done, kept(m.run.steps))
			if m.run.failed() {
				head = st.Error.Render(fmt.Sprintf("✗ the remove of %s stopped: %d done, %d failed, %d skipped", inst, done, failed, skipped))
			}
		}
		body = append([]string{head}, stepLines(st, m.run.steps, m.run.spin.View(), m.run.runningText)...)
		if m.run.done && m.run.err != nil {
			body = append(body, st.Error.Render("✗ "+views.ErrText(m.run.err)))
		}
	case m.planning:
		body = []string{st.Muted.Render(fmt.Sprintf("reading what %s in %s is made of…", inst, ns))}
	case m.err != nil:
		body = []string{st.Error.Render(fmt.Sprintf("✗ cannot remove %s from %s: %s", inst, ns, views.ErrText(m.err)))}
		help = back
	case len(m.plan.Steps) == 0:
		body = []string{fmt.Sprintf("%s in %s has no objects left to remove", inst, ns)}
		help = back
	default:
		body = []string{fmt.Sprintf("remove %s from %s", inst, ns), "will delete (foreground: a Deployment's pods go with it):"}
		var keep []string
		for _, s := range m.plan.Steps {
			svc := ""
			if s.Service != "" {
				svc = " (service " + views.Sanitize(s.Service) + ")"
			}
			what := fmt.Sprintf("  %s %s%s", s.Kind, views.Sanitize(s.Name), svc)
			switch {
			case s.Action == kube.StepKeep:
				keep = append(keep, what+st.Muted.Render(": retained, its data stays (delete it yourself when it is no longer needed)"))
			case s.Action == kube.StepRecord:
				body = append(body, what+st.Muted.Render(": the instance record, last"))
			default:
				body = append(body, what)
			}
		}
		if len(keep) > 0 {
			body = append(body, "kept:")
			body = append(body, keep...)
		}
		body = append(body, "objects without the instance's label are never touched", "",
			fmt.Sprintf("type %q to confirm: [%s]", m.instance, m.input.View()))
		if m.note != "" {
			body = append(body, st.Error.Render(m.note))
		}
		help = views.Hints(views.Hint("remove", k.Remove), views.Hint("cancel", k.Back))
	}
	if m.note != "" && m.run != nil {
		body = append(body, st.Muted.Render(m.note))
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// Title is "remove <instance> (<namespace>)".
func (m *RemoveModel) Title() string {
	return views.Sanitize(fmt.Sprintf("remove %s (%s)", m.instance, m.namespace))
}

// Bindings are the screen's keys, for the help overlay.
func (m *RemoveModel) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Remove, k.Back, views.HelpOf("scroll", k.Up, k.Down)}
}

// Capturing is true while the name is typed.
func (m *RemoveModel) Capturing() bool { return m.input.Focused() }

// CapturesBack is true: esc cancels through the screen, which says so.
func (m *RemoveModel) CapturesBack() bool { return true }
