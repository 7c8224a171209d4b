// Package drain is the screen that drains a Node (D on a node): the plan
// first (what is evicted, what is left and why, with kubectl drain's rules,
// and every guard's verdict), then, once confirmed, the cordon and the
// evictions with each pod's progress as it happens (a PodDisruptionBudget
// that blocks one named), until the Node is drained, the drain times out
// or the person cancels it (esc); the Node then stays cordoned, and the
// screen says so.
package drain

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Drainer plans and runs drains; *kube.Client is one.
type Drainer interface {
	// PlanDrain plans the drain of a Node (kube.Client.PlanDrain).
	PlanDrain(ctx context.Context, node kube.ObjectRef) (*kube.DrainPlan, error)
	// Drain runs a plan (kube.Client.Drain).
	Drain(ctx context.Context, p *kube.DrainPlan, confirmed []kube.Reason, timeout time.Duration, events chan<- kube.DrainEvent) kube.OperateOutcome
}

// planTimeout bounds the plan's reads.
const planTimeout = 30 * time.Second

// phase is where the drain stands.
type phase int

const (
	phasePlanning phase = iota
	phaseConfirm
	phaseRunning
	phaseDone
)

// Model is the drain screen. Make it with New.
type Model struct {
	vc      *views.Context
	d       Drainer
	node    kube.ObjectRef
	timeout time.Duration

	phase   phase
	plan    *kube.DrainPlan
	err     error
	confirm *views.Confirm

	events     chan kube.DrainEvent
	finished   chan struct{}
	cancel     context.CancelFunc
	cancelling bool
	states     map[string]kube.DrainEvent // by pod (ObjectRef.String)
	outcome    kube.OperateOutcome
	offset     int
	keys       Keys
}

// New returns the drain screen of the Node node (its name and the UID
// seen), each blocked eviction retried until timeout (0:
// kube.DefaultDrainTimeout).
func New(vc *views.Context, d Drainer, node kube.ObjectRef, timeout time.Duration) *Model {
	if timeout <= 0 {
		timeout = kube.DefaultDrainTimeout
	}
	return &Model{vc: vc, d: d, node: node, timeout: timeout, states: map[string]kube.DrainEvent{}, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

type plannedMsg struct {
	owner *Model
	plan  *kube.DrainPlan
	err   error
}

type eventMsg struct {
	owner *Model
	ev    kube.DrainEvent
	ok    bool
}

type finishedMsg struct {
	owner *Model
	out   kube.OperateOutcome
}

// Init plans the drain the first time.
func (m *Model) Init() tea.Cmd {
	if m.phase != phasePlanning || m.plan != nil || m.err != nil {
		return nil
	}
	d, node, owner := m.d, m.node, m
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), planTimeout)
		defer cancel()
		p, err := d.PlanDrain(ctx, node)
		return plannedMsg{owner: owner, plan: p, err: err}
	}
}

