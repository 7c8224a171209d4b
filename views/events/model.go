// Package events is the events screen of one object (`v` on any row): its
// events and those of everything it owns (kube.Client.Events), newest
// first, repeated events once with their count, read again every two
// seconds while the screen shows; `/` filters them by any word of their
// type, reason, object or message.
package events

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Reader is what the screen reads events through; *kube.Client is one.
type Reader interface {
	// Events returns an object's events (kube.Client.Events).
	Events(ctx context.Context, kind kube.Kind, namespace, name string) (kube.ObjectEvents, error)
}

// Every is how often the events are read again while the screen shows.
const Every = 2 * time.Second

// readTimeout bounds one read.
const readTimeout = 30 * time.Second

// columns are the event columns drawn, by name, in order (the events
// kind's LAST SEEN, TYPE, REASON, OBJECT, COUNT, MESSAGE).
var columns = []string{"LAST SEEN", "TYPE", "REASON", "OBJECT", "COUNT", "MESSAGE"}

// Model is the screen. Use New.
type Model struct {
	vc      *views.Context
	rd      Reader
	target  views.OpenEventsMsg
	ev      kube.ObjectEvents
	index   []int // the column index of each of columns
	loaded  bool
	err     error
	reading bool
	shown   []int    // rows matching the filter
	texts   []string // each row's searched text, lower-cased, made once a read
	filter  textinput.Model
	typing  bool
	offset  int
	now     func() time.Time
	epoch   int // ticks of another epoch (the screen left) are dropped
	keys    Keys
}

// New returns the events screen of msg's object, read through rd.
func New(vc *views.Context, rd Reader, msg views.OpenEventsMsg) *Model {
	in := textinput.New()
	in.Prompt = "/"
	in.Cursor.SetMode(cursor.CursorStatic)
	in.PromptStyle, in.TextStyle = vc.Styles.Prompt, vc.Styles.Prompt
	return &Model{vc: vc, rd: rd, target: msg, filter: in, now: time.Now, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// SetClock fixes the clock ages are drawn with (tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

type readMsg struct {
	owner *Model
	ev    kube.ObjectEvents
	err   error
}

type tickMsg struct {
	owner *Model
	epoch int
}

// Init reads the events (again, when the screen is back on top) and
// starts the ticks.
func (m *Model) Init() tea.Cmd {
	m.epoch++
	return m.read()
}

func (m *Model) read() tea.Cmd {
	if m.reading {
		return nil
	}
	m.reading = true
	rd, t, owner := m.rd, m.target, m
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		ev, err := rd.Events(ctx, t.Kind, t.Namespace, t.Name)
		return readMsg{owner: owner, ev: ev, err: err}
	}
}

func (m *Model) tick() tea.Cmd {
	owner, epoch := m, m.epoch
	return tea.Tick(Every, func(time.Time) tea.Msg { return tickMsg{owner: owner, epoch: epoch} })
}

// Update handles the reads, the ticks and the keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case readMsg:
		if msg.owner != m {
			return m, nil
		}
		m.reading, m.loaded, m.err = false, true, msg.err
		if msg.err == nil {
			m.ev = msg.ev
			m.index = m.index[:0]
			for _, name := range columns {
				m.index = append(m.index, columnIndex(msg.ev.Columns, name))
			}
			m.texts = m.texts[:0]
			for i := range m.ev.Rows {
				r := &m.ev.Rows[i]
				m.texts = append(m.texts, strings.ToLower(m.cell(r, 1)+" "+m.cell(r, 2)+" "+m.cell(r, 3)+" "+m.cell(r, 5)))
			}
			m.apply()
		}
		return m, m.tick()
	case tickMsg:
		if msg.owner == m && msg.epoch == m.epoch {
			return m, m.read()
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func columnIndex(cols []kube.Column, name string) int {
	for i, c := range cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// cell is row r's text of drawn column c.
func (m *Model) cell(r *kube.Row, c int) string {
	i := m.index[c]
	if i < 0 || i >= len(r.Cells) {
		return ""
	}
	return r.Cells[i].Render(m.now())
}

// apply keeps the rows whose type, reason, object or message hold every
// word of the filter (case-insensitive).
func (m *Model) apply() {
	words := strings.Fields(strings.ToLower(m.filter.Value()))
	m.shown = m.shown[:0]
	for i, text := range m.texts {
		ok := true
		for _, w := range words {
			if !strings.Contains(text, w) {
				ok = false
				break
			}
		}
		if ok {
			m.shown = append(m.shown, i)
		}
	}
	m.offset = min(m.offset, max(len(m.shown)-1, 0))
}

// key handles one key: while the filter is typed, enter and esc are the
// filter's and the others are typed.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	if m.typing {
		switch msg.Type {
		case tea.KeyEnter:
			m.typing = false
			m.filter.Blur()
			return nil
		case tea.KeyEsc:
			m.typing = false
			m.filter.Blur()
			m.filter.SetValue("")
			m.apply()
			return nil
		}
		var cmd tea.Cmd
		m.filter, cmd = m.filter.Update(msg)
		m.apply()
		return cmd
	}
	k := m.keys
	switch {
	case key.Matches(msg, k.Filter):
		m.typing = true
		return m.filter.Focus()
	case key.Matches(msg, k.Back):
		if m.filter.Value() != "" {
			m.filter.SetValue("")
			m.apply()
			return nil
		}
		m.epoch++ // the ticks stop
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, k.Refresh):
		return m.read()
	case key.Matches(msg, k.Down):
		m.offset = min(m.offset+1, max(len(m.shown)-1, 0))
	case key.Matches(msg, k.Up):
		m.offset = max(m.offset-1, 0)
	case key.Matches(msg, k.Top):
		m.offset = 0
	case key.Matches(msg, k.Bottom):
		m.offset = max(len(m.shown)-1, 0)
	case key.Matches(msg, k.PageDown):
		m.offset = min(m.offset+m.rows(), max(len(m.shown)-1, 0))
	case key.Matches(msg, k.PageUp):
		m.offset = max(m.offset-m.rows(), 0)
	}
	return nil
}

