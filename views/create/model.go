// Package create is the screen of `:create`: a new object made from a
// template of its kind (kube.Client.CreateTemplate) or from a file, edited
// in the person's editor ($KUBE_EDITOR, $EDITOR; kyyard's text area when
// none is set) as the YAML edit hands it over, and applied with
// server-side apply as field manager kyyard (kube.Client.PlanApply,
// ApplyManifests): a server dry run of every object first, its guards'
// verdicts and its diff against the live object shown, the fields other
// field managers own named with their managers and taken over only when
// the person types "force". An invalid text is reopened with the server's
// error on top, the text kept.
package create

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/yamledit"
)

// Creator is what the screen reads and writes through; *kube.Client is one.
type Creator interface {
	// CreateTemplate returns a kind's starting YAML (kube.Client.CreateTemplate).
	CreateTemplate(ctx context.Context, kind kube.Kind, namespace string) (string, error)
	// PlanApply plans a server-side apply of text (kube.Client.PlanApply).
	PlanApply(ctx context.Context, source string, data []byte) (*kube.ApplyPlan, error)
	// ApplyManifests sends a plan (kube.Client.ApplyManifests).
	ApplyManifests(ctx context.Context, p *kube.ApplyPlan, force bool) []kube.OperateOutcome
}

// Request is what `:create` asks for: a kind's template in a namespace,
// or the text of a file.
type Request struct {
	// Kind is the kind whose template starts the text (a plugin id, alias
	// or any served resource); ignored when Text is set.
	Kind kube.Kind
	// Namespace is where a namespaced kind's template goes ("": the
	// client's namespace).
	Namespace string
	// Text, when not "", is the starting text (a file's content), and
	// Source names it ("web.yaml").
	Text, Source string
}

// requestTimeout bounds each read, plan and apply.
const requestTimeout = 30 * time.Second

// forceWord is what the person types to take over other managers' fields.
const forceWord = "force"

// phase is where the creation stands.
type phase int

const (
	phaseOpening  phase = iota // the template is being read
	phaseEditing               // the editor runs, or the text area is shown
	phasePlanning              // the dry run is under way
	phasePreview               // the plan waits for y (or f)
	phaseApplying              // the apply is under way
	phaseHeld                  // a failure the person must act on: e edits again
	phaseDone                  // the outcomes are shown
)

// Model is the :create screen. Make it with New.
type Model struct {
	vc   *views.Context
	cr   Creator
	hand yamledit.Handoff
	req  Request

	phase    phase
	text     string   // the person's text
	start    string   // the text as first opened: unchanged means nothing to create
	problem  []string // what the next editing starts with
	path     string   // the file being edited
	plan     *kube.ApplyPlan
	confirm  *views.Confirm
	force    bool // the confirmation asks "force" too
	outcomes []kube.OperateOutcome
	discard  bool
	started  bool // Init ran
	offset   int
	area     *yamledit.Area
	keys     Keys
}

// New returns the screen that creates what req asks through cr, handing
// the terminal to hand (nil: the text area).
func New(vc *views.Context, cr Creator, hand yamledit.Handoff, req Request) *Model {
	k := views.BoundKeys(vc, KeyTable, DefaultKeys)
	m := &Model{vc: vc, cr: cr, hand: hand, req: req, area: yamledit.NewArea(k.Preview, k.Discard), keys: k}
	m.text, m.start = req.Text, req.Text
	return m
}

type openedMsg struct {
	text string
	err  error
}

type plannedMsg struct {
	plan *kube.ApplyPlan
	err  error
}

type appliedMsg struct {
	owner *Model
	outs  []kube.OperateOutcome
}

// Init reads the kind's template, or opens the file's text in the editor,
// the first time; later (the screen on top again) it does nothing.
func (m *Model) Init() tea.Cmd {
	if m.started {
		return nil
	}
	m.started = true
	if m.req.Text != "" {
		return m.startEdit()
	}
	cr, r := m.cr, m.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		text, err := cr.CreateTemplate(ctx, r.Kind, r.Namespace)
		return openedMsg{text: text, err: err}
	}
}

// ref names what is created for the history, before a plan names each
// object.
func (m *Model) ref() kube.ObjectRef {
	return kube.ObjectRef{Kind: m.req.Kind, Namespace: m.req.Namespace, Name: "(new)"}
}

// source names the text in the plan's messages.
func (m *Model) source() string {
	if m.req.Source != "" {
		return m.req.Source
	}
	return "the " + string(m.req.Kind) + " template"
}

// Update handles the answers, the editor's end and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case openedMsg:
		if msg.err != nil {
			status := views.StatusMsg{Error: true, Text: fmt.Sprintf("cannot create %s: %s", m.req.Kind, views.ErrText(msg.err))}
			back := func() tea.Msg { return views.BackMsg{} }
			switch kube.ReasonOf(msg.err) {
			case kube.ReasonReadOnly, kube.ReasonForbidden:
				return m, tea.Batch(views.Report(status, views.RefusedOutcome(m.ref(), kube.ActionServerSideApply, msg.err, "the editor was not opened")), back)
			}
			return m, tea.Batch(func() tea.Msg { return status }, back)
		}
		m.text, m.start = msg.text, msg.text
		return m, m.startEdit()
	case yamledit.EditedMsg:
		return m, m.edited(msg)
	case plannedMsg:
		return m, m.planned(msg)
	case appliedMsg:
		if msg.owner == m {
			return m, m.applied(msg.outs)
		}
	case tea.WindowSizeMsg:
		m.size()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// startEdit hands the text (the problem on top) to the editor, or shows it
