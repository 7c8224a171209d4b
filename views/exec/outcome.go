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

// outcome is the history entry of this screen's shell: what was asked
// (the pod, the action) and how it ended; reason "" for a session that
// ran (whatever its exit code).
func (m *Model) outcome(action kube.Action, reason kube.Reason, detail string) tea.Cmd {
	o := kube.OperateOutcome{
		Op: kube.Operation{Action: action, Ref: kube.ObjectRef{Kind: kube.KindPods, Namespace: m.target.Namespace,
			Name: m.target.Pod, UID: m.target.UID}},
		Reason: reason,
		Detail: detail,
	}
	return func() tea.Msg { return views.OutcomesMsg{Outcomes: []kube.OperateOutcome{o}} }
}

// action is the history's action of the screen's session.
func (m *Model) action() kube.Action {
	if m.image != "" {
		return kube.ActionDebug
	}
	return kube.ActionShell
}

// fail leaves the screen: the status line says why the shell (what) did
// not open, cut to the width, and the history keeps the whole error.
func (m *Model) fail(what string, action kube.Action, err error) tea.Cmd {
	reason := kube.ReasonOf(err)
	if reason == "" {
		reason = kube.ReasonError
	}
	detail := views.Sanitize(what + " in " + m.where() + ": " + err.Error())
	return tea.Sequence(m.outcome(action, reason, detail), finish(fit(failText(what, err), m.vc.Width), true))
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
