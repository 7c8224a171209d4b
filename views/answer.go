package views

// The answer to a write or an exec a screen sent reaches the history
// whatever the person did meanwhile: the command that sends it returns an
// AnswerMsg, which the root takes before any screen does, records, and
// then hands on. A screen that is left (esc, a `:` command, a context
// switch) while its request is under way therefore loses nothing: the
// answer arrives all the same, and the root keeps its outcomes.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
)

// AnswerMsg is the answer to a request a screen sent (a write, an exec, a
// debug container, or the guards' plan of one), carrying the outcomes it
// comes to. The root records Outcomes in the session's history at once,
// whichever screen is shown, through the same path as Report; it shows
// Status only while Owner is the top screen (the person is still looking
// at it); it records Left too when Owner is no longer on the stack (the
// person left it before the answer: what the answer opened, a session not
// run, is nobody's now); then it hands Msg to the screens, as any other
// message. The screen that takes Msg must not report Outcomes again.
type AnswerMsg struct {
	// Owner is the screen that sent the request.
	Owner Screen
	// Msg is the screen's own message of the answer; nil for none.
	Msg tea.Msg
	// Outcomes are recorded at once (none: the answer ends nothing yet,
	// such as a session opened and about to run).
	Outcomes []kube.OperateOutcome
	// Status tells Outcomes on the status line when Owner is the top
	// screen; a zero Status (Text "") leaves the status line as it is.
	Status StatusMsg
	// Left are recorded only when Owner has left the stack.
	Left []kube.OperateOutcome
}

// Answer returns the message of an answer: owner's msg, with the
// outcomes it comes to (see AnswerMsg).
func Answer(owner Screen, msg tea.Msg, status StatusMsg, outs ...kube.OperateOutcome) AnswerMsg {
	return AnswerMsg{Owner: owner, Msg: msg, Status: status, Outcomes: outs}
}
