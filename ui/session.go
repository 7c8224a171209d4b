package ui

import (
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/history"
)

// session is what outlives a pane: the panes of a split (panes.go) share
// one, so that an outcome recorded in either is in `:history` in both, and
// the debug image chosen in one is offered in the other.
type session struct {
	// history is every outcome of the session, in the order recorded.
	history []history.Entry
	// shell is what the shell screens remember in this run (the debug
	// image chosen).
	shell exec.Memory
}
