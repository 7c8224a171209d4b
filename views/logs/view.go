package logs

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the header (what is streamed, its state, the counts), the
// rows of the entries on screen and the footer (the search, a prompt, or
// the keys), in exactly Context.Width x Context.Height cells. Only the
// rows on screen are drawn: the cost does not grow with the buffer.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	if m.picker != nil {
		return m.pickerView()
	}
	lines := make([]string, 0, h)
	lines = append(lines, m.header(w))
	lines = append(lines, m.body()...)
	if msg := m.emptyText(); msg != "" && len(lines) == 1 {
		lines = append(lines, msg)
	}
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines[:h-1], m.footer(w))
	return strings.Join(lines[:h], "\n")
}

// body draws the rows on screen.
func (m *Model) body() []string {
	h := m.height()
	p, ok := m.topPos()
	if !ok {
		return nil
	}
	out := make([]string, 0, h)
	seq := p.seq
	rows := m.rows(seq)[p.sub:]
	for {
		for _, r := range rows {
			if len(out) == h {
				return out
			}
			out = append(out, r)
		}
		next, ok := m.next(seq)
		if !ok {
			return out
		}
		seq, rows = next, m.rows(next)
	}
}

// emptyText says why no line is shown.
func (m *Model) emptyText() string {
	st := m.vc.Styles
	switch {
	case m.endErr != nil:
		return st.Error.Render(ansi.Truncate("! "+views.Sanitize(m.failure()), m.vc.Width, "…"))
	case m.buf.n > 0 && m.ix != nil && m.filter == showOnly:
		return st.Muted.Render("no line matches")
	case m.buf.n > 0:
		return ""
	case m.ended:
		return st.Muted.Render("no lines")
	}
	return st.Muted.Render("waiting for lines…")
}

// failure says why the stream stopped.
func (m *Model) failure() string {
	r := kube.ReasonOf(m.endErr)
	if r == "" {
		return m.endErr.Error()
	}
	return r.Sentence() + " (" + m.endErr.Error() + ")"
}

// header is the first line: "logs deployments/web (demo) · 3 pods ·
// following · 12,408 lines · 0 dropped", then the settings that are on.
func (m *Model) header(w int) string {
	st := m.vc.Styles
	parts := []string{m.what()}
	if m.multi() {
		pods := len(m.pods)
		if m.req.Kind == kube.KindPods {
			pods = 1
		}
		unit := "pods"
		if pods == 1 {
			unit = "pod"
		}
		s := fmt.Sprintf("%d %s", pods, unit)
		if m.leftOut > 0 {
			s += fmt.Sprintf(" (+%d not streamed)", m.leftOut)
		}
		parts = append(parts, s)
	}
	parts = append(parts, m.state())
	parts = append(parts, count(int64(m.buf.lines))+" lines", count(m.dropped)+" dropped")
	if m.buf.evicted > 0 {
		parts = append(parts, count(m.buf.evicted)+" older evicted (buffer "+count(int64(m.buf.cap))+")")
	}
	o := m.req.Options
	switch {
	case o.Since > 0:
		parts = append(parts, "since "+o.Since.String())
	case o.TailLines >= 0:
		parts = append(parts, fmt.Sprintf("tail %d", o.TailLines))
	}
	if m.wrap {
		parts = append(parts, "wrap")
	}
	switch m.times {
	case timeUTC:
		parts = append(parts, "UTC")
	case timeLocal:
		parts = append(parts, "local time")
	}
	if m.strip {
		parts = append(parts, "colours stripped")
	}
	if m.json {
		parts = append(parts, "JSON")
	}
	if len(m.fields) > 0 {
		parts = append(parts, "fields "+strings.Join(m.fields, ","))
	}
	return st.Title.Render(ansi.Truncate(views.Sanitize(strings.Join(parts, " · ")), w, "…"))
}

// what names the stream: "deployments/web (demo)", "pods/web-1 (demo)
// container app", "previous" when reading the previous instance.
func (m *Model) what() string {
	s := "logs " + string(m.req.Kind) + "/" + m.req.Name
	if m.req.Namespace != "" {
		s += " (" + m.req.Namespace + ")"
	}
	switch {
	case m.req.AllContainers:
		s += " all containers"
	case m.req.Container != "":
		s += " container " + m.req.Container
	}
	if m.req.Options.Previous {
		s += " · previous instance"
	}
	return s
}

// state says whether the stream ended, and whether the screen follows
// or is paused where.
func (m *Model) state() string {
	end := ""
	switch {
	case m.ended && m.endErr != nil:
		end = "stopped"
	case m.ended:
		end = "ended"
	}
	if m.follow {
		if end != "" {
			return end
		}
		return "following"
	}
	p, _ := m.topPos()
	rank, total := m.shown(p.seq)
	s := fmt.Sprintf("paused at %s of %s (G follows)", count(int64(rank)), count(int64(total)))
	if end != "" {
		s = end + " · " + s
	}
	return s
}

// footer is the last line: the prompt while it is open, else the search's
// state and the main keys, or what the last action did.
func (m *Model) footer(w int) string {
	st := m.vc.Styles
	if m.prompting != promptNone {
		return ansi.Truncate(m.prompt.View(), w, "…")
	}
	var parts []string
	if m.problem != "" {
		return st.Error.Render(ansi.Truncate(views.Sanitize(m.problem), w, "…"))
	}
	if m.ix != nil {
		q := "/" + views.Sanitize(m.ix.query)
		switch n := len(m.ix.matches); {
		case n == 0:
			parts = append(parts, q+"  no match")
		default:
			parts = append(parts, fmt.Sprintf("%s  %s of %s matches", q, count(int64(m.current+1)), count(int64(n))))
		}
		switch m.filter {
		case showOnly:
			parts = append(parts, "only matching (&)")
		case showHidden:
			parts = append(parts, "matching hidden (!)")
		}
		parts = append(parts, "n/N next/prev")
	}
	if m.note != "" {
		parts = append(parts, m.note)
	} else {
		parts = append(parts, "s follow · w wrap · t time · j JSON · / search · c container · ctrl+s save · y copy")
	}
	return st.Muted.Render(ansi.Truncate(strings.Join(parts, " · "), w, "…"))
}

// pickerView draws the container picker under a line that says why.
func (m *Model) pickerView() string {
	st := m.vc.Styles
	head := "choose a container of " + m.req.Name
	if m.endErr != nil {
		head = "the pod has several containers: choose one"
	}
	m.pvc.Width, m.pvc.Height = m.vc.Width, max(m.vc.Height-1, 1)
	return st.Title.Render(ansi.Truncate(views.Sanitize(head), m.vc.Width, "…")) + "\n" + m.picker.View()
}
