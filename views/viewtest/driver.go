package viewtest

import (
	"fmt"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Driver drives one screen in a test as the root would: Run runs a
// command and every command that follows from it, the messages for the
// root (BackMsg, StatusMsg, OutcomesMsg, AnswerMsg, ContextMsg) kept in
// Out in order, an AnswerMsg's own message (also inside a ContextMsg)
// handed back to the screen, cursor blinks dropped, and any other message
// given to the screen.
type Driver struct {
	// T is the test.
	T *testing.T
	// Screen is the screen driven; Update's result replaces it.
	Screen views.Screen
	// Out are the messages for the root, in order.
	Out []tea.Msg
}

// Run runs cmd (nil: nothing) and what follows from it.
func (d *Driver) Run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	switch msg := cmd().(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			d.Run(c)
		}
	case views.BackMsg, views.StatusMsg, views.OutcomesMsg, views.PushMsg:
		d.Out = append(d.Out, msg)
	case views.AnswerMsg:
		// The root records the outcomes, then hands the screen its message.
		d.Out = append(d.Out, msg)
		d.Send(msg.Msg)
	case views.ContextMsg:
		// A message about one cluster of a fleet (kept whole, with its
		// context); an answer inside it is handed back as the root would.
		d.Out = append(d.Out, msg)
		if a, ok := msg.Msg.(views.AnswerMsg); ok {
			d.Send(a.Msg)
		}
	default:
		if strings.HasPrefix(fmt.Sprintf("%T", msg), "cursor.") {
			return
		}
		d.Send(msg)
	}
}

// Send gives msg to the screen and runs what follows.
func (d *Driver) Send(msg tea.Msg) {
	var next tea.Cmd
	d.Screen, next = d.Screen.Update(msg)
	d.Run(next)
}

// Key presses the key named name (see Key).
func (d *Driver) Key(name string) { d.T.Helper(); d.Send(Key(name)) }

// Type types s, one rune a key.
func (d *Driver) Type(s string) {
	for _, r := range s {
		d.Send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
}

// Golden checks the screen's View at width x height against the golden
// file name.
func (d *Driver) Golden(name string, width, height int) {
	d.T.Helper()
	v := d.Screen.View()
	Size(d.T, v, width, height)
	Golden(d.T, name, v)
}

// Saw reports whether the root was told something of type T that ok
// accepts.
func Saw[T any](d *Driver, ok func(T) bool) bool {
	for _, m := range d.Out {
		if v, is := m.(T); is && ok(v) {
			return true
		}
	}
	return false
}

// WentBack reports whether the screen asked the root to go back.
func WentBack(d *Driver) bool { return Saw(d, func(views.BackMsg) bool { return true }) }

// Answered returns the outcomes of every AnswerMsg, in order.
func Answered(d *Driver) []kube.OperateOutcome {
	var outs []kube.OperateOutcome
	for _, m := range d.Out {
		if a, ok := m.(views.AnswerMsg); ok {
			outs = append(outs, a.Outcomes...)
		}
	}
	return outs
}
