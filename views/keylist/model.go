// Package keylist is the `:keys` screen (issue 27): every key in force on
// every screen, by key table and action, with where each came from (the
// default or the configuration file's `keys:`), the hotkeys, and a filter.
package keylist

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/views"
)

// Row is one action's keys.
type Row struct {
	// Table is the key table's name in the configuration file ("table",
	// "logs", "global"; "hotkeys" for the hotkeys); Screens says where it
	// acts.
	Table, Screens string
	// Action is the action's name in the file ("page-down", "delete"), a
	// hotkey's alias (":web").
	Action string
	// Keys are the keys in force, as Bubble Tea names them; none: the
	// action is unbound.
	Keys []string
	// Help says what the action does ("" when the screen gives no text).
	Help string
	// FromFile is set when the configuration file binds the action.
	FromFile bool
}

// Keys are the screen's bindings.
type Keys struct {
	// Up, Down, PageUp, PageDown, Top and Bottom scroll the list.
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	// Filter opens the filter (`/`): only the lines holding the text stay
	// (a table's name keeps its lines); esc clears it.
	Filter key.Binding
}

// KeyTable is the name of this screen's keys in the configuration file's
// key map (views.KeyMap): `keys: {keys: {ACTION: KEYS}}`.
const KeyTable = "keys"

// DefaultKeys returns the screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter (a table's name, an action, a key)")),
	}
}

// Model is the `:keys` screen. Use New.
type Model struct {
	vc     *views.Context
	rows   []Row
	path   string
	keys   Keys
	input  textinput.Model
	filter string
	offset int
}

// New returns the screen listing rows (in their order); path is the
// configuration file the FromFile rows come from ("" when none).
func New(vc *views.Context, rows []Row, path string) *Model {
	in := textinput.New()
	in.Prompt = "/"
	return &Model{vc: vc, rows: rows, path: path, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), input: in}
}

// Init does nothing: the rows are in memory.
func (m *Model) Init() tea.Cmd { return nil }

// Update scrolls and filters.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	k, ok := msg.(tea.KeyMsg)
	if !ok {
		return m, nil
	}
	if m.input.Focused() {
		switch k.String() {
		case "enter":
			m.input.Blur()
		case "esc":
			m.input.Blur()
			m.input.SetValue("")
		default:
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			m.filter, m.offset = m.input.Value(), 0
			return m, cmd
		}
		m.filter, m.offset = m.input.Value(), 0
		return m, nil
	}
	page := max(m.vc.Height-3, 1)
	switch {
	case key.Matches(k, m.keys.Down):
		m.offset++
	case key.Matches(k, m.keys.Up):
		m.offset = max(m.offset-1, 0)
	case key.Matches(k, m.keys.PageDown):
		m.offset += page
	case key.Matches(k, m.keys.PageUp):
		m.offset = max(m.offset-page, 0)
	case key.Matches(k, m.keys.Top):
		m.offset = 0
	case key.Matches(k, m.keys.Bottom):
		m.offset = 1 << 30
	case key.Matches(k, m.keys.Filter):
		m.input.SetValue(m.filter)
		return m, m.input.Focus()
	case k.String() == "esc" && m.filter != "":
		m.filter, m.offset = "", 0
		m.input.SetValue("")
	}
	return m, nil
}

// lines are the list's lines: a heading per table, then one line per
// action (ACTION, KEYS, FROM, WHAT), those holding the filter only (all
// of a table whose heading holds it).
func (m *Model) lines() []string {
	st := m.vc.Styles
	wAction, wKeys := len("ACTION"), len("KEYS")
	for _, r := range m.rows {
		wAction, wKeys = max(wAction, len(r.Action)), max(wKeys, len(keysText(r.Keys)))
	}
	format := fmt.Sprintf("  %%-%ds  %%-%ds  %%-7s  %%s", wAction, wKeys)
	out := []string{st.ColumnHeader.Render(fmt.Sprintf(format, "ACTION", "KEYS", "FROM", "WHAT"))}
	want := strings.ToLower(m.filter)
	last := ""
	for _, r := range m.rows {
		heading := r.Table + " — " + r.Screens
		line := fmt.Sprintf(format, r.Action, keysText(r.Keys), from(r), r.Help)
		if want != "" && !strings.Contains(strings.ToLower(heading), want) && !strings.Contains(strings.ToLower(line), want) {
			continue
		}
		if r.Table != last {
			out = append(out, st.HeaderKey.Render(heading))
			last = r.Table
		}
		out = append(out, line)
	}
	if len(out) == 1 {
		out = append(out, st.Muted.Render("no key matches "+views.Echo(m.filter, m.vc.Width)))
	}
	return out
}

func keysText(keys []string) string {
	if len(keys) == 0 {
		return "(none)"
	}
	return views.KeyHelp(keys)
}

func from(r Row) string {
	if r.FromFile {
		return "file"
	}
	return "default"
}

// View draws the list in Context.Width x Context.Height cells, the filter
// prompt or the help line at the bottom.
func (m *Model) View() string {
	k := m.keys
	help := views.Hints(views.Hint("scroll", k.Up, k.Down), views.Hint("filter", k.Filter), views.Hint("back", m.vc.Keys.Back), "rebind in "+m.fileName())
	if m.input.Focused() {
		help = m.input.View()
	} else if m.filter != "" {
		help = "/" + views.Echo(m.filter, m.vc.Width) + " · esc clears · " + help // esc: the screen's own (CapturesBack)
	}
	return views.Page(m.vc.Styles, m.vc.Width, m.vc.Height, m.lines(), help, &m.offset)
}

func (m *Model) fileName() string {
	if m.path == "" {
		return "the configuration file's keys:"
	}
	return m.path + " (keys:)"
}

// Title is "keys[<actions>]", with the filter when one is set.
func (m *Model) Title() string {
	t := fmt.Sprintf("keys[%d]", len(m.rows))
	if m.filter != "" {
		t += " /" + m.filter
	}
	return t
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Filter}
}

// Capturing is set while the filter is typed.
func (m *Model) Capturing() bool { return m.input.Focused() }

// CapturesBack is set while a filter is set: esc clears it first.
func (m *Model) CapturesBack() bool { return m.filter != "" }
