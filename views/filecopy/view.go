package filecopy

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// back closes the screen.
func back() tea.Msg { return views.BackMsg{} }

// barWidth is the progress bar's width in cells.
const barWidth = 20

// View draws the phase.
func (m *Model) View() string {
	st := m.vc.Styles
	w, h := m.vc.Width, m.vc.Height
	head := []string{st.Title.Render(views.Sanitize(fmt.Sprintf("copy files: pod %s/%s", m.target.Namespace, m.target.Pod))) +
		st.Muted.Render(" · a tar stream over pods/exec, as kubectl cp")}
	switch m.phase {
	case phasePlanning:
		return views.Page(st, w, h, append(head, "", "checking that a copy may run in this pod …"), "esc back", &m.offset)
	case phaseCopying:
		return views.Page(st, w, h, append(head, "", m.progressLine(), m.note), "esc cancel the copy", &m.offset)
	case phaseDone:
		style := st.Muted
		if m.failed {
			style = st.Error
		}
		return views.Page(st, w, h, append(head, "", style.Render(views.Sanitize(m.result)), "", st.Muted.Render("the outcome is in :history")),
			"enter/esc back · r another copy", &m.offset)
	}
	body := append(head, "")
	for _, v := range m.plan.Verdicts {
		body = append(body, "  "+views.VerdictLine(st, v))
	}
	if why := m.refusal(); why != "" {
		body = append(body, "", st.Error.Render(views.Sanitize("no copy can run: "+why)))
		return views.Page(st, w, h, body, "esc back", &m.offset)
	}
	mark := func(f field) string {
		if m.focus == f {
			return st.Prompt.Render("›") + " "
		}
		return "  "
	}
	dir := "(•) container → here   ( ) here → container"
	if m.dir == kube.CopyToContainer {
		dir = "( ) container → here   (•) here → container"
	}
	body = append(body, "", mark(fieldDirection)+"direction       "+dir)
	container := views.Sanitize(m.container)
	if len(m.choices) > 1 {
		container = "‹ " + container + " ›  " + st.Muted.Render(views.Sanitize(fmt.Sprintf("(%d containers: ←/→)", len(m.choices))))
	}
	body = append(body, mark(fieldContainer)+"container       "+container)
	body = append(body, mark(fieldRemote)+"container path  "+m.remote.View())
	body = append(body, mark(fieldLocal)+"local path      "+m.local.View())
	if l := m.landing(); l != "" {
		body = append(body, "", st.Muted.Render(views.Sanitize(l)))
	}
	if m.dir == kube.CopyFromContainer {
		body = append(body, st.Muted.Render("checked entry by entry, it lands only whole: a path leaving the folder refuses it all"))
	}
	if i, text := m.confirm.Pending(); i >= 0 {
		body = append(body, "", fmt.Sprintf("type %q to confirm the warning above: [%s]", text, m.confirm.Input(i)))
		if n := m.confirm.Note(); n != "" {
			body = append(body, st.Error.Render(n))
		}
	}
	if m.note != "" {
		body = append(body, "", st.Error.Render(views.Sanitize(m.note)))
	}
	return views.Page(st, w, h, body, "tab field · ←/→ switch · enter copy · esc back", &m.offset)
}

// progressLine is the bytes copied, with a bar when the total is known.
func (m *Model) progressLine() string {
	p, what := m.progress, "copying from the container"
	if m.dir == kube.CopyToContainer {
		what = "copying to the container"
	}
	if p.Total <= 0 {
		return fmt.Sprintf("%s: %s so far", what, kube.Bytes(p.Done))
	}
	filled := int(int64(barWidth) * min(p.Done, p.Total) / p.Total)
	return fmt.Sprintf("%s: [%s%s] %3d%%  %s of %s", what, strings.Repeat("#", filled), strings.Repeat(".", barWidth-filled),
		100*min(p.Done, p.Total)/p.Total, kube.Bytes(p.Done), kube.Bytes(p.Total))
}
