package ui_test

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

// TestMouseReachesTheTopScreen: the root hands a click to the top screen
// with Y counted from below the header and the title bar (a click on the
// second row of :pods all moves the cursor there), and none while the
// prompt is open, nor on the header.
func TestMouseReachesTheTopScreen(t *testing.T) {
	h := start(t)
	h.command("pods all")
	click := func(y int) {
		h.run(h.send(tea.MouseMsg{X: 20, Y: y, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress}))
	}
	click(0) // the header: nothing
	if l := lineOf(h.m.View(), "web-1"); len(l) == 0 || l[0] != '>' {
		t.Fatalf("a click on the header moved the cursor:\n%s", h.m.View())
	}
	h.keys(":")
	click(6)
	h.keys("esc")
	if l := lineOf(h.m.View(), "web-1"); len(l) == 0 || l[0] != '>' {
		t.Fatalf("a click under the prompt moved the cursor:\n%s", h.m.View())
	}
	click(6) // header 2 lines, title 1, notice 1, column header 1: the second row
	if l := lineOf(h.m.View(), "elsewhere"); len(l) == 0 || l[0] != '>' {
		t.Fatalf("a click on the second row did not move the cursor there:\n%s", h.m.View())
	}
}