// Update takes the plan, the progress, the end and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case plannedMsg:
		if msg.owner == m {
			m.phase, m.plan, m.err = phaseConfirm, msg.plan, msg.err
			if m.plan != nil {
				m.confirm = views.NewConfirm(m.vc.Styles, views.ConfirmOnEnter, textAsks(m.plan.Verdicts))
			}
		}
	case eventMsg:
		if msg.owner == m && msg.ok {
			m.states[msg.ev.Pod.String()] = msg.ev
			return m, m.next()
		}
	case finishedMsg:
		if msg.owner == m {
			m.phase, m.outcome, m.cancel = phaseDone, msg.out, nil
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// textAsks are the warnings that want a text typed (another tool's Node:
// its name); a plain y confirms the others.
func textAsks(vs kube.Verdicts) []views.ConfirmAsk {
	var out []views.ConfirmAsk
	for _, a := range views.WarningAsks(vs, 0) {
		if a.Want != "y" {
			out = append(out, a)
		}
	}
	return out
}

// start runs the drain: the run's answer (recorded whatever the screen
// does meanwhile) and the wait for its first event.
func (m *Model) start() tea.Cmd {
	if m.plan == nil || m.plan.Verdicts.Refusal() != nil {
		return nil
	}
	if m.confirm.Unconfirmed() > 0 {
		return m.confirm.Start("")
	}
	m.phase = phaseRunning
	ctx, cancel := context.WithCancel(context.Background())
	m.cancel, m.events, m.finished = cancel, make(chan kube.DrainEvent), make(chan struct{})
	d, p, timeout, events, finished, owner := m.d, m.plan, m.timeout, m.events, m.finished, m
	confirmed := views.ConfirmedReasons(p.Verdicts)
	run := func() tea.Msg {
		defer close(finished)
		defer cancel()
		out := d.Drain(ctx, p, confirmed, timeout, events)
		return views.Answer(owner, finishedMsg{owner: owner, out: out}, views.StatusMsg{Text: views.Sanitize(out.Detail), Error: !out.OK()}, out)
	}
	return tea.Batch(run, m.next())
}

// next waits for the drain's next event (none once it finished).
func (m *Model) next() tea.Cmd {
	events, finished, owner := m.events, m.finished, m
	return func() tea.Msg {
		select {
		case ev := <-events:
			return eventMsg{owner: owner, ev: ev, ok: true}
		case <-finished:
			return eventMsg{owner: owner}
		}
	}
}

// Close cancels a drain under way (views.Closer): it ends, and its answer
// is recorded, as after esc.
func (m *Model) Close() {
	if m.cancel != nil {
		m.cancel()
	}
}

// key handles one key: a text typed for a warning takes them all.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.confirm.Typing() {
		return m.confirm.Key(msg, m.start)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		if m.phase == phaseRunning {
			if !m.cancelling {
				m.cancelling = true
				m.cancel()
			}
			return nil
		}
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Cancel):
		if m.phase == phaseConfirm {
			return func() tea.Msg { return views.BackMsg{} }
		}
	case key.Matches(msg, k.Drain):
		if m.phase == phaseConfirm {
			return m.start()
		}
	default:
		k.Scroll(msg, &m.offset, m.vc.Height)
	}
	return nil
}

// CapturesBack is true while the drain runs: esc cancels it, it does not
// leave the screen (views.BackCapturer).
func (m *Model) CapturesBack() bool { return m.phase == phaseRunning || m.confirm.Typing() }

// Capturing is true while a confirmation text is typed.
func (m *Model) Capturing() bool { return m.confirm.Typing() }

// Title names the Node.
func (m *Model) Title() string { return views.Sanitize("drain nodes/" + m.node.Name) }

// Keys are the drain screen's bindings: its key table is "drain". A text
// a warning asks to be typed takes every key (enter takes it, esc stops
// typing).
type Keys struct {
	// Drain cordons the Node and evicts its pods, once the plan is shown
	// (y).
	Drain key.Binding
	// Cancel leaves the plan: nothing is done (n).
	Cancel key.Binding
	// Back leaves the screen; while the drain runs, it cancels the drain
	// instead: the Node stays cordoned (esc).
	Back key.Binding
	// ScrollKeys scroll the plan and the progress.
	views.ScrollKeys
}

// KeyTable is the name of the drain screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {drain: {ACTION: KEYS}}`.
const KeyTable = "drain"

// DefaultKeys returns the drain screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Drain:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "drain (after the plan)")),
		Cancel:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "cancel (after the plan): nothing is done")),
		Back:       key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back; while draining: cancel (the node stays cordoned)")),
		ScrollKeys: views.DefaultScrollKeys(),
	}
}

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	return []key.Binding{m.keys.Drain, m.keys.Cancel, m.keys.Back, m.keys.ScrollHelp()}
}

// counts are the pods to evict by where they stand.
func (m *Model) counts() (gone, blocked, failed int) {
	for _, ev := range m.states {
		switch ev.State {
		case "gone":
			gone++
		case "blocked":
			blocked++
		case "failed":
			failed++
		}
	}
	return
}

// status is one pod's progress for people.
func status(ev kube.DrainEvent, ok bool) string {
	if !ok {
		return "waiting"
	}
	switch ev.State {
	case "evicting":
		return "evicting…"
	case "blocked":
		b := "a PodDisruptionBudget"
		if ev.Budget != "" {
			b = "PodDisruptionBudget " + ev.Budget
		}
		return "blocked by " + b + " (asked again every 5 s): " + ev.Detail
	case "evicted":
		return "evicted: terminating…"
	case "gone":
		return "gone ✓"
	case "failed":
		return "failed: " + ev.Detail
	case "stopped":
		return "not evicted: the drain ended first"
	}
	return ev.State
}

// durationText is d for people: "5m0s".
func durationText(d time.Duration) string { return fmt.Sprint(d) }
