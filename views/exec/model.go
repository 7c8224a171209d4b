package exec

import (
	"context"
	"errors"
	"slices"
	"strings"

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
	phasePlan         phase = iota // the guards are asked
	phasePick                      // several containers: the picker
	phaseConfirm                   // the interactive policy's warnings: y or esc
	phaseOpen                      // the shell is being chosen
	phaseNoShell                   // no shell: the debug container offer
	phaseDebugPlan                 // the debug container's guards are asked
	phaseDebugConfirm              // its warnings: y or esc
	phaseDebugWait                 // it is starting (OpenDebug's progress)
	phaseRunning                   // the terminal is handed to the session
)

// Model is the shell screen. Use New.
type Model struct {
	vc     *views.Context
	ex     Execer
	dbg    Debugger // nil: debug containers are not available
	memory *Memory
	target views.OpenShellMsg
	phase  phase
	token  int

	container  string   // chosen
	containers []string // the picker's choices
	cursor     int
	verdicts   kube.Verdicts // the warnings being confirmed
	confirmed  []kube.Reason
	noShell    string // why there is no shell

	input        textinput.Model // the debug image
	image        string          // the debug image chosen
	progress     chan string
	progressDone chan struct{} // closed when OpenDebug returned
	waiting      string        // OpenDebug's last progress text
	offset       int

	// ctx is the context of every call the screen makes; Close cancels
	// it (the screen left the stack).
	ctx    context.Context
	cancel context.CancelFunc
	keys   Keys
}

