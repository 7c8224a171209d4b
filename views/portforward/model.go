// Package portforward is the port-forward dialog (`shift+f` on a pod, a
// Service or a workload): the ports the object's spec declares, or one
// typed, and the local port on 127.0.0.1 (the same number by default, 0
// for a free one); enter starts the forward (kube.Client.StartPortForward),
// which then runs until it is stopped in `:pf` or kyyard ends.
package portforward

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Forwarder is what the dialog reads ports and starts forwards through;
// *kube.Client is one.
type Forwarder interface {
	// PortForwardPorts returns the ports the object declares (see
	// kube.Client.PortForwardPorts).
	PortForwardPorts(ctx context.Context, kind kube.Kind, namespace, name string) ([]kube.ForwardPort, error)
	// StartPortForward starts a forward (see kube.Client.StartPortForward).
	StartPortForward(ctx context.Context, req kube.PortForwardRequest) (kube.ForwardStatus, error)
}

// callTimeout bounds the read of the ports and the start of a forward.
const callTimeout = 30 * time.Second

// portsMsg carries the declared ports.
type portsMsg struct {
	owner *Model
	ports []kube.ForwardPort
	err   error
}

// startedMsg carries the outcome of a start.
type startedMsg struct {
	owner *Model
	st    kube.ForwardStatus
	err   error
}

// Model is the dialog. Use New.
type Model struct {
	vc      *views.Context
	fw      Forwarder
	target  views.OpenPortForwardMsg
	loaded  bool
	ports   []kube.ForwardPort
	loadErr error
	cursor  int  // a port, or len(ports): the typed one
	onLocal bool // the local port field has the keys
	edited  bool // the person typed a local port
	other   textinput.Model
	local   textinput.Model
	note    string // why enter did nothing, or the start's error
	busy    bool
	offset  int
	keys    Keys
}

// New returns the dialog for msg's object, through fw.
func New(vc *views.Context, fw Forwarder, msg views.OpenPortForwardMsg) *Model {
	input := func() textinput.Model {
		in := textinput.New()
		in.Prompt = ""
		in.CharLimit = 5
		in.Cursor.SetMode(cursor.CursorStatic)
		in.PromptStyle, in.TextStyle = vc.Styles.Prompt, vc.Styles.Prompt
		return in
	}
	return &Model{vc: vc, fw: fw, target: msg, other: input(), local: input(), keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// Init reads the ports the object declares.
func (m *Model) Init() tea.Cmd {
	if m.loaded {
		return nil
	}
	owner, fw, t := m, m.fw, m.target
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		ports, err := fw.PortForwardPorts(ctx, t.Kind, t.Namespace, t.Name)
		return portsMsg{owner: owner, ports: ports, err: err}
	}
}

// ParsePort reads a typed port: digits only, 1-65535, or 0 when zero is
// allowed (a local port: any free one). Errors say why, for beside the field.
func ParsePort(s string, zero bool) (int32, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, fmt.Errorf("type a port")
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, fmt.Errorf("a port is digits only")
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > 65535 {
		return 0, fmt.Errorf("a port is at most 65535")
	}
	if n == 0 && !zero {
		return 0, fmt.Errorf("a port is 1-65535")
	}
	return int32(n), nil
}

// localDefault is the local port offered for a remote one: the same
// number (kubectl port-forward's default), or 0 (a free port) below 1024,
// where listening needs privileges.
func localDefault(remote int32) string {
	if remote < 1024 {
		return "0"
	}
	return strconv.Itoa(int(remote))
}

// remote returns the chosen remote port, or why there is none.
func (m *Model) remote() (int32, error) {
	if m.cursor < len(m.ports) {
		p := m.ports[m.cursor]
		if p.Protocol != "TCP" {
			return 0, fmt.Errorf("port %d is %s; only TCP can be forwarded", p.Port, p.Protocol)
		}
		return p.Port, nil
	}
	return ParsePort(m.other.Value(), false)
}

// follow sets the local port to the default of the chosen remote port,
// unless the person typed one.
func (m *Model) follow() {
	if m.edited {
		return
	}
	if r, err := m.remote(); err == nil {
		m.local.SetValue(localDefault(r))
	} else {
		m.local.SetValue("")
	}
	m.local.CursorEnd()
}

// onOther reports whether the typed-port row has the cursor.
func (m *Model) onOther() bool { return m.cursor == len(m.ports) && !m.onLocal }

// Update takes the ports, the start's outcome and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case portsMsg:
		if msg.owner != m {
			return m, nil
		}
		m.loaded, m.ports, m.loadErr = true, msg.ports, msg.err
		m.cursor = 0
		for m.cursor < len(m.ports) && m.ports[m.cursor].Protocol != "TCP" {
			m.cursor++
		}
		m.follow()
		return m, m.focus()
	case startedMsg:
		if msg.owner != m {
			return m, nil
		}
		m.busy = false
		if msg.err != nil {
			m.note = views.Sanitize(msg.err.Error())
			return m, nil
		}
		text := fmt.Sprintf("forwarding 127.0.0.1:%d → %s/%s:%d (pod %s) · :pf lists forwards",
			msg.st.LocalPort, msg.st.Request.Kind, msg.st.Request.Name, msg.st.Request.RemotePort, msg.st.Pod)
		return m, tea.Batch(views.Status(text, false), func() tea.Msg { return views.BackMsg{} })
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// focus gives the keys to the field the cursor is on.
func (m *Model) focus() tea.Cmd {
	m.other.Blur()
	m.local.Blur()
	switch {
	case m.onLocal:
		return m.local.Focus()
	case m.onOther():
		return m.other.Focus()
	}
	return nil
}

// key moves between the port rows and the local port field (↑/↓, tab)
// and edits the focused field: digits only, leading zeros dropped, the
// local port's default (not typed by the person) replaced by the first
// digit typed. An edit or a move clears the last error.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.busy {
		return nil
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Start):
		return m.start()
	case key.Matches(msg, k.LocalPort):
		m.onLocal = !m.onLocal
		return m.focus()
	case key.Matches(msg, k.Up):
		m.note = ""
		if m.onLocal {
			m.onLocal = false // back to the port row chosen
			return m.focus()
		}
		m.cursor = max(m.cursor-1, 0)
		m.follow()
		return m.focus()
	case key.Matches(msg, k.Down):
		if m.onLocal {
			return nil
		}
		m.note = ""
		if m.cursor == len(m.ports) {
			m.onLocal = true // past the last row: the local port
			return m.focus()
		}
		m.cursor++
		m.follow()
		return m.focus()
	}
	if msg.Type == tea.KeyRunes && strings.IndexFunc(string(msg.Runes), func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		return nil // a port is digits
	}
	var cmd tea.Cmd
	switch {
	case m.onLocal:
		before := m.local.Value()
		if !m.edited && msg.Type == tea.KeyRunes {
			m.local.SetValue("") // the default gives way to what is typed
		}
		m.local, cmd = m.local.Update(msg)
		m.local.SetValue(TrimZeros(m.local.Value()))
		m.local.CursorEnd()
		if m.local.Value() != before {
			m.edited, m.note = true, ""
		}
	case m.onOther():
		before := m.other.Value()
		m.other, cmd = m.other.Update(msg)
		m.other.SetValue(TrimZeros(m.other.Value()))
		m.other.CursorEnd()
		if m.other.Value() != before {
			m.note = ""
		}
		m.follow()
	}
	return cmd
}

