// Package filecopy is the file copy screen (`T` on a pod or a container
// row): a file or folder copied from the container to this machine or
// the other way, as `kubectl cp` copies it (kube.Client.CopyFile), with
// the exec's guards shown first, warnings confirmed, progress as it goes,
// esc to cancel, and the outcome in :history.
package filecopy

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Copier is what the screen plans and copies through; *kube.Client is one.
type Copier interface {
	// PlanExec runs an exec's guards (kube.Client.PlanExec): a copy's.
	PlanExec(ctx context.Context, req kube.ExecRequest) (kube.ExecPlan, error)
	// CopyFile copies (kube.Client.CopyFile).
	CopyFile(ctx context.Context, req kube.CopyRequest, progress func(kube.CopyProgress)) (kube.CopyResult, error)
}

// Field is one of the screen's fields, in tab order.
type field int

const (
	fieldDirection field = iota
	fieldContainer
	fieldRemote
	fieldLocal
	fieldCount
)

// phase is where the copy stands.
type phase int

const (
	phasePlanning phase = iota // the guards run
	phaseForm                  // the fields wait for enter
	phaseCopying               // the copy runs
	phaseDone                  // the outcome is shown
)

// Model is the screen. Use New.
type Model struct {
	vc        *views.Context
	cp        Copier
	target    views.OpenCopyMsg
	phase     phase
	plan      kube.ExecPlan
	planErr   error
	dir       kube.CopyDirection
	container string
	choices   []string // the pod's containers when it has several
	focus     field
	remote    textinput.Model
	local     textinput.Model
	confirm   *views.Confirm
	note      string
	progress  kube.CopyProgress
	cancel    context.CancelFunc
	result    string
	failed    bool
	offset    int
	keys      Keys
}

// New returns the copy screen of msg's pod (and container) through cp.
func New(vc *views.Context, cp Copier, msg views.OpenCopyMsg) *Model {
	input := func(v string) textinput.Model {
		in := textinput.New()
		in.Prompt = ""
		in.CharLimit = 4096
		in.Cursor.SetMode(cursor.CursorStatic)
		in.PromptStyle, in.TextStyle = vc.Styles.Prompt, vc.Styles.Prompt
		in.SetValue(v)
		return in
	}
	return &Model{vc: vc, cp: cp, target: msg, dir: kube.CopyFromContainer, container: msg.Container,
		remote: input(""), local: input("."), focus: fieldRemote, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

type plannedMsg struct {
	owner *Model
	plan  kube.ExecPlan
	err   error
}

type progressMsg struct {
	owner *Model
	p     kube.CopyProgress
	next  <-chan tea.Msg
}

type copiedMsg struct {
	owner *Model
	res   kube.CopyResult
	err   error
}

// ref is the pod copied to or from.
func (m *Model) ref() kube.ObjectRef {
	return kube.ObjectRef{Kind: kube.KindPods, Namespace: m.target.Namespace, Name: m.target.Pod, UID: m.target.UID}
}

// Init runs the guards once (a pod with several containers and none
// chosen lists them for the container field).
func (m *Model) Init() tea.Cmd {
	if m.phase != phasePlanning {
		return nil
	}
	return m.planCmd()
}

func (m *Model) planCmd() tea.Cmd {
	cp, owner := m.cp, m
	req := kube.ExecRequest{Namespace: m.target.Namespace, Pod: m.target.Pod, UID: m.target.UID, Container: m.container}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), kube.DefaultExecSetup)
		defer cancel()
		plan, err := cp.PlanExec(ctx, req)
		return plannedMsg{owner: owner, plan: plan, err: err}
	}
}

// Update handles the answers and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.owner == m {
			return m, m.planned(msg)
		}
	case progressMsg:
		if msg.owner == m && m.phase == phaseCopying {
			m.progress = msg.p
			return m, waitNext(msg.next)
		}
	case copiedMsg:
		if msg.owner == m {
			m.copied(msg)
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// planned keeps the plan: a container choice lists the containers.
func (m *Model) planned(msg plannedMsg) tea.Cmd {
	var choice *kube.ContainerChoiceError
	switch {
	case errors.As(msg.err, &choice):
		m.choices = choice.Containers
		m.container = choice.DefaultContainer
		if m.container == "" && len(m.choices) > 0 {
			m.container = m.choices[0]
		}
		return m.planCmd()
	case msg.err != nil:
		m.phase, m.planErr = phaseForm, msg.err
		return nil
	}
	m.phase, m.plan, m.planErr = phaseForm, msg.plan, nil
	if m.container == "" {
		m.container = msg.plan.Container
	}
	m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, views.WarningAsks(msg.plan.Verdicts, 0))
	return m.focusCmd()
}

