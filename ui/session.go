package ui

import (
	"reflect"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/history"
)

// session is what outlives a pane: the panes of a split (panes.go) share
// one, so that an outcome recorded in either is in `:history` in both, the
// debug image chosen in one is offered in the other, and each pane knows
// the other (quit asks about the unsaved work of both).
type session struct {
	// history is every outcome of the session, in the order recorded.
	history []history.Entry
	// shell is what the shell screens remember in this run (the debug
	// image chosen).
	shell exec.Memory
	// panes are the two panes of a split, the top one first; nil while
	// one pane shows. focus is the one keys go to (nil: the only one).
	panes []*Model
	focus *Model
	// hosted is set when a Panes runs the model: `:split` and `L` then
	// have somewhere to go.
	hosted bool
}

// split reports whether the screen is split in two panes.
func (m *Model) split() bool { return len(m.sess.panes) == 2 }

// focused reports whether keys go to m: the only pane, or the focused one
// of a split.
func (m *Model) focused() bool { return !m.split() || m.sess.focus == m }

// other returns the other pane of a split, nil when there is none.
func (m *Model) other() *Model {
	for _, p := range m.sess.panes {
		if p != m {
			return p
		}
	}
	return nil
}

// everyPane returns the panes shown: both of a split, else m alone.
func (m *Model) everyPane() []*Model {
	if m.split() {
		return m.sess.panes
	}
	return []*Model{m}
}

// release closes a connection m no longer reads (a context switched away
// from, a pane closed), unless the other pane of a split reads it too.
func (m *Model) release(src views.Source) {
	for _, p := range m.sess.panes {
		if p != m && sameSource(p.vc.Client, src) {
			return
		}
	}
	views.CloseSource(src)
}

// sameSource reports whether a and b are the same connection. Sources of
// a type that cannot be compared (a struct holding a slice) are never the
// same: comparing them would panic.
func sameSource(a, b views.Source) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	ta := reflect.TypeOf(a)
	return ta == reflect.TypeOf(b) && ta.Comparable() && a == b
}
