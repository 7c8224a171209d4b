// Package inventory is the table screen: one kind's objects in a namespace,
// refreshed by periodic snapshots, with a cursor, paging, drill-down, a `/`
// filter, sorting by any column, marks, horizontal scrolling and the way
// to the describe and YAML views of a row.
package inventory

import (
	"fmt"
	"slices"
	"time"

	"github.com/charmbracelet/bubbles/key"
	"github.com/charmbracelet/bubbles/textinput"
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

// Model is an inventory screen. Use New; the zero value is not usable.
type Model struct {
	vc *views.Context
	// fleet is the client when the screen shows several clusters (a
	// views.FleetSource): rows carry their context, a CONTEXT column shows
	// it, and each action goes to its row's cluster (fleet.go). nil
	// otherwise.
	fleet views.FleetSource
	// parts are each cluster's state at the last refresh (fleet only).
	parts []views.ClusterPart
	// off maps the actions the API server denies on this kind and
	// namespace to its sentence (read when the screen starts).
	off       map[kube.Action]string
	keys      Keys
	info      kube.KindInfo
	namespace string
	selector  kube.Selector      // a drill-down's narrowing
	memo      map[string][]int32 // filter text → rows it kept, while the rows and order stay
	// followKey is the key of the cursor's object while new rows replace the
	// old (following says it is set): the next refilter keeps the cursor on it.
	followKey string
	following bool
	parent    string // "<kind>/<name>" of a drill-down
	// parentNote, when set, says why a drill-down's rows were dropped: its
	// parent was deleted, or no longer selects anything.
	parentNote string
	now        func() time.Time
	// styled are the rows' styles, found on the first frame (rowStyles).
	styled *rowStyles

	token     int // refresh chain id; bumped by Init so old ticks die
	loaded    bool
	gen       uint64
	reqLabels string // the filter's label selector the rows were read with
	table     kube.Table
	failure   *kube.Truncation // last refresh's failure for this kind, if any
	taken     time.Time        // when the shown rows were read
	delay     time.Duration    // the wait before the next refresh
	// prepAt and prepCost are when the rows shown were taken in (the
	// screen's clock) and what preparing them off the UI goroutine cost:
	// rows still arriving are prepared again only readingShare × prepCost
	// later (see fetch).
	prepAt   time.Time
	prepCost time.Duration

	ix    *index
	order []int32 // every row, sorted
	shown []int32 // the rows that pass the filter, in display order

	sortColumn   string // header of the sort column; "" is the snapshot's order
	ascending    bool   // as the cells read: ages ascending is youngest first
	sortFromKind bool   // the kind's default order, direction not yet resolved

	filter    filter // in force (while typing: as typed so far)
	before    filter // in force when `/` was pressed
	fallback  filter // in force before the label selector now asked for
	labels    string // the filter's label selector, sent with each refresh
	typing    bool
	input     textinput.Model
	unhealthy bool   // only warning and failed rows show
	note      string // an error about the filter (a malformed selector)
	// nsAsked is set once the namespace was read because its list was
	// empty (NamespaceReader: at most one get per screen); nsState is what
	// the get answered.
	nsAsked bool
	nsState kube.NamespaceState
	invalid string // the filter typed last, as typed, when its selector was malformed

	marks       map[string]bool // by rowKey
	anchor      string          // the last row marked, for ranges
	markedShown int             // marked rows among shown

	// metTaken is when the metrics shown were read (kube.Metrics.Taken;
	// zero: none); freshMetrics asks the next refresh for a new metrics
	// reading (ctrl+r, kube.MetricsRequest.Fresh).
	metTaken     time.Time
	freshMetrics bool

	wide   bool
	hidden int // columns right of NAME scrolled out
	lay    layout
	cursor int // index into shown
	offset int
}

// New returns an inventory screen for a kind (plugin id or alias) in
// namespace ("" for all namespaces). Rows are first ordered the way the
// kind names (KindInfo.SortColumn, SortDescending: newest or largest first),
// else by namespace and name. Errors: the kind is unknown.
func New(vc *views.Context, kind kube.Kind, namespace string) (*Model, error) {
	info, ok := vc.Client.Kind(string(kind))
	if !ok {
		return nil, fmt.Errorf("unknown kind %q", kind)
	}
	if !info.Namespaced {
		namespace = ""
	}
	in := textinput.New()
	in.Prompt = "/"
	in.PromptStyle = vc.Styles.Prompt
	in.TextStyle = vc.Styles.Prompt
	m := &Model{vc: vc, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), info: info, namespace: namespace, now: time.Now, input: in,
		marks: map[string]bool{}, sortColumn: info.SortColumn, ascending: !info.SortDescending}
	m.sortFromKind = info.SortColumn != ""
	m.fleet, _ = vc.Client.(views.FleetSource)
	m.relayout()
	return m, nil
}

