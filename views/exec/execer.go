// Package exec is the shell hand-off (`s` on a pod or a container): the
// guards' plan (kube.Client.PlanExec), a container picker when the pod has
// several, a confirmation of the interactive policy's warnings, then the
// session opened (kube.Client.OpenExec) and run in-process with the
// terminal released by tea.Exec: raw mode while it runs, the local size
// and every resize passed on, and the terminal taken back however it ends
// (an exit, a broken stream, a panic, SIGTERM or SIGHUP). A container
// without a shell (casebook C16) is offered an ephemeral debug container
// through a Debugger.
package exec

import (
	"context"
	"errors"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Execer is what the screen opens sessions through; *kube.Client is one.
type Execer interface {
	// PlanExec runs the guards without running anything (see
	// kube.Client.PlanExec).
	PlanExec(ctx context.Context, req kube.ExecRequest) (kube.ExecPlan, error)
	// OpenExec runs the guards again, chooses the shell and returns the
	// session (see kube.Client.OpenExec).
	OpenExec(ctx context.Context, req kube.ExecRequest) (kube.ExecSession, error)
}

// Debugger starts ephemeral debug containers (kubectl debug -it --target);
// a client without it gets no offer of one.
type Debugger interface {
	// PlanDebug runs the guards of a debug container without creating it.
	PlanDebug(ctx context.Context, req kube.DebugRequest) (kube.Verdicts, error)
	// OpenDebug creates the debug container, calls progress with what it
	// waits for (a waiting reason) until it runs, and returns the session
	// attached to it.
	OpenDebug(ctx context.Context, req kube.DebugRequest, progress func(string)) (kube.ExecSession, error)
}

// Memory is what the screen remembers across its openings in one run of
// kyyard; the root keeps it and hands a pointer to each screen.
type Memory struct {
	// DebugImage is the debug container image last chosen ("" until one
	// is: kube.DefaultDebugImage is offered).
	DebugImage string
}

// callTimeout bounds a plan and the opening of a session (the shell probe
// included); a debug container's start has debugTimeout.
const (
	callTimeout  = 45 * time.Second
	debugTimeout = 3 * time.Minute
)

// planMsg carries the plan of the exec.
type planMsg struct {
	owner *Model
	token int
	plan  kube.ExecPlan
	err   error
}

// openedMsg carries an opened session (exec or debug container), or why
// not.
type openedMsg struct {
	owner   *Model
	token   int
	session kube.ExecSession
	err     error
}

// debugPlanMsg carries the verdicts of a debug container.
type debugPlanMsg struct {
	owner    *Model
	token    int
	verdicts kube.Verdicts
	err      error
}

// progressMsg carries OpenDebug's progress text.
type progressMsg struct {
	owner *Model
	token int
	text  string
}

// endedMsg says the handed-off session ended.
type endedMsg struct {
	owner   *Model
	session kube.ExecSession
	res     kube.ExecResult
	err     error
}

// Every call below runs under the screen's context (Close cancels it)
// and answers with a views.AnswerMsg carrying the outcome it comes to,
// computed off the UI goroutine from what the call returned (the teller
// holds the pod and the width the screen had when it was made): the root
// records it whether or not the screen is still shown.

// teller is what the outcomes of a call are told with: the pod, the
// status line's width and the debug image, copied when the call starts.
type teller struct {
	target views.OpenShellMsg
	width  int
	image  string
}

// teller copies what the outcomes of a call starting now are told with.
func (m *Model) teller() teller {
	return teller{target: m.target, width: m.vc.Width, image: m.image}
}

// left reports whether ctx ended because the screen was closed (Close),
// not because a call's time ran out.
func left(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }

// planCmd plans req.
func (m *Model) planCmd() tea.Cmd {
	m.token++
	owner, token, ex, req, base, tl := m, m.token, m.ex, m.request(), m.ctx, m.teller()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, callTimeout)
		defer cancel()
		plan, err := ex.PlanExec(ctx, req)
		msg := planMsg{owner: owner, token: token, plan: plan, err: err}
		var choice *kube.ContainerChoiceError
		switch {
		case left(ctx), errors.As(err, &choice):
			// Nothing was sent: a plan cancelled is not an outcome.
			return views.Answer(owner, msg, views.StatusMsg{})
		case err != nil:
			return tl.fail(owner, msg, "shell", kube.ActionShell, err)
		case plan.Verdicts.Refusal() != nil:
			return tl.fail(owner, msg, "shell", kube.ActionShell, plan.Verdicts.Refusal())
		}
		return views.Answer(owner, msg, views.StatusMsg{})
	}
}

