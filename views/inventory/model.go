// Package inventory is the table screen: one kind's objects in a namespace,
// refreshed by periodic snapshots, with a cursor, paging and drill-down.
package inventory

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

// minWidth and minHeight are the smallest area a table is drawn in: the
// notice line, the header and one row. chromeAllowance is what the root
// draws around a screen, for the message.
const (
	minWidth        = 20
	minHeight       = 3
	chromeAllowance = 4
)

// snapshotTimeout bounds one refresh; each list inside it has the client's
// own, shorter budget.
const snapshotTimeout = 30 * time.Second

// Keys are the inventory screen's bindings.
type Keys struct {
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Wide, Refresh key.Binding
}

// DefaultKeys returns the inventory screen's default bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "ctrl+b"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "ctrl+f"), key.WithHelp("pgdn", "page down")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open: namespace → pods, workload/node/service → its pods, pod → containers")),
		Wide:     key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wide columns")),
		Refresh:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "refresh now")),
	}
}

// Model is an inventory screen. Use New; the zero value is not usable.
type Model struct {
	vc        *views.Context
	keys      Keys
	info      kube.KindInfo
	namespace string
	selector  kube.Selector // a drill-down's narrowing
	parent    string        // "<kind>/<name>" of a drill-down
	now       func() time.Time

	token   int // refresh chain id; bumped by Init so old ticks die
	loaded  bool
	gen     uint64
	table   kube.Table
	failure *kube.Truncation // last refresh's failure for this kind, if any
	taken   time.Time        // when the shown rows were read

	wide   bool
	lay    layout
	cursor int
	offset int
}

// snapshotMsg carries a finished refresh to the screen that asked for it.
type snapshotMsg struct {
	owner *Model
	token int
	snap  kube.Snapshot
}

// tickMsg starts the next refresh of a screen's chain.
type tickMsg struct {
	owner *Model
	token int
}

// New returns an inventory screen for a kind (plugin id or alias) in
// namespace ("" for all namespaces). Errors: the kind is unknown.
func New(vc *views.Context, kind kube.Kind, namespace string) (*Model, error) {
	info, ok := vc.Client.Kind(string(kind))
	if !ok {
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if !info.Namespaced {
		namespace = ""
	}
	return &Model{vc: vc, keys: DefaultKeys(), info: info, namespace: namespace, now: time.Now}, nil
}

// Narrow limits the screen to a drill-down's objects: sel selects them, and
// parent ("deployments/web") names what they belong to in the title.
func (m *Model) Narrow(sel kube.Selector, parent string) {
	m.selector, m.parent = sel, parent
}

// SetClock replaces the clock ages are drawn with (fixed in tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Kind returns the plugin id the screen shows.
func (m *Model) Kind() kube.Kind { return m.info.ID }

// Namespace returns the namespace the screen shows ("" for all).
func (m *Model) Namespace() string { return m.namespace }

// Init starts (or restarts) the refresh chain with an immediate snapshot.
func (m *Model) Init() tea.Cmd {
	m.token++
	return m.fetch()
}

func (m *Model) fetch() tea.Cmd {
	owner, token := m, m.token
	req := kube.SnapshotRequest{Kinds: []kube.Kind{m.info.ID}, Namespace: m.namespace, Selector: m.selector}
	client := m.vc.Client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		return snapshotMsg{owner: owner, token: token, snap: client.Snapshot(ctx, req)}
	}
}

// Update handles keys and refresh messages.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		m.apply(msg.snap)
		owner, token := m, m.token
		return m, tea.Tick(m.vc.Config.RefreshInterval, func(time.Time) tea.Msg { return tickMsg{owner: owner, token: token} })
	case tickMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		return m, m.fetch()
	case tea.KeyMsg:
		return m, m.handleKey(msg)
	case tea.WindowSizeMsg:
		m.scroll()
	}
	return m, nil
}

