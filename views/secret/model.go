// Package secret is the decoded view of one Secret (x on a Secret's row):
// its keys with their sizes, each value hidden until the person reveals
// it. The values are read fresh when the screen opens (never from a
// cache), held only while it is shown, and never written to a log, the
// status line or the history. e edits them through the YAML edit
// (views/yamledit), the safe write path every edit takes.
package secret

import (
	"context"
	"encoding/base64"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Reader reads a Secret's values; *kube.Client is one.
type Reader interface {
	// SecretValues reads the Secret fresh (kube.Client.SecretValues).
	SecretValues(ctx context.Context, namespace, name string) (*kube.SecretData, error)
}

// readTimeout bounds the read.
const readTimeout = 30 * time.Second

// maxValueLines is how many lines of a revealed value are shown.
const maxValueLines = 20

// Model is the decoded view. Make it with New.
type Model struct {
	vc       *views.Context
	rd       Reader
	req      views.OpenSecretMsg
	data     *kube.SecretData
	err      error
	reading  bool
	cursor   int
	revealed map[string]bool
	offset   int
	keys     Keys
}

// New returns the decoded view of the Secret req names, read through rd.
func New(vc *views.Context, rd Reader, req views.OpenSecretMsg) *Model {
	return &Model{vc: vc, rd: rd, req: req, revealed: map[string]bool{}, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// readMsg is the read's answer.
type readMsg struct {
	owner *Model
	data  *kube.SecretData
	err   error
}

// Init reads the Secret the first time.
func (m *Model) Init() tea.Cmd {
	if m.data != nil || m.err != nil || m.reading {
		return nil
	}
	return m.read()
}

// read reads the Secret fresh; revealed values are hidden again.
func (m *Model) read() tea.Cmd {
	m.reading, m.revealed = true, map[string]bool{}
	rd, r, owner := m.rd, m.req, m
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		d, err := rd.SecretValues(ctx, r.Namespace, r.Name)
		return readMsg{owner: owner, data: d, err: err}
	}
}

// Close drops the values (views.Closer): nothing of them outlives the screen.
func (m *Model) Close() { m.data, m.revealed = nil, map[string]bool{} }

// Keys are the decoded view's bindings: its key table is "secret".
type Keys struct {
	// Up and Down move the cursor.
	Up, Down key.Binding
	// Reveal reveals the cursor's value, or hides it again (enter,
	// space).
	Reveal key.Binding
	// Edit edits the values, decoded, in the YAML edit (e).
	Edit key.Binding
	// Refresh reads the Secret again and hides every value (ctrl+r).
	Refresh key.Binding
	// Back leaves the screen; the values are dropped (esc).
	Back key.Binding
}

// KeyTable is the name of the decoded view's keys in the configuration
// file's key map (views.KeyMap): `keys: {secret: {ACTION: KEYS}}`.
const KeyTable = "secret"

// DefaultKeys returns the decoded view's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑", "move")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "move")),
		Reveal:  key.NewBinding(key.WithKeys("enter", " "), key.WithHelp("enter/space", "reveal or hide the value")),
		Edit:    key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit the values (YAML edit, decoded)")),
		Refresh: key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read again (hides every value)")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back (the values are dropped)")),
	}
}

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{views.HelpOf("move", k.Up, k.Down), k.Reveal, k.Edit, k.Refresh, k.Back}
}

// Capturing is false: no text is typed here.
func (m *Model) Capturing() bool { return false }

// Title names the Secret.
func (m *Model) Title() string {
	return views.Sanitize(fmt.Sprintf("secret %s(%s)", m.req.Name, m.req.Namespace))
}

// Update takes the read and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case readMsg:
		if msg.owner == m {
			m.reading, m.data, m.err = false, msg.data, msg.err
			if m.data != nil {
				m.cursor = min(m.cursor, max(len(m.data.Values)-1, 0))
			}
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// key handles one key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	n := 0
	if m.data != nil {
		n = len(m.data.Values)
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = max(min(m.cursor+1, n-1), 0)
	case key.Matches(msg, k.Reveal):
		if n > 0 {
			k := m.data.Values[m.cursor].Key
			m.revealed[k] = !m.revealed[k]
		}
	case key.Matches(msg, k.Edit):
		r := views.OpenYAMLEditMsg{Kind: "secrets", Namespace: m.req.Namespace, Name: m.req.Name}
		return func() tea.Msg { return r }
	case key.Matches(msg, k.Refresh):
		return m.read()
	case key.Matches(msg, k.Back):
		return func() tea.Msg { return views.BackMsg{} }
	}
	return nil
}