// focusCmd focuses the input of the focused field.
func (m *Model) focusCmd() tea.Cmd {
	m.remote.Blur()
	m.local.Blur()
	switch m.focus {
	case fieldRemote:
		return m.remote.Focus()
	case fieldLocal:
		return m.local.Focus()
	}
	return nil
}

// refusal is why nothing can be copied ("" when it can).
func (m *Model) refusal() string {
	if m.planErr != nil {
		return views.ErrText(m.planErr)
	}
	if r := m.plan.Verdicts.Refusal(); r != nil {
		return r.Error()
	}
	return ""
}

// request is the copy the fields ask for.
func (m *Model) request() (kube.CopyRequest, string) {
	remote, local := strings.TrimSpace(m.remote.Value()), strings.TrimSpace(m.local.Value())
	switch {
	case remote == "":
		return kube.CopyRequest{}, "name the container's path"
	case local == "":
		return kube.CopyRequest{}, "name the local path"
	}
	return kube.CopyRequest{Namespace: m.target.Namespace, Pod: m.target.Pod, UID: m.target.UID, Container: m.container,
		Direction: m.dir, Local: local, Remote: remote, Confirmed: views.ConfirmedReasons(m.plan.Verdicts)}, ""
}

// start begins the copy once the warnings are confirmed.
func (m *Model) start() tea.Cmd {
	if why := m.refusal(); why != "" {
		m.note = why
		return nil
	}
	req, why := m.request()
	if why != "" {
		m.note = why
		return nil
	}
	if m.confirm.Unconfirmed() > 0 {
		return m.confirm.Start("")
	}
	ctx, cancel := context.WithCancel(context.Background())
	m.phase, m.cancel, m.note, m.progress = phaseCopying, cancel, "", kube.CopyProgress{Total: -1}
	ch := make(chan tea.Msg, 1)
	cp, owner, ref := m.cp, m, m.ref()
	go func() {
		defer cancel()
		res, err := cp.CopyFile(ctx, req, func(p kube.CopyProgress) {
			select { // a report that finds the last one unread is dropped: the next one says more
			case ch <- progressMsg{owner: owner, p: p, next: ch}:
			default:
			}
		})
		out := outcome(ref, req, res, err)
		// The final message waits for room: it is never dropped.
		ch <- views.Answer(owner, copiedMsg{owner: owner, res: res, err: err}, views.StatusMsg{Text: out.Detail, Error: err != nil}, out)
		close(ch)
	}()
	return waitNext(ch)
}

// waitNext waits for the copy's next message.
func waitNext(ch <-chan tea.Msg) tea.Cmd {
	return func() tea.Msg {
		msg, ok := <-ch
		if !ok {
			return nil
		}
		return msg
	}
}

// outcome is the copy's line of :history.
func outcome(ref kube.ObjectRef, req kube.CopyRequest, res kube.CopyResult, err error) kube.OperateOutcome {
	o := kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: kube.ActionCopy}}
	if err != nil {
		if errors.Is(err, context.Canceled) {
			err = fmt.Errorf("cancelled: %w", err)
		}
		text := views.ErrText(err)
		if errors.Is(err, kube.ErrCopyNotFound) || errors.Is(err, kube.ErrCopyNoTar) || errors.Is(err, kube.ErrCopyFailed) {
			text = err.Error() // its own words (tar's): the reason's generic sentence would mislead
		}
		o.Reason, o.Detail = kube.ReasonOf(err), fmt.Sprintf("copy %s %s: %s", req.Direction, describe(req), text)
		if o.Reason == "" || o.Reason == kube.ReasonTimeout && errors.Is(err, context.Canceled) {
			o.Reason = kube.ReasonError
		}
		return o
	}
	dest := res.Dest
	if req.Direction == kube.CopyToContainer {
		dest = fmt.Sprintf("%s/%s:%s", ref.Namespace, ref.Name, res.Dest)
	}
	o.Detail = fmt.Sprintf("copied %s %s container %s: %s", res.Summary(), req.Direction, res.Container, dest)
	return o
}

// describe is a request as kubectl cp's arguments.
func describe(req kube.CopyRequest) string {
	pod := fmt.Sprintf("%s/%s:%s", req.Namespace, req.Pod, req.Remote)
	if req.Direction == kube.CopyToContainer {
		return req.Local + " -> " + pod
	}
	return pod + " -> " + req.Local
}