// apply takes a snapshot in. Rows and layout are only rebuilt when the
// snapshot's generation changed; a failed refresh keeps the rows it had.
func (m *Model) apply(s kube.Snapshot) {
	if t, ok := s.Truncation(m.info.ID); ok {
		m.failure = &t
		return
	}
	m.failure = nil
	t, _ := s.Table(m.info.ID)
	if m.loaded && s.Generation == m.gen {
		m.taken = s.Taken
		return
	}
	var selected string
	if m.cursor < len(m.table.Rows) {
		selected = m.table.Rows[m.cursor].UID
	}
	m.loaded, m.gen, m.table, m.taken = true, s.Generation, t, s.Taken
	m.relayout()
	m.cursor = min(m.cursor, max(len(t.Rows)-1, 0))
	if selected != "" {
		for i := range t.Rows {
			if t.Rows[i].UID == selected {
				m.cursor = i
				break
			}
		}
	}
	m.scroll()
}

func (m *Model) relayout() {
	m.lay = newLayout(m.table, m.wide, m.info.Namespaced && m.namespace == "")
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	page := m.bodyHeight()
	switch {
	case key.Matches(msg, m.keys.Up):
		m.cursor--
	case key.Matches(msg, m.keys.Down):
		m.cursor++
	case key.Matches(msg, m.keys.PageUp):
		m.cursor -= page
		m.offset -= page
	case key.Matches(msg, m.keys.PageDown):
		m.cursor += page
		m.offset += page
	case key.Matches(msg, m.keys.Top):
		m.cursor = 0
	case key.Matches(msg, m.keys.Bottom):
		m.cursor = len(m.table.Rows) - 1
	case key.Matches(msg, m.keys.Wide):
		m.wide = !m.wide
		m.relayout()
	case key.Matches(msg, m.keys.Refresh):
		m.token++
		return m.fetch()
	case key.Matches(msg, m.keys.Open):
		return m.open()
	}
	m.cursor = max(min(m.cursor, len(m.table.Rows)-1), 0)
	m.scroll()
	return nil
}

// open drills down from the selected row (a Namespace opens its pods, a
// Deployment the pods it selects, a Pod its containers). The Source works
// out the target off the UI goroutine; a failure becomes a status line.
func (m *Model) open() tea.Cmd {
	if m.info.DrillDown == "" || m.cursor >= len(m.table.Rows) {
		return nil
	}
	row := m.table.Rows[m.cursor]
	kind, client := m.info.ID, m.vc.Client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		req, err := client.DrillDown(ctx, kind, row.Namespace, row.Name)
		if err != nil {
			reason := kube.ReasonOf(err)
			return views.StatusMsg{Error: true, Text: fmt.Sprintf("cannot open %s/%s: %s (%s)", kind, row.Name, reason.Sentence(), err)}
		}
		msg := views.OpenKindMsg{Kind: req.Kinds[0], Namespace: req.Namespace, Selector: req.Selector}
		if !req.Selector.IsZero() {
			msg.Parent = string(kind) + "/" + row.Name
		}
		return msg
	}
}

// bodyHeight is the number of table rows that fit: the screen less the
// column header and the notice line.
func (m *Model) bodyHeight() int { return max(m.vc.Height-2, 1) }

// scroll keeps the cursor inside the visible window.
func (m *Model) scroll() {
	h := m.bodyHeight()
	if m.cursor < m.offset {
		m.offset = m.cursor
	}
	if m.cursor >= m.offset+h {
		m.offset = m.cursor - h + 1
	}
	m.offset = max(min(m.offset, len(m.table.Rows)-h), 0)
}

// Title names the kind, the namespace and the row count, k9s style:
// "pods(demo)[12]"; the count is "?" until rows could be read.
func (m *Model) Title() string {
	count := "?"
	if m.loaded {
		count = fmt.Sprint(len(m.table.Rows))
	}
	scope := m.namespace
	switch {
	case !m.info.Namespaced:
		scope = ""
	case m.namespace == "":
		scope = "all"
	}
	if m.parent != "" {
		if scope != "" {
			scope += " "
		}
		scope += m.parent
	}
	if scope == "" {
		return fmt.Sprintf("%s[%s]", m.info.ID, count)
	}
	return fmt.Sprintf("%s(%s)[%s]", m.info.ID, scope, count)
}

