// Package deploy is the deploy form (`n` and `e` on :apps): an app's
// instance, namespace and services, each an image with ports, env, a
// config file, secret values, replicas, resources and volumes, validated
// as it is typed (render.Validate); ctrl+s shows the preview (the rendered
// objects as YAML, the diff against what is deployed, the server's dry run
// and the guards' verdicts, from PlanDeploy); enter deploys with a live
// step list and ends in the rollout view. esc goes back a stage without
// losing the form. The package also holds the remove confirmation
// (NewRemove), which shares the step list.
package deploy

import (
	"fmt"
	"reflect"
	"sort"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// mode is the page shown.
type mode int

const (
	modeLoading mode = iota // the instance record is read (`e`)
	modeForm
	modePreview
	modeRun
)

// Model is the deploy screen. Use New.
type Model struct {
	vc   *views.Context
	d    Deployer
	keys Keys
	// namespace and instance are what the screen was opened for
	// (instance "" for a new app).
	namespace, instance string
	timeout             time.Duration
	now                 func() time.Time

	mode    mode
	token   int
	loadErr error

	f       *form
	initial render.Request // what the form held when it opened
	focus   int
	offset  int
	req     render.Request
	errs    []render.FieldError
	note    string
	noteErr bool
	// discard is set after a first esc on a changed form: "discard
	// your edits? y/n" waits for its answer.
	discard bool
	// dropAsk is the service (1-based) whose removal from the form waits
	// for y/n; 0 when none.
	dropAsk int

	pv  *preview
	run *run
}

// Option changes a new screen.
type Option func(*Model)

// WithTimeout sets each rollout's deadline (kube.DeployOptions.Timeout;
// 0 leaves kube.DefaultDeployTimeout).
func WithTimeout(d time.Duration) Option { return func(m *Model) { m.timeout = d } }

// WithClock times the running steps with now (tests).
func WithClock(now func() time.Time) Option { return func(m *Model) { m.now = now } }

// deadline is a rollout's deadline shown on its running step.
func (m *Model) deadline() time.Duration {
	if m.timeout > 0 {
		return m.timeout
	}
	return kube.DefaultDeployTimeout
}

// New returns the deploy form of a new app in namespace, or, when
// instance is set, of that instance filled from its record (read at
// Init). Nothing is read or written before Init.
func New(vc *views.Context, d Deployer, namespace, instance string, opts ...Option) *Model {
	m := &Model{vc: vc, d: d, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), namespace: namespace, instance: instance, now: time.Now}
	for _, o := range opts {
		o(m)
	}
	if instance == "" {
		m.open(render.Request{Namespace: namespace}, false)
	}
	return m
}

// open shows the form filled from req.
func (m *Model) open(req render.Request, fixed bool) {
	m.f = newForm(m.vc.Styles, req, fixed)
	m.initial, _ = m.f.request()
	m.mode, m.focus, m.offset = modeForm, 0, 0
	m.validate()
	m.focusCmd()
}

// Init reads the instance record for an edit; else it focuses the form.
func (m *Model) Init() tea.Cmd {
	if m.mode == modeLoading {
		return recordCmd(m, m.d, m.namespace, m.instance)
	}
	if m.mode == modeForm {
		return m.focusCmd()
	}
	return nil
}

// Close stops a deploy still running (the screen left the stack).
func (m *Model) Close() { m.run.stop() }

// Update takes the record, the plan, the steps and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case recordMsg:
		if msg.owner == m && m.mode == modeLoading {
			if msg.err != nil {
				m.loadErr = msg.err
				return m, nil
			}
			req := msg.rec.Request
			if req.Namespace == "" {
				req.Namespace = m.namespace
			}
			m.open(req, true)
			return m, m.focusCmd()
		}
	case planMsg:
		if msg.owner == m && msg.token == m.token && m.pv != nil {
			m.pv.takePlan(m.vc.Styles, msg)
			if o, refused := planRefusal(instanceRef(m.req.Namespace, m.req.Instance), m.pv); refused {
				return m, views.Report(views.StatusMsg{}, o)
			}
		}
		return m, nil
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	if m.run != nil {
		if ours, cmd := m.run.update(msg); ours {
			if _, done := msg.(runDoneMsg); done {
				return m, m.finish()
			}
			return m, cmd
		}
	}
	return m, nil
}

// key dispatches a key by page.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeLoading:
		if key.Matches(msg, m.keys.Back) {
			return back
		}
	case modeForm:
		return m.formKey(msg)
	case modePreview:
		return m.previewKey(msg)
	case modeRun:
		return m.runKey(msg)
	}
	return nil
}

func back() tea.Msg { return views.BackMsg{} }

// validate parses the form and validates the request: the parse errors
// and render.Validate's, on their fields.
func (m *Model) validate() {
	req, errs := m.f.request()
	m.req = req
	m.errs = append(errs, render.Validate(req)...)
	// In the form's order: the first error is the topmost field's.
	fields := m.f.fields()
	at := func(e render.FieldError) int {
		if i := owner(fields, e.Path); i >= 0 {
			return i
		}
		return -1
	}
	sort.SliceStable(m.errs, func(i, j int) bool { return at(m.errs[i]) < at(m.errs[j]) })
}

// firstError is the first error's text for the status line, "" when the
// form is valid.
func (m *Model) firstError() string {
	if len(m.errs) == 0 {
		return ""
	}
	e := m.errs[0]
	fields := m.f.fields()
	where := e.Path
	if i := owner(fields, e.Path); i >= 0 {
		where = m.fieldName(fields[i])
	}
	return views.Sanitize(fmt.Sprintf("%s: %s", where, e.Reason))
}