// copied shows the outcome (it is in :history already).
func (m *Model) copied(msg copiedMsg) {
	m.phase, m.cancel, m.failed = phaseDone, nil, msg.err != nil
	req, _ := m.request()
	m.result = outcome(m.ref(), req, msg.res, msg.err).Detail
	if msg.err != nil && m.dir == kube.CopyToContainer && errors.Is(msg.err, context.Canceled) {
		m.result += "; what tar had written in the container before the cancel stays there"
	}
}

// key handles a key in the current phase: the screen's keys first, even
// while a path is typed; a text a warning asks takes every key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.confirm.Typing() {
		return m.confirm.Key(msg, m.start)
	}
	k := m.keys
	switch m.phase {
	case phasePlanning:
		if key.Matches(msg, k.Back) {
			return back
		}
		return nil
	case phaseCopying:
		if key.Matches(msg, k.Back) && m.cancel != nil {
			m.cancel()
			m.note = "cancelling…"
		}
		return nil
	case phaseDone:
		switch {
		case key.Matches(msg, k.Back, k.Start):
			return back
		case key.Matches(msg, k.Again):
			m.phase, m.result, m.failed = phaseForm, "", false
			return m.focusCmd()
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		return back
	case key.Matches(msg, k.NextField):
		m.focus = m.next(1)
		return m.focusCmd()
	case key.Matches(msg, k.PreviousField):
		m.focus = m.next(-1)
		return m.focusCmd()
	case key.Matches(msg, k.Start):
		return m.start()
	}
	choice := key.Matches(msg, k.PreviousChoice, k.NextChoice)
	switch m.focus {
	case fieldDirection:
		if choice {
			m.dir = map[kube.CopyDirection]kube.CopyDirection{kube.CopyFromContainer: kube.CopyToContainer, kube.CopyToContainer: kube.CopyFromContainer}[m.dir]
			m.swapDefaults()
		}
		return nil
	case fieldContainer:
		if choice && len(m.choices) > 1 {
			i := (indexOf(m.choices, m.container) + map[bool]int{true: 1, false: len(m.choices) - 1}[!key.Matches(msg, k.PreviousChoice)]) % len(m.choices)
			m.container, m.phase = m.choices[i], phasePlanning
			return m.planCmd()
		}
		return nil
	}
	m.note = ""
	var cmd tea.Cmd
	if m.focus == fieldRemote {
		m.remote, cmd = m.remote.Update(msg)
	} else {
		m.local, cmd = m.local.Update(msg)
	}
	return cmd
}

// next is the field d steps from the focus, skipping the container field
// when there is no choice.
func (m *Model) next(d int) field {
	f := m.focus
	for {
		f = (f + field(d) + fieldCount) % fieldCount
		if f != fieldContainer || len(m.choices) > 1 {
			return f
		}
	}
}

// swapDefaults keeps the paths' defaults sensible when the direction
// changes: untouched defaults follow the direction.
func (m *Model) swapDefaults() {
	if m.dir == kube.CopyToContainer && m.local.Value() == "." {
		m.local.SetValue("")
	}
	if m.dir == kube.CopyFromContainer && m.local.Value() == "" {
		m.local.SetValue(".")
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return 0
}

// Title names the pod.
func (m *Model) Title() string {
	return views.Sanitize(fmt.Sprintf("copy %s/%s", m.target.Namespace, m.target.Pod))
}

// Capturing is true while a path is typed or a confirmation takes keys.
func (m *Model) Capturing() bool {
	return m.phase == phaseForm && (m.focus == fieldRemote || m.focus == fieldLocal) || m.confirm.Typing()
}

// CapturesBack is true while a copy runs: esc cancels it, and the screen
// stays to say how it ended.
func (m *Model) CapturesBack() bool { return m.phase == phaseCopying }

// Unsaved says that a copy is running (the root asks before quitting).
func (m *Model) Unsaved() string {
	if m.phase == phaseCopying {
		return "a file copy of pod " + m.target.Namespace + "/" + m.target.Pod + " is running"
	}
	return ""
}

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{views.HelpOf("next/previous field", k.NextField, k.PreviousField),
		views.HelpOf("switch the direction or the container", k.PreviousChoice, k.NextChoice), k.Start, k.Back, k.Again}
}

// landing says where the copy would land, kubectl cp's rule in words.
func (m *Model) landing() string {
	remote, local := strings.TrimSpace(m.remote.Value()), strings.TrimSpace(m.local.Value())
	if remote == "" || local == "" {
		return ""
	}
	if m.dir == kube.CopyFromContainer {
		return fmt.Sprintf("lands as %s if %s is a folder, else as %s", filepath.Join(local, path.Base(path.Clean(remote))), local, local)
	}
	return fmt.Sprintf("lands as %s if that is a folder in the container, else as %s", path.Join(remote, filepath.Base(filepath.Clean(local))), remote)
}
