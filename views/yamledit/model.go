// Package yamledit is the screen that edits one object of any kind as
// YAML, as `kubectl edit` does but safer: the object read fresh
// (kube.Client.OpenYAMLEdit), the terminal handed to the person's editor
// ($KUBE_EDITOR, $EDITOR) on a temporary file only they may read, or
// kyyard's own text area when none is set; the edit planned as a server
// dry run whose diff and guard verdicts are shown before anything is
// written; an invalid edit reopened with the server's error on top and
// the person's text kept; a conflict reopened on the fresh object with the
// person's changes re-applied, the colliding fields named.
package yamledit

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Editor is what the screen reads and writes through; *kube.Client is one.
type Editor interface {
	// OpenYAMLEdit reads the object for editing (kube.Client.OpenYAMLEdit).
	OpenYAMLEdit(ctx context.Context, kind kube.Kind, namespace, name string) (*kube.YAMLEdit, error)
	// PlanYAMLEdit plans the edited text (kube.Client.PlanYAMLEdit).
	PlanYAMLEdit(ctx context.Context, e *kube.YAMLEdit, text string) (*kube.YAMLEditPlan, error)
	// ApplyYAMLEdit sends the plan (kube.Client.ApplyYAMLEdit).
	ApplyYAMLEdit(ctx context.Context, p *kube.YAMLEditPlan, confirmed []kube.Reason) (kube.OperateOutcome, error)
}

// requestTimeout bounds each read, plan and apply.
const requestTimeout = 30 * time.Second

// phase is where the edit stands.
type phase int

const (
	phaseOpening  phase = iota // the object is being read
	phaseEditing               // the editor runs, or the text area is shown
	phasePlanning              // the dry run is under way
	phasePreview               // the diff and verdicts wait for y
	phaseApplying              // the patch is under way
	phaseHeld                  // a failure the person must act on: e edits again, esc discards
)

// Model is the YAML edit screen. Make it with New.
type Model struct {
	vc   *views.Context
	ed   Editor
	hand Handoff
	req  views.OpenYAMLEditMsg

	phase   phase
	edit    *kube.YAMLEdit
	text    string   // the person's text (no header)
	problem []string // what the next editing starts with: the error, the conflict
	retried bool     // the editor was reopened on a problem
	sent    string   // the text the editor was reopened with
	path    string   // the file being edited

	plan      *kube.YAMLEditPlan
	confirm   *views.Confirm
	showPatch bool
	discard   bool // esc pressed once: the next esc discards
	offset    int

	area *Area
	keys Keys
}

// New returns the screen that edits the object req names through ed,
// handing the terminal to hand (nil: the text area).
func New(vc *views.Context, ed Editor, hand Handoff, req views.OpenYAMLEditMsg) *Model {
	k := views.BoundKeys(vc, KeyTable, DefaultKeys)
	return &Model{vc: vc, ed: ed, hand: hand, req: req, area: NewArea(k.Preview, k.Discard), keys: k}
}

// openedMsg, plannedMsg and appliedMsg are the answers of the requests.
type openedMsg struct {
	edit *kube.YAMLEdit
	err  error
}

type plannedMsg struct {
	plan *kube.YAMLEditPlan
	err  error
}

type appliedMsg struct {
	owner *Model
	out   kube.OperateOutcome
	err   error
}

// Init reads the object the first time; later (the screen on top again)
// it does nothing.
func (m *Model) Init() tea.Cmd {
	if m.phase != phaseOpening || m.edit != nil {
		return nil
	}
	ed, r := m.ed, m.req
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		e, err := ed.OpenYAMLEdit(ctx, r.Kind, r.Namespace, r.Name)
		return openedMsg{edit: e, err: err}
	}
}

// ref is the object for the history: the edit's once read.
func (m *Model) ref() kube.ObjectRef {
	if m.edit != nil {
		return m.edit.Ref
	}
	return kube.ObjectRef{Kind: m.req.Kind, Namespace: m.req.Namespace, Name: m.req.Name}
}

// Update handles the answers, the editor's end and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case openedMsg:
		return m, m.opened(msg)
	case EditedMsg:
		return m, m.edited(msg)
	case plannedMsg:
		return m, m.planned(msg)
	case appliedMsg:
		if msg.owner == m {
			return m, m.applied(msg)
		}
	case tea.WindowSizeMsg:
		m.size()
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// opened takes the object read, and starts editing it.
func (m *Model) opened(msg openedMsg) tea.Cmd {
	if msg.err != nil {
		back := func() tea.Msg { return views.BackMsg{} }
		status := views.StatusMsg{Error: true, Text: fmt.Sprintf("cannot edit %s: %s", m.ref(), views.ErrText(msg.err))}
		switch kube.ReasonOf(msg.err) {
		case kube.ReasonReadOnly, kube.ReasonForbidden:
			return tea.Batch(views.Report(status, views.RefusedOutcome(m.ref(), kube.ActionEditYAML, msg.err, "the editor was not opened")), back)
		}
		return tea.Batch(func() tea.Msg { return status }, back)
	}
	m.edit, m.text = msg.edit, msg.edit.Text
	return m.startEdit()
}

