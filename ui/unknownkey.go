package ui

import (
	"slices"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// unknownKey hands a key no global binding took to the top screen. When it
// is a letter, digit or sign, alone or with alt, or ctrl with a letter
// (reportable), that no binding of the root or of the screen
// names, and the screen did nothing with it (no command, the same view),
// the status line says so (`x: no such key here · ? help`), unless it
// showed a message the key press cleared: that message comes back, never
// hidden by a stray key. Screens that take text never get here (Capturing:
// forms, prompts, filters), nor do the pickers, the help and the prompt.
func (m *Model) unknownKey(msg tea.KeyMsg) tea.Cmd {
	name := msg.String()
	_, hinter := m.Top().(views.Hinter)
	if !reportable(msg) || hinter || m.bound(name) {
		return m.toTop(msg)
	}
	before := m.Top().View()
	cmd := m.toTop(msg)
	if cmd != nil || m.Top().View() != before {
		return cmd
	}
	if m.cleared.Text != "" {
		m.status = m.cleared
		return nil
	}
	m.status = views.StatusMsg{Text: m.noSuchKey(name)}
	return nil
}

// bound reports whether a global binding, the namespace picker's or one
// of the top screen's (enabled or not: a disabled key says why itself)
// names key.
func (m *Model) bound(name string) bool {
	bindings := append(m.vc.Keys.Bindings(), m.vc.Keys.Namespace)
	for _, b := range append(bindings, m.Top().Bindings()...) {
		if slices.Contains(b.Keys(), name) {
			return true
		}
	}
	return false
}

// reportable reports whether an unbound msg is said to be no key: one
// rune (x, alt+x) or ctrl with one letter or sign (ctrl+g), not pasted
// text. The keys a terminal sends as ctrl+letters of their own (tab is
// ctrl+i, enter ctrl+m) are named by Bubble Tea as those keys, and
// ctrl+c always quits.
func reportable(msg tea.KeyMsg) bool {
	if msg.Paste {
		return false
	}
	if msg.Type == tea.KeyRunes {
		return len(msg.Runes) == 1
	}
	name := msg.String()
	return strings.HasPrefix(name, "ctrl+") && len(name) == len("ctrl+g") && name != "ctrl+c"
}
