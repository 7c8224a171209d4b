package operate

import (
	"fmt"
	"strconv"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// phase is which page the screen shows.
type phase int

const (
	phaseScale   phase = iota // the scale form
	phasePlan                 // the plans are being read
	phaseConfirm              // the verdicts, waiting for y or a typed text
	phaseRun                  // the operations are being sent
	phaseResult               // one outcome per object
)

// item is one object's plan and outcome.
type item struct {
	ref      kube.ObjectRef
	planned  bool
	verdicts kube.Verdicts
	err      error // the plan failed
	done     bool
	out      kube.OperateOutcome
	sent     bool // Operate was called: its answer records out itself
	// reported is set once out went to the history (sent, or reported
	// by the screen).
	reported bool
}

// refused reports whether the object cannot be operated on: a guard
// refused or its plan failed.
func (it *item) refused() bool { return it.err != nil || it.verdicts.Refusal() != nil }

// nothing reports whether the plan says the object already is as asked
// (kube.Verdicts.NothingToDo: already paused, the same replicas): nothing
// is sent for it, and nothing is asked.
func (it *item) nothing() bool {
	_, ok := it.verdicts.NothingToDo()
	return !it.refused() && ok
}

// Model is the confirmation screen. Use New.
type Model struct {
	vc     *views.Context
	op     Operator
	action kube.Action
	// kind describes the targets' kind (its plugin's KindInfo; the targets
	// are rows of one inventory, of one kind): after a write, its rollout
	// is followed when the kind has kube.CanRollout.
	kind  kube.KindInfo
	items []item
	token int
	phase phase

	replicas int32           // the scale target
	current  int32           // the replicas before, -1 unknown
	force    bool            // pods: delete at once (grace period 0)
	input    textinput.Model // the scale form's replicas
	note     string          // a malformed replicas value
	// confirm asks the texts the warnings want typed (the object's name),
	// of every object not refused; nil until the plans are read.
	confirm *views.Confirm
	offset  int
	keys    Keys
}

// New returns the screen for msg's action on msg's targets, through op;
// kind describes the targets' kind (its plugin's KindInfo). A scale
// starts with its form; other actions plan at Init.
func New(vc *views.Context, op Operator, kind kube.KindInfo, msg views.OperateMsg) *Model {
	m := &Model{vc: vc, op: op, kind: kind, action: msg.Action, current: msg.Replicas, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	for _, r := range msg.Targets {
		m.items = append(m.items, item{ref: r})
	}
	m.input = textinput.New()
	m.input.Prompt = ""
	m.input.Cursor.SetMode(cursor.CursorStatic) // a calm screen; no blink ticks
	m.input.PromptStyle, m.input.TextStyle = vc.Styles.Prompt, vc.Styles.Prompt
	m.phase = phasePlan
	if m.action == kube.ActionScale {
		m.phase = phaseScale
		m.input.CharLimit = 5
		if m.current >= 0 {
			m.input.SetValue(strconv.Itoa(int(m.current)))
			m.input.CursorEnd()
		}
	}
	return m
}

// Init focuses the scale form, or plans every object.
func (m *Model) Init() tea.Cmd {
	switch m.phase {
	case phaseScale:
		return m.input.Focus()
	case phasePlan:
		return m.planCmds()
	}
	return nil
}

// operation is the Operation of item i, with the reasons confirmed so far
// (every warning once the person said y).
func (m *Model) operation(i int) kube.Operation {
	o := kube.Operation{Ref: m.items[i].ref, Action: m.action}
	if m.action == kube.ActionScale && m.current >= 0 {
		// The replicas the dialog showed: a scale made since is not
		// overwritten unseen (kubectl scale --current-replicas).
		current := m.current
		o.CurrentReplicas = &current
	}
	switch m.action {
	case kube.ActionScale:
		o.Replicas = m.replicas
	case kube.ActionDelete:
		if m.items[i].ref.Kind == kube.KindPods && m.force {
			zero := int64(0)
			o.Force, o.GracePeriodSeconds = true, &zero
		}
	}
	if m.phase >= phaseRun {
		o.Confirmed = views.ConfirmedReasons(m.items[i].verdicts)
	}
	return o
}

// Update takes the plans, the outcomes and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case planMsg:
		if msg.owner == m && msg.token == m.token && m.phase == phasePlan {
			it := &m.items[msg.i]
			it.planned, it.verdicts, it.err = true, msg.verdicts, msg.err
			if m.allPlanned() {
				return m, m.planned()
			}
		}
	case doneMsg:
		if msg.owner == m && msg.token == m.token && m.phase == phaseRun {
			return m, m.takeDone(msg)
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	default:
		if m.input.Focused() {
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
	}
	return m, nil
}

func (m *Model) allPlanned() bool {
	for _, it := range m.items {
		if !it.planned {
			return false
		}
	}
	return true
}

// askTexts starts the confirmation of the texts the warnings of the
// objects not refused want typed (a plain y confirms the others).
func (m *Model) askTexts() tea.Cmd {
	var asks []views.ConfirmAsk
	for i := range m.items {
		if m.items[i].refused() {
			continue
		}
		for _, a := range views.WarningAsks(m.items[i].verdicts, i) {
			if a.Want != "y" {
				asks = append(asks, a)
			}
		}
	}
	m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, asks)
	return m.confirm.Start("")
}

// sendable counts the objects that are not refused.
func (m *Model) sendable() int {
	n := 0
	for i := range m.items {
		if !m.items[i].refused() && !m.items[i].nothing() {
			n++
		}
	}
	return n
}

// key handles a key on the current page: Back first, at every stage;
// then the scale form's Take, else the key is typed; a text being typed
// for a warning takes every key but Back.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if key.Matches(msg, k.Back) {
		return m.leave()
	}
	switch m.phase {
	case phaseScale:
		if key.Matches(msg, k.Take) {
			n, err := kube.ParseReplicas(m.input.Value())
			if err != nil {
				m.note = "replicas: " + err.Error()
				return nil
			}
			m.replicas, m.note, m.phase = n, "", phasePlan
			m.input.Blur()
			return m.planCmds()
		}
		m.note = ""
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	case phaseConfirm:
		if m.confirm.Typing() {
			return m.confirm.Update(msg)
		}
		switch {
		case key.Matches(msg, k.Force):
			if m.action == kube.ActionDelete && m.hasPods() {
				m.force = !m.force
				m.phase, m.confirm = phasePlan, nil
				for i := range m.items {
					m.items[i] = item{ref: m.items[i].ref}
				}
				return m.planCmds()
			}
		case key.Matches(msg, k.Confirm):
			if m.sendable() == 0 {
				return nil
			}
			m.phase = phaseRun
			return m.sendNext()
		case key.Matches(msg, k.Cancel):
			return m.leave()
		}
	case phaseResult:
		switch {
		case key.Matches(msg, k.Down, k.PageDown):
			m.offset++
		case key.Matches(msg, k.Up, k.PageUp):
			m.offset = max(m.offset-1, 0)
		case key.Matches(msg, k.Take):
			if cmd := m.openCreated(); cmd != nil {
				return cmd
			}
			return m.leave()
		}
	case phasePlan, phaseRun:
		switch {
		case key.Matches(msg, k.Down):
			m.offset++
		case key.Matches(msg, k.Up):
			m.offset = max(m.offset-1, 0)
		}
	}
	return nil
}

