package logs_test

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestLongSearchKeepsTheCount: a 5,000-character search filled the footer
// and pushed "no match" and the keys off it; the query is cut with "…"
// (views.Echo), at 80x24 and 200x50.
func TestLongSearchKeepsTheCount(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(10)}}}, podReq, size[0], size[1])
		h.keys("/")
		_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(strings.Repeat("qz", 2500)), Paste: true})
		h.run(cmd)
		h.keys("enter")
		view := h.view()
		lines := strings.Split(view, "\n")
		if f := lines[len(lines)-1]; !strings.Contains(f, "/qzqz") || !strings.Contains(f, "…  no match · n/N next/prev") {
			t.Fatalf("%dx%d: the footer %q", size[0], size[1], f)
		}
		viewtest.Golden(t, fmt.Sprintf("long-search-%dx%d", size[0], size[1]), view)
	}
}
