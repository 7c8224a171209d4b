package exec

import (
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the page of the current phase in Context.Width x
// Context.Height cells.
func (m *Model) View() string {
	st, k := m.vc.Styles, m.keys
	where := views.Sanitize(m.where())
	var body []string
	cancel := views.Hint("cancel", m.vc.Keys.Back) // the root's back, but while the image is typed
	help := cancel
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
		help = views.Hints(views.Hint("choose", k.Up, k.Down), views.Hint("open", k.Open), cancel)
	case phaseConfirm, phaseDebugConfirm:
		what := "a shell in " + where
		if m.phase == phaseDebugConfirm {
			what = "a debug container (" + views.Sanitize(m.image) + ") in " + where
		}
		body = []string{"open " + what + "?", ""}
		for _, v := range m.verdicts {
			body = append(body, st.Error.Render("! "+string(v.Reason))+" "+views.Sanitize(v.Sentence))
		}
		help = views.Hints(views.Hint("go on", k.Confirm), cancel)
	case phaseOpen:
		body = []string{"shell in " + where + " (container " + views.Sanitize(m.container) + "): choosing a shell…"}
	case phaseNoShell:
		body = []string{st.Error.Render("container "+views.Sanitize(m.container)+" of "+where+" has no shell") + ": " + views.Sanitize(m.noShell), ""}
		if m.dbg == nil {
			body = append(body, "debug containers are not available with this client")
			help = views.Hint("back", m.vc.Keys.Back)
			break
		}
		body = append(body,
			"start an ephemeral debug container that shares its processes (kubectl debug -it --target)?",
			"image ["+m.input.View()+"]",
			st.Muted.Render("the default is "+kube.DefaultDebugImage+"; the image chosen is remembered for this session"))
		help = views.Hints(views.Hint("start", k.Open), views.Hint("cancel", k.Back))
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
