package fleetchange

import (
	"fmt"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/workload"
)

// View draws what the change is, then each cluster's step in the order
// applied: its state, the fields it changes there (and where that
// cluster held another value), the dry run, the guards' warnings and
// refusals, the rollout while followed; then the confirmation asked and
// the help line.
func (m *Model) View() string {
	st := m.vc.Styles
	var body []string
	what := fmt.Sprintf("%s/%s (%s)", m.ref.Kind, views.Sanitize(m.ref.Name), views.Sanitize(m.ref.Namespace))
	if m.phase == phasePlanning {
		body = append(body, st.Muted.Render(fmt.Sprintf("planning the change of %s in %d contexts: reading and dry-running each…", what, len(m.targets))))
		return views.Page(st, m.vc.Width, m.vc.Height, body, views.Hint("back", m.keys.Back), &m.offset)
	}
	if m.change.Restart {
		body = append(body, fmt.Sprintf("restart %s in each context in this order, one at a time, each rollout followed to its end; the first failure stops it:", what))
	} else {
		body = append(body, fmt.Sprintf("change %s as edited in %s, then in each context in this order, one at a time, each rollout followed to its end; the first failure stops it:",
			what, views.Sanitize(m.change.Source)))
		for _, c := range kube.Changes(m.change.Base, m.change.Edited) {
			body = append(body, "    "+views.Sanitize(field(c)+": "+workload.Unset(c.After)))
		}
	}
	blocked := m.firstBlocked()
	for i, s := range m.steps {
		head := fmt.Sprintf("%d %s — %s", i+1, views.Sanitize(s.target.Context), m.stateText(i, blocked))
		switch s.state {
		case stateFailed, stateUndoFailed:
			head = st.Error.Render(head)
		case stateUntouched, stateLeftOut:
			head = st.Muted.Render(head)
		}
		body = append(body, "", head)
		body = append(body, m.stepLines(s)...)
	}
	if m.confirm != nil && m.Capturing() {
		if i, text := m.confirm.Pending(); i >= 0 {
			a := m.confirm.Ask(i)
			body = append(body, "", fmt.Sprintf("type %q to confirm %s in %s: [%s]", text, a.Reason, views.Sanitize(m.steps[a.Of].target.Context), m.confirm.Input(i)))
			if n := m.confirm.Note(); n != "" {
				body = append(body, st.Error.Render(n))
			}
		}
	}
	if m.note != "" {
		body = append(body, "", st.Error.Render(views.Sanitize(m.note)))
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, m.help(), &m.offset)
}

// stateText says where step i stands, blocked being the first step that
// cannot be written.
func (m *Model) stateText(i, blocked int) string {
	s := m.steps[i]
	switch s.state {
	case statePlanned:
		switch {
		case s.out:
			if ks := m.keys.LeaveOut.Keys(); i < len(ks) {
				return fmt.Sprintf("left out of the plan (%s puts it back)", views.KeyHelp(ks[i:i+1]))
			}
			return "left out of the plan"
		case s.blocked() != "":
			return "refused: " + s.blocked() + " — the change will stop here"
		case i > blocked:
			return "planned; not reached (an earlier cluster refuses: its number leaves it out)"
		case len(s.changes) == 0:
			return "already so: nothing to send"
		}
		text := fmt.Sprintf("planned: %d change(s), dry run accepted", len(s.changes))
		if m.change.Restart {
			text = "planned: restart, no guard refuses"
		}
		if n := len(s.preview.Verdicts.Warnings()); n > 0 {
			text += fmt.Sprintf("; %d warning(s) to confirm", n)
		}
		return text
	case stateApplying:
		return "writing…"
	case stateRolling:
		return "written; rollout: " + s.follow.State(m.vc.Styles)
	case stateDone:
		if len(s.changes) == 0 {
			return "already so: nothing sent"
		}
		return "done: " + s.follow.Summary(views.Sanitize(m.ref.Name))
	case stateFailed:
		return "failed: " + s.why
	case stateUntouched:
		return "untouched (the change stopped before it)"
	case stateLeftOut:
		return "left out of the plan: nothing sent"
	case stateUndoing:
		return "undoing…"
	case stateUndone:
		return "undone: written back at resourceVersion " + s.result.Workload.ResourceVersion
	case stateUndoFailed:
		return "undo failed: " + s.why
	}
	return ""
}

// stepLines are a step's details: the changes there, the dry run's
// warnings, the guards' warnings and what could not be carried.
func (m *Model) stepLines(s *step) []string {
	st := m.vc.Styles
	var out []string
	if s.err != nil {
		return out // said on the head line
	}
	differed := map[string]string{}
	for _, d := range s.differed {
		differed[field(d)] = d.Before
	}
	for _, c := range s.changes {
		l := fmt.Sprintf("    %s: %s → %s", field(c), workload.Unset(c.Before), workload.Unset(c.After))
		if c == restartChange {
			l = "    restart: " + c.After
		}
		if _, ok := differed[field(c)]; ok {
			l += "  (not as in " + m.change.Source + " before)"
		}
		out = append(out, views.Sanitize(l))
	}
	for _, r := range s.refused {
		out = append(out, st.Error.Render(views.Sanitize(fmt.Sprintf("    cannot carry %s: %s", field(r), r.Before))))
	}
	for _, w := range s.preview.DryRunWarnings {
		out = append(out, views.Sanitize("    the API server warns: "+w))
	}
	for _, v := range s.preview.Verdicts.Warnings() {
		out = append(out, st.Error.Render(views.Sanitize(fmt.Sprintf("    warning %s: %s (confirm: %s)", v.Reason, v.Sentence, v.Answer()))))
	}
	if s.follow != nil && s.state == stateRolling {
		for _, l := range s.follow.Lines(st) {
			out = append(out, "    "+l)
		}
	}
	return out
}

// help is the help line for the phase.
func (m *Model) help() string {
	k := m.keys
	scroll, back := views.Hint("scroll", k.Up, k.Down), views.Hint("back", k.Back)
	switch m.phase {
	case phasePlanned:
		if !m.change.Restart {
			back = views.Hint("back to the form", k.Back)
		}
		leave := ""
		if k.LeaveOut.Enabled() {
			leave = k.LeaveOut.Help().Key + " leave a cluster out"
		}
		return views.Hints(views.Hint("apply cluster by cluster", k.Apply), leave, views.Hint("plan again", k.Refresh), scroll, back)
	case phaseApplying:
		return "applying: each cluster waits for the one before to roll out"
	case phaseUndoing:
		return "undoing the clusters changed, one at a time"
	}
	undo := ""
	if len(m.changed()) > 0 && !m.change.Restart {
		undo = views.Hint("undo the clusters changed", k.Undo)
	}
	return views.Hints(undo, scroll, back)
}
