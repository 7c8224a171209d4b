package inventory

import (
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the notice line (or the filter prompt), the column header and
// the visible rows; its cost does not grow with the number of rows.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	st := m.vc.Styles
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < minWidth || h < minHeight {
		return fill(st.Error.Render(strings.Join(views.TooSmall(w, h+chromeAllowance, minWidth, minHeight+chromeAllowance, w, h), "\n")), h)
	}
	scope := "namespace " + m.namespace
	switch {
	case kube.SeveralNamespaces(m.namespace) && m.info.Namespaced:
		scope = "namespaces " + strings.Join(kube.SplitNamespaces(m.namespace), ", ")
	case m.namespace == "" || !m.info.Namespaced:
		scope = "the cluster"
		if m.info.Namespaced {
			scope = "all namespaces"
		}
	case m.namespace == views.OwnNamespaces:
		scope = views.OwnNamespacesPhrase
	}
	if !m.loaded {
		if m.failure != nil {
			text := explain(m.info.ID, scope, *m.failure, st.Error.Render, w)
			if m.retrying() {
				text += "\n\n" + st.Muted.Render(fmt.Sprintf("Retrying in %s.", m.delay))
			}
			return fill(text, h)
		}
		loading := append(m.stateLines(w), st.Muted.Render(fmt.Sprintf("Loading %s in %s…", m.info.ID, scope)))
		return fill(strings.Join(loading, "\n"), h)
	}
	lines := append([]string{m.notice(w, 0)}, m.stateLines(w)...)
	switch {
	case len(m.table.Rows) == 0 && m.failure != nil && m.parentNote == "":
		// Nothing read is left to show: say why the kind cannot be read
		// (a CRD deleted), not that it has no objects.
		lines = append(lines, explain(m.info.ID, scope, *m.failure, st.Error.Render, w))
		return fill(strings.Join(lines, "\n"), h)
	case len(m.table.Rows) == 0 && m.table.Reading:
		// The first list is still arriving: none yet is not none at all.
		lines = append(lines, st.Muted.Render(fmt.Sprintf("Loading %s in %s…", m.info.ID, scope)))
		return fill(strings.Join(lines, "\n"), h)
	case len(m.table.Rows) == 0:
		what := string(m.info.ID)
		if m.parent != "" {
			what += " of " + m.parent // a drill-down: what it selects, not the whole kind
		}
		text := fmt.Sprintf("No %s in %s.", what, scope)
		if m.nsState == kube.NamespaceMissing && m.parent == "" {
			// A get of the namespace answered 404 (never claimed when
			// it was forbidden or failed: see NamespaceReader).
			text = fmt.Sprintf("No %s: namespace %s does not exist (:ns lists the namespaces).", what, views.Sanitize(m.namespace))
		}
		if m.reqLabels != "" { // the rows were read with the filter's label selector
			text = fmt.Sprintf("No %s in %s match -l %s (/ edits the filter, esc clears it).", what, scope, views.Echo(m.reqLabels, w))
		}
		lines = append(lines, st.Muted.Render(wrap(text, w)))
		return fill(strings.Join(lines, "\n"), h)
	case len(m.shown) == 0:
		hidden := fmt.Sprintf("%d %s", len(m.table.Rows), m.info.ID)
		if len(m.table.Rows) == 1 {
			hidden = "1 row of " + string(m.info.ID)
		}
		lines = append(lines, st.Muted.Render(wrap(fmt.Sprintf("No rows match %s (%s hidden; / edits the filter, esc clears it).",
			m.filterText(), hidden), w)))
		return fill(strings.Join(lines, "\n"), h)
	}
	visible := m.visibleCells(m.lay)
	widths, shown := m.lay.widths(visible, w)
	if cut := len(m.lay.headers) - shown; cut > 0 {
		lines[0] = m.notice(w, cut)
	}
	lines = append(lines, st.ColumnHeader.Render(line(keepArrows(m.lay.headers[:shown], widths), widths, w)))
	rs := m.rowStyles()
	selected, health := rs.selected, rs.health
	for i, cells := range visible {
		cells = cells[:shown]
		for c, src := range m.lay.source[:shown] {
			if src == nameSlot || src == namespaceSlot || src == m.ix.contextSlot() {
				cells[c] = middle(cells[c], widths[c])
			}
		}
		text := line(cells, widths, w)
		switch hl := m.ix.rows[m.shown[m.offset+i]].Health; {
		case m.offset+i == m.cursor:
			lines = append(lines, selected.render(text))
		case hl >= 0 && int(hl) < len(health):
			lines = append(lines, health[hl].render(text))
		default:
			lines = append(lines, st.Health(hl).Render(text))
		}
	}
	return fill(strings.Join(lines, "\n"), h)
}

// visibleCells returns the texts of the rows on screen in layout l's
// columns, the cursor and marks in the marker column.
func (m *Model) visibleCells(l layout) [][]string {
	now := m.now()
	start := min(m.offset, len(m.shown))
	end := min(start+m.bodyHeight(), len(m.shown))
	visible := make([][]string, 0, end-start)
	for i := start; i < end; i++ {
		r := m.shown[i]
		row := &m.ix.rows[r]
		marked := len(m.marks) > 0 && m.marks[rowKey(row)]
		marker := " "
		switch {
		case i == m.cursor && marked:
			marker = "»"
		case i == m.cursor:
			marker = ">"
		case marked:
			marker = "*"
		}
		visible = append(visible, l.cells(m.ix, r, marker+views.HealthMarker(row.Health), now))
	}
	return visible
}

