package create

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/yamledit"
)

// header stands above the text in the editor's file, as comments.
func (m *Model) header() []string {
	return append(append([]string(nil), m.problem...),
		fmt.Sprintf("Creating from %s with kyyard: it is sent as a server-side apply (field manager %s).", m.source(), kube.FieldManager),
		"Save and quit to preview it (a server dry run of each object and its diff): nothing is written before you confirm.",
		"Several objects may be given, separated by '---'. Lines starting with '#' at the top are ignored; an empty file cancels.")
}

// areaHeader stands above the text area, one line each.
func (m *Model) areaHeader() []string {
	return append(append([]string(nil), m.problem...),
		fmt.Sprintf("Creating from %s: server-side apply, field manager %s", m.source(), kube.FieldManager),
		views.FirstKey(m.keys.Preview)+" previews a dry run: nothing is written before you confirm; '---' separates objects")
}

// Title names what is created.
func (m *Model) Title() string {
	if m.req.Source != "" {
		return views.Sanitize("create " + m.req.Source)
	}
	return views.Sanitize("create " + string(m.req.Kind))
}

// Capturing is true while the text area or a confirmation takes the keys.
func (m *Model) Capturing() bool {
	return (m.phase == phaseEditing && m.hand == nil) || m.confirm.Typing()
}

// CapturesBack is true while esc has something to say (views.BackCapturer):
// an unapplied text, which esc discards only when pressed twice, or a
// request under way.
func (m *Model) CapturesBack() bool {
	return m.phase == phasePlanning || m.phase == phaseApplying || m.Unsaved() != ""
}

// Unsaved says that a text is not applied yet (the root asks before
// quitting).
func (m *Model) Unsaved() string {
	if m.phase == phaseDone || m.phase == phaseOpening || m.phase == phaseApplying {
		return ""
	}
	text := m.text
	if m.phase == phaseEditing && m.hand == nil {
		text = m.area.Value()
	}
	if text == m.start && m.req.Text == "" {
		return ""
	}
	return "an unapplied :create of " + m.source()
}

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Apply, k.Edit, k.ScrollHelp(), k.Discard, k.Preview}
}

// back closes the screen.
func back() tea.Msg { return views.BackMsg{} }

// key handles a key in the current phase: in the text area, its own
// (yamledit.Area.Key); a text a warning asks takes every key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.phase == phaseEditing && m.hand == nil {
		ev, cmd := m.area.Key(msg)
		switch ev {
		case yamledit.AreaPreview:
			m.text = m.area.Value()
			return m.planText()
		case yamledit.AreaDiscard:
			return back
		}
		return cmd
	}
	if m.confirm.Typing() {
		return m.confirm.Key(msg, m.apply)
	}
	switch {
	case key.Matches(msg, k.Discard):
		switch {
		case m.phase == phaseOpening || m.phase == phasePlanning || m.phase == phaseApplying:
			return nil // an answer is on its way; it decides
		case m.Unsaved() != "" && !m.discard:
			m.discard = true
			return views.Status(views.Hints(views.Hint("again discards your text", k.Discard), views.Hint("edits it again", k.Edit)), false)
		}
		return back
	case key.Matches(msg, k.Edit):
		if m.phase == phasePreview || m.phase == phaseHeld {
			m.problem = nil
			return m.startEdit()
		}
	case key.Matches(msg, k.Apply):
		switch m.phase {
		case phasePreview:
			return m.apply()
		case phaseDone:
			return back
		}
	default:
		k.Scroll(msg, &m.offset, m.vc.Height)
	}
	m.discard = false
	return nil
}

// View draws the phase.
func (m *Model) View() string {
	st := m.vc.Styles
	w, h := m.vc.Width, m.vc.Height
	switch m.phase {
	case phaseOpening:
		return views.Page(st, w, h, []string{"reading the " + string(m.req.Kind) + " template …"}, "waiting for the API server", &m.offset)
	case phasePlanning:
		return views.Page(st, w, h, []string{"dry run of " + m.source() + " …"}, "waiting for the API server", &m.offset)
	case phaseApplying:
		return views.Page(st, w, h, []string{"applying " + m.source() + " …"}, "waiting for the API server", &m.offset)
	case phaseHeld:
		k := m.keys
		body := append(yamledit.ProblemLines(st, m.problem), "", "your text is kept: "+views.Hint("edits it again", k.Edit)+"; "+views.Hint("twice discards it", k.Discard))
		return views.Page(st, w, h, body, views.Hints(views.Hint("edit again", k.Edit), views.Hint("discard (twice)", k.Discard)), &m.offset)
	case phaseDone:
		k := m.keys
		back := views.HintKeys(k.Discard)
		if ks := k.Apply.Keys(); len(ks) > 0 {
			back = strings.Trim(back+"/"+views.KeyHelp(ks[len(ks)-1:]), "/")
		}
		help := views.Hint("scroll", k.Up, k.Down)
		if back != "" {
			help = views.Hints(back+" back", help)
		}
		return views.Page(st, w, h, m.outcomeLines(), help, &m.offset)
	case phaseEditing:
		if m.hand != nil {
			return views.Page(st, w, h, []string{"editing " + m.source() + " in your editor …"}, "save and quit the editor to preview", &m.offset)
		}
		return m.area.View(st, w, h, m.areaHeader(), len(m.problem))
	}
	return views.Page(st, w, h, m.previewLines(), m.previewHelp(), &m.offset)
}