// New returns the screen for msg's pod or container, through ex and, for
// a container without a shell, dbg (nil when the client has none). memory
// keeps the debug image chosen across openings; nil keeps none.
func New(vc *views.Context, ex Execer, dbg Debugger, msg views.OpenShellMsg, memory *Memory) *Model {
	if memory == nil {
		memory = &Memory{}
	}
	m := &Model{vc: vc, ex: ex, dbg: dbg, memory: memory, target: msg, container: msg.Container, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	m.ctx, m.cancel = context.WithCancel(context.Background())
	m.input = textinput.New()
	m.input.Prompt = ""
	m.input.Cursor.SetMode(cursor.CursorStatic)
	m.input.PromptStyle, m.input.TextStyle = vc.Styles.Prompt, vc.Styles.Prompt
	m.input.CharLimit = 512
	return m
}

// Init asks the guards.
func (m *Model) Init() tea.Cmd {
	if m.phase != phasePlan {
		return nil
	}
	return m.planCmd()
}

// request is the ExecRequest of the person's choices so far.
func (m *Model) request() kube.ExecRequest {
	return kube.ExecRequest{Namespace: m.target.Namespace, Pod: m.target.Pod, UID: m.target.UID,
		Container: m.container, TTY: true, Confirmed: slices.Clone(m.confirmed)}
}

// debugRequest is the DebugRequest of the debug container offered.
func (m *Model) debugRequest() kube.DebugRequest {
	return kube.DebugRequest{Namespace: m.target.Namespace, Pod: m.target.Pod, UID: m.target.UID,
		Target: m.container, Image: m.image, Confirmed: slices.Clone(m.confirmed)}
}

// where names the pod ("demo/web-x2k").
func (m *Model) where() string { return m.target.Namespace + "/" + m.target.Pod }

// back closes the screen. When a call ended it, the call's answer has
// told its outcome already (views.AnswerMsg, execer.go).
func back() tea.Msg { return views.BackMsg{} }

// Close cancels the calls under way: the screen left the stack (esc, a
// `:` command, a context switch). What they sent is recorded all the same
// (their answers carry it). Safe to call more than once.
func (m *Model) Close() { m.cancel() }

// Update takes the plan, the opened session, progress and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case planMsg:
		if msg.owner == m && msg.token == m.token && m.phase == phasePlan {
			return m, m.takePlan(msg)
		}
	case openedMsg:
		if msg.owner == m && msg.token == m.token && (m.phase == phaseOpen || m.phase == phaseDebugWait) {
			return m, m.takeOpened(msg)
		}
	case debugPlanMsg:
		if msg.owner == m && msg.token == m.token && m.phase == phaseDebugPlan {
			return m, m.takeDebugPlan(msg)
		}
	case progressMsg:
		if msg.owner == m && msg.token == m.token && m.phase == phaseDebugWait {
			m.waiting = msg.text
			return m, m.waitDebug(msg.token)
		}
	case endedMsg:
		if msg.owner == m {
			return m, m.ended(msg)
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

// takePlan moves on from the guards' answers: a picker for several
// containers, a refusal to the status line, warnings to the confirmation,
// else the session is opened.
func (m *Model) takePlan(msg planMsg) tea.Cmd {
	var choice *kube.ContainerChoiceError
	switch {
	case errors.As(msg.err, &choice):
		m.phase, m.containers, m.cursor = phasePick, choice.Containers, max(slices.Index(choice.Containers, choice.DefaultContainer), 0)
		return nil
	case msg.err != nil:
		return back
	}
	if r := msg.plan.Verdicts.Refusal(); r != nil {
		return back
	}
	m.container = msg.plan.Container
	if ws := msg.plan.Verdicts.Warnings(); len(ws) > 0 {
		m.phase, m.verdicts = phaseConfirm, ws
		return nil
	}
	m.phase = phaseOpen
	return m.openCmd()
}

// takeOpened hands the terminal to the session, or offers a debug
// container when the container has no shell.
func (m *Model) takeOpened(msg openedMsg) tea.Cmd {
	switch {
	case errors.Is(msg.err, kube.ErrExecNoShell) && m.phase == phaseOpen:
		m.phase, m.noShell = phaseNoShell, views.ErrText(msg.err)
		if m.dbg == nil {
			return nil
		}
		m.confirmed = nil
		image := m.memory.DebugImage
		if image == "" {
			image = kube.DefaultDebugImage
		}
		m.input.SetValue(image)
		m.input.CursorEnd()
		return m.input.Focus()
	case msg.err != nil:
		return back
	}
	m.phase = phaseRunning
	return m.handOff(msg.session)
}

// takeDebugPlan confirms the debug container's warnings, or starts it.
func (m *Model) takeDebugPlan(msg debugPlanMsg) tea.Cmd {
	if msg.err != nil || msg.verdicts.Refusal() != nil {
		return back
	}
	if ws := msg.verdicts.Warnings(); len(ws) > 0 {
		m.phase, m.verdicts = phaseDebugConfirm, ws
		return nil
	}
	m.phase = phaseDebugWait
	return m.debugOpenCmd()
}

// confirm accepts the warnings shown.
func (m *Model) confirm() {
	for _, v := range m.verdicts {
		if !slices.Contains(m.confirmed, v.Reason) {
			m.confirmed = append(m.confirmed, v.Reason)
		}
	}
}

// key handles a key on the current page; esc is the root's (back) but
// while the debug image is typed.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch m.phase {
	case phasePick:
		switch {
		case key.Matches(msg, k.Up):
			m.cursor = max(m.cursor-1, 0)
		case key.Matches(msg, k.Down):
			m.cursor = min(m.cursor+1, len(m.containers)-1)
		case key.Matches(msg, k.Open):
			m.container, m.phase = m.containers[m.cursor], phasePlan
			return m.planCmd()
		}
	case phaseConfirm, phaseDebugConfirm:
		if key.Matches(msg, k.Confirm) {
			m.confirm()
			if m.phase == phaseConfirm {
				m.phase = phaseOpen
				return m.openCmd()
			}
			m.phase = phaseDebugWait
			return m.debugOpenCmd()
		}
		if key.Matches(msg, k.Cancel) {
			return back
		}
	case phaseNoShell:
		if m.dbg == nil {
			return nil
		}
		if key.Matches(msg, k.Back) {
			return back
		}
		if key.Matches(msg, k.Open) {
			image := strings.TrimSpace(m.input.Value())
			if image == "" {
				image = kube.DefaultDebugImage
			}
			m.image, m.memory.DebugImage = image, image
			m.input.Blur()
			m.phase = phaseDebugPlan
			return m.debugPlanCmd()
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		return cmd
	}
	return nil
}

// Capturing reports whether the debug image is being typed.
func (m *Model) Capturing() bool { return m.phase == phaseNoShell && m.dbg != nil }

// CapturesBack lets esc cancel the image input here rather than close
// the root's way (it closes the screen all the same).
func (m *Model) CapturesBack() bool { return m.Capturing() }

// Title names the pod.
func (m *Model) Title() string { return "shell(" + m.where() + ")" }

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	switch m.phase {
	case phasePick:
		return []key.Binding{views.HelpOf("choose a container", k.Up, k.Down), k.Open}
	case phaseConfirm, phaseDebugConfirm:
		return []key.Binding{k.Confirm, k.Cancel}
	case phaseNoShell:
		if m.dbg != nil {
			debug := k.Open
			debug.SetHelp(debug.Help().Key, "start a debug container")
			return []key.Binding{debug, k.Back}
		}
	}
	return nil
}
