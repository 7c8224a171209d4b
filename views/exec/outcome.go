package exec

// How a shell's outcome is told: a status line led by the cause and cut
// to the terminal's width, and the whole text kept in the session's
// history (:history, and its file), one entry per shell or refusal.

import (
	"errors"
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// historyNote ends a status line cut to the width: the whole text is in
// :history.
const historyNote = " · :history"

// fit cuts text to width cells, ending it with "…" and historyNote when
// it does not fit; width <= 0 leaves it whole.
func fit(text string, width int) string {
	if width <= 0 || ansi.StringWidth(text) <= width {
		return text
	}
	room := width - ansi.StringWidth(historyNote)
	if room < 8 {
		return ansi.Truncate(text, width, "…")
	}
	return ansi.Truncate(text, room, "…") + historyNote
}

// causeText is err told cause first, for a status line: a server's error
// by its innermost cause, a refusal by what the guard found (its Detail),
// anything else as views.ErrText tells it.
func causeText(err error) string {
	var se *kube.ExecServerError
	var r *kube.Refusal
	switch {
	case errors.As(err, &se):
		return views.Sanitize(se.Cause + " (the server's error)")
	case errors.As(err, &r):
		d := r.Detail
		if d == "" {
			d = r.Sentence
		}
		if d == "" {
			d = r.Reason.Sentence()
		}
		return views.Sanitize(d)
	}
	return views.ErrText(err)
}

// failText is the status line of a shell (what: "shell" or "debug
// container") that did not open: "shell refused: <cause>" for a guard's
// refusal, "shell: <cause>" for anything else.
func failText(what string, err error) string {
	var r *kube.Refusal
	if errors.As(err, &r) {
		return what + " refused: " + causeText(err)
	}
	return what + ": " + causeText(err)
}

// where names the pod ("demo/web-x2k").
func (t teller) where() string { return t.target.Namespace + "/" + t.target.Pod }

// outcome is the history entry of the screen's shell: what was asked (the
// pod, the action) and how it ended; reason "" for a session that ran
// (whatever its exit code) and a debug container added; written when the
// pod changed (a debug container was added).
func (t teller) outcome(action kube.Action, reason kube.Reason, detail string, written bool) kube.OperateOutcome {
	return kube.OperateOutcome{
		Op: kube.Operation{Action: action, Ref: kube.ObjectRef{Kind: kube.KindPods, Namespace: t.target.Namespace,
			Name: t.target.Pod, UID: t.target.UID}},
		Reason:  reason,
		Detail:  views.Sanitize(detail),
		Written: written,
	}
}

// failed is the history entry and the status line of a shell (what:
// "shell" or "debug container") that did not open because of err: the
// whole error in the history, the status line led by the cause and cut to
// the width. A debug container added before the error is written.
func (t teller) failed(what string, action kube.Action, err error) (kube.OperateOutcome, views.StatusMsg) {
	reason := kube.ReasonOf(err)
	if reason == "" {
		reason = kube.ReasonError
	}
	var added *kube.DebugAddedError
	written := errors.As(err, &added) && !added.Unsure
	o := t.outcome(action, reason, what+" in "+t.where()+": "+err.Error(), written)
	return o, views.StatusMsg{Text: fit(failText(what, err), t.width), Error: true}
}

// fail is the answer msg comes to when err stopped the shell (what): its
// outcome, and the status line that tells it.
func (t teller) fail(owner *Model, msg tea.Msg, what string, action kube.Action, err error) views.AnswerMsg {
	o, st := t.failed(what, action, err)
	return views.Answer(owner, msg, st, o)
}

// notRun is the outcome of a session opened that the screen, left
// meanwhile, never ran: a shell chosen and not run, or a debug container
// added and started with nobody attached.
func (t teller) notRun(s kube.ExecSession) kube.OperateOutcome {
	if t.image != "" {
		return t.outcome(kube.ActionDebug, "", fmt.Sprintf("debug container %s (%s) was added to pod %s and started; "+
			"left before the session was attached: it stays in the pod until the pod ends", s.Container(), t.image, t.where()), true)
	}
	return t.outcome(kube.ActionShell, kube.ReasonError, fmt.Sprintf("shell %s in container %s of %s chosen; left before it ran: no session ran",
		strings.Join(s.Argv(), " "), s.Container(), t.where()), false)
}

// debugAnswer is the answer OpenDebug's end comes to: a session (an
// outcome only if the screen is left before it runs it), or why not, with
// what it wrote (kube.DebugAddedError). gone says the screen was closed
// while it waited: what was added is recorded as left before it started.
func (t teller) debugAnswer(owner *Model, msg openedMsg, gone bool) views.AnswerMsg {
	var added *kube.DebugAddedError
	switch {
	case msg.err == nil && gone:
		return views.Answer(owner, msg, views.StatusMsg{}, t.notRun(msg.session))
	case msg.err == nil:
		a := views.Answer(owner, msg, views.StatusMsg{})
		a.Left = []kube.OperateOutcome{t.notRun(msg.session)}
		return a
	case gone && errors.As(msg.err, &added) && !added.Unsure:
		return views.Answer(owner, msg, views.StatusMsg{}, t.outcome(kube.ActionDebug, "", fmt.Sprintf(
			"debug container %s (%s) was added to pod %s; left before it started: it stays in the pod until the pod ends",
			added.Container, added.Image, t.where()), true))
	case gone && added == nil:
		// Nothing was sent: cancelled before the patch.
		return views.Answer(owner, msg, views.StatusMsg{})
	}
	return t.fail(owner, msg, "debug container", kube.ActionDebug, msg.err)
}

// action is the history's action of the screen's session.
func (m *Model) action() kube.Action {
	if m.image != "" {
		return kube.ActionDebug
	}
	return kube.ActionShell
}

// endedText is the status line after a session: its exit code, or why it
// ended without one, cause first.
func endedText(res kube.ExecResult, err error) (string, bool) {
	via := ""
	if res.Fallback != "" {
		via = " (over SPDY: " + views.Sanitize(res.Fallback) + ")"
	}
	switch {
	case err == nil && res.ExitReportedAsError != "":
		return fmt.Sprintf("shell ended: exit %d (reported by the server as an error)%s", res.ExitCode, via), true
	case err == nil:
		return fmt.Sprintf("shell ended: exit %d%s", res.ExitCode, via), res.ExitCode != 0
	case errors.Is(err, kube.ErrExecServer):
		return "shell ended: " + causeText(err) + via, true
	case errors.Is(err, kube.ErrExecClosed):
		why := strings.TrimPrefix(err.Error(), kube.ErrExecClosed.Error())
		why = strings.TrimPrefix(why, ": ")
		if why == "" {
			why = "the stream closed"
		}
		return "exit status unknown: " + views.Sanitize(why) + via, true
	}
	return "shell ended: " + views.ErrText(err) + via, true
}

// endedDetail is the history's whole text of a session's end.
func endedDetail(s kube.ExecSession, res kube.ExecResult, err error) string {
	what := "session"
	if s != nil {
		what = strings.Join(s.Argv(), " ") + " in container " + s.Container()
	}
	var out string
	switch {
	case err != nil:
		out = what + ": " + err.Error()
	case res.ExitReportedAsError != "":
		out = fmt.Sprintf("%s: exit %d, reported by the server as an error: %s", what, res.ExitCode, res.ExitReportedAsError)
	default:
		out = fmt.Sprintf("%s: exit %d", what, res.ExitCode)
	}
	if res.Transport != "" {
		out += " (" + res.Transport
		if res.Fallback != "" {
			out += ", after the WebSocket executor failed: " + res.Fallback
		}
		out += ")"
	}
	return views.Sanitize(out)
}