// Narrow limits the screen to a drill-down's objects: sel selects them, and
// parent ("deployments/web") names what they belong to in the title.
func (m *Model) Narrow(sel kube.Selector, parent string) {
	m.selector, m.parent = sel, parent
}

// Filter sets the screen's filter as if raw were typed after `/` (an
// alias's, issue 27), before its first refresh: a `-l` selector goes with
// the request. "" leaves the filter as it is.
func (m *Model) Filter(raw string) {
	if raw == "" {
		return
	}
	m.filter = parseFilter(raw)
	m.labels = m.filter.labels
	m.input.SetValue(raw)
}

// SetClock replaces the clock ages are drawn with (fixed in tests).
func (m *Model) SetClock(now func() time.Time) { m.now = now }

// Kind returns the plugin id the screen shows.
func (m *Model) Kind() kube.Kind { return m.info.ID }

// Namespace returns the namespace the screen shows ("" for all).
func (m *Model) Namespace() string { return m.namespace }

// Marked returns the marked rows that pass the filter, in display order
// (rows hidden by the filter keep their marks but are not returned: a bulk
// action acts on what the person sees). Marks follow objects across
// refreshes by UID.
func (m *Model) Marked() []kube.Row {
	if len(m.marks) == 0 || m.ix == nil {
		return nil
	}
	var out []kube.Row
	for _, r := range m.shown {
		if m.marks[rowKey(&m.ix.rows[r])] {
			out = append(out, m.ix.rows[r])
		}
	}
	return out
}

// Init starts (or restarts) the refresh chain with an immediate snapshot.
func (m *Model) Init() tea.Cmd {
	m.token++
	m.off = nil // asked again with the next snapshot
	return m.fetch()
}

// Update handles keys and refresh messages.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case snapshotMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		if msg.off != nil {
			m.off = msg.off
		}
		if msg.nsAsked {
			m.nsAsked, m.nsState = true, msg.nsState
		}
		if msg.parts != nil {
			m.parts = msg.parts
		}
		if m.apply(msg) {
			return m, m.refetch()
		}
		m.backoff()
		owner, token := m, m.token
		return m, tea.Tick(m.delay, func(time.Time) tea.Msg { return tickMsg{owner: owner, token: token} })
	case tickMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		return m, m.fetch()
	case tea.KeyMsg:
		if m.typing {
			return m, m.typeKey(msg)
		}
		return m, m.handleKey(msg)
	case tea.MouseMsg:
		return m, m.mouse(msg)
	case tea.WindowSizeMsg:
		m.relayout()
		m.scroll()
	default:
		if m.typing { // the prompt's cursor blinks
			var cmd tea.Cmd
			m.input, cmd = m.input.Update(msg)
			return m, cmd
		}
	}
	return m, nil
}

// follow puts the cursor on the row with key k if it is shown, else keeps
// it in range.
func (m *Model) follow(k string) {
	if k != "" {
		for i, r := range m.shown {
			if rowKey(&m.ix.rows[r]) == k {
				m.cursor = i
				m.scroll()
				return
			}
		}
	}
	m.cursor = max(min(m.cursor, len(m.shown)-1), 0)
	m.scroll()
}

// cursorKey returns the key of the row under the cursor, "" if none.
func (m *Model) cursorKey() string {
	if row := m.current(); row != nil {
		return rowKey(row)
	}
	return ""
}

// current returns the row under the cursor, nil if none shows.
func (m *Model) current() *kube.Row {
	if m.ix == nil || m.cursor < 0 || m.cursor >= len(m.shown) {
		return nil
	}
	return &m.ix.rows[m.shown[m.cursor]]
}

// withNamespace reports whether the rows show their namespace: all
// namespaces, each context's own, or several (kube.SeveralNamespaces).
func (m *Model) withNamespace() bool {
	return m.info.Namespaced && (m.namespace == "" || m.namespace == views.OwnNamespaces || kube.SeveralNamespaces(m.namespace))
}

// columns returns the columns the screen may show: the table's (the
// kind's until rows are read) and the metrics columns.
func (m *Model) columns() columns {
	c := columns{cols: m.info.Columns, wide: m.wide, withNamespace: m.withNamespace(), withContext: m.fleet != nil, sortSlot: -1, ascending: m.ascending}
	if m.loaded {
		c.cols = m.table.Columns
		c.sortSlot = m.sortSlot()
	}
	c.metrics, c.metricsAt = m.metricColumns(), metricsAfter(c.cols)
	return c
}

