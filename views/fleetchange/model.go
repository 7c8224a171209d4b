package fleetchange

import (
	"fmt"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
)

// phase is where the whole change stands.
type phase int

const (
	phasePlanning phase = iota // the steps are planned
	phasePlanned               // shown; y applies
	phaseApplying              // one cluster after the other
	phaseStopped               // a step failed: the later ones untouched
	phaseDone                  // every step done
	phaseUndoing               // the applied steps are undone, one after the other
)

// Model is the screen of one change applied cluster by cluster. Use New.
type Model struct {
	vc      *views.Context
	ref     kube.WorkloadRef
	change  Change
	targets []Target

	seq     int
	phase   phase
	steps   []*step
	current int // the step applied, followed or undone
	confirm *views.Confirm
	note    string
	offset  int
	// undoAsked: u was pressed once; a second u undoes.
	undoAsked bool

	// Deadline and Poll of each rollout followed (rollout.DefaultDeadline,
	// rollout.PollEvery); tests shorten them.
	Deadline, Poll time.Duration

	keys Keys
}

// New returns the screen of change (made in change.Source) applied to
// ref in each target, in their order; it plans when it starts (Init).
func New(vc *views.Context, ref kube.WorkloadRef, change Change, targets []Target) *Model {
	return &Model{vc: vc, ref: ref, change: change, targets: targets,
		Deadline: rollout.DefaultDeadline, Poll: rollout.PollEvery, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// Init plans the change in every target.
func (m *Model) Init() tea.Cmd { return m.plan() }

func (m *Model) plan() tea.Cmd {
	m.seq++
	m.phase, m.steps, m.confirm, m.note = phasePlanning, nil, nil, ""
	return planCmd(m.seq, m.ref, m.change, m.targets)
}

// Title is "change deployments/web(demo)" ("restart ..." for a restart).
func (m *Model) Title() string {
	return fmt.Sprintf("%s %s/%s(%s)", m.verb(), m.ref.Kind, views.Sanitize(m.ref.Name), views.Sanitize(m.ref.Namespace))
}

// verb names what the screen does: change, or restart.
func (m *Model) verb() string {
	if m.change.Restart {
		return "restart"
	}
	return "change"
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Apply, k.Undo, k.Refresh, k.LeaveOut, views.HelpOf("scroll", k.Up, k.Down), k.Back}
}

// Capturing is true while a warning's confirmation is typed.
func (m *Model) Capturing() bool { return m.confirm != nil && m.confirm.Typing() }

// CapturesBack is true while something is written: esc then says to wait
// (views.BackCapturer), and while a confirmation is typed (esc stops it).
func (m *Model) CapturesBack() bool {
	return m.phase == phaseApplying || m.phase == phaseUndoing || m.Capturing()
}

// Unsaved describes a change planned and not applied yet ("a change of
// deployments/web planned in 3 contexts, not applied"), or being applied
// or undone (views.Unsaved): the root asks before a quit, and refuses a
// command that would close the screen. "" once stopped or done, or when
// no cluster has anything to change.
func (m *Model) Unsaved() string {
	switch m.phase {
	case phaseApplying:
		return fmt.Sprintf("the %s of %s/%s is being applied cluster by cluster (%d of %d): leaving now leaves the later clusters untouched",
			m.verb(), m.ref.Kind, views.Sanitize(m.ref.Name), m.current+1, len(m.steps))
	case phaseUndoing:
		return fmt.Sprintf("the undo of %s/%s is under way: leaving now leaves some clusters changed", m.ref.Kind, views.Sanitize(m.ref.Name))
	case phasePlanned:
		for _, s := range m.steps {
			if len(s.changes) > 0 {
				return fmt.Sprintf("a %s of %s/%s planned in %d contexts, not applied", m.verb(), m.ref.Kind, views.Sanitize(m.ref.Name), len(m.steps))
			}
		}
	}
	return ""
}

// firstBlocked is the index of the first step that cannot be written, or
// len(steps).
func (m *Model) firstBlocked() int {
	for i, s := range m.steps {
		if !s.out && s.blocked() != "" {
			return i
		}
	}
	return len(m.steps)
}

// asks builds the confirmations: the warnings of every step before the
// first blocked one that is not left out.
func (m *Model) asks() {
	var asks []views.ConfirmAsk
	for i := range m.steps[:m.firstBlocked()] {
		if !m.steps[i].out {
			asks = append(asks, views.WarningAsks(m.steps[i].preview.Verdicts, i)...)
		}
	}
	m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, asks)
}

