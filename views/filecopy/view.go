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
	st, k := m.vc.Styles, m.keys
	back := views.Hint("back", k.Back)
	w, h := m.vc.Width, m.vc.Height
	head := []string{st.Title.Render(views.Sanitize(fmt.Sprintf("copy files: pod %s/%s", m.target.Namespace, m.target.Pod))) +
		st.Muted.Render(" · a tar stream over pods/exec, as kubectl cp")}
	switch m.phase {
	case phasePlanning:
		return views.Page(st, w, h, append(head, "", "checking that a copy may run in this pod …"), back, &m.offset)
	case phaseCopying:
		return views.Page(st, w, h, append(head, "", m.progressLine(), m.note), views.Hint("cancel the copy", k.Back), &m.offset)
	case phaseDone:
		style := st.Muted
		if m.failed {
			style = st.Error
		}
		return views.Page(st, w, h, append(head, "", style.Render(views.Sanitize(m.result)), "", st.Muted.Render("the outcome is in :history")),
			views.Hints(views.Hint("back", k.Start, k.Back), views.Hint("another copy", k.Again)), &m.offset)
	}
	body := append(head, "")
	for _, v := range m.plan.Verdicts {
		body = append(body, "  "+views.VerdictLine(st, v))
	}
	if why := m.refusal(); why != "" {
		body = append(body, "", st.Error.Render(views.Sanitize("no copy can run: "+why)))
		return views.Page(st, w, h, body, back, &m.offset)
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
		switch ks := views.HintKeys(k.PreviousChoice, k.NextChoice); ks {
		case "":
			container = "‹ " + container + " ›  " + st.Muted.Render(views.Sanitize(fmt.Sprintf("(%d containers)", len(m.choices))))
		default:
			container = "‹ " + container + " ›  " + st.Muted.Render(views.Sanitize(fmt.Sprintf("(%d containers: %s)", len(m.choices), ks)))
		}
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
	help := views.Hints(views.Hint("field", k.NextField), views.Hint("switch", k.PreviousChoice, k.NextChoice), views.Hint("copy", k.Start), back)
	return views.Page(st, w, h, body, help, &m.offset)
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
