package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the facts line, the title bar, the top screen (or the picker
// or help overlay) and the status line, in exactly the terminal's size.
func (m *Model) View() string {
	if m.width <= 0 || m.height <= 0 {
		return ""
	}
	if m.width < minTermWidth || m.height < minTermHeight {
		return m.tooSmall()
	}
	body := m.Top().View()
	switch {
	case m.overlay != nil:
		body = m.overlay.View()
	case m.help:
		body = m.helpView()
	}
	parts := []string{m.header(), m.titleBar(), body, m.statusLine()}
	return strings.Join(parts, "\n")
}

// header draws the facts in two lines: who and where (context, cluster,
// user), then what (server version, platform, node count). A pair that does
// not fit the width is left out rather than wrapped.
func (m *Model) header() string {
	f := m.facts
	if !m.hasFacts {
		f = kube.Facts{Context: "…", Cluster: "…", User: "…", ServerVersion: "…", Platform: "…", Nodes: "…"}
	}
	what := [][2]string{{"k8s", f.ServerVersion}, {"platform", f.Platform}, {"nodes", f.Nodes}}
	if mode := m.modeText(); mode != "" {
		what = append([][2]string{{"mode", mode}}, what...)
	}
	if m.factsStale {
		what = append([][2]string{{"stale", "server unreachable, facts read " + m.factsAt.Format("15:04:05")}}, what...)
	}
	who := m.factsLine([][2]string{{"ctx", f.Context}, {"cluster", f.Cluster}, {"user", f.User}})
	if !m.unreachableSince.IsZero() {
		// Where kyyard tried to connect stays in sight; the server's facts
		// give way to the banner.
		return who + "\n" + m.banner()
	}
	return who + "\n" + m.factsLine(what)
}

// banner replaces the second header line while the API server cannot be
// reached: since when, and that kyyard keeps retrying (the screens keep the
// rows they last read, each saying how old they are and when it tries
// again: one countdown on screen, not two).
func (m *Model) banner() string {
	text := fmt.Sprintf("! API server unreachable since %s; kyyard keeps retrying; screens keep what they last read",
		m.unreachableSince.Format("15:04:05"))
	return m.vc.Styles.Error.Render(padRight(ansi.Truncate(text, m.width, "…"), m.width))
}

// factsLine draws "key: value" pairs on one line. When they do not fit,
// the longest values are cut first (down to 8 cells each), so that a long
// context name does not push the cluster and user off the line; pairs
// that still do not fit are left out from the right.
func (m *Model) factsLine(pairs [][2]string) string {
	st := m.vc.Styles
	values := make([]string, len(pairs))
	widths := make([]int, len(pairs))
	excess := -m.width
	for i, p := range pairs {
		values[i] = views.Sanitize(p[1])
		widths[i] = ansi.StringWidth(values[i])
		excess += ansi.StringWidth(p[0]+": ") + widths[i] + 2*min(i, 1)
	}
	views.GiveWay(widths, excess, func(int) int { return 8 })
	for i, v := range values {
		if ansi.StringWidth(v) > widths[i] {
			values[i] = ansi.Truncate(v, widths[i], "…")
		}
	}
	var b strings.Builder
	width := 0
	for i, p := range pairs {
		value := values[i]
		plain := p[0] + ": " + value
		if i > 0 {
			plain = "  " + plain
		}
		if width+ansi.StringWidth(plain) > m.width {
			if i == 0 {
				return st.HeaderKey.Render(ansi.Truncate(plain, m.width, "…"))
			}
			break
		}
		width += ansi.StringWidth(plain)
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(st.HeaderKey.Render(p[0]+":") + " " + st.HeaderValue.Render(value))
	}
	return b.String()
}

func (m *Model) titleBar() string {
	titles := make([]string, len(m.stack), len(m.stack)+1)
	for i, s := range m.stack {
		titles[i] = s.Title()
	}
	if m.overlay != nil {
		titles = append(titles, m.overlay.Title())
	}
	t := views.Sanitize(strings.Join(titles, " › "))
	if ansi.StringWidth(t) > m.width {
		// The screens below give way first, from the left; a top title
		// that alone does not fit keeps its start (the screen's name and
		// counts) and is cut at the right.
		if top := views.Sanitize(titles[len(titles)-1]); ansi.StringWidth(top)+2 > m.width {
			t = ansi.Truncate(top, m.width, "…")
		} else {
			t = ansi.TruncateLeft(t, ansi.StringWidth(t)-m.width+1, "…")
		}
	}
	return m.vc.Styles.Title.Render(t)
}

func (m *Model) statusLine() string {
	st := m.vc.Styles
	switch {
	case m.prompting:
		return m.promptView()
	case m.status.Text != "" && m.status.Error:
		return st.Error.Render(ansi.Truncate(views.Sanitize(m.status.Text), m.width, "…"))
	case m.status.Text != "":
		return ansi.Truncate(views.Sanitize(m.status.Text), m.width, "…")
	case m.overlay != nil:
		hint := "type to filter  enter pick  esc cancel  ctrl+c quit"
		if h, ok := m.overlay.(interface{ Hint() string }); ok {
			hint = h.Hint()
		}
		return st.Muted.Render(ansi.Truncate(hint, m.width, "…"))
	}
	if h, ok := m.Top().(views.Hinter); ok && h.Hint() != "" {
		// A form that takes ?, : and q as text says its own keys.
		return st.Muted.Render(ansi.Truncate(h.Hint(), m.width, "…"))
	}
	return st.Muted.Render(ansi.Truncate("? help  : command  esc back  q quit", m.width, "…"))
}

// helpView lists the global bindings and the top screen's, generated from
// their key.Binding help texts, flowed into as many columns as the height
// needs.
func (m *Model) helpView() string {
	st := m.vc.Styles
	var entries []string
	section := func(title string, bindings []key.Binding) {
		entries = append(entries, st.HeaderKey.Render(title))
		for _, b := range bindings {
			h := b.Help()
			if h.Key == "" || !b.Enabled() {
				continue
			}
			entries = append(entries, st.HelpKey.Render(padRight(h.Key, 8))+" "+st.HelpDescription.Render(h.Desc))
		}
	}
	// The namespace picker key and the row markers belong to the tables
	// (inventory screens): other screens' help does not list them.
	_, table := m.Top().(kindScreen)
	global := m.vc.Keys.Bindings()
	if table {
		global = append(global, m.pickKey)
	}
	section("Global", global)
	section("This screen", m.Top().Bindings())
	if ks, ok := m.Top().(kindScreen); ok && (ks.Kind() == kube.KindPods || ks.Kind() == kube.KindContainers || ks.Kind() == kube.KindNodes) {
		// What the metrics cells mean (issue 12).
		entries = append(entries, st.HeaderKey.Render("Metrics columns"))
		for _, e := range [][2]string{{"45%*", "some containers set none"}, {"n/a", "unset, not running, a native sidecar, or unreadable"}, {"-", "no sample yet"}, {"w", "CPU and MEM trends"}} {
			entries = append(entries, st.HelpKey.Render(padRight(e[0], 8))+" "+st.HelpDescription.Render(e[1]))
		}
	}
	var footer []string
	footLines := [][]string{commandHelp()}
	if table {
		footLines = append(footLines, []string{"Row markers:", "x failed", "! warning", "~ progressing", "(blank) ok"})
	}
	for _, items := range footLines {
		for _, l := range wrapItems(items, m.width) {
			footer = append(footer, st.Muted.Render(l))
		}
	}
	// As many columns as fit the width, each as wide as its widest entry
	// (entries wider than the screen are cut with "…").
	colWidth := 0
	for _, e := range entries {
		colWidth = max(colWidth, ansi.StringWidth(e))
	}
	// Two columns at least when the screen is 60 cells or wider: an entry
	// longer than half the screen is cut.
	colWidth = max(min(colWidth, m.width), 1)
	if m.width >= 60 {
		colWidth = min(colWidth, (m.width-3)/2)
	}
	ncols := max((m.width+3)/(colWidth+3), 1)
	perCol := (len(entries) + ncols - 1) / ncols
	var columns []string
	for start := 0; start < len(entries); start += perCol {
		col := entries[start:min(start+perCol, len(entries))]
		for i, e := range col {
			col[i] = padRight(ansi.Truncate(e, colWidth, "…"), colWidth)
		}
		columns = append(columns, lipgloss.NewStyle().PaddingRight(3).Render(strings.Join(col, "\n")))
	}
	body := strings.Split(lipgloss.JoinHorizontal(lipgloss.Top, columns...), "\n")
	// Keys that do not fit scroll (↑/↓, pgup/pgdn); a line says so.
	room := max(m.vc.Height-1-len(footer), 1)
	title := st.Title.Render("Keys")
	if len(body) > room {
		room = max(room-1, 1)
		m.helpOffset = max(min(m.helpOffset, len(body)-room), 0)
		title += st.Muted.Render(fmt.Sprintf("  (lines %d-%d of %d: ↑/↓ pgup/pgdn scroll)", m.helpOffset+1, m.helpOffset+room, len(body)))
		body = body[m.helpOffset : m.helpOffset+room]
		m.helpPage = room
	} else {
		m.helpOffset = 0
	}
	lines := append([]string{title}, body...)
	lines = append(lines, footer...)
	if len(lines) > m.vc.Height {
		lines = lines[:m.vc.Height]
	}
	for len(lines) < m.vc.Height {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, m.width, "")
	}
	return strings.Join(lines, "\n")
}

