package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
)

// Page draws a page of text in exactly width x height cells: body lines
// (each indented one cell; a longer line than the width is wrapped at
// spaces, its continuation indented past the line's own indentation),
// scrolled from *offset when they
// do not fit (clamped; the last line then counts what is below), padded
// with empty lines, then the help line in the muted style. The simple
// screens (operate, rollout, history) share it.
func Page(st Styles, width, height int, body []string, help string, offset *int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	rest := max(height-1, 0)
	body = WrapLines(body, width-1)
	if len(body) > rest && rest > 1 {
		*offset = max(min(*offset, len(body)-rest+1), 0)
		below := len(body) - *offset - (rest - 1)
		body = body[*offset:]
		if below > 0 {
			body = append(body[:rest-1:rest-1], st.Muted.Render(fmt.Sprintf("… %s (↓/pgdn)", kube.Plural(below, "more line"))))
		}
	} else {
		*offset = 0
	}
	lines := make([]string, 0, height)
	for i := 0; i < rest; i++ {
		l := ""
		if i < len(body) {
			l = " " + body[i]
		}
		lines = append(lines, ansi.Truncate(l, width, "…"))
	}
	lines = append(lines, ansi.Truncate(" "+st.Muted.Render(help), width, "…"))
	return strings.Join(lines[:min(len(lines), height)], "\n")
}

// WrapLines breaks the lines wider than w cells at spaces (or slashes);
// continuation lines are indented three cells past the line's own
// indentation (at most half the width). Below 20 cells lines are left
// whole, to be cut by the caller.
func WrapLines(lines []string, w int) []string {
	out := make([]string, 0, len(lines))
	for _, l := range lines {
		if ansi.StringWidth(l) <= w || w < 20 {
			out = append(out, l)
			continue
		}
		parts := strings.Split(ansi.Wrap(l, w, " /"), "\n")
		out = append(out, parts[0])
		indent := min(len(l)-len(strings.TrimLeft(l, " "))+3, w/2)
		rest := strings.Join(parts[1:], " ")
		for _, p := range strings.Split(ansi.Wrap(rest, w-indent, " /"), "\n") {
			out = append(out, strings.Repeat(" ", indent)+p)
		}
	}
	return out
}

// ScrollKey moves *offset as a page's scroll keys do (↓/j and ↑/k a line,
// pgdn/space and pgup a page of height, g/home the top, G/end the bottom:
// Page clamps what is past it) and reports whether key (tea.KeyMsg.String)
// was one of them.
func ScrollKey(key string, offset *int, height int) bool {
	page := max(height-2, 1)
	switch key {
	case "down", "j":
		*offset++
	case "up", "k":
		*offset = max(*offset-1, 0)
	case "pgdown", " ":
		*offset += page
	case "pgup":
		*offset = max(*offset-page, 0)
	case "g", "home":
		*offset = 0
	case "G", "end":
		*offset = 1 << 30
	default:
		return false
	}
	return true
}
