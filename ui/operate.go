package ui

import (
	"fmt"
	"slices"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/history"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/rollout"
)

// WithHistoryFile appends every outcome of the session to the file at
// path (config.HistoryPath); without it the history is kept in memory
// only.
func WithHistoryFile(path string) Option {
	return func(m *Model) { m.historyPath = path }
}

// historyWrittenMsg says whether outcomes could be appended to the file.
type historyWrittenMsg struct {
	path string
	err  error
}

// operator returns the client as an operate.Operator; when it is not one,
// the status line says actions are not available.
func (m *Model) operator() (operate.Operator, bool) {
	op, ok := m.vc.Client.(operate.Operator)
	if !ok {
		m.status = views.StatusMsg{Text: "actions are not available", Error: true}
	}
	return op, ok
}

// openOperate pushes the confirmation screen of an action when the client
// can operate (it implements operate.Operator).
func (m *Model) openOperate(msg views.OperateMsg) tea.Cmd {
	op, ok := m.operator()
	if !ok {
		return nil
	}
	m.status = views.StatusMsg{}
	var kind kube.KindInfo // the targets are of one kind (one inventory's rows)
	if len(msg.Targets) > 0 {
		kind, _ = m.vc.Client.Kind(string(msg.Targets[0].Kind))
	}
	return m.push(operate.New(m.vc, op, kind, msg), msg.Replace)
}

// openActions pushes the action list of one object.
func (m *Model) openActions(msg views.ActionsMsg) tea.Cmd {
	op, ok := m.operator()
	if !ok {
		return nil
	}
	m.status = views.StatusMsg{}
	return m.push(operate.NewList(m.vc, op, msg), false)
}

// openRollout shows the rollout screen, on top or instead of the top
// screen (the confirmation that started the rollout).
func (m *Model) openRollout(msg views.OpenRolloutMsg) tea.Cmd {
	r, ok := m.vc.Client.(rollout.Reader)
	if !ok {
		m.status = views.StatusMsg{Text: "rollouts cannot be followed with this client", Error: true}
		return nil
	}
	kind, _ := m.vc.Client.Kind(string(msg.Ref.Kind)) // unknown: no capability, no u
	return m.push(rollout.New(m.vc, r, kind, msg.Ref, msg.What, rollout.WithUID(msg.UID)), msg.Replace)
}

// record keeps outcomes in the session's history and appends them to the
// history file, off the UI goroutine, and shows their status line (when
// msg has one).
func (m *Model) record(msg views.OutcomesMsg) tea.Cmd {
	if msg.Status.Text != "" {
		m.status, m.outcomeShown = msg.Status, true
	}
	ctx := m.context
	if ctx == "" && m.hasFacts {
		ctx = m.facts.Context
	}
	if m.vc.Name != "" {
		ctx = m.vc.Name // a screen of one cluster of a fleet (within)
	}
	now := time.Now()
	entries := make([]history.Entry, len(msg.Outcomes))
	for i, o := range msg.Outcomes {
		entries[i] = history.Entry{Time: now, Context: ctx, Outcome: o}
	}
	m.sess.history = append(m.sess.history, entries...)
	path := m.historyPath
	if path == "" {
		return nil
	}
	return func() tea.Msg { return historyWrittenMsg{path: path, err: history.Append(path, entries)} }
}

// answer takes the answer to a request a screen sent before any screen
// does (views.AnswerMsg): its outcomes are recorded whichever screen is
// shown, its status line shown while the screen that sent it is the top
// one, what it left recorded when that screen is gone; then its message
// goes to the screens.
func (m *Model) answer(msg views.AnswerMsg) tea.Cmd {
	out := views.OutcomesMsg{Outcomes: msg.Outcomes}
	if msg.Owner != nil && m.Top() == msg.Owner {
		out.Status = msg.Status
	}
	if !m.onStack(msg.Owner) {
		out.Outcomes = append(slices.Clip(out.Outcomes), msg.Left...)
	}
	var cmd tea.Cmd
	if len(out.Outcomes) > 0 || out.Status.Text != "" {
		cmd = m.record(out)
	}
	if msg.Msg == nil {
		return cmd
	}
	return tea.Batch(cmd, m.toScreens(msg.Msg))
}

// onStack reports whether scr is one of the screens on the stack.
func (m *Model) onStack(scr views.Screen) bool {
	for _, s := range m.stack {
		if s == scr {
			return true
		}
	}
	return false
}

// notice shows a routine message of the root's own (the API server
// answering again) on the status line, unless the status line tells an
// outcome no key has been pressed since (outcomeShown): an outcome stays
// until the person has seen it, and the notice, which the header says
// too, is dropped.
func (m *Model) notice(text string) {
	if m.outcomeShown {
		return
	}
	m.status = views.StatusMsg{Text: text}
}

// historyWritten notes, once, that the history file cannot be written:
// the history is then kept in memory only.
func (m *Model) historyWritten(msg historyWrittenMsg) {
	if msg.err == nil || msg.path != m.historyPath {
		return
	}
	m.historyPath = ""
	note := fmt.Sprintf("history file %s not written (%v): the history is kept for this session only", msg.path, msg.err)
	if m.status.Text != "" {
		note = m.status.Text + " · " + note
	}
	m.status = views.StatusMsg{Text: note, Error: m.status.Error}
}