// hasPods reports whether a pod is among the objects.
func (m *Model) hasPods() bool {
	for _, it := range m.items {
		if it.ref.Kind == kube.KindPods {
			return true
		}
	}
	return false
}

// sendNext operates on the next object not done yet; refused objects get
// their refusal as outcome without a request. When all are done it shows
// the results.
func (m *Model) sendNext() tea.Cmd {
	for i := range m.items {
		it := &m.items[i]
		if it.done {
			continue
		}
		if it.refused() || it.nothing() {
			it.done, it.out = true, m.refusal(i)
			continue
		}
		it.sent, it.reported = true, true
		// The objects refused before this one go to the history first,
		// in the order asked.
		return tea.Sequence(m.reportPassed(views.StatusMsg{}), m.operateCmd(i))
	}
	return m.finish()
}

// reportPassed reports to the history the outcomes of the objects done
// and not reported yet (refused, or with nothing to send) with status;
// nil when there are none and status is zero.
func (m *Model) reportPassed(status views.StatusMsg) tea.Cmd {
	var outs []kube.OperateOutcome
	for i := range m.items {
		if it := &m.items[i]; it.done && !it.reported {
			it.reported = true
			outs = append(outs, it.out)
		}
	}
	if len(outs) == 0 && status.Text == "" {
		return nil
	}
	return views.Report(status, outs...)
}

// refusal is the outcome of item i, refused by its plan, or with nothing
// to do: nothing is sent.
func (m *Model) refusal(i int) kube.OperateOutcome {
	it := &m.items[i]
	out := kube.OperateOutcome{Op: m.operation(i), Verdicts: it.verdicts}
	if s, ok := it.verdicts.NothingToDo(); ok && !it.refused() {
		out.Detail = views.Sanitize(s)
		return out
	}
	if it.err != nil {
		out.Reason, out.Detail = kube.ReasonOf(it.err), views.ErrText(it.err)
		return out
	}
	r := it.verdicts.Refusal()
	out.Reason, out.Detail = r.Reason, r.Detail+" (not sent)"
	for _, v := range it.verdicts {
		if v.Outcome == kube.OutcomeRefuse && v.KyyardManaged {
			// kyyard's own app: changed through its deploy form.
			out.Detail += " · " + views.AppsHint
		}
	}
	return out
}

// planned ends the planning: the confirmation is asked, unless every
// object is refused (strict's refusal of a warning, forbidden, read-only)
// or already as asked (already paused): then nothing can be sent, and the
// refusals and "nothing to send" are the action's outcome, reported to the
// session's history at once.
func (m *Model) planned() tea.Cmd {
	m.phase = phaseConfirm
	if m.sendable() > 0 {
		return m.askTexts()
	}
	m.input.Blur()
	outs := make([]kube.OperateOutcome, len(m.items))
	for i := range m.items {
		outs[i] = m.refusal(i)
	}
	return views.Report(views.StatusMsg{}, outs...)
}

// takeDone keeps one outcome and sends the next.
func (m *Model) takeDone(msg doneMsg) tea.Cmd {
	it := &m.items[msg.i]
	it.done, it.out = true, msg.out
	return m.sendNext()
}

// finish shows the results, reports the outcomes not reported yet to the
// root (a sent object's answer reported its own) and puts them all on
// the status line; a single successful restart, scale, undo or resume
// of a workload goes on to its rollout screen.
func (m *Model) finish() tea.Cmd {
	m.phase = phaseResult
	outs := make([]kube.OperateOutcome, len(m.items))
	failed := 0
	for i, it := range m.items {
		outs[i] = it.out
		if !it.out.OK() {
			failed++
		}
	}
	report := m.reportPassed(views.StatusMsg{Text: m.summary(), Error: failed > 0})
	if len(m.items) == 1 && failed == 0 && outs[0].Written && followed(m.action) && m.kind.Capabilities.Has(kube.CanRollout) {
		r := m.items[0].ref
		open := views.OpenRolloutMsg{Ref: kube.WorkloadRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name},
			UID: r.UID, What: outs[0].Detail, Replace: true}
		return tea.Batch(report, func() tea.Msg { return open })
	}
	return report
}

// followed reports whether an action starts a rollout worth following.
func followed(a kube.Action) bool {
	switch a {
	case kube.ActionRestart, kube.ActionScale, kube.ActionUndo, kube.ActionResume:
		return true
	}
	return false
}

// summary is the status line of the outcomes: the one object's outcome, or
// the counts of a bulk action.
func (m *Model) summary() string {
	if len(m.items) == 1 {
		return outcomeText(m.items[0].out)
	}
	ok := 0
	for _, it := range m.items {
		if it.out.OK() {
			ok++
		}
	}
	return fmt.Sprintf("%s: %d of %d done, %d refused or failed (the list: :history)", m.action, ok, len(m.items), len(m.items)-ok)
}

// outcomeText is one outcome for people: the detail of what was done, or
// "<ref>: <reason>: <detail>".
func outcomeText(o kube.OperateOutcome) string {
	if o.OK() {
		if o.Detail == "" {
			return fmt.Sprintf("%s %s: done", o.Op.Action, o.Op.Ref)
		}
		return views.Sanitize(o.Detail)
	}
	return views.Sanitize(fmt.Sprintf("%s %s refused: %s: %s", o.Op.Action, o.Op.Ref, o.Reason, o.Detail))
}

// leave closes the screen; before anything was sent it says the action
// was cancelled.
func (m *Model) leave() tea.Cmd {
	m.token++
	back := func() tea.Msg { return views.BackMsg{} }
	switch m.phase {
	case phaseResult:
		return back
	case phaseRun:
		// What was done so far is in the history (an object whose answer
		// has not come yet goes there when it comes); the rest is not sent.
		return tea.Batch(back, m.reportPassed(views.StatusMsg{Text: fmt.Sprintf("%s: the objects not reached yet are left alone", m.action)}))
	}
	return tea.Batch(back, views.Status(fmt.Sprintf("%s cancelled: nothing was sent", m.action), false))
}

// Title is "<action> <kind>/<name>(<namespace>)" or "<action> N objects".
func (m *Model) Title() string {
	if len(m.items) == 1 {
		r := m.items[0].ref
		return fmt.Sprintf("%s %s/%s(%s)", m.action, r.Kind, r.Name, r.Namespace)
	}
	return fmt.Sprintf("%s %s", m.action, kube.Plural(len(m.items), "object"))
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Confirm, k.Take, k.Force, views.HelpOf("cancel", k.Cancel, k.Back), views.ScrollHelp(k.Up, k.Down, k.PageUp, k.PageDown)}
}

// Capturing reports whether text is typed (the replicas, a name to
// confirm): the root's global keys then stay off.
func (m *Model) Capturing() bool { return m.input.Focused() || m.confirm.Typing() }

// CapturesBack is true: esc cancels through the screen, which says so.
func (m *Model) CapturesBack() bool { return true }