// openCmd opens the session: an exec is sent (the shell's probe), so every
// end of it but a session is an outcome; a session opened is one too when
// the screen was left before it ran it (AnswerMsg.Left).
func (m *Model) openCmd() tea.Cmd {
	m.token++
	owner, token, ex, req, base, tl := m, m.token, m.ex, m.request(), m.ctx, m.teller()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, callTimeout)
		defer cancel()
		s, err := ex.OpenExec(ctx, req)
		msg := openedMsg{owner: owner, token: token, session: s, err: err}
		switch {
		case err == nil && left(ctx):
			return views.Answer(owner, msg, views.StatusMsg{}, tl.notRun(s))
		case err == nil:
			a := views.Answer(owner, msg, views.StatusMsg{})
			a.Left = []kube.OperateOutcome{tl.notRun(s)}
			return a
		case left(ctx):
			return views.Answer(owner, msg, views.StatusMsg{}, tl.outcome(kube.ActionShell, kube.ReasonError,
				"shell in "+tl.where()+": left while the shell was being chosen; no session ran", false))
		case errors.Is(err, kube.ErrExecNoShell):
			// The screen shows it (and offers a debug container).
			o, _ := tl.failed("shell", kube.ActionShell, err)
			return views.Answer(owner, msg, views.StatusMsg{}, o)
		}
		return tl.fail(owner, msg, "shell", kube.ActionShell, err)
	}
}

// debugPlanCmd plans the debug container.
func (m *Model) debugPlanCmd() tea.Cmd {
	m.token++
	owner, token, dbg, req, base, tl := m, m.token, m.dbg, m.debugRequest(), m.ctx, m.teller()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(base, callTimeout)
		defer cancel()
		vs, err := dbg.PlanDebug(ctx, req)
		msg := debugPlanMsg{owner: owner, token: token, verdicts: vs, err: err}
		switch {
		case left(ctx):
			return views.Answer(owner, msg, views.StatusMsg{})
		case err != nil:
			return tl.fail(owner, msg, "debug container", kube.ActionDebug, err)
		case vs.Refusal() != nil:
			return tl.fail(owner, msg, "debug container", kube.ActionDebug, vs.Refusal())
		}
		return views.Answer(owner, msg, views.StatusMsg{})
	}
}

// debugOpenCmd starts the debug container. Its progress arrives through
// a channel a command waits on, re-armed by the screen after each text;
// its end through another, waited on once, whatever the screen does
// meanwhile: a debug container added and then left with esc before it
// started is recorded.
func (m *Model) debugOpenCmd() tea.Cmd {
	m.token++
	owner, token, dbg, req, base, tl := m, m.token, m.dbg, m.debugRequest(), m.ctx, m.teller()
	progress := make(chan string, 16)
	done := make(chan struct{})
	m.progress, m.progressDone = progress, done
	opened := make(chan views.AnswerMsg, 1)
	go func() {
		defer close(done)
		ctx, cancel := context.WithTimeout(base, debugTimeout)
		defer cancel()
		s, err := dbg.OpenDebug(ctx, req, func(text string) {
			select {
			case progress <- text:
			default: // the screen is behind: it shows a later text
			}
		})
		opened <- tl.debugAnswer(owner, openedMsg{owner: owner, token: token, session: s, err: err}, left(ctx))
	}()
	return tea.Batch(func() tea.Msg { return <-opened }, m.waitDebug(token))
}

// waitDebug waits for the next progress text; nil once the debug
// container's start has ended.
func (m *Model) waitDebug(token int) tea.Cmd {
	owner, progress, done := m, m.progress, m.progressDone
	return func() tea.Msg {
		select {
		case text := <-progress:
			return progressMsg{owner: owner, token: token, text: text}
		case <-done:
			return nil
		}
	}
}
