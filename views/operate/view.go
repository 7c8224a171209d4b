package operate

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the page of the current phase in Context.Width x
// Context.Height cells.
func (m *Model) View() string {
	k := m.keys
	var body []string
	var help string
	switch m.phase {
	case phaseScale:
		body, help = m.scaleLines(), views.Hints(views.Hint("check and confirm", k.Take), views.Hint("cancel", k.Back))
	case phasePlan:
		body, help = m.planLines(), views.Hint("cancel", k.Back)
	case phaseConfirm:
		body, help = m.confirmLines()
	case phaseRun, phaseResult:
		body = m.resultLines()
		help = views.Hint("back (the rest is left alone)", k.Back)
		if m.phase == phaseResult {
			help = views.Hints(views.Hint("scroll", k.Up, k.Down), views.Hint("back", k.Take, k.Back))
			if ref, ok := m.created(); ok {
				help = views.Hints(views.Hint("the pods of "+views.Sanitize(string(ref.Kind)+"/"+ref.Name), k.Take), views.Hint("scroll", k.Up, k.Down), views.Hint("back", k.Back))
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
	k := m.keys
	if m.action == kube.ActionDelete && m.hasPods() {
		if m.force {
			out = append(out, st.Error.Render("pods are deleted at once: they leave the API without waiting for their node to stop them"+switchHint(k.Force, "graceful")))
		} else {
			out = append(out, "pods are deleted gracefully, with their own grace period"+switchHint(k.Force, "force"))
		}
	}
	if refused > 0 {
		out = append(out, st.Error.Render(fmt.Sprintf("%s refused: not sent", kube.Plural(refused, "object"))))
	}
	if m.sendable() == 0 {
		if refused == 0 {
			return out, views.Hints("nothing to send", views.Hint("back", k.Back))
		}
		return out, views.Hints("nothing can be done", views.Hint("back", k.Back))
	}
	if i, text := m.confirm.Pending(); i >= 0 {
		out = append(out, fmt.Sprintf("type %q to confirm %s: [%s]", text, objectName(m.items[m.confirm.Ask(i).Of].ref), m.confirm.Input(i)))
		if n := m.confirm.Note(); n != "" {
			out = append(out, st.Error.Render(n))
		}
		return out, views.Hints("enter take the text", views.Hint("cancel", k.Back))
	}
	ask := fmt.Sprintf("%s %s?", m.what(), objectName(m.items[0].ref))
	if len(m.items) > 1 {
		ask = fmt.Sprintf("%s %s?", m.what(), kube.Plural(m.sendable(), "object"))
	}
	if yn := views.YesNo(k.Confirm, k.Cancel, k.Back); yn != "" {
		ask += " " + yn
	}
	out = append(out, st.Error.Render(ask))
	force := ""
	if m.action == kube.ActionDelete && m.hasPods() {
		force = views.Hint("graceful/force", k.Force)
	}
	return out, views.Hints(views.Hint("confirm", k.Confirm), force, views.Hint("cancel", k.Cancel, k.Back))
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

// switchHint is the note of the key that switches the delete of pods to
// the other way ("(f: force)"), "" when Force is unbound.
func switchHint(force key.Binding, to string) string {
	if !force.Enabled() || len(force.Keys()) == 0 {
		return ""
	}
	return fmt.Sprintf(" (%s: %s)", views.KeyHelp(force.Keys()[:1]), to)
}