// maxDiffLine is the longest diff line shown whole (runes).
const maxDiffLine = 400

// previewLines are each object's plan: what it does, its verdicts, its
// conflicts with their managers, its diff; then what is asked.
func (m *Model) previewLines() []string {
	st := m.vc.Styles
	out := []string{fmt.Sprintf("server-side apply of %s (field manager %s): %s", m.source(), kube.FieldManager, kube.Plural(len(m.plan.Steps), "object"))}
	for _, s := range m.plan.Steps {
		what, exists := "create", ""
		switch {
		case s.Err != nil:
			what = "cannot apply"
		case s.Exists && s.Diff == "":
			what, exists = "unchanged", ": it exists already"
		case s.Exists:
			what, exists = "change", ": it exists already, this changes it"
		}
		out = append(out, "", views.Sanitize(fmt.Sprintf("%s %s (%s)%s", what, s.Ref, s.Source, exists)))
		for _, v := range s.Verdicts {
			out = append(out, "  "+views.VerdictLine(st, v))
		}
		if s.Err != nil {
			out = append(out, "  "+st.Error.Render(views.Sanitize(views.ErrText(s.Err))))
			continue
		}
		for _, c := range s.Conflicts {
			out = append(out, "  "+st.Error.Render(views.Sanitize(fmt.Sprintf("conflict: %s is owned by field manager %q (%s)", c.Field, c.Manager, c.Detail))))
		}
		for _, l := range strings.Split(strings.TrimRight(s.Diff, "\n"), "\n") {
			if l == "" {
				continue
			}
			if r := []rune(l); len(r) > maxDiffLine {
				l = string(r[:maxDiffLine]) + "…"
			}
			l = "  " + views.Sanitize(l)
			if !strings.HasPrefix(strings.TrimSpace(l), "+") && !strings.HasPrefix(strings.TrimSpace(l), "-") {
				l = st.Muted.Render(l)
			}
			out = append(out, l)
		}
	}
	out = append(out, "")
	if b := m.blocked(); b != "" {
		return append(out, st.Error.Render(b))
	}
	if i, text := m.confirm.Pending(); i >= 0 {
		out = append(out, fmt.Sprintf("type %q to confirm: [%s]", text, m.confirm.Input(i)))
		if n := m.confirm.Note(); n != "" {
			out = append(out, st.Error.Render(n))
		}
		return out
	}
	if m.force {
		out = append(out, st.Error.Render(fmt.Sprintf("fields above are owned by other field managers: %s asks you to type %q to take them over (kubectl apply --server-side --force-conflicts)", views.FirstKey(m.keys.Apply), forceWord)))
	}
	return append(out, st.Error.Render(strings.TrimSpace("apply? "+strings.TrimSpace(views.HintAll("", m.keys.Apply)))))
}

// previewHelp is the preview's help line.
func (m *Model) previewHelp() string {
	k := m.keys
	again, discard := views.Hint("edit again", k.Edit), views.Hint("discard (twice)", k.Discard)
	switch {
	case m.confirm.Typing():
		return "enter take the text · esc stop typing"
	case m.blocked() != "":
		return views.Hints(again, discard)
	}
	return views.Hints(views.HintAll("apply", k.Apply), again, views.Hint("scroll", k.Up, k.Down), discard)
}

// outcomeLines are the apply's outcomes, one per object.
func (m *Model) outcomeLines() []string {
	st := m.vc.Styles
	out := []string{"server-side apply of " + m.source() + ":"}
	for _, o := range m.outcomes {
		if o.OK() {
			out = append(out, "  "+views.Sanitize(o.Detail))
		} else {
			out = append(out, "  "+st.Error.Render(views.Sanitize(fmt.Sprintf("%s (%s)", o.Detail, o.Reason))))
		}
	}
	return append(out, "", st.Muted.Render("each outcome is in :history"))
}
