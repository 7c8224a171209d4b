package history

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// Model is the `:history` screen: the session's outcomes, newest last,
// scrolled to the end. Use New.
type Model struct {
	vc      *views.Context
	entries []Entry
	path    string // the file they are appended to, "" when none
	offset  int
	keys    Keys
}

// Keys are the :history screen's bindings: its key table is "history".
type Keys struct {
	// Up and Down scroll a line (pgup and pgdn too).
	Up, Down key.Binding
	// Top scrolls to the first entries (g).
	Top key.Binding
}

// KeyTable is the name of the screen's keys in the configuration file's
// key map (views.KeyMap): `keys: {history: {ACTION: KEYS}}`.
const KeyTable = "history"

// DefaultKeys returns the screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:   key.NewBinding(key.WithKeys("up", "k", "pgup"), key.WithHelp("↑/k", "scroll up")),
		Down: key.NewBinding(key.WithKeys("down", "j", "pgdown"), key.WithHelp("↓/j", "scroll down")),
		Top:  key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "the first entries")),
	}
}

// New returns the screen showing entries (the slice is not changed);
// path names the file they are appended to ("" when none is written).
func New(vc *views.Context, entries []Entry, path string) *Model {
	return &Model{vc: vc, entries: entries, path: path, offset: 1 << 30, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
}

// Init does nothing: the entries are in memory.
func (m *Model) Init() tea.Cmd { return nil }

// Update scrolls.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	if k, ok := msg.(tea.KeyMsg); ok {
		switch {
		case key.Matches(k, m.keys.Down):
			m.offset++
		case key.Matches(k, m.keys.Up):
			m.offset = max(m.offset-1, 0)
		case key.Matches(k, m.keys.Top):
			m.offset = 0
		}
	}
	return m, nil
}

// View lists time, context, object, action, outcome code and detail, one
// line each.
func (m *Model) View() string {
	st := m.vc.Styles
	// Columns as wide as their widest cell; the detail takes the rest
	// (wrapped below its line when it does not fit).
	wCtx, wObj, wAct := len("CONTEXT"), len("OBJECT"), len("ACTION")+1
	for _, e := range m.entries {
		wCtx = max(wCtx, len(oneLine(e.Context)))
		wObj = max(wObj, len(oneLine(e.Outcome.Op.Ref.String())))
		wAct = max(wAct, len(e.Outcome.Op.Action))
	}
	format := fmt.Sprintf("%%-8s  %%-%ds  %%-%ds  %%-%ds  %%-19s  %%s", wCtx, wObj, wAct)
	body := []string{st.ColumnHeader.Render(fmt.Sprintf(format, "TIME", "CONTEXT", "OBJECT", "ACTION", "OUTCOME", "DETAIL"))}
	if len(m.entries) == 0 {
		body = append(body, st.Muted.Render("no action in this session yet"))
	}
	for _, e := range m.entries {
		l := fmt.Sprintf(format, e.Time.Format("15:04:05"), oneLine(e.Context),
			oneLine(e.Outcome.Op.Ref.String()), e.Outcome.Op.Action, e.Code(), oneLine(e.Outcome.Detail))
		if !e.Outcome.OK() {
			l = st.Error.Render(l)
		}
		body = append(body, l)
	}
	help := "kept for this session only (the file could not be written)"
	if m.path != "" {
		help = "also appended to " + m.path
	}
	help = views.Hints(views.Hint("scroll", m.keys.Up, m.keys.Down), views.Hint("back", m.vc.Keys.Back), help)
	return views.Page(st, m.vc.Width, m.vc.Height, body, help, &m.offset)
}

// Title is "history[<entries>]".
func (m *Model) Title() string { return fmt.Sprintf("history[%d]", len(m.entries)) }

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding { return []key.Binding{m.keys.Up, m.keys.Down, m.keys.Top} }

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }
