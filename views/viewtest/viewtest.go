// Package viewtest helps screen tests: a views.Context at a fixed size with
// the Ascii colour profile, and golden files under testdata/ (rewrite them
// with `go test ./... -update`).
package viewtest

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"

	"github.com/kyyard/kyyard/assets"
	"github.com/kyyard/kyyard/views"
)

var update = flag.Bool("update", false, "rewrite golden files under testdata/")

// Now is the fixed clock screen tests draw ages with.
var Now = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// Context returns a views.Context of width x height cells over client,
// with the default theme rendered without colour (the Ascii profile), so
// that View output is plain text.
func Context(client views.Source, width, height int) *views.Context {
	lipgloss.SetColorProfile(termenv.Ascii)
	return &views.Context{
		Client: client,
		Styles: views.NewStyles(assets.DefaultTheme()),
		Keys:   views.DefaultGlobalKeys(),
		Config: views.Config{RefreshInterval: time.Hour},
		Width:  width, Height: height,
	}
}

// Golden compares got with testdata/<name>.golden, or rewrites that file
// when the test runs with -update. Trailing spaces are kept: they prove
// that lines are padded to the screen's width.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Fatalf("View differs from %s:\n--- got ---\n%s\n--- want ---\n%s", path, visible(got), visible(string(want)))
	}
}

// visible marks line ends so that padding differences show.
func visible(s string) string { return strings.ReplaceAll(s, "\n", "|\n") + "|" }

// Size checks that a view is exactly width x height cells.
func Size(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Fatalf("view has %d lines, want %d", len(lines), height)
	}
	for i, l := range lines {
		if w := lipgloss.Width(l); w > width {
			t.Fatalf("line %d is %d cells wide, more than %d: %q", i, w, width, l)
		}
	}
}

// namedKeys are the special keys Key knows by bubbletea's names.
var namedKeys = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "up": tea.KeyUp, "down": tea.KeyDown,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd,
	"ctrl+r": tea.KeyCtrlR, "ctrl+c": tea.KeyCtrlC, "ctrl+d": tea.KeyCtrlD, "backspace": tea.KeyBackspace,
	"ctrl+u": tea.KeyCtrlU, "ctrl+s": tea.KeyCtrlS, "ctrl+n": tea.KeyCtrlN, "ctrl+p": tea.KeyCtrlP,
	"ctrl+t": tea.KeyCtrlT, "shift+tab": tea.KeyShiftTab, "ctrl+w": tea.KeyCtrlW,
}

// Key returns the key press a person makes for name: a special key by its
// bubbletea name ("enter", "esc", "pgdown", "ctrl+r"), else the runes of
// name typed as one key.
func Key(name string) tea.KeyMsg {
	if t, ok := namedKeys[name]; ok {
		return tea.KeyMsg{Type: t}
	}
	return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(name)}
}
