package inventory

// A screen of several namespaces (-n a,b, `:pods a,b`, marks in the
// namespace picker; issue 27): kube reads each namespace on its own and
// names those it could not read (Table.Unread); the screen shows the others'
// rows with the NAMESPACE column, and a line for each namespace not read.

import (
	"fmt"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/views"
)

// stateLines are the lines between the title and the rows: the fleet's
// clusters (fleetLines) and the namespaces not read (unreadLines).
func (m *Model) stateLines(w int) []string {
	return append(m.fleetLines(w), m.unreadLines(w)...)
}

// unreadLines name, on a screen of several namespaces, each namespace
// whose rows could not be read, with the reason and the API server's
// message (at most maxFailedLines, then how many more).
func (m *Model) unreadLines(w int) []string {
	unread := m.table.Unread
	if len(unread) == 0 {
		return nil
	}
	st := m.vc.Styles
	var lines []string
	for i, u := range unread {
		if i == maxFailedLines {
			lines = append(lines, st.Muted.Render(fmt.Sprintf("(%d more namespaces not read)", len(unread)-i)))
			break
		}
		text := fmt.Sprintf("namespace %s not read: %s: %s", views.Sanitize(u.Namespace), u.Reason, views.Sanitize(oneLine(u.Message)))
		lines = append(lines, st.Error.Render(ansi.Truncate(text, w, "…")))
	}
	return lines
}