// fieldName is "web: image", "instance".
func (m *Model) fieldName(fd field) string {
	if fd.svc < 0 {
		return fd.label
	}
	name := m.f.svcs[fd.svc].name.Value()
	if name == "" {
		name = fmt.Sprintf("service %d", fd.svc+1)
	}
	return name + ": " + fd.label
}

// changed reports whether the form holds something else than it opened
// with.
func (m *Model) changed() bool {
	return m.f != nil && !reflect.DeepEqual(m.req, m.initial)
}

// Unsaved describes the form's work not deployed ("the deploy form of
// shop"), "" when nothing changed or once deployed.
func (m *Model) Unsaved() string {
	if !m.changed() || m.mode == modeRun && m.run != nil && m.run.done && !m.run.failed() {
		return ""
	}
	return "the deploy form of " + m.name()
}

// name is the instance as typed, or "a new app".
func (m *Model) name() string {
	if m.req.Instance == "" {
		return "a new app"
	}
	return views.Sanitize(m.req.Instance)
}

// Title is "deploy shop (demo) · new|edit|preview|deploying|deployed".
func (m *Model) Title() string {
	page := "new"
	if m.instance != "" {
		page = "edit"
	}
	switch m.mode {
	case modePreview:
		page = "preview"
	case modeRun:
		page = "deploying"
		if m.run != nil && m.run.done {
			page = "deployed"
			if m.run.failed() {
				page = "failed"
			}
		}
	}
	inst, ns := m.req.Instance, m.req.Namespace
	if m.f == nil {
		inst, ns = m.instance, m.namespace
	}
	if inst == "" {
		inst = "(new app)"
	}
	return views.Sanitize(fmt.Sprintf("deploy %s (%s) · %s", inst, ns, page))
}

// Bindings are the keys of the page shown, for the help overlay: the
// form's (ctrl+n adds there, where the root's ctrl+n never arrives: the
// form captures keys) are not listed on the preview or the steps, where
// ctrl+n is the root's namespace picker.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	switch m.mode {
	case modeForm:
		return []key.Binding{k.Next, k.Previous, k.Down, k.Up, k.PageDown, k.PageUp, k.Add, k.Delete, k.Preview, k.Back, k.Discard, k.Keep, k.DropService}
	case modePreview:
		return []key.Binding{k.Deploy, k.PageDown, k.PageUp, k.Tab, k.Search, k.NextMatch, k.Passes, k.Back}
	case modeRun:
		return []key.Binding{k.Edit, k.Back}
	}
	return []key.Binding{k.Back}
}

// Hint is the root's bottom line while the form is shown (it captures
// ?, : and q, which the root's usual hint offers): "" elsewhere.
func (m *Model) Hint() string {
	if m.mode == modeForm {
		return views.Hints(views.Hint("preview", m.keys.Preview), views.Hint("back", m.keys.Back), "ctrl+c quit")
	}
	return ""
}

// Capturing is true on the form and while a confirmation or a search is
// typed: the root leaves q, : and ? to the field.
func (m *Model) Capturing() bool {
	switch m.mode {
	case modeForm:
		return true
	case modePreview:
		return m.pv != nil && (m.pv.typing() || m.pv.searching)
	}
	return false
}

// CapturesBack is true: esc goes back a stage, the form kept.
func (m *Model) CapturesBack() bool { return true }

// finish ends a run: the status line, and on success the rollout view of
// the first service's Deployment.
func (m *Model) finish() tea.Cmd {
	r := m.run
	m.note = "" // "the deploy is running: wait for its end" is over
	status := report(deployOutcome(m.req.Namespace, m.req.Instance, m.name(), r))
	if r.failed() || len(m.req.Services) == 0 {
		return status
	}
	first := m.req.Services[0].Name
	name := render.WorkloadName(m.req.Instance, first)
	for _, s := range r.steps {
		if s.Service == first && s.Kind == "Deployment" && s.Name != "" {
			name = s.Name
			break
		}
	}
	open := views.OpenRolloutMsg{Ref: kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: m.req.Namespace, Name: name},
		What: fmt.Sprintf("deployed %s: service %s", m.name(), views.Sanitize(first))}
	return tea.Batch(status, func() tea.Msg { return open })
}

// runKey handles keys on the step list: e (or esc once it ended) returns
// to the form; esc while it runs says it goes on.
func (m *Model) runKey(msg tea.KeyMsg) tea.Cmd {
	r := m.run
	switch {
	case key.Matches(msg, m.keys.Back) && !r.done:
		m.note, m.noteErr = "the deploy is running: wait for its end (its steps are shown as they change)", false
	case key.Matches(msg, m.keys.Back, m.keys.Edit) && r.done && (r.failed() || key.Matches(msg, m.keys.Edit)):
		// Back to the form, kept as it was, to fix and preview again.
		m.mode, m.run, m.pv, m.note = modeForm, nil, nil, ""
		if !r.failed() {
			// The form now holds what is deployed.
			m.initial, m.instance = m.req, m.req.Instance
			m.f.fixed = true
			m.focus = 0
		}
		return m.focusCmd()
	case key.Matches(msg, m.keys.Back):
		return back
	case key.Matches(msg, m.keys.Down, m.keys.PageDown):
		m.offset++
	case key.Matches(msg, m.keys.Up, m.keys.PageUp):
		m.offset = max(m.offset-1, 0)
	}
	return nil
}
