package exec

import (
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the page of the current phase in Context.Width x
// Context.Height cells.
func (m *Model) View() string {
	st := m.vc.Styles
	where := views.Sanitize(m.where())
	var body []string
	help := "esc cancel"
	switch m.phase {
	case phasePlan:
		body = []string{"shell in " + where + ": checking the guards…"}
	case phasePick:
		body = []string{"pod " + where + " has several containers; open a shell in:"}
		for i, c := range m.containers {
			line := "  " + views.Sanitize(c)
			if i == m.cursor {
				line = st.Selected.Render("> " + views.Sanitize(c))
			}
			body = append(body, line)
		}
		help = "↑/↓ choose · enter open · esc cancel"
	case phaseConfirm, phaseDebugConfirm:
		what := "a shell in " + where
		if m.phase == phaseDebugConfirm {
			what = "a debug container (" + views.Sanitize(m.image) + ") in " + where
		}
		body = []string{"open " + what + "?", ""}
		for _, v := range m.verdicts {
			body = append(body, st.Error.Render("! "+string(v.Reason))+" "+views.Sanitize(v.Sentence))
		}
		help = "y go on · esc cancel"
	case phaseOpen:
		body = []string{"shell in " + where + " (container " + views.Sanitize(m.container) + "): choosing a shell…"}
	case phaseNoShell:
		body = []string{st.Error.Render("container "+views.Sanitize(m.container)+" of "+where+" has no shell") + ": " + views.Sanitize(m.noShell), ""}
		if m.dbg == nil {
			body = append(body, "debug containers are not available with this client")
			help = "esc back"
			break
		}
		body = append(body,
			"start an ephemeral debug container that shares its processes (kubectl debug -it --target)?",
			"image ["+m.input.View()+"]",
			st.Muted.Render("the default is "+kube.DefaultDebugImage+"; the image chosen is remembered for this session"))
		help = "enter start · esc cancel"
	case phaseDebugPlan:
		body = []string{"debug container (" + views.Sanitize(m.image) + ") in " + where + ": checking the guards…"}
	case phaseDebugWait:
		body = []string{"debug container (" + views.Sanitize(m.image) + ") in " + where + ": starting…"}
		if m.waiting != "" {
			body = append(body, "waiting: "+views.Sanitize(m.waiting))
		}
	case phaseRunning:
		body = []string{"shell in " + where + " is running"}
		help = ""
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}
