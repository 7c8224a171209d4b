package ui_test

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// statusOf is the last line of a view: the root's status line.
func statusOf(view string) string {
	lines := strings.Split(view, "\n")
	return lines[len(lines)-1]
}

// TestUnknownKeySaysSo: a key that does nothing on a screen gave no hint;
// the status line now says `%: no such key here · ? help`, at 80x24 and
// 200x50. A key the screen knows does not; neither does a key typed as
// text (the filter, the prompt, the workload form); and a message the key
// press would have cleared stays instead of being hidden.
func TestUnknownKeySaysSo(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := startWith(t, client, "demo", size[0], size[1])
		h.keys("%")
		view := h.m.View()
		viewtest.Size(t, view, size[0], size[1])
		if got := statusOf(view); !strings.HasPrefix(got, "%: no such key here · ? help") {
			t.Fatalf("%dx%d: status line %q", size[0], size[1], got)
		}
		viewtest.Golden(t, fmt.Sprintf("root-unknown-key-%dx%d", size[0], size[1]), view)
		h.keys("j")
		if got := statusOf(h.m.View()); strings.Contains(got, "no such key") {
			t.Fatalf("j, a key of the list: %q", got)
		}
		h.send(views.StatusMsg{Text: "scaled demo/deployments/web from 2 to 3 replicas"})
		h.keys("%")
		if got := statusOf(h.m.View()); !strings.HasPrefix(got, "scaled demo/deployments/web") {
			t.Fatalf("an unknown key hid the outcome: %q", got)
		}
	}
	// ctrl and alt keys no binding names say so too (a trial: they got
	// no answer at all).
	h := startWith(t, client, "demo", 80, 24)
	for _, k := range []tea.KeyMsg{{Type: tea.KeyCtrlG}, {Type: tea.KeyRunes, Runes: []rune{'q'}, Alt: true}} {
		h.keys("j") // a key of the list: the last answer goes
		h.send(k)
		if got := statusOf(h.m.View()); !strings.HasPrefix(got, k.String()+": no such key here") {
			t.Fatalf("%s: status line %q", k, got)
		}
	}
	h.keys("/", "%")
	if got := statusOf(h.m.View()); strings.Contains(got, "no such key") {
		t.Fatalf("typed into the filter: %q", got)
	}
	h.keys("esc", ":", "%")
	if got := statusOf(h.m.View()); strings.Contains(got, "no such key") || !strings.HasPrefix(got, ":%") {
		t.Fatalf("typed into the prompt: %q", got)
	}
	h.keys("esc")
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("%")
	if got := statusOf(h.m.View()); strings.Contains(got, "no such key") {
		t.Fatalf("typed into the form: %q", got)
	}
}
