package ui

// How a message finds its pane. Bubble Tea runs every tea.Cmd and hands
// its message to the top model (Panes), whichever pane returned the Cmd.
// Panes wraps each Cmd a pane returns (wrap) so that its message comes
// back tagged with the pane when it is one of kyyard's own (a type of this
// module, or a pointer to one): a screen's reply reaches its own pane
// only. A tea.BatchMsg and tea.Sequence's sequence (an unexported []tea.Cmd
// type) are Cmds to run: they are given back with each Cmd wrapped, as the
// same type, so that Bubble Tea still runs them concurrently or in order.
// tea.Exec's message is tagged too (Panes hands it on to Bubble Tea and
// remembers the pane, which gets what the callback makes: that message is
// sent by Bubble Tea itself, untagged). Every other message (Bubble Tea's
// own, bubbles' ticks, which carry their own ids) is left as it is: Panes
// hands it to every pane.

import (
	"reflect"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
)

// paneMsg is a message of kyyard's own (or tea.Exec's) that a Cmd of pane
// returned.
type paneMsg struct {
	pane *Model
	msg  tea.Msg
}

// module is the path of kyyard's Go module: its packages' message types
// are tagged.
const module = "github.com/kyyard/kyyard"

// teaPackage is Bubble Tea's package path, whose unexported sequence and
// exec messages are recognised by their shape and name.
const teaPackage = "github.com/charmbracelet/bubbletea"

var cmdType = reflect.TypeOf((*tea.Cmd)(nil)).Elem()

// wrap returns cmd with its message tagged with pane (nil for nil).
func wrap(pane *Model, cmd tea.Cmd) tea.Cmd {
	if cmd == nil {
		return nil
	}
	return func() tea.Msg { return tagged(pane, cmd()) }
}

// tagged returns what a Cmd of pane returned, as Panes must get it: a
// batch or a sequence with each of its Cmds wrapped, kyyard's messages and
// tea.Exec's in a paneMsg, any other message as it is.
func tagged(pane *Model, msg tea.Msg) tea.Msg {
	switch msg := msg.(type) {
	case nil:
		return nil
	case tea.BatchMsg:
		out := make(tea.BatchMsg, len(msg))
		for i, c := range msg {
			out[i] = wrap(pane, c)
		}
		return out
	}
	if seq, ok := wrapSequence(pane, msg); ok {
		return seq
	}
	if ours(msg) || isExec(msg) {
		return paneMsg{pane: pane, msg: msg}
	}
	return msg
}

// wrapSequence returns a copy of Bubble Tea's sequence message (any slice
// type of tea.Cmd of its package but BatchMsg: tea.Sequence's) with each
// Cmd wrapped, of the same type; ok is false for any other message.
func wrapSequence(pane *Model, msg tea.Msg) (tea.Msg, bool) {
	v := reflect.ValueOf(msg)
	t := v.Type()
	if t.Kind() != reflect.Slice || t.Elem() != cmdType || t.PkgPath() != teaPackage {
		return nil, false
	}
	out := reflect.MakeSlice(t, v.Len(), v.Len())
	for i := range v.Len() {
		c, _ := v.Index(i).Interface().(tea.Cmd)
		if w := wrap(pane, c); w != nil {
			out.Index(i).Set(reflect.ValueOf(w))
		}
	}
	return out.Interface(), true
}

// ours reports whether msg is of a type of kyyard's own packages (a
// pointer to one included).
func ours(msg tea.Msg) bool {
	t := reflect.TypeOf(msg)
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil {
		return false
	}
	p := t.PkgPath()
	return p == module || strings.HasPrefix(p, module+"/")
}

// isExec reports whether msg is tea.Exec's (and tea.ExecProcess's): the
// terminal handed to a process, whose callback's message Bubble Tea sends
// itself.
func isExec(msg tea.Msg) bool {
	t := reflect.TypeOf(msg)
	return t != nil && t.PkgPath() == teaPackage && t.Name() == "execMsg"
}
