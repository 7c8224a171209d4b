package detail_test

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestLongSearchKeepsTheCount: a 5,000-character search of describe or
// YAML filled the footer and pushed "no match" off it; the query is cut
// with "…" (views.Echo), at 80x24 and 200x50.
func TestLongSearchKeepsTheCount(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for _, v := range []views.ObjectView{views.DescribeView, views.YAMLView} {
			m := open(t, newSource(), v, size[0], size[1])
			press(m, "/")
			m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("qz", 2500)), Paste: true})
			press(m, "enter")
			view := m.View()
			viewtest.Size(t, view, size[0], size[1])
			if f := footer(view); !strings.Contains(f, "/qzqz") || !strings.Contains(f, "…: no match") {
				t.Fatalf("%dx%d: the footer %q", size[0], size[1], f)
			}
			if v == views.DescribeView {
				viewtest.Golden(t, fmt.Sprintf("describe-long-search-%dx%d", size[0], size[1]), view)
			}
		}
	}
}
