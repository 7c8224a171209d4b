// Package clusters is the clusters overview (`:clusters`): one row per
// kubeconfig context of the fleet chosen (--contexts, --fleet; all the
// kubeconfig's contexts when none was), each read in a goroutine of its
// own and again every few seconds: reachable and latency, server version,
// Nodes ready of all, Pods running, pending and failed, Warning events of
// the last hour, CPU and memory used of allocatable, what you may do
// there, and when it last answered. One slow, unreachable or forbidden
// cluster never holds the others: its row says how it stands (reading,
// stale since, unreachable with the error). enter opens that cluster's
// Pods.
package clusters

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Overviewer reads one cluster's overview; *kube.Client is one.
type Overviewer interface {
	// Overview reads the cluster's health at a glance (kube.Client.Overview).
	Overview(ctx context.Context) kube.ClusterOverview
}

// Connector connects to a kubeconfig context; views.Kubeconfig is one.
type Connector interface {
	// Connect returns a client of the named context.
	Connect(context string) (views.Source, error)
}

// readTimeout bounds one cluster's connect and overview: past it the row
// says it timed out, and the next read tries again.
const readTimeout = 30 * time.Second

// minInterval is the shortest time between two reads of one cluster.
const minInterval = 10 * time.Second

// readingInterval is the time before the next read of a cluster whose
// lists were still arriving (its counts were those so far).
const readingInterval = 2 * time.Second

// row is one context's state.
type row struct {
	context  string
	client   views.Source // nil until connected
	ov       kube.ClusterOverview
	answered bool      // an overview came at least once
	reading  bool      // a read is under way
	since    time.Time // when the read under way started
	err      error     // the connection's error, if it failed
	// lastGood is when it last answered (zero: never): a failed read's
	// overview has none.
	lastGood time.Time
}

// overviewMsg carries one context's read, of the chain epoch.
type overviewMsg struct {
	owner   *Model
	epoch   int
	context string
	client  views.Source
	ov      kube.ClusterOverview
	err     error
}

// redrawMsg redraws the screen each second while a cluster is still
// reading, so its "reading… 12s" counts.
type redrawMsg struct {
	owner *Model
	epoch int
}

// tickMsg asks for one context's next read.
type tickMsg struct {
	owner   *Model
	context string
	epoch   int
}

// Model is the clusters overview. Make it with New.
type Model struct {
	// hscroll is how many columns right of CONTEXT are scrolled off (←/→).
	hscroll  int
	vc       *views.Context
	conn     Connector
	current  string
	rows     []*row
	cursor   int
	offset   int
	epoch    int
	interval time.Duration
	now      func() time.Time
	closed   bool
	keys     Keys
}

// Option changes a new screen.
type Option func(*Model)

// WithClock draws ages with now (tests).
func WithClock(now func() time.Time) Option { return func(m *Model) { m.now = now } }

// New returns the overview of contexts (in that order), connected through
// conn; current is the context kyyard shows now (marked "*"). Each context
// is read from Init on, again every interval (five refresh intervals, at
// least 10 s).
func New(vc *views.Context, conn Connector, contexts []string, current string, opts ...Option) *Model {
	m := &Model{vc: vc, conn: conn, current: current, now: time.Now,
		interval: max(5*vc.Config.RefreshInterval, minInterval), keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	for _, c := range contexts {
		m.rows = append(m.rows, &row{context: c})
	}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Init reads every context at once (again each time the screen comes back
// on top, or its first Init's command was not run: the earlier chains
// end; a read of theirs still under way is taken when it answers, but
// starts no chain).
func (m *Model) Init() tea.Cmd {
	m.epoch++
	cmds := make([]tea.Cmd, 0, len(m.rows))
	for _, r := range m.rows {
		r.reading = false
		cmds = append(cmds, m.read(r))
	}
	return tea.Batch(append(cmds, m.redraw())...)
}

// redraw is the next redrawMsg of this chain.
func (m *Model) redraw() tea.Cmd {
	owner, epoch := m, m.epoch
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return redrawMsg{owner: owner, epoch: epoch} })
}

// read starts one context's read unless one is under way.
func (m *Model) read(r *row) tea.Cmd {
	if r.reading || m.closed {
		return nil
	}
	r.reading, r.since = true, m.now()
	owner, name, client, conn, epoch := m, r.context, r.client, m.conn, m.epoch
	return func() tea.Msg {
		answer := make(chan overviewMsg, 1)
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		go func() {
			msg := overviewMsg{owner: owner, epoch: epoch, context: name, client: client}
			if msg.client == nil {
				src, err := conn.Connect(name)
				if err != nil {
					msg.err = err
					answer <- msg
					return
				}
				msg.client = src
			}
			ov, ok := msg.client.(Overviewer)
			if !ok {
				msg.err = fmt.Errorf("the client of context %s cannot read an overview", name)
			} else {
				msg.ov = ov.Overview(ctx)
			}
			answer <- msg
		}()
		select {
		case msg := <-answer:
			return msg
		case <-ctx.Done():
			// A credential plugin or a connection that ignores the
			// context: this read is given up; its client, if it comes,
			// is dropped with it.
			return overviewMsg{owner: owner, epoch: epoch, context: name, client: client,
				ov: kube.ClusterOverview{Reason: kube.ReasonTimeout, Message: fmt.Sprintf("no answer within %s", readTimeout)}}
		}
	}
}

// Update takes the reads, the ticks and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case overviewMsg:
		if msg.owner != m {
			return m, nil
		}
		r := m.row(msg.context)
		if r == nil {
			return m, nil
		}
		if m.closed {
			views.CloseSource(msg.client)
			return m, nil
		}
		if r.client != nil && msg.client != r.client {
			views.CloseSource(msg.client) // a second connection of an earlier chain's read
		} else {
			r.client = msg.client
		}
		if msg.err == nil {
			r.ov, r.answered, r.err = msg.ov, true, nil
			if msg.ov.Reason == "" {
				r.lastGood = msg.ov.Answered
			}
		} else {
			r.err = msg.err
		}
		if msg.epoch != m.epoch {
			return m, nil // an earlier chain's read: its chain ends
		}
		r.reading = false
		owner, name, epoch, wait := m, r.context, m.epoch, m.interval
		if msg.err == nil && msg.ov.Reading {
			wait = min(wait, readingInterval) // the counts so far: again soon
		}
		return m, tea.Tick(wait, func(time.Time) tea.Msg { return tickMsg{owner: owner, context: name, epoch: epoch} })
	case redrawMsg:
		if msg.owner == m && msg.epoch == m.epoch && !m.closed {
			for _, r := range m.rows {
				if r.reading && !r.answered {
					return m, m.redraw()
				}
			}
		}
	case tickMsg:
		if msg.owner == m && msg.epoch == m.epoch {
			if r := m.row(msg.context); r != nil {
				return m, m.read(r)
			}
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Model) row(name string) *row {
	for _, r := range m.rows {
		if r.context == name {
			return r
		}
	}
	return nil
}

// Close closes every cluster's client (views.Closer): their caches stop.
func (m *Model) Close() {
	m.closed = true
	for _, r := range m.rows {
		if r.client != nil {
			views.CloseSource(r.client) // the screen's own connection, not the root's
		}
		r.client = nil
	}
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	keys := m.keys
	switch {
	case key.Matches(msg, keys.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, keys.Down):
		m.cursor = min(m.cursor+1, max(len(m.rows)-1, 0))
	case key.Matches(msg, keys.PageUp):
		m.cursor = max(m.cursor-max(m.vc.Height-3, 1), 0)
	case key.Matches(msg, keys.PageDown):
		m.cursor = min(m.cursor+max(m.vc.Height-3, 1), max(len(m.rows)-1, 0))
	case key.Matches(msg, keys.Top):
		m.cursor = 0
	case key.Matches(msg, keys.Bottom):
		m.cursor = max(len(m.rows)-1, 0)
	case key.Matches(msg, keys.Left):
		m.hscroll = max(m.hscroll-1, 0)
	case key.Matches(msg, keys.Right):
		m.hscroll = min(m.hscroll+1, len(columns)-2) // clamped again when drawn
	case key.Matches(msg, keys.Refresh):
		var cmds []tea.Cmd
		for _, r := range m.rows {
			cmds = append(cmds, m.read(r))
		}
		return tea.Batch(cmds...)
	case key.Matches(msg, keys.Open):
		if len(m.rows) == 0 {
			return nil
		}
		name := m.rows[m.cursor].context
		if name == m.current {
			return func() tea.Msg { return views.OpenKindMsg{Kind: kube.KindPods, Namespace: m.vc.Client.Namespace()} }
		}
		return func() tea.Msg { return views.SwitchContextMsg{Context: name} }
	}
	return nil
}

// Title is "clusters[<n>]".
func (m *Model) Title() string { return fmt.Sprintf("clusters[%d]", len(m.rows)) }

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	keys := m.keys
	return []key.Binding{keys.Up, keys.Down, keys.PageUp, keys.PageDown, keys.Top, keys.Bottom, keys.Open, keys.Refresh, keys.Left, keys.Right}
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }

// state is how one cluster stands, for its STATE cell, and its health.
func (m *Model) state(r *row) (string, kube.Health) {
	now := m.now()
	switch {
	case r.err != nil:
		return "cannot connect", kube.HealthFailed
	case !r.answered:
		return fmt.Sprintf("reading… %s", seconds(now.Sub(r.since))), kube.HealthProgressing
	case r.ov.Reason != "":
		return string(r.ov.Reason), kube.HealthFailed
	case now.Sub(r.ov.Answered) > 3*m.interval:
		return "stale since " + r.ov.Answered.Local().Format("15:04:05"), kube.HealthWarning
	case r.ov.Reading:
		return "reading… so far", kube.HealthProgressing
	case len(r.ov.Unread) > 0:
		return "partial", kube.HealthWarning
	}
	return "ok", kube.HealthOK
}

// seconds is d in whole seconds ("3s").
func seconds(d time.Duration) string { return fmt.Sprintf("%ds", max(int(d.Seconds()), 0)) }

// columns are the table's header and widths.
var columns = []struct {
	name  string
	width int
}{{"CONTEXT", 22}, {"STATE", 16}, {"LATENCY", 8}, {"VERSION", 9}, {"NODES", 7}, {"PODS RUN/PEND/FAIL", 18}, {"WARN 1H", 7}, {"CPU", 13}, {"MEMORY", 15}, {"MAY", 24}, {"ANSWERED", 8}}

// cells are one row's cells, in columns' order.
func (m *Model) cells(r *row) []string {
	mark := []byte("  ")
	if r == m.rows[m.cursor] {
		mark[0] = '>'
	}
	if r.context == m.current {
		mark[1] = '*'
	}
	state, _ := m.state(r)
	out := []string{string(mark) + r.context, state}
	o := r.ov
	if !r.answered || !o.Reachable() {
		out = append(out, "-", "-", "-", "-", "-", "-", "-", "-", views.Ago(m.now(), r.lastGood))
		return out
	}
	// A part that could not be read is "?", never a count of nothing.
	unread := func(kind, cell string) string {
		for _, u := range o.Unread {
			if strings.HasPrefix(u, kind+":") {
				return "?"
			}
		}
		return cell
	}
	cpu, mem := "n/a", "n/a"
	if o.Metrics {
		cpu = fmt.Sprintf("%s/%s", kube.FormatCPU(o.Used.CPU), kube.FormatCPU(o.Allocatable.CPU))
		mem = fmt.Sprintf("%s/%s", kube.FormatMemory(o.Used.Memory), kube.FormatMemory(o.Allocatable.Memory))
	}
	return append(out,
		fmt.Sprintf("%dms", o.Latency.Milliseconds()), o.Version,
		unread("nodes", fmt.Sprintf("%d/%d", o.NodesReady, o.NodesTotal)),
		unread("pods", fmt.Sprintf("%d/%d/%d", o.PodsRunning, o.PodsPending, o.PodsFailed)),
		unread("events", fmt.Sprint(o.Warnings)), cpu, mem, may(o), views.Ago(m.now(), o.Answered))
}

// may is what the account may do: "list watch write", "read-only" when
// kyyard refuses writes there, "-" when none; "(demo)" when it may read
// one namespace only.
func may(o kube.ClusterOverview) string {
	var parts []string
	if o.MayList {
		parts = append(parts, "list")
	}
	if o.MayWatch {
		parts = append(parts, "watch")
	}
	switch {
	case o.ReadOnly:
		parts = append(parts, "read-only")
	case o.MayWrite:
		parts = append(parts, "write")
	}
	if len(parts) == 0 {
		return "-"
	}
	if o.Namespace != "" {
		return strings.Join(parts, " ") + " (" + o.Namespace + ")"
	}
	return strings.Join(parts, " ")
}
