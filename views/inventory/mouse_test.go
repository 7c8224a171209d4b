package inventory_test

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestMouseClicksAndWheel is issue 27's mouse on a table (Y counted from
// the screen's first line, as the root hands it): a click on a row moves
// the cursor there; a click on a column header sorts by that column, a
// second click the other way; the wheel moves three rows, never past the
// ends; a click below the rows or on the marker column's header does
// nothing.
func TestMouseClicksAndWheel(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "", 80, 24)
	click := func(x, y int) {
		m.Update(tea.MouseMsg{X: x, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	}
	cursorLine := func() string {
		for _, l := range strings.Split(m.View(), "\n") {
			if strings.HasPrefix(l, ">") {
				return l
			}
		}
		return ""
	}
	// Line 0: the notice, 1: the header, 2.. the rows (all namespaces:
	// badimage, crashy, web in demo, then elsewhere in other).
	click(20, 4)
	if l := cursorLine(); !strings.Contains(l, "web-7d9f-abcde") {
		t.Fatalf("a click on the third row: the cursor is on %q\n%s", l, m.View())
	}
	header := strings.Split(m.View(), "\n")[1]
	status := strings.Index(header, "STATUS")
	click(status+1, 1)
	if header = strings.Split(m.View(), "\n")[1]; !strings.Contains(header, "STATUS↑") {
		t.Fatalf("a click on STATUS did not sort by it: %q", header)
	}
	viewtest.Golden(t, "pods-mouse-sorted-80x24", m.View())
	click(strings.Index(header, "STATUS")+1, 1)
	if header = strings.Split(m.View(), "\n")[1]; !strings.Contains(header, "STATUS↓") {
		t.Fatalf("a second click on STATUS did not flip the order: %q", header)
	}
	click(0, 1)
	if h := strings.Split(m.View(), "\n")[1]; h != header {
		t.Fatalf("a click on the marker column's header changed the sort: %q", h)
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	first := cursorLine()
	if first != strings.Split(m.View(), "\n")[2] {
		t.Fatalf("the wheel up past the top: the cursor is on %q, not the first row", first)
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if l := cursorLine(); l != strings.Split(m.View(), "\n")[5] {
		t.Fatalf("one turn of the wheel down: the cursor is on %q, want the fourth row\n%s", l, m.View())
	}
	before := m.View()
	click(20, 20)
	if m.View() != before {
		t.Fatal("a click below the rows changed the screen")
	}
}