// startEdit hands the text (the problem on top) to the editor, or shows
// it in the text area.
func (m *Model) startEdit() tea.Cmd {
	m.phase, m.plan, m.confirm, m.discard, m.offset, m.showPatch = phaseEditing, nil, nil, false, 0, false
	m.retried, m.sent = len(m.problem) > 0, m.text
	if m.hand == nil {
		focus, err := m.area.Open(m.text, m.edit.Text, m.vc.Width, m.areaHeight())
		if err != nil {
			m.hold(fmt.Sprintf("%s: %s", m.edit.Ref, err))
			return nil
		}
		return focus
	}
	path, err := writeFile(string(m.edit.Ref.Kind), m.edit.Ref.Name, fileText(shiftLines(m.header()), m.text))
	if err != nil {
		m.hold(err.Error())
		return nil
	}
	m.path = path
	return m.hand(path)
}

// edited reads the file back once the editor ended.
func (m *Model) edited(msg EditedMsg) tea.Cmd {
	if m.path == "" {
		return nil
	}
	text, ok, err := ReadBack(m.path, msg)
	if m.path = ""; ok {
		m.text = text
	}
	if err != nil {
		m.hold(err.Error())
		return nil
	}
	return m.planText()
}

// planText plans the person's text, unless they left it as it was
// after a problem (saving it again would only meet the problem again).
func (m *Model) planText() tea.Cmd {
	if m.retried && m.text == m.sent {
		problem := m.problem
		m.hold("the text was not changed after the problem above: nothing sent")
		m.problem = append(problem, m.problem...)
		return nil
	}
	m.phase, m.problem = phasePlanning, nil
	ed, e, text := m.ed, m.edit, m.text
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		p, err := ed.PlanYAMLEdit(ctx, e, text)
		return plannedMsg{plan: p, err: err}
	}
}

// planned shows the dry run's diff, or reopens the editor on the problem.
func (m *Model) planned(msg plannedMsg) tea.Cmd {
	err := msg.err
	var conflict *kube.EditConflict
	switch {
	case err == nil:
		m.phase, m.plan = phasePreview, msg.plan
		m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, views.WarningAsks(msg.plan.Verdicts, 0))
		return nil
	case errors.Is(err, kube.ErrNoChange), errors.Is(err, kube.ErrEditEmpty):
		text := fmt.Sprintf("edit of %s cancelled: no changes made", m.ref())
		if errors.Is(err, kube.ErrEditEmpty) {
			text = fmt.Sprintf("edit of %s cancelled: the text was emptied", m.ref())
		}
		m.edit = nil // nothing unsaved
		return tea.Batch(views.Status(text, false), func() tea.Msg { return views.BackMsg{} })
	case errors.As(err, &conflict):
		return tea.Batch(m.reopenOn(conflict), m.refused(err))
	case msg.plan != nil:
		// A guard refused: the preview shows every verdict, and nothing can go.
		m.phase, m.plan = phasePreview, msg.plan
		return views.Report(views.StatusMsg{}, views.RefusedOutcome(m.ref(), kube.ActionEditYAML, err, "nothing sent"))
	}
	return tea.Batch(m.problemOf(err), m.refused(err))
}

// refused records a plan's refusal in the history (nothing was sent but
// dry runs): its reason and the server's or the guard's text.
func (m *Model) refused(err error) tea.Cmd {
	return views.Report(views.StatusMsg{}, views.RefusedOutcome(m.ref(), kube.ActionEditYAML, err, "nothing written"))
}

// problemOf reopens the editor with err on top when the text can be
// corrected (invalid, denied by admission); otherwise it holds the text
// with err shown.
func (m *Model) problemOf(err error) tea.Cmd {
	switch kube.ReasonOf(err) {
	case kube.ReasonInvalid, kube.ReasonAdmissionDenied, kube.ReasonError:
		m.problem = []string{"ERROR: " + views.ErrText(err), "Correct the text below and save, or quit the editor without a change to stop."}
		if m.hand == nil {
			m.problem[1] = "Correct the text below and " + views.FirstKey(m.keys.Preview) + ", or " + views.FirstKey(m.keys.Discard) + " twice to discard it."
		}
		return m.startEdit()
	}
	m.hold(views.ErrText(err) + ": nothing sent")
	return nil
}

