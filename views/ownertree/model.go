// Package ownertree is the owner tree screen (`o` on any row): the
// object's owners up to the topmost one and everything they own, a
// Service's selected Pods, each line with its status and its health
// rolled up from below (kube.Client.OwnerTree), so that the broken leaf
// is found from the top. enter describes the line's object, y its YAML,
// r reads the tree again.
package ownertree

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Reader is what the screen reads the tree through; *kube.Client is one.
type Reader interface {
	// OwnerTree returns the tree (kube.Client.OwnerTree).
	OwnerTree(ctx context.Context, kind kube.Kind, namespace, name string) (kube.OwnerTree, error)
}

// readTimeout bounds one read of the tree.
const readTimeout = 30 * time.Second

// line is one drawn node.
type line struct {
	prefix string
	node   *kube.OwnerNode
}

// Model is the screen. Use New.
type Model struct {
	vc      *views.Context
	rd      Reader
	target  views.OpenOwnerTreeMsg
	loaded  bool
	err     error
	notes   []string
	lines   []line
	cursor  int
	offset  int
	reading bool
	keys    Keys
}

// New returns the owner tree screen of msg's object, read through rd.
func New(vc *views.Context, rd Reader, msg views.OpenOwnerTreeMsg) *Model {
	return &Model{vc: vc, rd: rd, target: msg, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

type treeMsg struct {
	owner *Model
	tree  kube.OwnerTree
	err   error
}

// Init reads the tree the first time the screen shows.
func (m *Model) Init() tea.Cmd {
	if m.loaded || m.reading {
		return nil
	}
	return m.read()
}

func (m *Model) read() tea.Cmd {
	m.reading = true
	rd, t, owner := m.rd, m.target, m
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		tree, err := rd.OwnerTree(ctx, t.Kind, t.Namespace, t.Name)
		return treeMsg{owner: owner, tree: tree, err: err}
	}
}

// Update handles the tree read and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case treeMsg:
		if msg.owner == m {
			m.show(msg)
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

// show lays the tree out; the cursor stays on the object it was on, else
// starts on the object asked for.
func (m *Model) show(msg treeMsg) {
	m.reading, m.loaded, m.err = false, true, msg.err
	if msg.err != nil {
		return
	}
	was := ""
	if m.cursor < len(m.lines) {
		was = m.lines[m.cursor].node.UID
	}
	m.notes, m.lines = msg.tree.Notes, nil
	var walk func(n *kube.OwnerNode, lead string, last, top bool)
	walk = func(n *kube.OwnerNode, lead string, last, top bool) {
		prefix, next := "", ""
		if !top {
			prefix, next = lead+"├─ ", lead+"│  "
			if last {
				prefix, next = lead+"└─ ", lead+"   "
			}
		}
		m.lines = append(m.lines, line{prefix: prefix, node: n})
		for i, c := range n.Children {
			walk(c, next, i == len(n.Children)-1, false)
		}
	}
	walk(msg.tree.Root, "", true, true)
	m.cursor = 0
	for i, l := range m.lines {
		if was != "" && l.node.UID == was || was == "" && l.node.Target {
			m.cursor = i
		}
	}
}

// key handles one key.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	switch {
	case key.Matches(msg, k.Back):
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Refresh):
		if !m.reading {
			return m.read()
		}
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.lines)-1, 0))
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Top):
		m.cursor = 0
	case key.Matches(msg, k.Bottom):
		m.cursor = max(len(m.lines)-1, 0)
	case key.Matches(msg, k.PageDown):
		m.cursor = min(m.cursor+m.rows(), max(len(m.lines)-1, 0))
	case key.Matches(msg, k.PageUp):
		m.cursor = max(m.cursor-m.rows(), 0)
	case key.Matches(msg, k.Unhealthy):
		// The next line that is not ok, below the cursor (wrapping).
		for d := 1; d <= len(m.lines); d++ {
			i := (m.cursor + d) % len(m.lines)
			if m.lines[i].node.Health != kube.HealthOK {
				m.cursor = i
				break
			}
		}
	case key.Matches(msg, k.Describe, k.YAML):
		if m.cursor < len(m.lines) {
			n := m.lines[m.cursor].node
			view := views.DescribeView
			if key.Matches(msg, k.YAML) {
				view = views.YAMLView
			}
			msg := views.OpenObjectMsg{View: view, Kind: n.Kind, Namespace: n.Namespace, Name: n.Name}
			return func() tea.Msg { return msg }
		}
	}
	return nil
}

// rows is how many tree lines fit.
func (m *Model) rows() int { return max(m.vc.Height-3-len(m.notes), 1) }

// Title names the object.
func (m *Model) Title() string {
	return views.Sanitize(fmt.Sprintf("owners %s/%s", m.target.Kind, m.target.Name))
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Describe, k.YAML, k.Unhealthy, k.Refresh, k.Back}
}

// View draws the tree: a header, the notes, then the lines around the
// cursor, then the help line.
func (m *Model) View() string {
	st, w, h := m.vc.Styles, m.vc.Width, m.vc.Height
	head := st.Title.Render(views.Sanitize(fmt.Sprintf("owner tree of %s/%s", m.target.Kind, m.target.Name))) +
		st.Muted.Render(" · owner references up and down; a Service's selected pods ~")
	switch {
	case !m.loaded:
		return views.Page(st, w, h, []string{head, "", "reading …"}, views.Hint("back", m.keys.Back), &m.offset)
	case m.err != nil:
		help := views.Hints(views.Hint("read again", m.keys.Refresh), views.Hint("back", m.keys.Back))
		return views.Page(st, w, h, []string{head, "", st.Error.Render(views.Sanitize(views.ErrText(m.err)))}, help, &m.offset)
	}
	out := []string{ansi.Truncate(" "+head, w, "…")}
	for _, n := range m.notes {
		out = append(out, ansi.Truncate(" "+st.Muted.Render(views.Sanitize(n)), w, "…"))
	}
	rows := m.rows()
	start := min(max(m.cursor-rows/2, 0), max(len(m.lines)-rows, 0))
	for i := start; i < min(start+rows, len(m.lines)); i++ {
		out = append(out, m.render(i, w))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	k := m.keys
	help := views.Hints(fmt.Sprintf("%d objects", len(m.lines)), views.Hint("describe", k.Describe), views.Hint("YAML", k.YAML),
		views.Hint("next not ok", k.Unhealthy), views.Hint("again", k.Refresh), views.Hint("back", k.Back))
	out = append(out[:min(len(out), h-1)], ansi.Truncate(" "+st.Muted.Render(help), w, "…"))
	return strings.Join(out, "\n")
}

// render draws tree line i: the branch, the marker of the rolled-up
// health, kind/name, the status; the target in bold, the cursor line
// highlighted.
func (m *Model) render(i, w int) string {
	st, l := m.vc.Styles, m.lines[i]
	n := l.node
	sel := ""
	if n.Selected {
		sel = "~"
	}
	marker := views.HealthMarker(n.Worst)
	text := fmt.Sprintf("%s%s%s %s/%s", l.prefix, sel, marker, n.Kind, n.Name)
	if n.Target {
		text += " ◂"
	}
	status := n.Status
	if n.Worst > n.Health {
		status += " (below: " + n.Worst.String() + ")"
	}
	s := " " + views.Sanitize(text) + "  " + st.Health(n.Health).Render(views.Sanitize(status))
	if i == m.cursor {
		s = " " + st.Selected.Render(ansi.Strip(views.Sanitize(text)+"  "+views.Sanitize(status)))
	}
	return ansi.Truncate(s, w, "…")
}
