package clusters

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the table, then what the selected cluster could not read.
func (m *Model) View() string {
	st, w := m.vc.Styles, m.vc.Width
	fit := func(l string) string { return ansi.Truncate(l, max(w-2, 1), "…") }
	m.hscroll = min(m.hscroll, m.maxScroll(w))
	pad := func(cells []string) string {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 && i <= m.hscroll {
				continue // scrolled off: CONTEXT stays
			}
			if i == len(cells)-1 {
				b.WriteString(views.Sanitize(c))
				break
			}
			fmt.Fprintf(&b, "%-*s ", columns[i].width, views.Cut(c, columns[i].width))
		}
		return b.String()
	}
	header := make([]string, len(columns))
	for i, c := range columns {
		header[i] = c.name
	}
	body := []string{st.ColumnHeader.Render(fit(pad(header)))}
	if len(m.rows) == 0 {
		body = append(body, st.Muted.Render("no context chosen"))
	}
	m.cursor = max(min(m.cursor, len(m.rows)-1), 0)
	for i, r := range m.rows {
		line := fit(pad(m.cells(r)))
		_, health := m.state(r)
		switch {
		case i == m.cursor:
			line = st.Selected.Render(line)
		case health != kube.HealthOK:
			line = st.Health(health).Render(line)
		}
		body = append(body, line)
	}
	if len(m.rows) > 0 {
		body = append(body, "")
		body = append(body, m.details(m.rows[m.cursor])...)
	}
	// The cursor's row stays in sight (Page shows Height-2 lines of a
	// body it scrolls, the last one counting what is below).
	if vis := max(m.vc.Height-2, 1); 1+m.cursor >= m.offset+vis {
		m.offset = 1 + m.cursor - vis + 1
	} else if 1+m.cursor < m.offset {
		m.offset = m.cursor // the header too, at the top
	}
	k, more := m.keys, ""
	if m.maxScroll(w) > 0 {
		more = views.Hint("more columns", k.Left, k.Right)
	}
	help := views.Hints(views.Hint("that cluster's pods", k.Open), more, views.Hint("read again", k.Refresh), views.Hint("back", m.vc.Keys.Back))
	return views.Page(st, w, m.vc.Height, body, help, &m.offset)
}

// maxScroll is how many columns right of CONTEXT can be scrolled off at
// width w: none when they all fit, else as many as it takes for the last
// to show.
func (m *Model) maxScroll(w int) int {
	total := 0
	for _, c := range columns {
		total += c.width + 1
	}
	n := 0
	for n < len(columns)-2 && total > w-2 {
		n++
		total -= columns[n].width + 1
	}
	return n
}

// details are the selected cluster's lines below the table: why it cannot
// be read, or what it could not read.
func (m *Model) details(r *row) []string {
	st := m.vc.Styles
	name := views.Sanitize(r.context)
	switch {
	case r.err != nil:
		return []string{st.Error.Render(name + ": cannot connect: " + views.ErrText(r.err))}
	case !r.answered:
		return []string{st.Muted.Render(name + ": reading… (the other clusters are not held)")}
	case r.ov.Reason != "":
		return []string{st.Error.Render(fmt.Sprintf("%s: %s: %s (%s)", name, r.ov.Reason, r.ov.Reason.Sentence(), views.Sanitize(r.ov.Message)))}
	}
	var out []string
	if r.ov.Namespace != "" {
		out = append(out, st.Muted.Render(fmt.Sprintf("%s: Pods and events of namespace %s only: the account may not list Pods in every namespace", name, views.Sanitize(r.ov.Namespace))))
	}
	if len(r.ov.Unread) > 0 {
		out = append(out, st.Error.Render(name+": could not read "+views.Sanitize(strings.Join(r.ov.Unread, ", "))))
	}
	if !r.ov.Metrics {
		out = append(out, st.Muted.Render(fmt.Sprintf("%s: no metrics (%s): CPU and memory n/a", name, r.ov.MetricsReason)))
	}
	if len(out) == 0 {
		out = append(out, st.Muted.Render(name+": every part read"))
	}
	return out
}