// leaveOut leaves step i out of the plan, or puts it back; one step at
// least stays in.
func (m *Model) leaveOut(i int) {
	if i < 0 || i >= len(m.steps) {
		return
	}
	s := m.steps[i]
	s.out = !s.out
	if s.out && !slices.ContainsFunc(m.steps, func(x *step) bool { return !x.out }) {
		s.out = false
		m.note = fmt.Sprintf("at least one of the %d clusters stays in the plan", len(m.steps))
	}
	m.asks()
}

// Update handles the answers and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.seq == m.seq {
			m.steps, m.phase = msg.steps, phasePlanned
			m.asks()
		}
		return m, nil
	case appliedMsg:
		if msg.seq != m.seq {
			return m, nil
		}
		if msg.undo {
			return m, m.undone(msg)
		}
		return m, m.applied(msg)
	case rollout.StatusMsg, rollout.PollMsg:
		return m, m.followed(msg)
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// key handles a key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	m.note = ""
	k := m.keys
	if !key.Matches(msg, k.Undo) {
		m.undoAsked = false
	}
	if m.Capturing() {
		return m.confirm.Key(msg, m.start)
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.phase == phaseApplying || m.phase == phaseUndoing {
			m.note = "the change is on its way: wait until it stops or is done"
			return nil
		}
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Down):
		m.offset++
	case key.Matches(msg, k.Up):
		m.offset = max(m.offset-1, 0)
	case key.Matches(msg, k.Refresh):
		if m.phase == phasePlanned || m.phase == phasePlanning {
			return m.plan()
		}
		m.note = "written already: " + views.FirstKey(k.Back) + ", and open the change again to plan anew"
	case key.Matches(msg, k.Apply):
		return m.yes()
	case key.Matches(msg, k.LeaveOut):
		if m.phase == phasePlanned {
			m.leaveOut(slices.Index(k.LeaveOut.Keys(), msg.String()))
		}
	case key.Matches(msg, k.Undo):
		return m.undo()
	}
	return nil
}

// yes starts the apply once every warning before the first blocked step
// is confirmed.
func (m *Model) yes() tea.Cmd {
	if m.phase != phasePlanned {
		return nil
	}
	if first := slices.IndexFunc(m.steps, func(s *step) bool { return !s.out }); first == m.firstBlocked() {
		m.note = "cannot apply: the first cluster in the plan refuses (" + m.steps[first].blocked() + "); nothing is written; its number leaves it out"
		return nil
	}
	if m.confirm.Unconfirmed() > 0 {
		m.note = m.confirm.Summary()
		return m.confirm.Advance()
	}
	return m.start()
}

// start applies the first step.
func (m *Model) start() tea.Cmd {
	if m.phase != phasePlanned {
		return nil
	}
	m.phase, m.current = phaseApplying, -1
	next := m.next()
	if m.change.Restart {
		return next
	}
	// The form below holds the edits now applied: it is closed, so that
	// esc comes back to where the change was started.
	owner := m
	return tea.Batch(func() tea.Msg { return views.CloseBelowMsg{Owner: owner} }, next)
}

// reasonsOf are the reasons confirmed for step i.
func (m *Model) reasonsOf(i int) []kube.Reason {
	var out []kube.Reason
	for j := range m.confirm.Len() {
		if a := m.confirm.Ask(j); a.Of == i && a.Reason != "" && m.confirm.Confirmed(j) && !slices.Contains(out, a.Reason) {
			out = append(out, a.Reason)
		}
	}
	return out
}

// next applies the step after the current one; a blocked step stops the
// change there; after the last, it is done.
func (m *Model) next() tea.Cmd {
	m.current++
	if m.current >= len(m.steps) {
		m.phase = phaseDone
		return nil
	}
	s := m.steps[m.current]
	if s.out {
		s.state = stateLeftOut
		return tea.Batch(m.report(s, unwritten(s, "", "left out of the plan: nothing sent")), m.next())
	}
	if why := s.blocked(); why != "" {
		s.state, s.why = stateFailed, why
		return m.stop()
	}
	if len(s.changes) == 0 {
		s.state = stateDone // already so there: nothing to send
		return tea.Batch(m.report(s, unwritten(s, "", "already so here: nothing sent")), m.next())
	}
	s.state, s.confirmed = stateApplying, m.reasonsOf(m.current)
	return applyCmd(m, m.seq, m.current, s, s.confirmed, m.change.Restart)
}

// applied takes a write's answer: refused stops the change, written
// follows the rollout.
func (m *Model) applied(msg appliedMsg) tea.Cmd {
	s := m.steps[msg.i]
	if msg.err != nil {
		s.state, s.why, s.applyErr = stateFailed, "the write was refused: "+views.ErrText(msg.err), msg.err
		return m.stop()
	}
	s.result, s.state = msg.result, stateRolling
	s.follow = rollout.NewFollow(m.ref, time.Now(), m.Deadline, m.Poll)
	s.follow.UID = msg.result.Workload.UID
	return s.follow.Read(s.target.Editor)
}

