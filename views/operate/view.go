package operate

import (
	"fmt"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the page of the current phase in Context.Width x
// Context.Height cells.
func (m *Model) View() string {
	var body []string
	var help string
	switch m.phase {
	case phaseScale:
		body, help = m.scaleLines(), "enter check and confirm · esc cancel"
	case phasePlan:
		body, help = m.planLines(), "esc cancel"
	case phaseConfirm:
		body, help = m.confirmLines()
	case phaseRun, phaseResult:
		body = m.resultLines()
		help = "esc back (the rest is left alone)"
		if m.phase == phaseResult {
			help = "↑/↓ scroll · enter/esc back"
			if ref, ok := m.created(); ok {
				help = "enter the pods of " + views.Sanitize(string(ref.Kind)+"/"+ref.Name) + " · ↑/↓ scroll · esc back"
			}
		}
	}
	return views.Page(m.vc.Styles, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// where names the cluster the objects are in when the screen was opened
// from a screen across several clusters (" in context prod-eu"), "" otherwise.
func (m *Model) where() string {
	if m.vc.Name == "" {
		return ""
	}
	return " in context " + views.Sanitize(m.vc.Name)
}

// objectName is "<kind>/<name> (<namespace>)".
func objectName(r kube.ObjectRef) string {
	if r.Namespace == "" {
		return views.Sanitize(fmt.Sprintf("%s/%s", r.Kind, r.Name)) // cluster-scoped
	}
	return views.Sanitize(fmt.Sprintf("%s/%s (%s)", r.Kind, r.Name, r.Namespace))
}

func (m *Model) scaleLines() []string {
	st := m.vc.Styles
	r := m.items[0].ref
	now := "unknown"
	if m.current >= 0 {
		now = fmt.Sprint(m.current)
	}
	out := []string{
		"scale " + objectName(r) + m.where(),
		fmt.Sprintf("replicas now %s", now),
		"replicas [" + m.input.View() + "]  (0 to " + fmt.Sprint(kube.MaxReplicas) + ")",
	}
	if m.note != "" {
		out = append(out, st.Error.Render(m.note))
	}
	return out
}

func (m *Model) planLines() []string {
	out := []string{fmt.Sprintf("%s: checking %s against the guards…", m.action, kube.Plural(len(m.items), "object"))}
	for _, it := range m.items {
		mark := "…"
		if it.planned {
			mark = "✓"
		}
		out = append(out, fmt.Sprintf("  %s %s%s", mark, objectName(it.ref), m.where()))
	}
	return out
}

// what is the action in words, with its target value.
func (m *Model) what() string {
	switch m.action {
	case kube.ActionScale:
		return "scale to " + kube.Plural(m.replicas, "replica")
	case kube.ActionDelete:
		if m.hasPods() && m.force {
			return "delete (FORCE: grace period 0)"
		}
		return "delete"
	case kube.ActionUndo:
		return "undo (roll back to the previous revision)"
	case kube.ActionTrigger:
		return "trigger (create a Job from its jobTemplate now)"
	case kube.ActionSuspend:
		return "suspend (no new Job is scheduled)"
	case kube.ActionUnsuspend:
		return "unsuspend (its schedule runs again)"
	case kube.ActionCordon:
		return "cordon (no new pod is scheduled on it; those running stay)"
	case kube.ActionUncordon:
		return "uncordon (pods may be scheduled on it again)"
	}
	return string(m.action)
}

// confirmLines lists each object's verdicts, then what is asked.
func (m *Model) confirmLines() ([]string, string) {
	st := m.vc.Styles
	var out []string
	refused := 0
	for _, it := range m.items {
		out = append(out, m.what()+" "+objectName(it.ref)+m.where())
		if it.err != nil {
			out = append(out, st.Error.Render("  ✗ "+views.ErrText(it.err)))
		}
		for _, v := range it.verdicts {
			out = append(out, "  "+views.VerdictLine(st, v))
		}
		if it.refused() {
			refused++
		}
	}
	out = append(out, "")
	if m.action == kube.ActionDelete && m.hasPods() {
		if m.force {
			out = append(out, st.Error.Render("pods are deleted at once: they leave the API without waiting for their node to stop them (f: graceful)"))
		} else {
			out = append(out, "pods are deleted gracefully, with their own grace period (f: force)")
		}
	}
	if refused > 0 {
		out = append(out, st.Error.Render(fmt.Sprintf("%s refused: not sent", kube.Plural(refused, "object"))))
	}
	if m.sendable() == 0 {
		if refused == 0 {
			return out, "nothing to send · esc back"
		}
		return out, "nothing can be done · esc back"
	}
	if i, text := m.confirm.Pending(); i >= 0 {
		out = append(out, fmt.Sprintf("type %q to confirm %s: [%s]", text, objectName(m.items[m.confirm.Ask(i).Of].ref), m.confirm.Input(i)))
		if n := m.confirm.Note(); n != "" {
			out = append(out, st.Error.Render(n))
		}
		return out, "enter take the text · esc cancel"
	}
	ask := fmt.Sprintf("%s %s? y/n", m.what(), objectName(m.items[0].ref))
	if len(m.items) > 1 {
		ask = fmt.Sprintf("%s %s? y/n", m.what(), kube.Plural(m.sendable(), "object"))
	}
	out = append(out, st.Error.Render(ask))
	help := "y confirm · n/esc cancel"
	if m.action == kube.ActionDelete && m.hasPods() {
		help = "y confirm · f graceful/force · n/esc cancel"
	}
	return out, help
}

// resultLines is one line per object: its outcome, or that it waits.
func (m *Model) resultLines() []string {
	st := m.vc.Styles
	ok := 0
	var lines []string
	for _, it := range m.items {
		switch {
		case !it.done && it.sent:
			lines = append(lines, st.Muted.Render("… "+objectName(it.ref)+": sending"))
		case !it.done:
			lines = append(lines, st.Muted.Render("  "+objectName(it.ref)+": waiting"))
		case it.out.OK():
			ok++
			lines = append(lines, "✓ "+outcomeText(it.out))
		default:
			lines = append(lines, st.Error.Render("✗ "+outcomeText(it.out)))
		}
	}
	head := fmt.Sprintf("%s: sending…", m.what())
	if m.phase == phaseResult {
		head = fmt.Sprintf("%s: %d of %d done", m.what(), ok, len(m.items))
	}
	return append([]string{head}, lines...)
}
