package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/atotto/clipboard"
	tea "github.com/charmbracelet/bubbletea"
)

// fakeClipboard makes the text inputs' ctrl+v (textinput.Paste, which
// runs the system's clipboard command) read text: every command
// github.com/atotto/clipboard may run is a script in a directory put first
// in PATH (powershell.exe's output has a DOS line end, which it trims).
func fakeClipboard(t *testing.T, text string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "clip.txt"), []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"xclip", "xsel", "wl-paste", "termux-clipboard-get", "powershell.exe"} {
		script := "#!/bin/sh\ncat '" + filepath.Join(dir, "clip.txt") + "'\n"
		if name == "powershell.exe" {
			script += "printf '\\r\\n'\n"
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	was := clipboard.Unsupported
	clipboard.Unsupported = false
	t.Cleanup(func() { clipboard.Unsupported = was })
}

// TestPasteBringsTheCursorIntoSight: a 5 KB paste into a command line
// through ctrl+v (the text input reads the clipboard and answers later,
// not as a key) is the form's content at once, as typing is: the value is
// the command's, marked and counted, and the cursor's line and the end of
// the paste are in sight, even when ↓/pgdn scrolled the form away while
// the clipboard was read. It used to stay in the input alone, the form
// scrolled away, until the next key.
func TestPasteBringsTheCursorIntoSight(t *testing.T) {
	text := strings.Repeat("abcdefghij", 500) + "END"
	fakeClipboard(t, text)
	w := longWorkload()
	w.Containers[0].Args = nil
	w.Containers[0].Command = []string{"/bin/app", "--x"}
	w.Unsupported = w.Unsupported[1:] // the env list alone is longer than the form shows
	h := open(t, newFake(w), 80, 24)
	h.focusOn(fkCommand, 0, 1)
	_, paste := h.m.Update(tea.KeyMsg{Type: tea.KeyCtrlV})
	if paste == nil {
		t.Fatal("ctrl+v asked for no clipboard read")
	}
	h.press("pgdown", "pgdown") // while the clipboard is read
	if strings.Contains(h.view(), "\n>") {
		t.Fatalf("pgdn did not scroll the cursor's line away:\n%s", h.view())
	}
	_, cmd := h.m.Update(paste())
	h.run(cmd)
	v := h.view()
	if !strings.Contains(v, "\n>") || !strings.Contains(v, "END ]*") || !strings.Contains(v, "1 change") {
		t.Fatalf("the paste is not in sight, marked and counted:\n%s", v)
	}
	if got := h.m.form.ctrs[0].command[1]; got != "--x"+text {
		t.Fatalf("the command line holds %d bytes, not the paste", len(got))
	}
	h.golden("paste_80x24")
}