// wrapItems lays items out two spaces apart, in as many lines of width
// cells as they need, never breaking an item unless it alone is wider.
func wrapItems(items []string, width int) []string {
	var lines []string
	cur := ""
	for _, it := range items {
		switch {
		case cur == "":
			cur = it
		case ansi.StringWidth(cur)+2+ansi.StringWidth(it) <= width:
			cur += "  " + it
		default:
			lines = append(lines, cur)
			cur = it
		}
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, max(width, 1), "…")
	}
	return lines
}

func padRight(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// The smallest terminal kyyard draws in: the header, title and status
// lines, a column header and two rows.
const (
	minTermWidth  = 20
	minTermHeight = chromeLines + 3
)

// tooSmall fills the terminal with a message giving its real size and the
// size kyyard needs, wrapped at spaces (in fewer words when it does not fit).
func (m *Model) tooSmall() string {
	lines := views.TooSmall(m.width, m.height, minTermWidth, minTermHeight, m.width, m.height)
	for i, l := range lines {
		lines[i] = padRight(l, m.width)
	}
	for len(lines) < m.height {
		lines = append(lines, strings.Repeat(" ", m.width))
	}
	return m.vc.Styles.Error.Render(strings.Join(lines, "\n"))
}

// promptView draws the `:` prompt: what is typed, the cursor, and, muted,
// the rest of the command enter would run (completed), so the hint never
// differs from what runs (":pv" shows nothing more and opens
// persistentvolumes). Every part is cleaned with views.Sanitize: the
// completions are kubeconfig context names and the cluster's namespace
// names, which may hold control characters (a context named "evil\x1b[2J"
// must not clear the screen). A line wider than the screen keeps the
// cursor in view and cuts the text before it.
func (m *Model) promptView() string {
	st := m.vc.Styles
	value := []rune(m.prompt.Value())
	pos := min(max(m.prompt.Position(), 0), len(value))
	before := views.Sanitize(string(value[:pos]))
	var under, after, rest string
	if pos < len(value) {
		under, after = views.Sanitize(string(value[pos])), views.Sanitize(string(value[pos+1:]))
	} else if run := []rune(m.completed()); len(run) > len(value) && string(run[:len(value)]) == string(value) {
		completion := run[len(value):]
		under, rest = views.Sanitize(string(completion[0])), views.Sanitize(string(completion[1:]))
	}
	if under == "" {
		under = " "
	}
	avail := max(m.width-1, 1) // after ":"
	if w := ansi.StringWidth(before) + ansi.StringWidth(under); w > avail {
		before = ansi.TruncateLeft(before, w-avail+1, "…")
	}
	room := avail - ansi.StringWidth(before) - ansi.StringWidth(under)
	after = ansi.Truncate(after, max(room, 0), "")
	rest = ansi.Truncate(rest, max(room-ansi.StringWidth(after), 0), "")
	cursor := st.Prompt.Reverse(true)
	if rest != "" || (pos == len(value) && under != " ") {
		cursor = st.Muted.Reverse(true)
	}
	return st.Prompt.Render(":"+before) + cursor.Render(under) + st.Prompt.Render(after) + st.Muted.Render(rest)
}
