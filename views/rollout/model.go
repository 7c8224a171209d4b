package rollout

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Model is the rollout screen: one workload's rollout followed live (`R`
// on a workload row, and after a restart, scale, undo or resume). esc
// leaves it with a status line saying how the rollout stands; the rollout
// itself goes on. Use New.
type Model struct {
	vc     *views.Context
	reader Reader
	f      *Follow
	// kind describes the workload's kind (its plugin's KindInfo): u is
	// offered when it supports kube.ActionUndo.
	kind kube.KindInfo
	// what says what started the rollout ("restarted demo/deployments/web"),
	// "" when the screen was opened to watch.
	what string
	// uid is the workload's metadata.uid the person saw, "" when unknown.
	uid    string
	now    func() time.Time
	offset int
	keys   Keys
}

// Keys are the rollout screen's bindings.
type Keys struct {
	// Up and Down scroll; Back closes the screen; Undo asks to roll a
	// Deployment back to its previous revision (views/operate confirms).
	Up, Down, Back, Undo key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {rollout: {ACTION: KEYS}}`.
const KeyTable = "rollout"

// DefaultKeys returns the rollout screen's bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:   key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll up")),
		Down: key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j", "scroll down")),
		Back: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back (the rollout goes on)")),
		Undo: key.NewBinding(key.WithKeys("u"), key.WithHelp("u", "undo: back to the previous revision (Deployments)")),
	}
}

// Option changes a new screen; for tests.
type Option func(*Model)

// WithUID lets the screen undo the rollout (u) of a kind that supports
// kube.ActionUndo (a Deployment): uid is the metadata.uid the person saw.
// The follow takes it as the UID of the workload followed, so a reading
// of another UID ends it (recreated).
func WithUID(uid string) Option { return func(m *Model) { m.uid = uid } }

// WithClock makes the screen read the time from now and poll every poll.
func WithClock(now func() time.Time, poll time.Duration) Option {
	return func(m *Model) { m.now = now; m.f.Poll = poll }
}

// New returns the rollout screen of ref, read through r; kind describes
// ref.Kind (its plugin's KindInfo, whose Capabilities say whether u
// undoes); what says what started the rollout ("" to watch one). It reads
// nothing until Init.
func New(vc *views.Context, r Reader, kind kube.KindInfo, ref kube.WorkloadRef, what string, opts ...Option) *Model {
	m := &Model{vc: vc, reader: r, kind: kind, what: what, now: time.Now, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	m.f = NewFollow(ref, time.Time{}, DefaultDeadline, PollEvery)
	for _, o := range opts {
		o(m)
	}
	m.f.UID = m.uid
	m.f.Started = m.now()
	return m
}

// Follow returns the state the screen shows.
func (m *Model) Follow() *Follow { return m.f }

// Init takes the first reading; on top again after a screen above it
// closed, it reads once more unless the rollout ended.
func (m *Model) Init() tea.Cmd {
	if m.f.Done {
		return nil
	}
	m.f.Stop()
	return m.f.Read(m.reader)
}

// Update takes the readings and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case StatusMsg:
		if m.f.Owns(msg) {
			return m, m.f.Take(msg, m.now())
		}
	case PollMsg:
		if m.f.Owns(msg) {
			return m, m.f.Read(m.reader)
		}
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Down):
			m.offset++
		case key.Matches(msg, m.keys.Up):
			m.offset = max(m.offset-1, 0)
		case key.Matches(msg, m.keys.Undo) && m.canUndo():
			r := m.f.Ref
			undo := views.OperateMsg{Action: kube.ActionUndo, Replicas: -1,
				Targets: []kube.ObjectRef{{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: m.uid}}}
			return m, func() tea.Msg { return undo }
		case key.Matches(msg, m.keys.Back):
			m.f.Stop()
			summary, failed := m.f.Summary(m.name()), m.f.Failed()
			return m, tea.Batch(func() tea.Msg { return views.BackMsg{} }, views.Status(summary, failed))
		}
	}
	return m, nil
}

// name is "<namespace>/<kind>/<name>".
func (m *Model) name() string {
	r := m.f.Ref
	return r.Namespace + "/" + string(r.Kind) + "/" + r.Name
}

// View draws the rollout: what started it, where it stands, how long it
// has been followed, then the reading (see Follow.Lines).
func (m *Model) View() string {
	st := m.vc.Styles
	elapsed := m.now().Sub(m.f.Started).Round(time.Second)
	first := "following"
	if m.what != "" {
		first = views.Sanitize(m.what)
	}
	body := []string{fmt.Sprintf("%s · %s · %s", first, m.f.State(st), elapsed)}
	body = append(body, m.f.Lines(st)...)
	if m.f.Done {
		style := st.Muted
		if m.f.Failed() {
			style = st.Error
		}
		body = append(body, "", style.Render(m.f.Summary(m.name())))
	}
	help := views.Hint("back (the rollout goes on; the status line says how it stands)", m.keys.Back)
	if m.f.Done {
		help = views.Hint("back", m.keys.Back)
	}
	if m.canUndo() {
		help = views.Hints(views.Hint("undo", m.keys.Undo), help)
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// Title is "rollout <kind>/<name>(<namespace>)", with the revision once
// known: "rollout deployments/web(demo) #7".
func (m *Model) Title() string {
	r := m.f.Ref
	t := fmt.Sprintf("rollout %s/%s(%s)", r.Kind, r.Name, r.Namespace)
	if rev := m.f.Status.Revision; rev != "" {
		t += " #" + rev
	}
	return t
}

// canUndo reports whether u undoes: a workload whose kind supports
// kube.ActionUndo (Deployments), whose UID is known and that was neither
// deleted nor created again.
func (m *Model) canUndo() bool {
	return m.uid != "" && m.kind.Supports(kube.ActionUndo) && !m.f.Gone()
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	b := []key.Binding{m.keys.Up, m.keys.Down, m.keys.Back}
	if m.canUndo() {
		b = append(b, m.keys.Undo)
	}
	return b
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }

// CapturesBack is true: esc closes the screen through the screen itself,
// which leaves the status line saying how the rollout stands.
func (m *Model) CapturesBack() bool { return true }
