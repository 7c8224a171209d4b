// Package pickers holds the modal choosers the root opens over the current
// screen: the namespace picker (a key on any inventory screen) and the
// kubeconfig context picker (`:ctx`). A picker is a list with a filter:
// typing narrows it, up/down move, enter picks, esc cancels. When the list
// cannot be read (a user who may not list namespaces, casebook C13) the
// namespace picker says why and takes the typed name instead.
package pickers

import (
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Keys are a picker's bindings. Letters, digits and '-' are the filter's
// text, so moving is on the arrow keys (and emacs' ctrl+p/ctrl+n).
type Keys struct {
	Up, Down, PageUp, PageDown, Pick, Cancel key.Binding
	// Mark marks the cursor's item, where several can be picked (the
	// context picker: a fleet).
	Mark key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {picker: {ACTION: KEYS}}`.
const KeyTable = "picker"

// DefaultKeys returns a picker's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:       key.NewBinding(key.WithKeys("up", "ctrl+p"), key.WithHelp("↑", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "ctrl+n"), key.WithHelp("↓", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Pick:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "pick (or take the typed name)")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "cancel")),
		Mark:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "mark several (enter: all the marked at once)")),
	}
}

// item is one choice: what is shown, and what picking it means.
type item struct {
	label string
	value string
}

// Model is a picker screen. Use NewNamespaces or NewContexts.
type Model struct {
	vc    *views.Context
	keys  Keys
	noun  string // "namespace" or "context", for the texts
	title string

	items   []item
	current string // the value in use now, marked in the list
	mark    string // how current is marked; "(current)" when empty
	shown   []int  // indexes of items that match the filter, in order
	cursor  int    // index into shown
	offset  int    // first shown item drawn

	input textinput.Model
	// loading is set until the list is read; typed is set when it could
	// not be: enter then takes the typed text.
	loading, typed bool
	notice         string // why the list is missing, or that it is loading
	scope          string // a line above the others: the kind is cluster-scoped
	problem        string // why the last enter was refused
	// pick turns the chosen value into the message for the root;
	// validate, when set, checks a typed value first. pickMany, when set,
	// lets several be marked (Keys.Mark, marked) and picked at once.
	pick     func(value string) tea.Cmd
	pickMany func(values []string) tea.Cmd
	marked   map[string]bool
	validate func(value string) error
	// allWords are typed words that mean the value "" (a namespace
	// picker's "all", as `:pods all`), taken before validate.
	allWords []string
}

func newModel(vc *views.Context, noun string, current string, pick func(string) tea.Cmd) *Model {
	in := textinput.New()
	in.Prompt = noun + ": "
	in.Placeholder = "type to filter"
	in.Cursor.SetMode(cursor.CursorStatic)
	in.PromptStyle = vc.Styles.Prompt
	in.TextStyle = vc.Styles.Prompt
	in.PlaceholderStyle = vc.Styles.Muted
	in.Focus()
	return &Model{vc: vc, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), noun: noun, current: current, input: in, pick: pick}
}

// setItems replaces the choices and puts the cursor on the current one.
func (m *Model) setItems(items []item) {
	m.items = items
	m.filter()
	for i, idx := range m.shown {
		if m.isCurrent(m.items[idx].value) {
			m.cursor = i
		}
	}
	m.scroll()
}

// Title names the picker in the title bar.
func (m *Model) Title() string { return m.title }

// Capturing is always true: every letter is filter text, so the root
// applies no global key but ctrl+c while a picker is open.
func (m *Model) Capturing() bool { return true }

// Bindings are the picker's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	if m.pickMany != nil {
		return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Mark, k.Pick, k.Cancel}
	}
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Pick, k.Cancel}
}

// Filter returns the text typed so far.
func (m *Model) Filter() string { return m.input.Value() }

// Choices returns the values the filter leaves, in the order shown ("" is
// "all namespaces"). It is empty while the list is loading or when it
// could not be read.
func (m *Model) Choices() []string {
	out := make([]string, len(m.shown))
	for i, idx := range m.shown {
		out[i] = m.items[idx].value
	}
	return out
}

// Update handles keys; a namespace picker also takes its list when read.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotMsg:
		if msg.owner == m {
			m.apply(msg)
		}
		return m, nil
	case tea.WindowSizeMsg:
		m.scroll()
		return m, nil
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	switch {
	case key.Matches(msg, m.keys.Cancel):
		return func() tea.Msg { return views.BackMsg{} }
	case key.Matches(msg, m.keys.Pick):
		return m.choose()
	case m.pickMany != nil && key.Matches(msg, m.keys.Mark):
		m.toggleMark()
	case key.Matches(msg, m.keys.Up):
		m.cursor--
	case key.Matches(msg, m.keys.Down):
		m.cursor++
	case key.Matches(msg, m.keys.PageUp):
		m.cursor -= m.listHeight()
	case key.Matches(msg, m.keys.PageDown):
		m.cursor += m.listHeight()
	default:
		before := m.input.Value()
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		if m.input.Value() != before {
			m.problem = ""
			m.filter()
		}
		return cmd
	}
	m.scroll()
	return nil
}

// choose picks the item under the cursor or, when the list could not be
// read (or is still loading), the typed text once it is valid.
func (m *Model) choose() tea.Cmd {
	if marked := m.markedValues(); len(marked) >= 2 {
		return m.pickMany(marked)
	} else if len(marked) == 1 {
		return m.pick(marked[0])
	}
	typed := strings.TrimSpace(m.input.Value())
	if m.typed || m.loading {
		if slices.Contains(m.allWords, typed) {
			return m.pick("")
		}
		if m.validate != nil {
			if err := m.validate(typed); err != nil {
				m.problem = err.Error()
				return nil
			}
		}
		if typed == "" {
			m.problem = "type a " + m.noun + " name"
			return nil
		}
		return m.pick(typed)
	}
	if len(m.shown) == 0 {
		m.problem = "no " + m.noun + " matches " + strconv.Quote(views.Echo(typed, m.vc.Width))
		return nil
	}
	return m.pick(m.items[m.shown[m.cursor]].value)
}

// toggleMark marks or unmarks the item under the cursor and moves down.
func (m *Model) toggleMark() {
	if len(m.shown) == 0 {
		return
	}
	if m.marked == nil {
		m.marked = map[string]bool{}
	}
	v := m.items[m.shown[m.cursor]].value
	if m.marked[v] {
		delete(m.marked, v)
	} else {
		m.marked[v] = true
	}
	m.cursor++
}

// markedValues returns the marked items' values, in list order (hidden
// by the filter or not).
func (m *Model) markedValues() []string {
	var out []string
	for _, it := range m.items {
		if m.marked[it.value] {
			out = append(out, it.value)
		}
	}
	return out
}

// Hint is the status line's help while the picker is open: what typing,
// enter and esc do. Without a list (it cannot be read, or is still being
// read) typing is a name for enter to open, not a filter.
func (m *Model) Hint() string {
	k := m.keys
	pick, cancel := views.Hint("open", k.Pick), views.Hint("cancel", k.Cancel)
	switch {
	case m.typed && len(m.allWords) > 0:
		return spaced("type a "+m.noun+" name ("+m.allWords[0]+": all namespaces)", pick, cancel, "ctrl+c quit")
	case m.typed:
		return spaced("type a "+m.noun+" name", pick, cancel, "ctrl+c quit")
	case m.loading:
		return spaced("type a "+m.noun+" name or wait for the list", pick, cancel, "ctrl+c quit")
	}
	if n := len(m.markedValues()); n > 0 {
		return spaced("type to filter", views.Hint("mark", k.Mark), views.Hint("the "+strconv.Itoa(n)+" marked at once", k.Pick), cancel, "ctrl+c quit")
	}
	if m.pickMany != nil {
		return spaced("type to filter", views.Hint("mark several", k.Mark), views.Hint("pick", k.Pick), cancel, "ctrl+c quit")
	}
	return spaced("type to filter", views.Hint("pick", k.Pick), cancel, "ctrl+c quit")
}

// spaced joins the parts of a picker's hint that are not "" with two
// spaces (an unbound key's part is "").
func spaced(parts ...string) string { return views.JoinHints("  ", parts...) }

// filter keeps the items whose label contains the typed text, ignoring
// case, and moves the cursor to the first of them.
func (m *Model) filter() {
	f := strings.ToLower(strings.TrimSpace(m.input.Value()))
	m.shown = m.shown[:0]
	for i, it := range m.items {
		if f == "" || strings.Contains(strings.ToLower(it.label), f) {
			m.shown = append(m.shown, i)
		}
	}
	m.cursor, m.offset = 0, 0
}

// scroll keeps the cursor within the list and on the screen.
func (m *Model) scroll() {
	m.cursor = max(min(m.cursor, len(m.shown)-1), 0)
	m.offset = views.Window(m.cursor, m.offset, m.listHeight(), len(m.shown))
}

// messageLines returns the lines drawn between the input and the list: the
// scope line, if any, the refusal of the last enter, the notice (wrapped to the width), or the
// hint with the count.
func (m *Model) messageLines() []string {
	st := m.vc.Styles
	w := max(m.vc.Width, 1)
	var lines []string
	if m.scope != "" {
		lines = append(lines, strings.Split(ansi.Wrap(m.scope, w, ""), "\n")...)
	}
	if m.problem != "" {
		for _, l := range strings.Split(ansi.Wrap(views.Sanitize(m.problem), w, ""), "\n") {
			lines = append(lines, st.Error.Render(l))
		}
	}
	if m.notice != "" {
		lines = append(lines, strings.Split(ansi.Wrap(m.notice, w, ""), "\n")...)
		return lines
	}
	if m.problem == "" {
		k := m.keys
		move, cancel := views.Hint("move", k.Up, k.Down), views.Hint("cancel", k.Cancel)
		count := strconv.Itoa(len(m.shown)) + " of " + strconv.Itoa(len(m.items))
		hint := spaced(move, views.Hint("pick", k.Pick), cancel, count)
		if n := len(m.markedValues()); n > 0 {
			hint = spaced(move, views.Hint("mark", k.Mark), views.Hint("the "+strconv.Itoa(n)+" marked at once", k.Pick), cancel, count)
		} else if m.pickMany != nil {
			hint = spaced(move, views.Hint("pick", k.Pick), views.Hint("mark several", k.Mark), cancel, count)
		}
		lines = append(lines, st.Muted.Render(ansi.Truncate(hint, w, "…")))
	}
	return lines
}

// listHeight is the number of list rows that fit under the input and the
// message lines.
func (m *Model) listHeight() int {
	return max(m.vc.Height-1-len(m.messageLines()), 1)
}

// View draws the input, the message lines and the visible part of the
// list, in exactly Context.Width x Context.Height cells.
func (m *Model) View() string {
	st := m.vc.Styles
	w, h := max(m.vc.Width, 1), max(m.vc.Height, 1)
	m.input.Width = max(w-ansi.StringWidth(m.input.Prompt)-1, 1)
	lines := []string{m.inputView(w)}
	lines = append(lines, m.messageLines()...)
	for i := m.offset; i < len(m.shown) && len(lines) < h; i++ {
		it := m.items[m.shown[i]]
		text := views.Sanitize(it.label)
		if m.isCurrent(it.value) {
			mark := m.mark
			if mark == "" {
				mark = "(current)"
			}
			text += "  " + mark
		}
		marker := "  "
		switch {
		case i == m.cursor && m.marked[it.value]:
			marker = "»*"
		case i == m.cursor:
			marker = "> "
		case m.marked[it.value]:
			marker = " *"
		}
		if i == m.cursor {
			lines = append(lines, st.Selected.Render(padRight(ansi.Truncate(marker+text, w, "…"), w)))
			continue
		}
		lines = append(lines, ansi.Truncate(marker+text, w, "…"))
	}
	if len(lines) > h {
		lines = lines[:h]
	}
	for i, l := range lines {
		lines[i] = padRight(ansi.Truncate(l, w, "…"), w)
	}
	for len(lines) < h {
		lines = append(lines, strings.Repeat(" ", w))
	}
	return strings.Join(lines, "\n")
}

// inputView draws the input line in w cells. A placeholder that does not
// fit ends in "…", or is left out when too little of it would show, so
// that it never reads like typed text ("namespace: t").
func (m *Model) inputView(w int) string {
	if m.input.Value() != "" || m.input.Placeholder == "" {
		return m.input.View()
	}
	in := m.input // a copy: the placeholder and width are for this frame only
	room := w - ansi.StringWidth(in.Prompt)
	if ansi.StringWidth(in.Placeholder) > room {
		in.Placeholder = ""
		if room >= 6 {
			in.Placeholder = ansi.Truncate(m.input.Placeholder, room, "…")
		}
	}
	if in.Placeholder != "" {
		// textinput fits a placeholder into its width less the prompt's.
		in.Width = max(w, 1)
	}
	return in.View()
}

func padRight(s string, n int) string {
	if w := ansi.StringWidth(s); w < n {
		return s + strings.Repeat(" ", n-w)
	}
	return s
}

// isCurrent reports whether value is the one in use now, or one of the
// several namespaces in use ("shop,web": each is marked current).
func (m *Model) isCurrent(value string) bool {
	if value == m.current {
		return true
	}
	return m.noun == "namespace" && value != "" && kube.SeveralNamespaces(m.current) &&
		slices.Contains(kube.SplitNamespaces(m.current), value)
}
