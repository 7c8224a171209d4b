package detail

import (
	"fmt"
	"sort"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the visible lines of the text, with search matches marked,
// and a footer line (position, settings, search, read state) or the search
// prompt; in place of the text, the loading line or why the object cannot
// be shown. Only visible lines are drawn.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.vc.Styles
	if m.failure != nil && (!m.loaded || !transient(kube.ReasonOf(m.failure))) {
		return fill(m.failureView(w), h)
	}
	if !m.loaded {
		return fill(st.Muted.Render(ansi.Truncate("Reading "+m.Title()+"…", w, "…")), h)
	}
	m.relayout()
	body := m.chartView(w)
	chart := len(body)
	end := min(m.vp.YOffset+m.vp.Height, len(m.segs))
	for row := m.vp.YOffset; row < end; row++ {
		body = append(body, m.drawRow(row))
	}
	if len(m.lines) == 1 && m.lines[0] == "" {
		body = append(body[:chart], st.Muted.Render("(empty)"))
	}
	for len(body) < h-1 {
		body = append(body, "")
	}
	return strings.Join(append(body, m.footer(w)), "\n")
}

// drawRow draws one display line: the match marker, then the text with
// its matches in the Match style (the current one in CurrentMatch), cut to
// the screen when not wrapping.
func (m *Model) drawRow(row int) string {
	st := m.vc.Styles
	seg := m.segs[row]
	line := m.lines[seg.src]
	var b strings.Builder
	at, marker := seg.start, ""
	i := sort.Search(len(m.matches), func(i int) bool { return m.matches[i].line >= seg.src })
	for ; i < len(m.matches) && m.matches[i].line == seg.src; i++ {
		hit := m.matches[i]
		from, to := max(hit.start, seg.start), min(hit.end, seg.end)
		if from >= to || from < at {
			continue
		}
		style := st.Match
		if i == m.current {
			style, marker = st.CurrentMatch, "> "
		} else if marker == "" {
			marker = "* "
		}
		b.WriteString(line[at:from])
		b.WriteString(style.Render(line[from:to]))
		at = to
	}
	b.WriteString(line[at:seg.end])
	text := b.String()
	if !m.wrap {
		text = ansi.Cut(text, m.x, m.x+m.contentWidth())
	}
	if g := m.gutter(); g > 0 {
		if marker == "" {
			marker = strings.Repeat(" ", g)
		}
		text = marker + text
	}
	return text
}

// footer is the screen's last line: the search prompt while it is open,
// else where the view is, its settings, the search and the read state.
func (m *Model) footer(w int) string {
	st := m.vc.Styles
	if m.searching {
		return ansi.Truncate(m.prompt.View(), w, "…")
	}
	var parts []string
	n := len(m.lines)
	if len(m.segs) <= m.vp.Height {
		parts = append(parts, "all "+kube.Plural(n, "line"))
	} else {
		top := m.segs[m.vp.YOffset].src + 1
		bottom := m.segs[min(m.vp.YOffset+m.vp.Height, len(m.segs))-1].src + 1
		parts = append(parts, fmt.Sprintf("lines %d-%d of %d (%d%%)", top, bottom, n, bottom*100/n))
	}
	if cw := m.contentWidth(); !m.wrap && m.longest > cw {
		parts = append(parts, fmt.Sprintf("cols %d-%d of %d (←/→)", m.x+1, min(m.x+cw, m.longest), m.longest))
	}
	if m.wrap {
		parts = append(parts, "wrapped")
	}
	if m.view == views.YAMLView && m.managed {
		parts = append(parts, "managedFields shown")
	}
	if m.query != "" {
		// What was typed gives way to what it found (views.Echo).
		found := ": no match"
		if len(m.matches) > 0 {
			hit := m.matches[m.current]
			found = fmt.Sprintf(": match %d of %d, line %d", m.current+1, len(m.matches), hit.line+1)
		}
		used := ansi.StringWidth(strings.Join(parts, "  ")) + 3 + ansi.StringWidth(found)
		if m.reading {
			used += 2 + ansi.StringWidth("reading…")
		}
		room := min(ansi.StringWidth(views.Echo(m.query, w)), max(w-used, views.EchoMin))
		parts = append(parts, "/"+views.EchoIn(m.query, room)+found)
	}
	if m.reading {
		parts = append(parts, "reading…")
	}
	info := st.Muted.Render(strings.Join(parts, "  "))
	if m.failure != nil {
		r := kube.ReasonOf(m.failure)
		info = st.Error.Render(fmt.Sprintf("! read failed (%s): %s; showing the text read before", r, sentence(r))) + "  " + info
	}
	return ansi.Truncate(info, w, "…")
}

// failureView says why the object cannot be shown: the reason's sentence,
// the API server's message, and what to do.
func (m *Model) failureView(w int) string {
	st := m.vc.Styles
	r := kube.ReasonOf(m.failure)
	head := fmt.Sprintf("Cannot show %s: %s.", m.Title(), sentence(r))
	var lines []string
	for _, l := range strings.Split(wrap(head, w), "\n") {
		lines = append(lines, st.Error.Render(l)) // line by line: lipgloss pads a block to its widest line
	}
	lines = append(lines, "", wrap(views.Sanitize(m.failure.Error()), w), "")
	hint := "ctrl+r reads again; esc goes back."
	if m.reading {
		hint = "reading…"
	}
	lines = append(lines, st.Muted.Render(ansi.Truncate(hint, w, "…")))
	return strings.Join(lines, "\n")
}

// sentence says what a reason means on this screen, which reads only when
// asked: a missing object was deleted (it was there when its row was
// drawn), and a server that cannot be reached is tried again with ctrl+r.
func sentence(r kube.Reason) string {
	switch r {
	case kube.ReasonNotFound:
		return "the object was deleted"
	case kube.ReasonUnavailable, kube.ReasonTimeout:
		return r.Sentence() + "; ctrl+r tries again"
	}
	return r.Sentence()
}

// wrap breaks s into lines of at most w cells, at spaces where it can.
func wrap(s string, w int) string {
	lines := strings.Split(ansi.Wrap(s, w, "/"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// transient reports whether a failed read may succeed if tried again
// unchanged: the text read before stays on screen then.
func transient(r kube.Reason) bool {
	return r == kube.ReasonUnavailable || r == kube.ReasonTimeout
}

// fill pads s with empty lines to exactly h lines, cutting what is below.
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

// cells is the width of s on the terminal.
func cells(s string) int { return ansi.StringWidth(s) }