// View draws the keys, sizes and the values revealed.
func (m *Model) View() string {
	st := m.vc.Styles
	w, h := m.vc.Width, m.vc.Height
	k := m.keys
	again, back := views.Hint("read again", k.Refresh), views.Hint("back", k.Back)
	help := views.Hints(views.Hint("reveal/hide", k.Reveal), views.Hint("edit", k.Edit), again, back)
	switch {
	case m.err != nil:
		return views.Page(st, w, h, []string{st.Error.Render(fmt.Sprintf("cannot read secret %s/%s: %s", m.req.Namespace, m.req.Name, views.ErrText(m.err)))}, views.Hints(again, back), &m.offset)
	case m.data == nil:
		return views.Page(st, w, h, []string{"reading secret " + m.req.Namespace + "/" + m.req.Name + " …"}, back, &m.offset)
	}
	d := m.data
	hidden := "values hidden until revealed"
	if r := views.FirstKey(k.Reveal); r != "" {
		hidden += " (" + r + ")"
	}
	body := []string{fmt.Sprintf("secret %s · %s · %s · %s", d.Ref, d.Type, kube.Plural(len(d.Values), "key"), hidden)}
	if len(d.Values) == 0 {
		body = append(body, "", st.Muted.Render("no data"))
		return views.Page(st, w, h, body, help, &m.offset)
	}
	kw := 3
	for _, v := range d.Values {
		kw = max(kw, min(ansi.StringWidth(views.Sanitize(v.Key)), 40))
	}
	body = append(body, "", st.ColumnHeader.Render(fmt.Sprintf("  %-*s  %-12s  %s", kw, "KEY", "SIZE", "VALUE")))
	cursorLine := 0
	for i, v := range d.Values {
		mark := " "
		if i == m.cursor {
			mark, cursorLine = ">", len(body)
		}
		size := kube.Plural(len(v.Value), "byte")
		line := fmt.Sprintf("%s %-*s  %-12s  ", mark, kw, ansi.Truncate(views.Sanitize(v.Key), kw, "…"), size)
		if !m.revealed[v.Key] {
			hidden := "••••••••"
			if !v.Text {
				hidden += " (binary: base64 when revealed)"
			}
			line += st.Muted.Render(hidden)
			body = append(body, m.row(i, line))
			continue
		}
		lines := valueLines(v)
		body = append(body, m.row(i, line+lines[0]))
		for _, l := range lines[1:] {
			body = append(body, strings.Repeat(" ", kw+18)+l)
		}
	}
	// Keep the cursor's line in sight.
	rest := max(h-2, 1)
	if cursorLine < m.offset {
		m.offset = cursorLine
	} else if cursorLine >= m.offset+rest {
		m.offset = cursorLine - rest + 1
	}
	return views.Page(st, w, h, body, help, &m.offset)
}

// row draws row i's line, the cursor's selected.
func (m *Model) row(i int, line string) string {
	if i == m.cursor {
		return m.vc.Styles.Selected.Render(line)
	}
	return line
}

// valueLines are a revealed value's lines: text sanitised (escape
// sequences and control characters shown, never obeyed), at most
// maxValueLines of them; a binary value as base64.
func valueLines(v kube.SecretValue) []string {
	if !v.Text {
		return []string{base64.StdEncoding.EncodeToString(v.Value) + " (base64)"}
	}
	s := strings.ReplaceAll(string(v.Value), "\r\n", "\n")
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	out := make([]string, 0, min(len(lines), maxValueLines+1))
	for i, l := range lines {
		if i == maxValueLines {
			out = append(out, fmt.Sprintf("… %s", kube.Plural(len(lines)-maxValueLines, "more line")))
			break
		}
		out = append(out, views.Sanitize(l))
	}
	if len(out) == 0 {
		out = []string{""}
	}
	return out
}