// rows is how many event lines fit.
func (m *Model) rows() int { return max(m.vc.Height-4-len(m.ev.Notes), 1) }

// Title names the object.
func (m *Model) Title() string {
	return views.Sanitize(fmt.Sprintf("events %s/%s", m.target.Kind, m.target.Name))
}

// CapturesBack is true while a filter is kept: the back key clears it
// first, then leaves the screen (views.BackCapturer).
func (m *Model) CapturesBack() bool { return m.filter.Value() != "" }

// Capturing is true while the filter is typed.
func (m *Model) Capturing() bool { return m.typing }

// Bindings are the screen's keys.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Filter, k.Down, k.Up, k.PageDown, k.PageUp, k.Top, k.Bottom, k.Refresh, k.Back}
}

// widths are the drawn columns' widths but the message's, in cells.
var widths = []int{10, 8, 22, 30, 6}

// View draws the header, the notes, the events from the scroll offset,
// and the filter or help line.
func (m *Model) View() string {
	st, w, h := m.vc.Styles, m.vc.Width, m.vc.Height
	head := st.Title.Render(views.Sanitize(fmt.Sprintf("events of %s/%s", m.target.Kind, m.target.Name)))
	switch {
	case !m.loaded:
		return views.Page(st, w, h, []string{head, "", "reading …"}, views.Hint("back", m.keys.Back), new(int))
	case m.err != nil:
		help := views.Hints(views.Hint("read again", m.keys.Refresh), views.Hint("back", m.keys.Back))
		return views.Page(st, w, h, []string{head, "", st.Error.Render(views.Sanitize(views.ErrText(m.err)))}, help, new(int))
	}
	head += st.Muted.Render(fmt.Sprintf(" · %s of it and of what it owns (%s) · newest first · live",
		kube.Plural(len(m.shown), "event"), kube.Plural(m.ev.Objects, "object")))
	out := []string{ansi.Truncate(" "+head, w, "…")}
	for _, n := range m.ev.Notes {
		out = append(out, ansi.Truncate(" "+st.Muted.Render(views.Sanitize(n)), w, "…"))
	}
	var b strings.Builder
	for i, name := range columns[:len(columns)-1] {
		b.WriteString(pad(name, widths[i]))
	}
	b.WriteString(columns[len(columns)-1])
	out = append(out, ansi.Truncate(" "+st.ColumnHeader.Render(b.String()), w, ""))
	if len(m.shown) == 0 {
		out = append(out, " "+st.Muted.Render("no events (Kubernetes keeps them an hour by default)"))
	}
	for _, i := range m.shown[m.offset:min(m.offset+m.rows(), len(m.shown))] {
		r := &m.ev.Rows[i]
		b.Reset()
		for c := range widths {
			b.WriteString(pad(views.Sanitize(m.cell(r, c)), widths[c]))
		}
		b.WriteString(views.Sanitize(m.cell(r, 5)))
		out = append(out, ansi.Truncate(" "+st.Health(r.Health).Render(b.String()), w, "…"))
	}
	for len(out) < h-1 {
		out = append(out, "")
	}
	k := m.keys
	last := " " + st.Muted.Render(views.Hints(views.Hint("filter", k.Filter), views.Hint("scroll", k.Down, k.Up), views.Hint("read now", k.Refresh), views.Hint("back", k.Back)))
	if m.typing || m.filter.Value() != "" {
		last = " " + m.filter.View()
	}
	out = append(out[:min(len(out), h-1)], ansi.Truncate(last, w, "…"))
	return strings.Join(out, "\n")
}

// pad cuts s to width-1 cells and pads it to width.
func pad(s string, width int) string {
	s = ansi.Truncate(s, width-1, "…")
	return s + strings.Repeat(" ", max(width-ansi.StringWidth(s), 0))
}
