// Package forwards is the `:pf` screen: the port-forwards kyyard runs,
// with their local port, target, pod, state, traffic, connections and the
// connections that failed (with the last error),
// refreshed every second; x (or ctrl+d) stops the selected one.
package forwards

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Forwards is what the screen lists and stops; *kube.Client is one.
type Forwards interface {
	// PortForwards returns the forwards that run or failed (see
	// kube.Client.PortForwards).
	PortForwards() []kube.ForwardStatus
	// StopPortForward stops one (see kube.Client.StopPortForward).
	StopPortForward(id int) error
}

// refresh is how often the list is read again.
const refresh = time.Second

// tickMsg asks for the list to be read again, for the tick chain token.
type tickMsg struct {
	owner *Model
	token int
}

// stoppedMsg says a stop ended.
type stoppedMsg struct {
	owner *Model
	id    int
	err   error
}

// Model is the screen. Use New.
type Model struct {
	vc     *views.Context
	fw     Forwards
	list   []kube.ForwardStatus
	cursor int
	token  int
	offset int
	now    func() time.Time
	keys   Keys
}

// Keys are the :pf screen's bindings: its key table is "forwards".
type Keys struct {
	// Up and Down move the cursor.
	Up, Down key.Binding
	// Stop stops the selected forward (x, ctrl+d).
	Stop key.Binding
}

// KeyTable is the name of the screen's keys in the configuration file's
// key map (views.KeyMap): `keys: {forwards: {ACTION: KEYS}}`.
const KeyTable = "forwards"

// DefaultKeys returns the screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:   key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "move")),
		Down: key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "move")),
		Stop: key.NewBinding(key.WithKeys("x", "ctrl+d"), key.WithHelp("x/ctrl+d", "stop the forward")),
	}
}

// Option configures the screen.
type Option func(*Model)

// WithClock draws ages with now instead of time.Now (tests).
func WithClock(now func() time.Time) Option { return func(m *Model) { m.now = now } }

// New returns the screen over fw.
func New(vc *views.Context, fw Forwards, opts ...Option) *Model {
	m := &Model{vc: vc, fw: fw, now: time.Now, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	for _, o := range opts {
		o(m)
	}
	m.list = fw.PortForwards()
	return m
}

// Init reads the list and starts its refresh (a new chain each time the
// screen comes back on top; the old one's ticks are dropped).
func (m *Model) Init() tea.Cmd {
	m.token++
	m.list = m.fw.PortForwards()
	return m.tick()
}

func (m *Model) tick() tea.Cmd {
	owner, token := m, m.token
	return tea.Tick(refresh, func(time.Time) tea.Msg { return tickMsg{owner: owner, token: token} })
}

// Update refreshes, moves and stops.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case tickMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		m.list = m.fw.PortForwards()
		return m, m.tick()
	case stoppedMsg:
		if msg.owner != m {
			return m, nil
		}
		m.list = m.fw.PortForwards()
		if msg.err != nil {
			return m, views.Status(fmt.Sprintf("forward %d: %v", msg.id, msg.err), true)
		}
		return m, views.Status(fmt.Sprintf("forward %d stopped", msg.id), false)
	case tea.KeyMsg:
		switch {
		case key.Matches(msg, m.keys.Up):
			m.cursor = max(m.cursor-1, 0)
		case key.Matches(msg, m.keys.Down):
			m.cursor++
		case key.Matches(msg, m.keys.Stop):
			return m, m.stop()
		}
	}
	return m, nil
}

// stop stops the selected forward off the UI goroutine.
func (m *Model) stop() tea.Cmd {
	if len(m.list) == 0 {
		return nil
	}
	m.cursor = min(m.cursor, len(m.list)-1)
	owner, fw, id := m, m.fw, m.list[m.cursor].ID
	return func() tea.Msg { return stoppedMsg{owner: owner, id: id, err: fw.StopPortForward(id)} }
}

// Bytes is n as people read it: "512 B", "1.5 KiB", "3.2 MiB"
// (kube.Bytes).
func Bytes(n int64) string { return kube.Bytes(n) }

// age is a duration as the inventory shows ages: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// Layouts of the list: the wide one from wideWidth columns (namespace,
// 127.0.0.1 and a FAILED column), the compact one below it, where every
// row fits 79 cells (Page's body at 80 columns): names are cut with "…"
// and the failures are counted on the line under the row.
const (
	wideWidth     = 130
	wideFormat    = "%-3s %-16s %-31s %-26s %-8s %10s %10s %5s %6s %5s"
	compactFormat = "%-3s %-6s %-18s %-13s %-7s %8s %8s %4s %4s"
)

