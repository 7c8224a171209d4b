package yamledit

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textarea"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// maxAreaText is the largest text the text area takes (bytes): it lays out
// the whole text on every key, which a person feels past a few hundred
// KiB; larger objects are edited in $KUBE_EDITOR or $EDITOR.
const maxAreaText = 256 << 10

// Area is kyyard's own text area for a YAML text, used by the screens that
// hand a text to the person's editor (the YAML edit, :create) when neither
// $KUBE_EDITOR nor $EDITOR is set: line numbers, the text's top shown
// first, ctrl+s to preview, esc to discard (twice once the text differs
// from its baseline). The zero value is not usable: make it with NewArea.
type Area struct {
	ta       textarea.Model
	baseline string // the text that counts as unchanged
	discard  bool   // esc pressed once on a changed text
	// preview and discardKey are the screen's bindings that preview and
	// discard the text (ctrl+s, esc).
	preview, discardKey key.Binding
}

// AreaEvent is what a key in the Area asks of its screen.
type AreaEvent int

const (
	// AreaTyping: the key edited the text, or esc asked to be pressed again.
	AreaTyping AreaEvent = iota
	// AreaPreview: ctrl+s; the text (Value) is to be planned.
	AreaPreview
	// AreaDiscard: esc on an unchanged text, or the second esc.
	AreaDiscard
)

// NewArea returns an empty, unfocused Area whose text preview previews
// and discard discards (the screen's bindings: ctrl+s, esc).
func NewArea(preview, discard key.Binding) *Area {
	ta := textarea.New()
	ta.ShowLineNumbers, ta.Prompt, ta.CharLimit, ta.MaxHeight = true, "", 0, 0
	return &Area{ta: ta, preview: preview, discardKey: discard}
}

// Open shows text from its top, focused, sized to width x height cells
// (the text area's own rows; the screen's header lines are the screen's),
// with baseline as the text esc discards without asking again. Errors:
// text is larger than the area takes (256 KiB); nothing changes then.
func (a *Area) Open(text, baseline string, width, height int) (tea.Cmd, error) {
	if len(text) > maxAreaText {
		return nil, fmt.Errorf("the text is %s: too large for kyyard's text area; set $KUBE_EDITOR or $EDITOR to edit it in your editor",
			kube.Plural(len(text)/1024, "KiB"))
	}
	a.baseline, a.discard = baseline, false
	a.ta.SetValue(text)
	focus := a.ta.Focus()
	a.ta, _ = a.ta.Update(tea.KeyMsg{Type: tea.KeyCtrlHome}) // the text's top (textarea's InputBegin; focused only)
	a.Resize(width, height)
	return focus, nil
}

// Resize fits the text area to width x height cells (at least 10 x 1).
func (a *Area) Resize(width, height int) {
	a.ta.SetWidth(max(width-2, 10))
	a.ta.SetHeight(max(height, 1))
}

// Value is the text as the person has it now.
func (a *Area) Value() string { return a.ta.Value() }

// Changed is true when the text differs from its baseline.
func (a *Area) Changed() bool { return a.ta.Value() != a.baseline }

// Key handles a key: the preview key (ctrl+s) blurs the area and asks
// for a preview; the discard key (esc) discards an unchanged text at once
// and a changed one on the second press in a row (the first returns a
// status saying so); any other key edits.
func (a *Area) Key(msg tea.KeyMsg) (AreaEvent, tea.Cmd) {
	switch {
	case key.Matches(msg, a.preview):
		a.ta.Blur()
		return AreaPreview, nil
	case key.Matches(msg, a.discardKey):
		if a.Changed() && !a.discard {
			a.discard = true
			return AreaTyping, views.Status(views.Hints(views.Hint("again discards your text", a.discardKey), views.Hint("previews it", a.preview)), false)
		}
		a.ta.Blur()
		return AreaDiscard, nil
	}
	a.discard = false
	var cmd tea.Cmd
	a.ta, cmd = a.ta.Update(msg)
	return AreaTyping, cmd
}

// View draws the area in width x height cells: header first, one line
// each cut to the width (its first problems lines in the error style, the
// rest muted), then the text, then the help line at the bottom.
func (a *Area) View(st views.Styles, width, height int, header []string, problems int) string {
	var lines []string
	for i, l := range header {
		style := st.Muted
		if i < problems {
			style = st.Error
		}
		lines = append(lines, ansi.Truncate(" "+style.Render(views.Sanitize(l)), width, "…"))
	}
	for _, l := range strings.Split(a.ta.View(), "\n") {
		lines = append(lines, ansi.Truncate(" "+l, width, ""))
	}
	help := views.Hints(views.Hint("preview (dry run)", a.preview), views.Hint("discard (twice when edited)", a.discardKey))
	lines = append(lines[:min(len(lines), max(height-1, 0))], ansi.Truncate(" "+st.Muted.Render(help), width, "…"))
	for len(lines) < height {
		lines = append(lines[:len(lines)-1], "", lines[len(lines)-1])
	}
	return strings.Join(lines, "\n")
}

// ProblemLines are problem's lines, each split at its newlines, sanitized
// and in the error style: what a held screen shows above its keys.
func ProblemLines(st views.Styles, problem []string) []string {
	var out []string
	for _, l := range problem {
		for _, part := range strings.Split(views.Sanitize(l), "\n") {
			out = append(out, st.Error.Render(part))
		}
	}
	return out
}
