package views

import "github.com/charmbracelet/x/ansi"

// Echo bounds the cells a person's typed text (a filter, a search, a
// command, a name) takes where a title or a message repeats it.
const (
	// EchoMin is the fewest cells Echo keeps of the typed text.
	EchoMin = 12
	// EchoMax is the most cells Echo keeps of the typed text, whatever the
	// width.
	EchoMax = 40
)

// Echo returns text a person typed as a title or a message repeats it:
// cleaned (Sanitize) and, when it is wider than a third of width cells
// (EchoMin to EchoMax cells; EchoMax when width is 0 or less), cut with
// "…". What surrounds it (the screen's name, the counts, the hint of what
// to do) then stays in sight: a 5,000-character filter must not take over
// the title or wrap its "no rows match" message over the table.
func Echo(typed string, width int) string {
	room := EchoMax
	if width > 0 {
		room = min(max(width/3, EchoMin), EchoMax)
	}
	return EchoIn(typed, room)
}

// EchoIn is Echo in at most cells cells (at least one), for a line that
// knows the room it has left.
func EchoIn(typed string, cells int) string {
	s := Sanitize(typed)
	if ansi.StringWidth(s) <= cells {
		return s
	}
	return ansi.Truncate(s, max(cells, 1), "…")
}
