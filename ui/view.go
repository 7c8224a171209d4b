package ui

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
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
	if m.width < minTermWidth || m.height < m.minHeight() {
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

// headerCache is the header drawn last (text) and what it was drawn from
// (key, headerKey).
type headerCache struct{ key, text string }

// header returns the header (drawHeader), drawn again only when what it
// is drawn from changed: it is the costliest part of a frame but the
// screen's (a style per fact), and it seldom changes.
func (m *Model) header() string {
	if key := m.headerKey(); key != m.headerDrawn.key || m.headerDrawn.text == "" {
		m.headerDrawn = headerCache{key: key, text: m.drawHeader()}
	}
	return m.headerDrawn.text
}

// headerKey is everything drawHeader reads, as text.
func (m *Model) headerKey() string {
	_, table := m.Top().(kindScreen)
	favourites := ""
	if table {
		favourites = strings.Join(m.favourites(), "\x00")
	}
	f := m.facts
	return strings.Join([]string{strconv.Itoa(m.width), strconv.FormatBool(m.split()), strconv.FormatBool(m.hasFacts),
		f.Context, f.Cluster, f.User, f.ServerVersion, f.Platform, f.Nodes, m.modeText(), strconv.FormatBool(m.factsStale),
		m.factsAt.Format(time.TimeOnly), m.unreachableSince.Format(time.TimeOnly), strconv.FormatBool(m.unreachableSince.IsZero()),
		strconv.FormatBool(table), favourites}, "\x00")
}

// drawHeader draws the facts in two lines: who and where (context, cluster,
// user), then what (server version, platform, node count). A pair that does
// not fit the width is left out rather than wrapped.
func (m *Model) drawHeader() string {
	f := m.facts
	if !m.hasFacts {
		f = kube.Facts{Context: "…", Cluster: "…", User: "…", ServerVersion: "…", Platform: "…", Nodes: "…"}
	}
	if m.split() {
		return m.paneHeader(f)
	}
	what := [][2]string{{"k8s", f.ServerVersion}, {"platform", f.Platform}, {"nodes", f.Nodes}}
	if mode := m.modeText(); mode != "" {
		what = append([][2]string{{"mode", mode}}, what...)
	}
	if m.factsStale {
		what = append([][2]string{{"stale", "server unreachable, facts read " + m.factsAt.Format("15:04:05")}}, what...)
	}
	who := m.factsLine([][2]string{{"ctx", f.Context}, {"cluster", f.Cluster}, {"user", f.User}}, m.width)
	if !m.unreachableSince.IsZero() {
		// Where kyyard tried to connect stays in sight; the server's facts
		// give way to the banner.
		return who + "\n" + m.banner()
	}
	return who + "\n" + m.withFavourites(m.factsLine(what, m.width))
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

// factsLine draws "key: value" pairs on one line of width cells. When
// they do not fit, the longest values are cut first (down to 8 cells
// each), so that a long context name does not push the cluster and user
// off the line; pairs that still do not fit are left out from the right.
func (m *Model) factsLine(pairs [][2]string, width int) string {
	st := m.vc.Styles
	values := make([]string, len(pairs))
	widths := make([]int, len(pairs))
	excess := -width
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
	used := 0
	for i, p := range pairs {
		value := values[i]
		plain := p[0] + ": " + value
		if i > 0 {
			plain = "  " + plain
		}
		if used+ansi.StringWidth(plain) > width {
			if i == 0 {
				return st.HeaderKey.Render(ansi.Truncate(plain, width, "…"))
			}
			break
		}
		used += ansi.StringWidth(plain)
		if i > 0 {
			b.WriteString("  ")
		}
		b.WriteString(st.HeaderKey.Render(p[0]+":") + " " + st.HeaderValue.Render(value))
	}
	return b.String()
}

// titleBar names the screens of the stack, the top one last ("»" first
// in the focused pane of a split), cut to the width.
func (m *Model) titleBar() string {
	mark := m.paneMark()
	width := m.width - ansi.StringWidth(mark)
	titles := make([]string, len(m.stack), len(m.stack)+1)
	for i, s := range m.stack {
		titles[i] = s.Title() + m.tagLabel(i)
	}
	if m.overlay != nil {
		titles = append(titles, m.overlay.Title())
	}
	t := views.Sanitize(strings.Join(titles, " › "))
	if ansi.StringWidth(t) > width {
		// The screens below give way first, from the left; a top title
		// that alone does not fit keeps its start (the screen's name and
		// counts) and is cut at the right.
		if top := views.Sanitize(titles[len(titles)-1]); ansi.StringWidth(top)+2 > width {
			t = ansi.Truncate(top, width, "…")
		} else {
			t = ansi.TruncateLeft(t, ansi.StringWidth(t)-width+1, "…")
		}
	}
	if !m.focused() {
		return m.vc.Styles.Muted.Render(mark + t)
	}
	return m.vc.Styles.Title.Render(mark + t)
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
	if h, ok := m.Top().(views.Hinter); ok && h.Hint() != "" && m.focused() {
		// A form that takes ?, : and q as text says its own keys.
		return st.Muted.Render(ansi.Truncate(h.Hint(), m.width, "…"))
	}
	if hint := m.splitHint(); hint != "" {
		return st.Muted.Render(ansi.Truncate(hint, m.width, "…"))
	}
	return st.Muted.Render(ansi.Truncate(m.globalHint(false), m.width, "…"))
}

// globalHint names the global keys in force ("? help  : command  esc back
// q quit" by default; in a split's focused pane, focus's "ctrl+w other
// pane" after command): each action's first key, an unbound one left out.
func (m *Model) globalHint(split bool) string {
	k := m.vc.Keys
	focus := k.Focus
	if !split {
		focus = key.Binding{}
	}
	var parts []string
	for _, b := range []struct {
		key.Binding
		word string
	}{{k.Help, "help"}, {k.Command, "command"}, {focus, "other pane"}, {k.Back, "back"}, {k.Quit, "quit"}} {
		if b.Enabled() {
			parts = append(parts, views.KeyHelp(b.Keys()[:1])+" "+b.word)
		}
	}
	return strings.Join(parts, "  ")
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
	lines := views.TooSmall(m.width, m.height, minTermWidth, m.minHeight(), m.width, m.height)
	for i, l := range lines {
		lines[i] = padRight(l, m.width)
	}
	for len(lines) < m.height {
		lines = append(lines, strings.Repeat(" ", m.width))
	}
	return m.vc.Styles.Error.Render(strings.Join(lines, "\n"))
}
