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
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
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

// planCmd plans req.
func (m *Model) planCmd() tea.Cmd {
	m.token++
	owner, token, ex, req := m, m.token, m.ex, m.request()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		plan, err := ex.PlanExec(ctx, req)
		return planMsg{owner: owner, token: token, plan: plan, err: err}
	}
}

// openCmd opens the session.
func (m *Model) openCmd() tea.Cmd {
	m.token++
	owner, token, ex, req := m, m.token, m.ex, m.request()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		s, err := ex.OpenExec(ctx, req)
		return openedMsg{owner: owner, token: token, session: s, err: err}
	}
}

// debugPlanCmd plans the debug container.
func (m *Model) debugPlanCmd() tea.Cmd {
	m.token++
	owner, token, dbg, req := m, m.token, m.dbg, m.debugRequest()
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		vs, err := dbg.PlanDebug(ctx, req)
		return debugPlanMsg{owner: owner, token: token, verdicts: vs, err: err}
	}
}

// debugOpenCmd starts the debug container; its progress arrives through
// a channel the returned command waits on, re-armed after each text.
func (m *Model) debugOpenCmd() tea.Cmd {
	m.token++
	owner, token, dbg, req := m, m.token, m.dbg, m.debugRequest()
	progress := make(chan string, 16)
	m.progress = progress
	opened := make(chan openedMsg, 1)
	m.opened = opened
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), debugTimeout)
		defer cancel()
		s, err := dbg.OpenDebug(ctx, req, func(text string) {
			select {
			case progress <- text:
			default: // the screen is behind: it shows a later text
			}
		})
		opened <- openedMsg{owner: owner, token: token, session: s, err: err}
	}()
	return m.waitDebug(token)
}

// waitDebug waits for the next progress text or the opened session.
func (m *Model) waitDebug(token int) tea.Cmd {
	owner, progress, opened := m, m.progress, m.opened
	return func() tea.Msg {
		select {
		case text := <-progress:
			return progressMsg{owner: owner, token: token, text: text}
		case msg := <-opened:
			return msg
		}
	}
}
