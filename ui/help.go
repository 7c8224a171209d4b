package ui

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
	"github.com/kyyard/kyyard/views/inventory"
)

// helpKey takes a key while the help overlay is open: q quits, ? or esc
// closes it, the others scroll it.
func (m *Model) helpKey(msg tea.KeyMsg) tea.Cmd {
	keys := m.vc.Keys
	switch {
	case key.Matches(msg, keys.Quit):
		m.help = false
		return m.quit()
	case key.Matches(msg, keys.Help), key.Matches(msg, keys.Back):
		m.help = false
	case msg.String() == "down", msg.String() == "j":
		m.helpOffset++
	case msg.String() == "up", msg.String() == "k":
		m.helpOffset--
	case msg.String() == "pgdown", msg.String() == " ":
		m.helpOffset += max(m.helpPage, 1)
	case msg.String() == "pgup":
		m.helpOffset -= max(m.helpPage, 1)
	case msg.String() == "home", msg.String() == "g":
		m.helpOffset = 0
	}
	return nil
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
		global = append(append(global, m.vc.Keys.Namespace, favouritesKeys), m.hotkeyHelp()...)
	}
	section("Global", global)
	section("This screen", m.Top().Bindings())
	if ks, ok := m.Top().(kindScreen); ok && inventory.HasMetricColumns(ks.Kind()) {
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