// in the text area.
func (m *Model) startEdit() tea.Cmd {
	m.phase, m.plan, m.confirm, m.force, m.discard, m.offset = phaseEditing, nil, nil, false, false, 0
	if m.hand == nil {
		focus, err := m.area.Open(m.text, m.start, m.vc.Width, m.areaHeight())
		if err != nil {
			m.hold(m.source() + ": " + err.Error())
			return nil
		}
		return focus
	}
	path, err := yamledit.WriteEditFile("create", string(m.req.Kind), m.header(), m.text)
	if err != nil {
		m.hold(err.Error())
		return nil
	}
	m.path = path
	return m.hand(path)
}

// edited reads the file back once the editor ended.
func (m *Model) edited(msg yamledit.EditedMsg) tea.Cmd {
	if m.path == "" {
		return nil
	}
	text, ok, err := yamledit.ReadBack(m.path, msg)
	if m.path = ""; ok {
		m.text = text
	}
	if err != nil {
		m.hold(err.Error())
		return nil
	}
	return m.planText()
}

// planText plans the text: an unchanged template or an empty text cancels.
func (m *Model) planText() tea.Cmd {
	if m.req.Text == "" && m.text == m.start && len(m.problem) == 0 {
		return tea.Batch(views.Status(fmt.Sprintf("create cancelled: the %s template was not changed", m.req.Kind), false), func() tea.Msg { return views.BackMsg{} })
	}
	m.phase, m.problem = phasePlanning, nil
	cr, source, text := m.cr, m.source(), m.text
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		p, err := cr.PlanApply(ctx, source, []byte(text))
		return plannedMsg{plan: p, err: err}
	}
}

// planned shows the plan, or reopens the editor on a text that cannot be
// applied as written (malformed, invalid, denied by admission).
func (m *Model) planned(msg plannedMsg) tea.Cmd {
	if msg.err != nil {
		if errors.Is(msg.err, kube.ErrInvalid) {
			return m.reopen(msg.err)
		}
		m.hold(views.ErrText(msg.err) + ": nothing sent")
		return views.Report(views.StatusMsg{}, views.RefusedOutcome(m.ref(), kube.ActionServerSideApply, msg.err, "nothing written"))
	}
	for _, s := range msg.plan.Steps {
		switch kube.ReasonOf(s.Err) {
		case kube.ReasonInvalid, kube.ReasonAdmissionDenied:
			return m.reopen(fmt.Errorf("%s (%s): %w", s.Ref, s.Source, s.Err))
		}
	}
	m.phase, m.plan, m.force = phasePreview, msg.plan, msg.plan.Conflicted()
	var asks []views.ConfirmAsk
	for i, s := range msg.plan.Steps {
		asks = append(asks, views.WarningAsks(s.Verdicts, i)...)
	}
	if m.force {
		asks = append(asks, views.ConfirmAsk{Want: forceWord})
	}
	m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, asks)
	return nil
}

// reopen opens the editor again with err on top and the text kept.
func (m *Model) reopen(err error) tea.Cmd {
	m.problem = []string{"ERROR: " + views.ErrText(err), "Correct the text below and save, or quit the editor without a change to stop."}
	if m.hand == nil {
		m.problem[1] = "Correct the text below and " + views.FirstKey(m.keys.Preview) + ", or " + views.FirstKey(m.keys.Discard) + " twice to discard it."
	}
	return tea.Batch(m.startEdit(), views.Report(views.StatusMsg{}, views.RefusedOutcome(m.ref(), kube.ActionServerSideApply, err, "nothing written")))
}

// hold shows why nothing can go on: e edits again, esc discards.
func (m *Model) hold(why string) { m.phase, m.problem, m.plan = phaseHeld, []string{why}, nil }

// blocked says why the plan cannot be sent ("" when it can): a step
// refused or failing its dry run.
func (m *Model) blocked() string {
	for _, s := range m.plan.Steps {
		if s.Err != nil {
			return fmt.Sprintf("%s cannot be applied: nothing is sent (e edits the text)", s.Ref)
		}
	}
	return ""
}

// apply sends the plan once its warnings (and "force") are confirmed.
func (m *Model) apply() tea.Cmd {
	if m.plan == nil || m.blocked() != "" {
		return nil
	}
	if m.confirm.Unconfirmed() > 0 {
		return m.confirm.Start("")
	}
	m.phase = phaseApplying
	cr, p, force, owner := m.cr, m.plan, m.force, m
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		outs := cr.ApplyManifests(ctx, p, force)
		return views.Answer(owner, appliedMsg{owner: owner, outs: outs}, views.StatusMsg{}, outs...)
	}
}

// applied shows the outcomes (each is in :history already).
func (m *Model) applied(outs []kube.OperateOutcome) tea.Cmd {
	m.phase, m.outcomes, m.offset = phaseDone, outs, 0
	failed := 0
	for _, o := range outs {
		if !o.OK() {
			failed++
		}
	}
	if failed == 0 {
		return views.Status(fmt.Sprintf("applied %s by server-side apply", kube.Plural(len(outs), "object")), false)
	}
	return views.Status(fmt.Sprintf("%d of %d object(s) not applied: see the screen", failed, len(outs)), true)
}

// areaHeight is the text area's rows: below its header lines, above the
// help line.
func (m *Model) areaHeight() int { return m.vc.Height - len(m.areaHeader()) - 1 }

// size fits the text area to the screen.
func (m *Model) size() { m.area.Resize(m.vc.Width, m.areaHeight()) }
