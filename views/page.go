package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
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

// ScrollKeys are the scroll keys of a page (Page). A screen's Keys struct
// embeds them: each is an action of the screen's key table (up, down,
// page-up, page-down, top, bottom).
type ScrollKeys struct {
	// Up and Down scroll a line.
	Up, Down key.Binding
	// PageUp and PageDown scroll a page.
	PageUp, PageDown key.Binding
	// Top and Bottom scroll to the first and the last lines.
	Top, Bottom key.Binding
}

// DefaultScrollKeys returns the default scroll keys: ↑/k and ↓/j a line,
// pgup and pgdn/space a page, g/home the top, G/end the bottom.
func DefaultScrollKeys() ScrollKeys {
	return ScrollKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", " "), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
	}
}

// Scroll moves *offset as msg says when it is one of the scroll keys (a
// page is height less two lines; Page clamps what is past the end) and
// reports whether it was.
func (k ScrollKeys) Scroll(msg tea.KeyMsg, offset *int, height int) bool {
	page := max(height-2, 1)
	switch {
	case key.Matches(msg, k.Down):
		*offset++
	case key.Matches(msg, k.Up):
		*offset = max(*offset-1, 0)
	case key.Matches(msg, k.PageDown):
		*offset += page
	case key.Matches(msg, k.PageUp):
		*offset = max(*offset-page, 0)
	case key.Matches(msg, k.Top):
		*offset = 0
	case key.Matches(msg, k.Bottom):
		*offset = 1 << 30
	default:
		return false
	}
	return true
}

// ScrollHelp is the scroll keys' one entry of the help overlay: "↑/↓
// pgup/pgdn  scroll" with the default keys.
func (k ScrollKeys) ScrollHelp() key.Binding {
	return ScrollHelp(k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom)
}

// ScrollHelp returns one entry of the help overlay for a screen's scroll
// keys: the help keys of up and down joined by "/", then those of pageUp
// and pageDown ("↑/↓ pgup/pgdn  scroll"); it holds the keys of all of
// them and of more (the top and the bottom: not named), so that the root
// knows a chord bound to any of them.
func ScrollHelp(up, down, pageUp, pageDown key.Binding, more ...key.Binding) key.Binding {
	lines, pages := HelpOf("", up, down), HelpOf("", pageUp, pageDown)
	var helps []string
	for _, b := range []key.Binding{lines, pages} {
		if b.Enabled() {
			helps = append(helps, b.Help().Key)
		}
	}
	out := HelpOf("scroll", append([]key.Binding{up, down, pageUp, pageDown}, more...)...)
	out.SetHelp(strings.Join(helps, " "), "scroll")
	return out
}
