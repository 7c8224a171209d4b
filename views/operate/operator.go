// Package operate is the confirmation screen of the everyday actions
// (restart, scale, delete, pause, resume, undo; a CronJob's trigger,
// suspend and unsuspend) on one object or on every marked row: a scale
// form first for a scale, then one plan per object
// (kube.Client.PlanOperation), a confirmation listing every guard's
// verdict (refusals block that object; a warning that names a text needs
// it typed, the others a plain y), then one Operate per object and one
// outcome line each, never all or nothing. After one trigger, enter opens
// the pods of the Job it created.
package operate

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Operator is what the screen plans and writes through; *kube.Client is
// one.
type Operator interface {
	// PlanOperation runs op's guards without writing (see
	// kube.Client.PlanOperation).
	PlanOperation(ctx context.Context, op kube.Operation) (kube.Verdicts, error)
	// Operate runs the guards again and writes (see kube.Client.Operate).
	Operate(ctx context.Context, op kube.Operation) (kube.OperateOutcome, error)
}

// callTimeout bounds one plan or one write.
const callTimeout = 30 * time.Second

// planMsg carries one object's plan.
type planMsg struct {
	owner    *Model
	token    int
	i        int
	verdicts kube.Verdicts
	err      error
}

// doneMsg carries one object's outcome.
type doneMsg struct {
	owner *Model
	token int
	i     int
	out   kube.OperateOutcome
}

// planCmds plans every object at once, one command each.
func (m *Model) planCmds() tea.Cmd {
	m.token++
	owner, token, op := m, m.token, m.op
	cmds := make([]tea.Cmd, len(m.items))
	for i := range m.items {
		o := m.operation(i)
		cmds[i] = func() tea.Msg {
			ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
			defer cancel()
			vs, err := op.PlanOperation(ctx, o)
			return planMsg{owner: owner, token: token, i: i, verdicts: vs, err: err}
		}
	}
	return tea.Batch(cmds...)
}

// operateCmd runs the objects' operations one after the other, in the
// order shown, each answering its own message (so the result page fills in
// line by line).
func (m *Model) operateCmd(i int) tea.Cmd {
	owner, token, op, o := m, m.token, m.op, m.operation(i)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		out, _ := op.Operate(ctx, o)
		out.Op = o
		// The root records out whether or not the screen is still shown
		// (views.AnswerMsg): the write was sent.
		return views.Answer(owner, doneMsg{owner: owner, token: token, i: i, out: out}, views.StatusMsg{}, out)
	}
}
