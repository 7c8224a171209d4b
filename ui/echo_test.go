package ui_test

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// long is 5,000 characters typed (pasted) into a filter, a search or the
// prompt.
var long = strings.Repeat("qz", 2500)

// paste sends text as one pasted key press.
func (h *harness) paste(text string) tea.Cmd {
	return h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true})
}

// TestLongFilterKeepsTheTitleAndTheHint: a 5,000-character filter took
// over the title bar (the screen's name was lost) and its "No rows match"
// message wrapped over the table, pushing its hint off the screen. The
// typed text is cut with "…": the title keeps the screen's name and
// counts, the message its hint, at 80x24 and 200x50.
func TestLongFilterKeepsTheTitleAndTheHint(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := startWith(t, client, "demo", size[0], size[1])
		h.keys("/")
		h.paste(long)
		h.keys("enter")
		view := h.m.View()
		viewtest.Size(t, view, size[0], size[1])
		lines := strings.Split(view, "\n")
		if title := lines[2]; !strings.HasPrefix(title, "pods(demo)[0/") || !strings.Contains(title, "/qzqz") || !strings.Contains(title, "…") {
			t.Fatalf("%dx%d: the title %q", size[0], size[1], title)
		}
		body := strings.Join(lines[3:len(lines)-1], "\n")
		if !strings.Contains(body, "No rows match /qz") || !strings.Contains(body, "esc clears it).") {
			t.Fatalf("%dx%d: the message:\n%s", size[0], size[1], view)
		}
		viewtest.Golden(t, fmt.Sprintf("root-long-filter-%dx%d", size[0], size[1]), view)
	}
}

// TestLongCommandKeepsItsMessage: the prompt's messages that repeat what
// was typed (an unknown command, a malformed namespace, an unknown
// context) keep what they say after it in sight: the typed text is cut.
func TestLongCommandKeepsItsMessage(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		for typed, want := range map[string]string{
			long + " a b":  "\": try :pods",
			"pods " + long: "is not a valid namespace name: it is 5000 characters long",
		} {
			h := startWith(t, client, "demo", size[0], size[1])
			h.keys(":")
			h.paste(typed)
			h.runKey(h.keys("enter"))
			view := h.m.View()
			viewtest.Size(t, view, size[0], size[1])
			lines := strings.Split(view, "\n")
			if status := lines[len(lines)-1]; !strings.Contains(status, "…") || !strings.Contains(status, want) && size[0] == 200 ||
				!strings.Contains(status, want[:min(len(want), 29)]) {
				t.Fatalf("%dx%d: the status line %q, want %q", size[0], size[1], status, want)
			}
		}
	}
}