// followed takes a rollout reading of the current step.
func (m *Model) followed(msg tea.Msg) tea.Cmd {
	if m.phase != phaseApplying || m.current < 0 || m.current >= len(m.steps) {
		return nil
	}
	s := m.steps[m.current]
	if s.follow == nil || !s.follow.Owns(msg) {
		return nil
	}
	if _, ok := msg.(rollout.PollMsg); ok {
		return s.follow.Read(s.target.Editor)
	}
	cmd := s.follow.Take(msg.(rollout.StatusMsg), time.Now())
	if !s.follow.Done {
		return cmd
	}
	if s.follow.Failed() {
		s.state, s.why = stateFailed, s.follow.Summary(s.target.Context)
		// The write's line says written; this one says its rollout failed.
		out := unwritten(s, s.reasonOr(), "written, but its rollout failed: "+s.why)
		out.Written, out.ResourceVersion = true, s.result.Workload.ResourceVersion
		return tea.Batch(m.report(s, out), m.stop())
	}
	s.state = stateDone
	return m.next()
}

// stop ends the change at the current step: it and every later step are
// told to the history (the later ones untouched).
func (m *Model) stop() tea.Cmd {
	m.phase = phaseStopped
	cur := m.steps[m.current]
	var cmds []tea.Cmd
	why := cur.reasonOr()
	if cur.applyErr != nil {
		why = kube.ReasonOf(cur.applyErr)
	}
	if cur.applyErr == nil && cur.follow == nil { // refused before its write (a write's answer told its own)
		cmds = append(cmds, m.report(cur, unwritten(cur, why, "not applied: "+cur.why)))
	}
	at := fmt.Sprintf("%s (%s)", cur.target.Context, cur.why)
	for _, s := range m.steps[m.current+1:] {
		s.state = stateUntouched
		// The untouched carry the reason the change stopped for.
		cmds = append(cmds, m.report(s, unwritten(s, why, "not applied: the change stopped at "+at)))
	}
	changed := m.changed()
	status := fmt.Sprintf("stopped at %s: %s; %d later cluster(s) untouched", cur.target.Context, cur.why, len(m.steps)-m.current-1)
	if len(changed) > 0 && !m.change.Restart {
		status += fmt.Sprintf("; %s the %d changed", views.Hint("undoes", m.keys.Undo), len(changed))
	}
	cmds = append(cmds, views.Status(status, true))
	return tea.Batch(cmds...)
}

// report tells the history step s's outcome, in its context.
func (m *Model) report(s *step, out kube.OperateOutcome) tea.Cmd {
	return views.InContext(s.target.Context, views.Report(views.StatusMsg{}, out))
}

// changed are the indexes of the steps written (and not undone).
func (m *Model) changed() []int {
	var out []int
	for i, s := range m.steps {
		if s.result.Workload.ResourceVersion != "" && s.state != stateUndone {
			out = append(out, i)
		}
	}
	return out
}

// undo writes back the change in every cluster it was written to, one
// after the other.
func (m *Model) undo() tea.Cmd {
	if m.phase != phaseStopped && m.phase != phaseDone {
		m.note = "nothing to undo yet"
		return nil
	}
	if m.change.Restart {
		m.note = "a restart cannot be undone: its new pods are running (or failing) already"
		return nil
	}
	changed := m.changed()
	if len(changed) == 0 {
		m.note = "nothing was written: nothing to undo"
		return nil
	}
	if !m.undoAsked {
		m.undoAsked = true
		m.note = fmt.Sprintf("%s again writes the change back in %d cluster(s), the last changed first (each read again); any other key keeps it", views.FirstKey(m.keys.Undo), len(changed))
		return nil
	}
	m.undoAsked = false
	m.phase, m.current = phaseUndoing, changed[len(changed)-1]
	m.steps[m.current].state = stateUndoing
	return undoCmd(m, m.seq, m.current, m.steps[m.current])
}

// undone takes an undo's answer and undoes the next changed step.
func (m *Model) undone(msg appliedMsg) tea.Cmd {
	s := m.steps[msg.i]
	if msg.err != nil {
		s.state, s.why = stateUndoFailed, "the undo was refused: "+views.ErrText(msg.err)
	} else {
		s.state, s.result = stateUndone, msg.result
	}
	changed := m.changed()
	for j := len(changed) - 1; j >= 0; j-- { // the last changed first
		if i := changed[j]; i < msg.i && m.steps[i].state != stateUndoFailed {
			m.current = i
			m.steps[i].state = stateUndoing
			return undoCmd(m, m.seq, i, m.steps[i])
		}
	}
	m.phase = phaseStopped
	return views.Status("the undo is done where it could be: each cluster's line is in :history", false)
}