// overflows reports whether layout l's columns do not all fit the screen
// whole for the rows on it.
func (m *Model) overflows(l layout) bool {
	if m.ix == nil {
		return false
	}
	return l.overflows(m.visibleCells(l), m.vc.Width)
}

// retrying reports whether refreshes are backing off.
func (m *Model) retrying() bool {
	return m.failure != nil && m.delay > m.vc.Config.RefreshInterval
}

// notice is the line above the header: the filter prompt while typing,
// else a failed refresh or a malformed filter (error style), else what the
// filter, the marks and the columns scrolled out on the left and the cut
// columns left out on the right do (muted).
func (m *Model) notice(w, cut int) string {
	st := m.vc.Styles
	if m.typing {
		text := m.input.View()
		if hint := m.typingHint(); hint != "" {
			style := st.Muted
			if m.filter.note != "" {
				style = st.Error
			}
			text += "  " + style.Render(hint)
		}
		return line([]string{text}, []int{w}, w)
	}
	var errs []string
	if m.parentNote != "" {
		errs = append(errs, "! "+views.Sanitize(m.parentNote)+"; esc goes back")
	} else if m.failure != nil {
		age := m.now().Sub(m.taken).Round(time.Second)
		text := fmt.Sprintf("! refresh failed (%s)", m.failure.Reason)
		if m.retrying() {
			text += fmt.Sprintf(", retrying in %s", m.delay)
		}
		text += ": " + m.failure.Reason.Sentence()
		if len(m.table.Rows) > 0 {
			text += fmt.Sprintf("; showing rows read %s ago", age)
		}
		errs = append(errs, text)
	}
	if m.note != "" {
		errs = append(errs, views.Sanitize(m.note))
	}
	if len(errs) > 0 {
		return st.Error.Render(line([]string{strings.Join(errs, "; ")}, []int{w}, w))
	}
	var info []string
	if m.loaded && m.table.Reading {
		info = append(info, fmt.Sprintf("reading… %d so far", len(m.table.Rows)))
	}
	if m.filter.note != "" {
		info = append(info, m.filter.note)
	}
	if m.markedShown > 0 {
		info = append(info, fmt.Sprintf("%d marked", m.markedShown))
	}
	if cols := columnsNotice(m.lay.hidden, cut+m.lay.dropped); cols != "" {
		info = append(info, cols)
	}
	if p := m.metricsProblem(); p != "" {
		// Once, here: the cells only say "n/a".
		info = append(info, p)
	} else if age := views.MetricsAge(m.metTaken, m.now(), views.MetricsIntervalOf(m.vc)); age != "" && m.metricsGeneration() > 0 {
		info = append(info, age)
	}
	if note := m.metricsNote(); note != "" {
		info = append(info, note)
	}
	if len(info) == 0 {
		return ""
	}
	return st.Muted.Render(line([]string{strings.Join(info, "; ")}, []int{w}, w))
}

// columnsNotice says how many columns are scrolled out on the left (←
// brings them back) and left out on the right for want of room (→ scrolls
// to them).
func columnsNotice(hidden, cut int) string {
	plural := func(n int) string {
		if n == 1 {
			return ""
		}
		return "s"
	}
	switch {
	case hidden > 0 && cut > 0:
		return fmt.Sprintf("« %d column%s scrolled (←), %d cut off (→)", hidden, plural(hidden), cut)
	case hidden > 0:
		return fmt.Sprintf("« %d column%s scrolled (←)", hidden, plural(hidden))
	case cut > 0:
		return fmt.Sprintf("%d column%s cut off (→ scrolls)", cut, plural(cut))
	}
	return ""
}

// typingHint is what the prompt line says after the filter being typed.
func (m *Model) typingHint() string {
	switch {
	case m.filter.note != "":
		return m.filter.note
	case m.filter.mode == modeLabels:
		return "enter reads the objects with this label selector"
	}
	return ""
}

// sizeInput leaves room for the hint after the filter prompt.
func (m *Model) sizeInput() {
	room := m.vc.Width - 2
	if hint := m.typingHint(); hint != "" {
		room -= ansi.StringWidth(hint) + 2
	}
	m.input.Width = max(room, 8)
}

// explain says why a kind cannot be shown, in place of an empty table.
func explain(kind kube.Kind, scope string, t kube.Truncation, style func(...string) string, width int) string {
	head := fmt.Sprintf("Cannot show %s in %s: %s.", kind, scope, t.Reason.Sentence())
	return style(wrap(head, width)) + "\n\n" + wrap(views.Sanitize(t.Message), width)
}

// wrap breaks s into lines of at most width cells, at spaces where it can.
func wrap(s string, width int) string { return strings.Join(views.WrapWords(s, width), "\n") }

// fill pads s with blank lines to exactly h lines, cutting what is below.
func fill(s string, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}

// keepArrows cuts a sort column's header that does not fit before its
// arrow, so that the sort stays visible ("NOMINAT…↑", not "NOMINATED…").
func keepArrows(headers []string, widths []int) []string {
	out := headers
	for i, h := range headers {
		name, arrow := strings.TrimSuffix(strings.TrimSuffix(h, "↑"), "↓"), ""
		if name != h {
			arrow = h[len(name):]
		}
		if arrow == "" || i >= len(widths) || ansi.StringWidth(h) <= widths[i] || widths[i] < 2 {
			continue
		}
		if &out[0] == &headers[0] {
			out = append([]string(nil), headers...)
		}
		out[i] = ansi.Truncate(name, widths[i]-1, "…") + arrow
	}
	return out
}
