// Package detail is the screen that shows one object as text: `kubectl
// describe`'s output or its YAML, read through the Source, scrollable,
// searchable and read again on demand.
package detail

import (
	"context"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/bubbles/viewport"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// readTimeout bounds one read of the object.
const readTimeout = 30 * time.Second

// Keys are the detail screen's bindings. esc (back) is the root's.
type Keys struct {
	// Up, Down, PageUp, PageDown, Top and Bottom scroll by a line, a page or
	// to an end; Left and Right scroll long lines sideways by half a screen.
	Up, Down, PageUp, PageDown, Top, Bottom, Left, Right key.Binding
	// Wrap toggles wrapping long lines (otherwise Left/Right scroll).
	Wrap key.Binding
	// Search opens the search prompt; Next and Previous move between matches.
	Search, Next, Previous key.Binding
	// ManagedFields shows or hides metadata.managedFields (YAML only).
	ManagedFields key.Binding
	// Refresh reads the object again.
	Refresh key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {detail: {ACTION: KEYS}}`.
const KeyTable = "detail"

// DefaultKeys returns the detail screen's default bindings, less's and
// vim's where they have one.
func DefaultKeys() Keys {
	return Keys{
		Up:            key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:          key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:        key.NewBinding(key.WithKeys("pgup", "ctrl+b", "b"), key.WithHelp("pgup", "page up")),
		PageDown:      key.NewBinding(key.WithKeys("pgdown", "ctrl+f", " "), key.WithHelp("pgdn", "page down")),
		Top:           key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("g", "top")),
		Bottom:        key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("G", "bottom")),
		Left:          key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "scroll left")),
		Right:         key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "scroll right")),
		Wrap:          key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "wrap long lines")),
		Search:        key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search (enter finds, esc cancels)")),
		Next:          key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next match")),
		Previous:      key.NewBinding(key.WithKeys("N"), key.WithHelp("N", "previous match")),
		ManagedFields: key.NewBinding(key.WithKeys("m"), key.WithHelp("m", "show/hide managedFields")),
		Refresh:       key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "read again")),
	}
}

// Model is a detail screen. Use New; the zero value is not usable.
type Model struct {
	vc        *views.Context
	keys      Keys
	view      views.ObjectView
	kind      kube.Kind
	namespace string
	name      string
	managed   bool // YAML keeps managedFields

	token   int // read id; a newer read makes older answers stale
	reading bool
	loaded  bool     // lines hold a successful read
	lines   []string // the text, sanitized, one entry per line
	failure error    // the last read's error, nil after a success

	// Layout: display lines for the current width and wrap setting.
	vp       viewport.Model
	wrap     bool
	x        int // first cell shown when not wrapping
	segs     []segment
	first    []int // source line -> its first display line
	longest  int   // widest source line, in cells
	laidOut  [2]int
	laidWrap bool
	dirty    bool

	prompt    textinput.Model
	searching bool // the prompt is open
	query     string
	matches   []match
	current   int // index in matches

	// The usage chart of a pod's or node's describe view (usage.go).
	utoken int    // metrics chain id; bumped by Init so old ticks die
	usage  *usage // the last reading's, nil before one came
	// notRunning: the pod was not running when its row was read
	// (views.OpenObjectMsg.NotRunning).
	notRunning bool

	// text, when set (NewText), reads the text instead of the client's
	// describe or YAML, and title is the screen's title.
	text  func(ctx context.Context) (string, error)
	title string
}

// loadedMsg carries a finished read to the screen that asked for it.
type loadedMsg struct {
	owner *Model
	token int
	text  string
	err   error
}

// New returns a detail screen for the object and view msg names. It reads
// nothing until Init.
func New(vc *views.Context, msg views.OpenObjectMsg) *Model {
	keys := views.BoundKeys(vc, KeyTable, DefaultKeys)
	keys.ManagedFields.SetEnabled(msg.View == views.YAMLView)
	p := textinput.New()
	p.Prompt = "/"
	p.PromptStyle = vc.Styles.Prompt
	p.TextStyle = vc.Styles.Prompt
	return &Model{vc: vc, keys: keys, view: msg.View, kind: msg.Kind, namespace: msg.Namespace, name: msg.Name,
		vp: viewport.New(0, 0), prompt: p, dirty: true, notRunning: msg.NotRunning}
}

// NewText returns a detail screen of any text read (and read again on
// ctrl+r) by read, titled title: the same scrolling, wrapping and search
// as describe and YAML (a Helm release's values, manifest or diff). The
// text is untrusted: it is sanitised as the object views' is. It reads
// nothing until Init.
func NewText(vc *views.Context, title string, read func(ctx context.Context) (string, error)) *Model {
	m := New(vc, views.OpenObjectMsg{View: views.DescribeView})
	m.keys.ManagedFields.SetEnabled(false)
	m.text, m.title = read, title
	return m
}

// Init reads the object (again) and, for the describe view of a pod or a
// node, starts reading its metrics for the usage chart.
func (m *Model) Init() tea.Cmd { return tea.Batch(m.read(), m.readUsage()) }

// read starts a read of the object; answers of earlier reads are dropped.
func (m *Model) read() tea.Cmd {
	m.token++
	m.reading = true
	owner, token := m, m.token
	client, view, kind, ns, name := m.vc.Client, m.view, m.kind, m.namespace, m.name
	opts := kube.YAMLOptions{ManagedFields: m.managed}
	own := m.text
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		var text string
		var err error
		switch {
		case own != nil:
			text, err = own(ctx)
		case view == views.YAMLView:
			text, err = client.YAML(ctx, kind, ns, name, opts)
		default:
			text, err = client.Describe(ctx, kind, ns, name)
		}
		return loadedMsg{owner: owner, token: token, text: text, err: err}
	}
}

// Update handles reads, sizes and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case loadedMsg:
		if msg.owner == m && msg.token == m.token {
			m.take(msg)
		}
	case usageMsg:
		return m, m.takeUsage(msg)
	case usageTickMsg:
		return m, m.tickUsage(msg)
	case tea.WindowSizeMsg:
		m.dirty = true
	case tea.KeyMsg:
		if m.searching {
			return m, m.promptKey(msg)
		}
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		for _, k := range views.WheelKeys(msg) {
			m.handleKey(k)
		}
	}
	return m, nil
}

// take shows a finished read. A failed read keeps the text read before
// (View decides whether to show it or the failure).
func (m *Model) take(msg loadedMsg) {
	m.reading = false
	if msg.err != nil {
		m.failure = msg.err
		return
	}
	m.failure = nil
	m.loaded = true
	m.lines = splitLines(msg.text)
	m.longest = 0
	for _, l := range m.lines {
		m.longest = max(m.longest, cells(l))
	}
	m.dirty = true
	if m.query != "" {
		m.matches = search(m.lines, m.query)
		m.current = min(m.current, max(len(m.matches)-1, 0))
	}
}

func (m *Model) promptKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEsc:
		m.searching = false
		m.prompt.Blur()
		return nil
	case tea.KeyEnter:
		m.searching = false
		m.prompt.Blur()
		m.find(m.prompt.Value())
		return nil
	}
	var cmd tea.Cmd
	m.prompt, cmd = m.prompt.Update(msg)
	return cmd
}

func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	m.relayout()
	k := m.keys
	switch {
	case key.Matches(msg, k.Up):
		m.vp.ScrollUp(1)
	case key.Matches(msg, k.Down):
		m.vp.ScrollDown(1)
	case key.Matches(msg, k.PageUp):
		m.vp.PageUp()
	case key.Matches(msg, k.PageDown):
		m.vp.PageDown()
	case key.Matches(msg, k.Top):
		m.vp.GotoTop()
	case key.Matches(msg, k.Bottom):
		m.vp.GotoBottom()
	case key.Matches(msg, k.Left):
		m.scrollX(-m.step())
	case key.Matches(msg, k.Right):
		m.scrollX(m.step())
	case key.Matches(msg, k.Wrap):
		top := m.topLine()
		m.wrap, m.x = !m.wrap, 0
		m.relayout()
		if top < len(m.first) {
			m.vp.SetYOffset(m.first[top])
		}
	case key.Matches(msg, k.Search):
		m.searching = true
		m.prompt.SetValue("")
		return m.prompt.Focus()
	case key.Matches(msg, k.Next):
		m.move(1)
	case key.Matches(msg, k.Previous):
		m.move(-1)
	case key.Matches(msg, k.ManagedFields):
		m.managed = !m.managed
		return m.read()
	case key.Matches(msg, k.Refresh):
		return tea.Batch(m.read(), m.refreshUsage())
	}
	return nil
}

// relayout recomputes the display lines when the text, the size or the
// wrap setting changed, keeping the scroll position where it can.
func (m *Model) relayout() {
	w, h := m.contentWidth(), max(m.vc.Height-1-m.chartHeight(), 1)
	if !m.dirty && m.laidOut == [2]int{w, h} && m.laidWrap == m.wrap {
		return
	}
	top := m.topLine()
	m.segs, m.first = layout(m.lines, m.wrap, w)
	m.vp.Width, m.vp.Height = w, h
	m.vp.SetContent(strings.Repeat("\n", max(len(m.segs)-1, 0)))
	if len(m.first) > 0 {
		m.vp.SetYOffset(m.first[min(top, len(m.first)-1)])
	}
	m.laidOut, m.laidWrap, m.dirty = [2]int{w, h}, m.wrap, false
	m.scrollX(0)
}

// topLine is the source line at the top of the screen.
func (m *Model) topLine() int {
	if m.vp.YOffset < len(m.segs) {
		return m.segs[m.vp.YOffset].src
	}
	return 0
}

// gutter is the width of the match markers' column: 2 while a search has
// matches, else 0.
func (m *Model) gutter() int {
	if len(m.matches) > 0 {
		return 2
	}
	return 0
}

func (m *Model) contentWidth() int { return max(m.vc.Width-m.gutter(), 1) }

// step is how far left/right scroll: half the width, as less does.
func (m *Model) step() int { return max(m.contentWidth()/2, 1) }

// scrollX moves the horizontal offset by d cells, within the text.
func (m *Model) scrollX(d int) {
	if m.wrap {
		m.x = 0
		return
	}
	m.x = max(min(m.x+d, m.longest-m.contentWidth()), 0)
}

// find runs a search from the prompt: the first match at or below the top
// of the screen becomes current. An empty query ends the search.
func (m *Model) find(query string) {
	m.query = query
	m.matches = search(m.lines, query)
	m.current = 0
	m.dirty = true
	m.relayout()
	top := m.topLine()
	for i, hit := range m.matches {
		if hit.line >= top {
			m.current = i
			break
		}
	}
	m.reveal()
}

// move makes the next (d=1) or previous (d=-1) match current, wrapping
// around the ends.
func (m *Model) move(d int) {
	if len(m.matches) == 0 {
		return
	}
	m.current = (m.current + d + len(m.matches)) % len(m.matches)
	m.reveal()
}

// reveal scrolls so that the current match is on screen, a third of the
// way down when it was off it, and horizontally inside the view.
func (m *Model) reveal() {
	if len(m.matches) == 0 {
		return
	}
	hit := m.matches[m.current]
	row := m.rowOf(hit)
	if row < m.vp.YOffset || row >= m.vp.YOffset+m.vp.Height {
		m.vp.SetYOffset(row - m.vp.Height/3)
	}
	if !m.wrap {
		line := m.lines[hit.line]
		from, to := cells(line[:hit.start]), cells(line[:hit.end])
		if w := m.contentWidth(); from < m.x || to > m.x+w {
			m.x = 0
			m.scrollX(from - w/3)
		}
	}
}

// rowOf is the display line a match starts on.
func (m *Model) rowOf(hit match) int {
	row := m.first[hit.line]
	for row+1 < len(m.segs) && m.segs[row+1].src == hit.line && m.segs[row+1].start <= hit.start {
		row++
	}
	return row
}

// Title names the view and the object: "describe pods/demo/web-1",
// "yaml nodes/kwok-node-0"; NewText's title for a text.
func (m *Model) Title() string {
	if m.text != nil {
		return m.title
	}
	verb := "describe"
	if m.view == views.YAMLView {
		verb = "yaml"
	}
	path := string(m.kind) + "/"
	if m.namespace != "" {
		path += m.namespace + "/"
	}
	return verb + " " + path + m.name
}

// Bindings lists the screen's keys for the help overlay; m is listed only
// for YAML.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom, k.Left, k.Right, k.Wrap,
		k.Search, k.Next, k.Previous, k.ManagedFields, k.Refresh}
}

// Capturing is true while the search prompt is open: keys are typed into it.
func (m *Model) Capturing() bool { return m.searching }