func (m *Model) relayout() {
	c := m.columns()
	m.lay = newLayout(c, m.ix, m.shown, m.hidden)
	if m.lay.hidden > 0 {
		// Scrolled columns come back once every column fits (a wider
		// terminal, fewer rows shown).
		if all := newLayout(c, m.ix, m.shown, 0); !m.overflows(all) {
			m.lay = all
		}
	}
	m.hidden = m.lay.hidden
	m.lay = m.fitMetrics(m.lay)
}

// bodyHeight is the number of table rows that fit: the screen less the
// column header, the notice line and, across several clusters, their
// states (fleetLines).
func (m *Model) bodyHeight() int { return max(m.vc.Height-2-len(m.stateLines(m.vc.Width)), 1) }

// scroll keeps the cursor inside the visible window.
func (m *Model) scroll() {
	m.offset = views.Window(m.cursor, m.offset, m.bodyHeight(), len(m.shown))
}

// Title names the kind, the namespace and the row count, k9s style:
// "pods(demo)[12]"; with a filter, the rows shown of all and the filter:
// "pods(demo)[3/14] /web". The count is "?" until rows could be read, and
// ends in "…" while the kind's first list is still arriving.
func (m *Model) Title() string {
	count := "?"
	if m.loaded {
		count = fmt.Sprint(len(m.table.Rows))
		if m.filter.narrows() || m.unhealthy {
			count = fmt.Sprintf("%d/%d", len(m.shown), len(m.table.Rows))
		}
		if m.table.Reading {
			count += "…" // more are arriving (see reading)
		}
	}
	scope := m.namespace
	switch {
	case !m.info.Namespaced:
		scope = ""
	case m.namespace == "":
		scope = "all"
	case m.namespace == views.OwnNamespaces:
		scope = views.OwnNamespacesPhrase
	}
	if m.parent != "" {
		if scope != "" {
			scope += " "
		}
		scope += m.parent
	}
	title := fmt.Sprintf("%s[%s]", m.info.ID, count)
	if scope != "" {
		title = fmt.Sprintf("%s(%s)[%s]", m.info.ID, scope, count)
	}
	if d := m.filterText(); d != "" {
		title += " " + d
	}
	return title
}

// filterText describes the filter in force: "/web", "/web unhealthy";
// a filter whose label selector was malformed follows as typed, marked:
// "/-l app in (web (invalid)". What was typed is cut to fit (views.Echo).
func (m *Model) filterText() string {
	var d string
	if m.filter.mode != modeNone {
		d = "/" + views.Echo(m.filter.raw, m.vc.Width)
	}
	if m.invalid != "" {
		if d != "" {
			d += " "
		}
		d += "/" + views.Echo(m.invalid, m.vc.Width) + " (invalid)"
	}
	if m.unhealthy {
		if d != "" {
			d += " "
		}
		d += "unhealthy"
	}
	return d
}

// Bindings lists the screen's keys for the help overlay.
// In read-only mode, and for actions the API server denies, the action
// keys say they are disabled; so does e, whose form cannot be applied
// then (kube.ActionEdit: the patch; the form still opens, to look). On a
// kind whose plugin supports kube.ActionShell (pods, containers) s is the
// shell (create pods/exec), and its mark follows the shell's; shift+f
// says when the port-forward is denied (it is allowed in read-only mode).
func (m *Model) Bindings() []key.Binding {
	k, ro := m.keys, m.vc.ReadOnly()
	k.Operate = slices.Clone(k.Operate)
	for i, b := range k.Operate {
		a := b.Action
		if a == kube.ActionScale && m.info.Supports(kube.ActionShell) {
			a = kube.ActionShell // s opens the shell there (handle.go)
		}
		k.Operate[i].Binding = disabled(b.Binding, ro, m.off[a] != "")
	}
	k.Edit = disabled(k.Edit, ro, m.off[kube.ActionEdit] != "")
	k.EditYAML = disabled(k.EditYAML, ro, false)
	k.Drain = disabled(k.Drain, ro, m.off[kube.ActionCordon] != "")
	k.PortForward = disabled(k.PortForward, false, m.off[kube.ActionPortForward] != "")
	if m.fleet != nil && isWorkload(m.info.ID) {
		return append(k.list(), k.Drift)
	}
	return k.list()
}

// Capturing is true while a filter is being typed: every key goes to it.
func (m *Model) Capturing() bool { return m.typing }

// CapturesBack is true while esc has something to clear: marks, a filter
// or the unhealthy-only view (views.BackCapturer).
func (m *Model) CapturesBack() bool {
	return m.typing || len(m.marks) > 0 || m.filter.mode != modeNone || m.unhealthy || m.invalid != ""
}