// reopenOn reopens the editor on the object read again after a conflict.
func (m *Model) reopenOn(c *kube.EditConflict) tea.Cmd {
	m.edit, m.text = c.Fresh, c.Fresh.Text
	m.problem = []string{"CONFLICT: " + views.Sanitize(c.Error())}
	for _, col := range c.Fresh.Collisions {
		m.problem = append(m.problem, fmt.Sprintf("  %s: yours %s, the other writer's %s (theirs is below: set it again to keep yours)",
			col.Field, views.Sanitize(col.Mine), views.Sanitize(col.Theirs)))
	}
	m.problem = append(m.problem, "Nothing was written. Check the text below and save to preview it again.")
	cmd := m.startEdit()
	m.retried = false // the text is new: saving it as it is previews it
	return cmd
}

// hold shows why nothing can go on: e edits again, esc discards.
func (m *Model) hold(why string) {
	m.phase, m.problem, m.plan = phaseHeld, []string{why}, nil
}

// apply sends the plan once its warnings are confirmed.
func (m *Model) apply() tea.Cmd {
	if m.plan == nil || m.plan.Verdicts.Refusal() != nil {
		return nil
	}
	if m.confirm.Unconfirmed() > 0 {
		return m.confirm.Start("")
	}
	m.phase = phaseApplying
	ed, p, owner := m.ed, m.plan, m
	confirmed := views.ConfirmedReasons(p.Verdicts)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), requestTimeout)
		defer cancel()
		out, err := ed.ApplyYAMLEdit(ctx, p, confirmed)
		return views.Answer(owner, appliedMsg{owner: owner, out: out, err: err}, views.StatusMsg{}, out)
	}
}

// applied closes the screen after a write, or reopens on its problem.
func (m *Model) applied(msg appliedMsg) tea.Cmd {
	var conflict *kube.EditConflict
	switch {
	case msg.err == nil:
		m.edit = nil
		return tea.Batch(views.Status(views.Sanitize(msg.out.Detail), false), func() tea.Msg { return views.BackMsg{} })
	case errors.As(msg.err, &conflict):
		return m.reopenOn(conflict)
	}
	return m.problemOf(msg.err)
}

// areaHeight is the text area's rows: the screen below the header's lines
// (areaHeader), above the help line.
func (m *Model) areaHeight() int { return m.vc.Height - len(m.areaHeader()) - 1 }

// size fits the text area to the screen.
func (m *Model) size() { m.area.Resize(m.vc.Width, m.areaHeight()) }

// Title names the object edited.
func (m *Model) Title() string {
	r := m.ref()
	t := fmt.Sprintf("edit %s/%s", r.Kind, r.Name)
	if r.Namespace != "" {
		t += "(" + r.Namespace + ")"
	}
	return views.Sanitize(t)
}

// Capturing is true while the text area or a confirmation takes the keys.
func (m *Model) Capturing() bool {
	return (m.phase == phaseEditing && m.hand == nil) || m.confirm.Typing()
}

// CapturesBack is true while esc has something to say (views.BackCapturer):
// an unapplied edit, which esc discards only when pressed twice, or a
// request under way.
func (m *Model) CapturesBack() bool {
	return m.phase == phasePlanning || m.phase == phaseApplying || m.Unsaved() != ""
}

// Unsaved says that an edit is not applied yet (the root asks before
// quitting).
func (m *Model) Unsaved() string {
	if m.edit == nil || m.phase == phaseApplying {
		return ""
	}
	text := m.text
	if m.phase == phaseEditing && m.hand == nil {
		text = m.area.Value()
	}
	if text == m.edit.Text && len(m.edit.Collisions) == 0 {
		return ""
	}
	return "an unapplied YAML edit of " + m.edit.Ref.String()
}

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Apply, k.Edit, k.Patch, k.ScrollHelp(), k.Discard, k.Preview}
}

// key handles a key in the current phase: in the text area, its own
// (Area.Key); a text a warning asks takes every key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.phase == phaseEditing && m.hand == nil {
		ev, cmd := m.area.Key(msg)
		switch ev {
		case AreaPreview:
			m.text = m.area.Value()
			return m.planText()
		case AreaDiscard:
			m.edit = nil
			return func() tea.Msg { return views.BackMsg{} }
		}
		return cmd
	}
	if m.confirm.Typing() {
		return m.confirm.Key(msg, m.apply)
	}
	switch {
	case key.Matches(msg, k.Discard):
		if m.phase == phaseOpening || m.phase == phasePlanning || m.phase == phaseApplying {
			return nil // an answer is on its way; it decides
		}
		if m.Unsaved() != "" && !m.discard {
			m.discard = true
			return views.Status(views.Hints(views.Hint("again discards your text", k.Discard), views.Hint("edits it again", k.Edit)), false)
		}
		m.edit = nil
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Edit):
		if m.phase == phasePreview || m.phase == phaseHeld {
			m.problem = nil
			return m.startEdit()
		}
	case key.Matches(msg, k.Apply):
		if m.phase == phasePreview {
			return m.apply()
		}
	case key.Matches(msg, k.Patch):
		if m.phase == phasePreview {
			m.showPatch = !m.showPatch
		}
	default:
		k.Scroll(msg, &m.offset, m.vc.Height)
	}
	m.discard = false
	return nil
}