// TrimZeros drops a typed port's leading zeros ("09999" is 9999, "000" is
// 0); "" stays "".
func TrimZeros(s string) string {
	t := strings.TrimLeft(s, "0")
	if t == "" && s != "" {
		return "0"
	}
	return t
}

// PassesKey lets the help key (?) through to the root's help overlay: the
// fields take digits only (views.KeyPasser).
func (m *Model) PassesKey(name string) bool { return slices.Contains(m.vc.Keys.Help.Keys(), name) }

// start starts the forward chosen, or says what is missing.
func (m *Model) start() tea.Cmd {
	remote, err := m.remote()
	if err != nil {
		m.note = err.Error()
		return nil
	}
	local, err := ParsePort(m.local.Value(), true)
	if err != nil {
		m.note = "local port: " + err.Error()
		return nil
	}
	m.busy, m.note = true, ""
	owner, fw := m, m.fw
	req := kube.PortForwardRequest{Kind: m.target.Kind, Namespace: m.target.Namespace, Name: m.target.Name, UID: m.target.UID,
		RemotePort: remote, LocalPort: local}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		st, err := fw.StartPortForward(ctx, req)
		return startedMsg{owner: owner, st: st, err: err}
	}
}

// View lists the ports, the typed port and the local port.
func (m *Model) View() string {
	st := m.vc.Styles
	t := m.target
	body := []string{st.Title.Render(fmt.Sprintf("port-forward %s/%s (%s)", t.Kind, views.Sanitize(t.Name), views.Sanitize(t.Namespace)))}
	switch {
	case !m.loaded:
		body = append(body, st.Muted.Render("reading the ports the spec declares…"))
	case m.loadErr != nil:
		body = append(body, st.Error.Render("the ports cannot be read: "+views.Sanitize(m.loadErr.Error())),
			st.Muted.Render("type a port below"))
	case len(m.ports) == 0:
		body = append(body, st.Muted.Render("the spec declares no port: type one below"))
	default:
		body = append(body, st.ColumnHeader.Render("port (the spec declares)"))
	}
	mark := func(i int, text string) string {
		if i == m.cursor && !m.onLocal {
			return st.Selected.Render("▸ " + text)
		}
		return "  " + text
	}
	for i, p := range m.ports {
		l := views.Sanitize(p.Label())
		if p.Protocol != "TCP" {
			l += " (not TCP: cannot be forwarded)"
		}
		body = append(body, mark(i, l))
	}
	body = append(body, mark(len(m.ports), "other port: ["+fmt.Sprintf("%-5s", m.other.View())+"]"))
	local := "local port on 127.0.0.1: [" + fmt.Sprintf("%-5s", m.local.View()) + "]  (0: any free port)"
	if m.onLocal {
		local = st.Selected.Render("▸ " + local)
	} else {
		local = "  " + local
	}
	body = append(body, "", local)
	if t.Kind == "services" {
		body = append(body, st.Muted.Render("  a Service's port goes to its targetPort on one ready pod; the forward moves when that pod goes"))
	} else if t.Kind != kube.KindPods {
		body = append(body, st.Muted.Render("  goes to one ready pod; the forward moves to another when that pod goes"))
	}
	switch {
	case m.busy:
		body = append(body, "", st.Muted.Render("starting…"))
	case m.note != "":
		body = append(body, "", st.Error.Render(m.note))
	}
	k := m.keys
	help := views.Hints(views.Hint("port", k.Up, k.Down), views.Hint("local port", k.LocalPort), views.Hint("forward", k.Start), views.Hint("cancel", k.Back))
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// Title is "port-forward".
func (m *Model) Title() string { return "port-forward" }

// Bindings are the dialog's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{views.HelpOf("choose a port", k.Up, k.Down), k.LocalPort, k.Start, k.Back}
}

// Capturing is true: the dialog takes digits and handles esc itself.
func (m *Model) Capturing() bool { return true }