// View lists the forwards, one line each, and under a row the error of a
// moving or failed forward and the failed connections with the last
// one's error. Below wideWidth columns the namespace, the address and the
// FAILED column are left out and long names are cut.
func (m *Model) View() string {
	st := m.vc.Styles
	wide := m.vc.Width >= wideWidth
	format, wTarget, wPod := compactFormat, 18, 13
	if wide {
		format, wTarget, wPod = wideFormat, 31, 26
	}
	row := func(id, local, target, pod, state, in, out, conns, failed, age string) string {
		if wide {
			return fmt.Sprintf(format, id, local, target, pod, state, in, out, conns, failed, age)
		}
		return fmt.Sprintf(format, id, local, target, pod, state, in, out, conns, age)
	}
	body := []string{st.ColumnHeader.Render(row("ID", "LOCAL", "TARGET", "POD", "STATE", "IN", "OUT", "CONN", "FAILED", "AGE"))}
	if len(m.list) == 0 {
		body = append(body, st.Muted.Render("no port-forward runs; shift+f on a pod, a Service or a workload starts one"))
	}
	m.cursor = max(min(m.cursor, len(m.list)-1), 0)
	for i, f := range m.list {
		r := f.Request
		target := fmt.Sprintf("%s/%s:%d", r.Kind, views.Sanitize(r.Name), r.RemotePort)
		local := fmt.Sprintf(":%d", f.LocalPort)
		if wide {
			target = views.Sanitize(r.Namespace) + "/" + target
			local = "127.0.0.1" + local
		}
		pod := views.Sanitize(f.Pod)
		if pod == "" {
			pod = "-"
		}
		l := row(fmt.Sprint(f.ID), local, cut(target, wTarget), cut(pod, wPod), string(f.State),
			Bytes(f.BytesIn), Bytes(f.BytesOut), fmt.Sprint(f.Connections), fmt.Sprint(f.Failed), age(m.now().Sub(f.Started)))
		switch {
		case i == m.cursor:
			l = st.Selected.Render(l)
		case f.State == kube.ForwardFailed:
			l = st.Error.Render(l)
		}
		body = append(body, l)
		if f.Err != "" {
			text := "    " + views.Sanitize(f.Err)
			if f.State == kube.ForwardFailed {
				body = append(body, st.Error.Render(text))
			} else {
				body = append(body, st.Muted.Render(text))
			}
		}
		if f.State == kube.ForwardActive && f.LastMove != "" {
			text := "    moved: " + views.Sanitize(f.LastMove)
			if f.Moves > 1 {
				text = fmt.Sprintf("    moved %d times; last: %s", f.Moves, views.Sanitize(f.LastMove))
			}
			body = append(body, st.Muted.Render(cut(text, m.vc.Width)))
		}
		if f.Failed > 0 {
			body = append(body, st.Error.Render("    "+failedText(f)))
		}
	}
	k := m.keys
	keys := views.Hints(views.Hint("move", k.Up, k.Down), views.Hint("stop", k.Stop), views.Hint("back", m.vc.Keys.Back))
	help := views.Hints(keys, "IN: bytes to you, OUT: to the pod")
	if !wide && len(m.list) > 0 {
		// What the compact layout leaves out, said in 80 columns.
		help = views.Hints(keys, "IN: to you, OUT: to the pod · wider shows ns")
	}
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// failedText says how many connections failed and the last one's error:
// "2 of 3 connections failed; last: no forward found for port 8080 …".
func failedText(f kube.ForwardStatus) string {
	text := fmt.Sprintf("%d of %s failed", f.Failed, kube.Plural(f.Connections, "connection"))
	if f.Connections == 1 && f.Failed == 1 {
		text = "1 of 1 connection failed"
	}
	if f.LastError != "" {
		text += "; last: " + views.Sanitize(f.LastError)
	}
	return text
}

// cut shortens s to w cells, marking the cut with "…".
func cut(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Title is "port-forwards[<n>]".
func (m *Model) Title() string { return fmt.Sprintf("port-forwards[%d]", len(m.list)) }

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	return []key.Binding{views.HelpOf("move", m.keys.Up, m.keys.Down), m.keys.Stop}
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }
