package views

// The session's history: every outcome of a write (an operate action, a
// workload form apply or undo, a deploy, a remove, a shell), done or
// refused, reaches the root through Report as one OutcomesMsg, which the
// root keeps for `:history` and appends to the history file. A screen
// that writes tells its outcome through Report, never through Status
// alone: the status line and the history then cannot disagree.

import (
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
)

// OutcomesMsg reports the outcomes of actions done (or refused) to the
// root, which keeps them in the session's history and shows Status.
type OutcomesMsg struct {
	// Outcomes are one per object, in the order asked.
	Outcomes []kube.OperateOutcome
	// Status is the status line that tells the outcomes; a zero Status
	// (Text "") leaves the status line as it is.
	Status StatusMsg
}

// Report returns the command that tells outcomes: the root keeps each in
// the session's history (:history and history.log, one entry per
// outcome, in order) and shows status on the status line unless its Text
// is "". It is the one path of a write's outcome, done or refused.
func Report(status StatusMsg, outs ...kube.OperateOutcome) tea.Cmd {
	msg := OutcomesMsg{Outcomes: outs, Status: status}
	return func() tea.Msg { return msg }
}

// RefusedOutcome is the outcome of action on ref when err stopped it:
// Reason is kube.ReasonOf(err) (kube.ReasonError when it has none),
// Detail the error for people (ErrText) followed by note when note is not
// "" ("not sent"). Written is false: a refusal writes nothing.
func RefusedOutcome(ref kube.ObjectRef, action kube.Action, err error, note string) kube.OperateOutcome {
	reason := kube.ReasonOf(err)
	if reason == "" {
		reason = kube.ReasonError
	}
	detail := ErrText(err)
	if note != "" {
		detail += " (" + note + ")"
	}
	return kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: action}, Reason: reason, Detail: detail}
}

// Refuse returns the command that tells action on each of refs refused
// with reason before any request (a write key in read-only mode, an
// action the person's account may not do): one outcome per object, each
// with detail, and detail on the status line as an error.
func Refuse(action kube.Action, reason kube.Reason, detail string, refs ...kube.ObjectRef) tea.Cmd {
	outs := make([]kube.OperateOutcome, len(refs))
	for i, r := range refs {
		outs[i] = kube.OperateOutcome{Op: kube.Operation{Ref: r, Action: action}, Reason: reason, Detail: detail}
	}
	return Report(StatusMsg{Text: detail, Error: true}, outs...)
}