// Bindings lists the screen's keys for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Open, k.Wide, k.Refresh}
}

// Capturing is false: the inventory takes no text input yet.
func (m *Model) Capturing() bool { return false }

// View draws the notice line, the column header and the visible rows.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	st := m.vc.Styles
	if w <= 0 || h <= 0 {
		return ""
	}
	if w < minWidth || h < minHeight {
		return fill(st.Error.Render(wrap(fmt.Sprintf("Terminal too small: %dx%d, kyyard needs %dx%d.",
			w, h+chromeAllowance, minWidth, minHeight+chromeAllowance), w)), w, h)
	}
	scope := "namespace " + m.namespace
	if m.namespace == "" || !m.info.Namespaced {
		scope = "the cluster"
		if m.info.Namespaced {
			scope = "all namespaces"
		}
	}
	if !m.loaded {
		if m.failure != nil {
			return fill(explain(m.info.ID, scope, *m.failure, st.Error.Render, w), w, h)
		}
		return fill(st.Muted.Render(fmt.Sprintf("Loading %s in %s…", m.info.ID, scope)), w, h)
	}
	var notice string
	if m.failure != nil {
		age := m.now().Sub(m.taken).Round(time.Second)
		notice = st.Error.Render(line([]string{fmt.Sprintf("! refresh failed (%s): %s; showing rows read %s ago",
			m.failure.Reason, m.failure.Reason.Sentence(), age)}, []int{w}, w))
	}
	lines := []string{notice}
	if len(m.table.Rows) == 0 {
		lines = append(lines, st.Muted.Render(fmt.Sprintf("No %s in %s.", m.info.ID, scope)))
		return fill(strings.Join(lines, "\n"), w, h)
	}
	now := m.now()
	end := min(m.offset+m.bodyHeight(), len(m.table.Rows))
	visible := make([][]string, 0, end-m.offset)
	for i := m.offset; i < end; i++ {
		row := &m.table.Rows[i]
		cursor := " "
		if i == m.cursor {
			cursor = ">"
		}
		visible = append(visible, m.lay.cells(row, cursor+views.HealthMarker(row.Health), now))
	}
	widths := m.lay.widths(visible, w)
	lines = append(lines, st.ColumnHeader.Render(line(m.lay.headers, widths, w)))
	for i, cells := range visible {
		text := line(cells, widths, w)
		if m.offset+i == m.cursor {
			lines = append(lines, st.Selected.Render(text))
		} else {
			lines = append(lines, st.Health(m.table.Rows[m.offset+i].Health).Render(text))
		}
	}
	return fill(strings.Join(lines, "\n"), w, h)
}

// explain says why a kind cannot be shown, in place of an empty table.
func explain(kind kube.Kind, scope string, t kube.Truncation, style func(...string) string, width int) string {
	head := fmt.Sprintf("Cannot show %s in %s: %s.", kind, scope, t.Reason.Sentence())
	return style(wrap(head, width)) + "\n\n" + wrap(views.Sanitize(t.Message), width)
}

// wrap breaks s into lines of at most width cells, at spaces where it can.
func wrap(s string, width int) string {
	if width <= 0 {
		return s
	}
	var out []string
	for _, para := range strings.Split(s, "\n") {
		var cur string
		for _, word := range strings.Fields(para) {
			switch {
			case cur == "":
				cur = word
			case len([]rune(cur))+1+len([]rune(word)) <= width:
				cur += " " + word
			default:
				out = append(out, cur)
				cur = word
			}
			for len([]rune(cur)) > width {
				r := []rune(cur)
				out = append(out, string(r[:width]))
				cur = string(r[width:])
			}
		}
		out = append(out, cur)
	}
	return strings.Join(out, "\n")
}

// fill pads s with blank lines to exactly h lines, cutting what is below.
func fill(s string, _ int, h int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	return strings.Join(lines, "\n")
}
