package views

import (
	"fmt"
	"slices"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
)

// ConfirmAsk is one confirmation a write waits for (design: "Guards, and two
// policies": the interactive policy's warnings are confirmed by a word that
// names the risk).
type ConfirmAsk struct {
	// Want is the text that confirms it: "y", or the object's name for
	// application_managed and pvc_retention (kube.Verdict.Answer).
	Want string
	// Reason is the guard's reason code the ask confirms; "" for an ask of
	// the screen's own (the deploy's prune, confirmed by the instance name).
	Reason kube.Reason
	// Of is the index of the object the ask is about, for a screen that
	// confirms several objects at once (operate's bulk action); 0 otherwise.
	Of int
}

// WarningAsks returns one ConfirmAsk per warning verdict of vs, in order,
// each wanting the verdict's Answer; of is every ask's Of. A refusing vs
// still has its warnings asked: the screen blocks the write on the
// refusal (Verdicts.Refusal) and does not Start the confirmation.
func WarningAsks(vs kube.Verdicts, of int) []ConfirmAsk {
	var out []ConfirmAsk
	for _, v := range vs.Warnings() {
		out = append(out, ConfirmAsk{Want: v.Answer(), Reason: v.Reason, Of: of})
	}
	return out
}

// ConfirmedReasons are the reasons of vs's warnings, each once, in order:
// what a write sends as confirmed once the person confirmed them all
// (kube.Verdicts.Unconfirmed reads them).
func ConfirmedReasons(vs kube.Verdicts) []kube.Reason {
	var out []kube.Reason
	for _, v := range vs.Warnings() {
		if !slices.Contains(out, v.Reason) {
			out = append(out, v.Reason)
		}
	}
	return out
}

// ConfirmMode is how a Confirm takes its asks.
type ConfirmMode int

// Confirm modes.
const (
	// ConfirmAsTyped gives each ask its own input, as wide as its text (they
	// stand in brackets on the preview's lines); an ask is taken the moment
	// its input holds the text, and the focus moves to the next one not
	// taken (the workload and deploy previews).
	ConfirmAsTyped ConfirmMode = iota
	// ConfirmOnEnter asks one text at a time in a free input; enter takes
	// it, and a text that is not the one asked is said (Note) and kept for
	// correcting. Typed once, an object's name takes every ask of that
	// object (the same Of) that wants it. The warnings a plain y confirms
	// are the screen's y key, not asks (operate).
	ConfirmOnEnter
)

// Confirm is the confirmation of guard warnings every screen that writes
// shares: the asks, what was typed into each, which one has the focus, and
// what the status line says about them. It is no Screen: the screen routes
// its keys to Update while Typing and draws the lines from Field, Input and
// Cursor. Use NewConfirm; the zero value has no asks.
type Confirm struct {
	mode    ConfirmMode
	asks    []ConfirmAsk
	inputs  []textinput.Model
	taken   []bool // ConfirmOnEnter: the asks taken by enter
	focus   int    // the ask typed into; -1 when none
	note    string // ConfirmOnEnter: a wrong text, said
	blocked string // why the write cannot go (Start); "" when it can
}

// NewConfirm returns the confirmation of asks in mode, its inputs styled
// with st's prompt style and a static cursor (a calm screen: no blink
// ticks). Nothing has the focus until Start.
func NewConfirm(st Styles, mode ConfirmMode, asks []ConfirmAsk) *Confirm {
	c := &Confirm{mode: mode, asks: asks, focus: -1,
		inputs: make([]textinput.Model, len(asks)), taken: make([]bool, len(asks))}
	for i, a := range asks {
		in := textinput.New()
		in.Prompt = ""
		in.TextStyle = st.Prompt
		in.Cursor.SetMode(cursor.CursorStatic)
		if mode == ConfirmAsTyped {
			in.Width = max(len(a.Want), 3) + 2
		} else {
			in.PromptStyle = st.Prompt
		}
		c.inputs[i] = in
	}
	return c
}

// Len is the number of asks.
func (c *Confirm) Len() int {
	if c == nil {
		return 0
	}
	return len(c.asks)
}

// Ask returns ask i (0 <= i < Len).
func (c *Confirm) Ask(i int) ConfirmAsk { return c.asks[i] }

// Confirmed reports whether ask i is taken: its input holds its text (as
// typed), or enter took it (on enter).
func (c *Confirm) Confirmed(i int) bool {
	if c.mode == ConfirmAsTyped {
		return c.inputs[i].Value() == c.asks[i].Want
	}
	return c.taken[i]
}

// Unconfirmed is how many asks are not taken yet.
func (c *Confirm) Unconfirmed() int {
	n := 0
	for i := range c.Len() {
		if !c.Confirmed(i) {
			n++
		}
	}
	return n
}

// Summary is the status line's word on the asks not taken yet: "confirm 2
// warnings first"; "" when every ask is taken.
func (c *Confirm) Summary() string {
	n := c.Unconfirmed()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("confirm %s first", kube.Plural(n, "warning"))
}

// Pending returns the ask typed into and its text; -1 when none is
// (nothing started, every typed ask taken).
func (c *Confirm) Pending() (int, string) {
	if !c.Typing() {
		return -1, ""
	}
	return c.focus, c.asks[c.focus].Want
}

// Focus is the index of the ask typed into, -1 when none.
func (c *Confirm) Focus() int {
	if c == nil {
		return -1
	}
	return c.focus
}

// Typing reports whether keys go to an ask's input.
func (c *Confirm) Typing() bool {
	return c != nil && c.focus >= 0 && c.focus < len(c.asks)
}

// Start focuses the first ask not taken and returns the input's focus
// command (nil when none is left); blocked, when not "", says why the write
// cannot go (a guard refuses it, the dry run failed): then nothing is
// typed into, keys are not taken and no ask is ever confirmed.
func (c *Confirm) Start(blocked string) tea.Cmd {
	c.focus, c.blocked = -1, blocked
	return c.Advance()
}

// Blocked is why the write cannot go, as Start was told; "" when it can.
func (c *Confirm) Blocked() string {
	if c == nil {
		return ""
	}
	return c.blocked
}

// Advance moves the focus to the next ask not taken from the focus on,
// wrapping around, or to none; it returns the input's focus command.
func (c *Confirm) Advance() tea.Cmd {
	for i := range c.inputs {
		c.inputs[i].Blur()
	}
	if c.blocked != "" {
		c.focus = -1
		return nil
	}
	n := len(c.asks)
	for d := range n {
		i := (max(c.focus, 0) + d) % n
		if !c.Confirmed(i) {
			c.focus = i
			return c.inputs[i].Focus()
		}
	}
	c.focus = -1
	return nil
}

// Next moves the focus past the ask typed into to the next one not taken
// (tab); nil when nothing is typed into.
func (c *Confirm) Next() tea.Cmd {
	if !c.Typing() {
		return nil
	}
	c.focus = (c.focus + 1) % len(c.asks)
	return c.Advance()
}

// Update takes a key while Typing (nil otherwise). As typed: the key goes
// to the focused input, and once it holds its text the focus moves on. On
// enter: enter takes the text when it is the one asked, else Note says so;
// other keys edit the text and clear the note.
func (c *Confirm) Update(msg tea.KeyMsg) tea.Cmd {
	if !c.Typing() {
		return nil
	}
	if c.mode == ConfirmOnEnter {
		if msg.Type == tea.KeyEnter { // the typed text's own key, as a prompt's
			want := c.asks[c.focus].Want
			if c.inputs[c.focus].Value() != want {
				c.note = fmt.Sprintf("that is not %q: type it exactly to confirm", want)
				return nil
			}
			of := c.asks[c.focus].Of
			for j, a := range c.asks {
				if a.Of == of && a.Want == want {
					c.taken[j] = true
				}
			}
			c.note = ""
			return c.Advance()
		}
		c.note = ""
	}
	var cmd tea.Cmd
	c.inputs[c.focus], cmd = c.inputs[c.focus].Update(msg)
	if c.mode == ConfirmAsTyped && c.Confirmed(c.focus) {
		return c.Advance()
	}
	return cmd
}

// Reset forgets everything typed and taken and takes the focus away, as
// a new Confirm of the same asks would (esc while typing).
func (c *Confirm) Reset() {
	if c == nil {
		return
	}
	for i := range c.inputs {
		c.inputs[i].Reset()
		c.inputs[i].Blur()
		c.taken[i] = false
	}
	c.focus, c.note, c.blocked = -1, "", ""
}

// Key is the key handling of a screen that writes once every ask is
// taken, for a key that comes while Typing: esc stops typing and forgets
// what was typed (Reset); any other key goes to Update, and once no ask
// is left done's command follows it.
func (c *Confirm) Key(msg tea.KeyMsg, done func() tea.Cmd) tea.Cmd {
	if msg.Type == tea.KeyEsc { // the typed text's own key, as a prompt's
		c.Reset()
		return nil
	}
	cmd := c.Update(msg)
	if c.Unconfirmed() == 0 {
		return tea.Batch(cmd, done())
	}
	return cmd
}

// Note is what is said about the text typed (on enter: a wrong text); ""
// when nothing is.
func (c *Confirm) Note() string {
	if c == nil {
		return ""
	}
	return c.note
}

// Typed is the text typed into ask i so far.
func (c *Confirm) Typed(i int) string { return c.inputs[i].Value() }

// Input is ask i's input as drawn.
func (c *Confirm) Input(i int) string { return c.inputs[i].View() }

// Field is ask i's field on a line: "[<input>]", then " ✓" once taken.
func (c *Confirm) Field(i int) string {
	mark := ""
	if c.Confirmed(i) {
		mark = " ✓"
	}
	return "[" + c.Input(i) + "]" + mark
}

// Cursor is ask i's mark at the start of its line: ">" while typed into,
// else " ".
func (c *Confirm) Cursor(i int) string {
	if i == c.focus && c.Typing() {
		return ">"
	}
	return " "
}

// Reasons are the guard reasons of the asks taken, each once, in order
// (the screen's own asks, Reason "", left out).
func (c *Confirm) Reasons() []kube.Reason {
	var out []kube.Reason
	for i := range c.Len() {
		if r := c.asks[i].Reason; r != "" && c.Confirmed(i) && !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
