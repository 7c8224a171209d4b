// Package inventory is the table screen: one kind's objects in a namespace,
// refreshed by periodic snapshots, with a cursor, paging, drill-down, a `/`
// filter, sorting by any column, marks, horizontal scrolling and the way
// to the describe and YAML views of a row.
package inventory

import (
	"context"
	"errors"
	"fmt"
	"strings"
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

// snapshotTimeout bounds one refresh; each list inside it has the client's
// own, shorter budget.
const snapshotTimeout = 30 * time.Second

// readingRefresh is the wait between refreshes while a kind's first list
// is still arriving (kube.Table.Reading), when the refresh interval is
// longer: the rows fill as they come, not once per interval, and the
// complete rows show within this of the list's end. kube answers the
// same rows so far between its merges (at most every 250 ms), and a
// refresh that finds them unchanged costs a generation check.
const readingRefresh = 50 * time.Millisecond

// readingShare paces the preparing of rows still arriving: again only
// after readingShare times what the last preparing took, so that
// indexing, measuring and sorting the rows so far take at most a tenth of
// the time the list takes to arrive (at 100,000 pods on two cores they
// took a fifth of kyyard's CPU, which the API server streaming the list
// needed). The complete rows are prepared at once.
const readingShare = 10

// maxBackoff is the longest wait between refreshes while the API server is
// unavailable or slow; each failed refresh doubles the wait up to it.
const maxBackoff = 30 * time.Second

// Model is an inventory screen. Use New; the zero value is not usable.
type Model struct {
	vc *views.Context
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

// snapshotMsg carries a finished refresh to the screen that asked for it.
type snapshotMsg struct {
	owner  *Model
	token  int
	labels string // the filter's label selector in the request
	snap   kube.Snapshot
	prep   *prepared // the rows indexed and sorted off the UI goroutine, if they changed
	// deferred is set when the rows are still arriving and changed, but
	// were prepared too recently to be prepared again (readingShare): the
	// screen keeps its rows until a later refresh.
	deferred bool
	// dropped, when set, says why the drill-down's rows are dropped, as
	// reading its parent again found: it was deleted, or has no selector
	// any more (kube.ErrSelectsNothing). snap is then empty.
	dropped string
	// off, when asked with this snapshot (the first after Init), maps the
	// actions the API server denies to its sentence.
	off map[kube.Action]string
	// met, when the rows did not change but the metrics reading did, are
	// the rows' new metrics cells (changed rows bring theirs in prep).
	met *metricCells
	// metTaken is when the metrics reading was taken (zero: none read).
	metTaken time.Time
	// nsAsked is set when the list came back empty and the namespace was
	// read (NamespaceReader) to say why; nsState is its answer.
	nsAsked bool
	nsState kube.NamespaceState
}

// NamespaceReader is what a screen whose list of a named namespace came
// back empty asks, once, to say why: whether the namespace exists
// (*kube.Client is one; see kube.Client.NamespaceState). Without it the
// screen says only that there are no objects.
type NamespaceReader interface {
	// NamespaceState reads one namespace with one get.
	NamespaceState(ctx context.Context, name string) kube.NamespaceState
}

// prepared is the costly part of taking in changed rows (measuring every
// cell, the filter text, the sort), done in the refresh's goroutine so that
// a big, busy table does not stall key presses. It is used when the sort
// asked for is still the screen's when it arrives.
type prepared struct {
	ix         *index
	slot       int  // the sort slot order is sorted by
	descending bool // and its direction
	order      []int32
	cost       time.Duration // what preparing took
}

// tickMsg starts the next refresh of a screen's chain.
type tickMsg struct {
	owner *Model
	token int
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
	m := &Model{vc: vc, keys: DefaultKeys(), info: info, namespace: namespace, now: time.Now, input: in,
		marks: map[string]bool{}, sortColumn: info.SortColumn, ascending: !info.SortDescending}
	m.sortFromKind = info.SortColumn != ""
	m.relayout()
	return m, nil
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

func (m *Model) fetch() tea.Cmd {
	owner, token, labels := m, m.token, m.labels
	sel := withLabels(m.selector, labels)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{m.info.ID}, Namespace: m.namespace, Selector: sel}
	client := m.vc.Client
	// A drill-down reads its parent again on each refresh: a Service's
	// selector may have changed since it was opened, or the parent may be
	// gone. A part of one object (a Pod's containers) needs no second read.
	parent := m.parent
	parentKind, parentName, redrill := strings.Cut(parent, "/")
	redrill = redrill && m.info.PartOf == ""
	// What the goroutine needs to know of the screen, copied now.
	kind, loaded, gen, reqLabels := m.info.ID, m.loaded, m.gen, m.reqLabels
	wasReading, prepAt, prepCost, now := m.table.Reading, m.prepAt, m.prepCost, m.now
	sortColumn, withNS, descending, sortNow := m.sortColumn, m.withNamespace(), !m.ascending, !m.sortFromKind
	permissions := m.permissionsRead()
	metricCols, metGen := metricColumnsOf(kind), m.metricsGeneration()
	metrics, hasMetrics := client.(views.MetricsSource)
	fresh := m.freshMetrics
	m.freshMetrics = false
	podName := ""
	if kind == kube.KindContainers {
		podName = parentName
	}
	// An empty list of a named namespace reads the namespace, once per
	// screen, to say whether it exists (not for a drill-down or a label
	// selector, whose emptiness says nothing of the namespace).
	nsReader, askNS := client.(NamespaceReader)
	askNS = askNS && !m.nsAsked && m.info.Namespaced && m.namespace != "" && parent == "" && m.selector.IsZero() && labels == ""
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		if redrill {
			fresh, err := client.DrillDown(ctx, kube.Kind(parentKind), req.Namespace, parentName)
			switch {
			case err == nil && len(fresh.Kinds) == 1 && fresh.Kinds[0] == kind:
				req.Selector = withLabels(fresh.Selector, labels)
			case kube.ReasonOf(err) == kube.ReasonNotFound:
				return snapshotMsg{owner: owner, token: token, labels: labels, dropped: parent + " was deleted"}
			case errors.Is(err, kube.ErrSelectsNothing):
				// The parent's selector was removed: it selects no rows now.
				return snapshotMsg{owner: owner, token: token, labels: labels, dropped: err.Error()}
			}
			// Any other failure keeps the selector read before.
		}
		// The metrics are read beside the snapshot: a slow metrics API
		// delays neither the rows nor a key press (the reading is cached
		// inside kube; this is mostly a map read).
		var reading chan kube.Metrics
		if len(metricCols) > 0 && hasMetrics {
			reading = make(chan kube.Metrics, 1)
			mreq := metricsRequest(kind, req, podName)
			mreq.Fresh = fresh
			go func() {
				// A slow metrics API holds the rows back metricsWait at most:
				// the reading then is the previous one (see kube.Client.Metrics).
				mctx, cancel := context.WithTimeout(ctx, metricsWait)
				defer cancel()
				reading <- metrics.Metrics(mctx, mreq)
			}()
		}
		msg := snapshotMsg{owner: owner, token: token, labels: labels, snap: client.Snapshot(ctx, req)}
		if t, ok := msg.snap.Table(kind); askNS && ok && len(t.Rows) == 0 && !t.Reading {
			msg.nsAsked, msg.nsState = true, nsReader.NamespaceState(ctx, req.Namespace)
		}
		if permissions != nil {
			msg.off = permissions(ctx)
		}
		in := metricsInput{kind: kind, pod: podName}
		if reading != nil {
			met := <-reading
			in.met = &met
			msg.metTaken = met.Taken
		}
		t, ok := msg.snap.Table(kind)
		switch {
		case !ok:
		case loaded && msg.snap.Generation == gen && labels == reqLabels:
			if in.met != nil && in.met.Generation != metGen {
				msg.met = buildMetrics(in, t.Rows)
			}
		case loaded && labels == reqLabels && wasReading && t.Reading && now().Sub(prepAt) < readingShare*prepCost:
			msg.deferred = true
		default:
			began := time.Now()
			p := &prepared{ix: newIndex(t), slot: slotOf(t.Columns, metricCols, sortColumn, withNS), descending: descending}
			p.ix.setMetrics(buildMetrics(in, t.Rows))
			if sortNow {
				p.order = p.ix.sorted(p.slot, descending)
			}
			p.cost = time.Since(began)
			msg.prep = p
		}
		return msg
	}
}

// dropRows empties the screen because of what happened to its parent
// (note says what: "services/sv was deleted"), keeping the columns.
func (m *Model) dropRows(note string) {
	m.parentNote = note
	m.followKey, m.following = m.cursorKey(), true
	m.shown, m.gen, m.loaded = nil, 0, true
	m.table = kube.Table{Kind: m.info.ID, Columns: m.table.Columns}
	m.ix = newIndex(m.table)
	m.resort()
}

// withLabels adds the filter's label selector (labels, possibly empty) to
// a screen's own selector.
func withLabels(sel kube.Selector, labels string) kube.Selector {
	switch {
	case labels == "":
	case sel.Labels == "":
		sel.Labels = labels
	default:
		sel.Labels += "," + labels
	}
	return sel
}

// refetch restarts the refresh chain now (the request changed).
func (m *Model) refetch() tea.Cmd {
	m.token++
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

// backoff sets the wait before the next refresh: the configured interval,
// doubled after each refresh that failed because the API server was
// unavailable or too slow, up to maxBackoff (or the interval, if longer).
func (m *Model) backoff() {
	interval := m.vc.Config.RefreshInterval
	if m.failure == nil && m.loaded && m.table.Reading {
		// The first list is still arriving: take in more of it soon.
		m.delay = min(interval, readingRefresh)
		return
	}
	if m.failure == nil || (m.failure.Reason != kube.ReasonUnavailable && m.failure.Reason != kube.ReasonTimeout) {
		m.delay = interval
		return
	}
	m.delay = max(interval, min(2*max(m.delay, interval), maxBackoff))
}

// apply takes a snapshot in; it reports whether the request must be made
// again at once (the filter's label selector was malformed and is dropped).
// Rows, sort and layout are only rebuilt when the snapshot's generation (or
// the request) changed; a failed refresh keeps the rows it had.
func (m *Model) apply(msg snapshotMsg) bool {
	s := msg.snap
	if msg.dropped != "" {
		m.failure = nil
		m.dropRows(msg.dropped)
		return false
	}
	if t, ok := s.Truncation(m.info.ID); ok {
		if t.Reason == kube.ReasonInvalid && msg.labels != "" {
			m.note = "not applied: " + selectorProblem(msg.labels, t.Message)
			m.invalid = m.filter.raw
			m.filter, m.labels = m.fallback, m.fallback.labels
			m.refilter(nil)
			return true
		}
		m.failure = &t
		if t.Reason == kube.ReasonNotFound && m.parent != "" {
			// The object these rows are parts of (a Pod's containers) was
			// deleted: none is shown as current.
			m.dropRows(m.parent + " was deleted")
		}
		return false
	}
	m.failure, m.parentNote = nil, ""
	if !msg.metTaken.IsZero() {
		m.metTaken = msg.metTaken
	}
	t, _ := s.Table(m.info.ID)
	if msg.deferred {
		return false
	}
	if m.loaded && s.Generation == m.gen && msg.labels == m.reqLabels {
		m.taken = s.Taken
		if msg.met != nil {
			m.applyMetrics(msg.met)
		}
		return false
	}
	// The cursor's object, read from the rows it points into before they
	// are replaced; the new rows are then shown around it.
	m.followKey, m.following = m.cursorKey(), true
	m.shown = nil
	m.loaded, m.gen, m.reqLabels, m.table, m.taken = true, s.Generation, msg.labels, t, s.Taken
	m.prepAt, m.prepCost = m.now(), 0
	if msg.prep != nil {
		m.prepCost = msg.prep.cost
	}
	if p := msg.prep; p != nil && p.order != nil && p.slot == m.sortSlot() && p.descending == !m.ascending && !m.sortFromKind {
		m.ix, m.order = p.ix, p.order
		m.refilter(nil)
		return false
	}
	if msg.prep != nil {
		m.ix = msg.prep.ix
	} else {
		m.ix = newIndex(t)
	}
	m.resort()
	return false
}

// sortSlot returns the slot the rows are sorted by, -1 for none.
func (m *Model) sortSlot() int {
	return slotOf(m.table.Columns, metricColumnsOf(m.info.ID), m.sortColumn, m.withNamespace())
}

// slotOf returns the slot of the column named name among columns (the
// namespace's slot when the screen shows a NAMESPACE column), else among
// the metrics columns (not the trends: they are not sorted by), -1 for none.
func slotOf(columns []kube.Column, metrics []metricColumn, name string, withNamespace bool) int {
	if name == "" {
		return -1
	}
	if name == "NAMESPACE" && withNamespace {
		return namespaceSlot
	}
	for i, c := range columns {
		if c.Name == name {
			return i + 1
		}
	}
	for k, c := range metrics {
		if c.name == name && !c.trend {
			return len(columns) + 1 + k
		}
	}
	return -1
}

// resort orders every row by the sort column, then filters them.
func (m *Model) resort() {
	if m.ix == nil {
		return
	}
	slot := m.sortSlot()
	if m.sortFromKind && slot >= 0 && len(m.ix.rows) > 0 {
		// KindInfo.SortDescending means newest first for a time column:
		// the smallest ages, ascending as the cells read.
		if m.ix.momentColumn(slot) {
			m.ascending = m.info.SortDescending
		}
		m.sortFromKind = false
	}
	m.order = m.ix.sorted(slot, !m.ascending)
	m.refilter(nil)
}

// refilter recomputes the shown rows and their layout, keeping the cursor
// on its object. prev, when given, is the filter just replaced: if the new
// one only narrows it, only the rows it showed are searched.
func (m *Model) refilter(prev *filter) {
	if m.ix == nil {
		return
	}
	keep := m.cursorKey()
	if m.following {
		keep, m.followKey, m.following = m.followKey, "", false
	}
	if prev == nil || len(m.memo) >= memoSize {
		m.memo = map[string][]int32{} // the rows or their order changed
	}
	base := m.order
	shown, seen := m.memo[m.filter.raw]
	if seen {
		// Typed back to a filter of this session (backspace): no search.
	} else if prev != nil && m.filter.extends(*prev) {
		base = m.shown
		if prev.mode == modeFuzzy {
			// Fuzzy rows are ranked by score; search them in the sort
			// order, so that ties rank exactly as a search of all rows would.
			base = inOrder(m.order, m.shown, len(m.ix.rows))
		}
	}
	if !seen {
		shown = m.filter.apply(m.ix, base)
		m.memo[m.filter.raw] = shown
	}
	if m.unhealthy {
		kept := make([]int32, 0, len(shown)/8)
		for _, r := range shown {
			if m.ix.rows[r].Health >= kube.HealthWarning {
				kept = append(kept, r)
			}
		}
		shown = kept
	}
	m.shown = shown
	m.countMarks()
	m.relayout()
	m.follow(keep)
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

func (m *Model) withNamespace() bool { return m.info.Namespaced && m.namespace == "" }

// columns returns the columns the screen may show: the table's (the
// kind's until rows are read) and the metrics columns.
func (m *Model) columns() columns {
	c := columns{cols: m.info.Columns, wide: m.wide, withNamespace: m.withNamespace(), sortSlot: -1, ascending: m.ascending}
	if m.loaded {
		c.cols = m.table.Columns
		c.sortSlot = m.sortSlot()
	}
	c.metrics, c.metricsAt = metricColumnsOf(m.info.ID), metricsAfter(c.cols)
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
// column header and the notice line.
func (m *Model) bodyHeight() int { return max(m.vc.Height-2, 1) }

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
// then (kube.ActionEdit: the patch; the form still opens, to look). On
// pods s is the shell (kube.ActionShell: create pods/exec), and shift+f
// says when the port-forward is denied (it is allowed in read-only mode).
func (m *Model) Bindings() []key.Binding {
	k, ro := m.keys, m.vc.ReadOnly()
	scale := kube.ActionScale
	if m.info.ID == kube.KindPods {
		scale = kube.ActionShell
	}
	for a, b := range map[kube.Action]*key.Binding{kube.ActionRestart: &k.Restart, scale: &k.Scale,
		kube.ActionDelete: &k.Delete, kube.ActionPause: &k.Pause, kube.ActionResume: &k.Resume, kube.ActionUndo: &k.Undo,
		kube.ActionEdit: &k.Edit} {
		*b = disabled(*b, ro, m.off[a] != "")
	}
	k.PortForward = disabled(k.PortForward, false, m.off[kube.ActionPortForward] != "")
	return k.list()
}

// Capturing is true while a filter is being typed: every key goes to it.
func (m *Model) Capturing() bool { return m.typing }

// CapturesBack is true while esc has something to clear: marks, a filter
// or the unhealthy-only view (views.BackCapturer).
func (m *Model) CapturesBack() bool {
	return m.typing || len(m.marks) > 0 || m.filter.mode != modeNone || m.unhealthy || m.invalid != ""
}

// selectorProblem returns what is wrong with a malformed label selector,
// the parser's own words first ("found ..., expected: ... in label
// selector ..."). message is the Source's, which may repeat the
// selector (joined with a drill-down's) in prefixes of its own.
func selectorProblem(selector, message string) string {
	problem := message
	if i := strings.LastIndex(problem, `label selector "`); i >= 0 {
		// `label selector "<the request's whole selector>": <problem>`
		if _, rest, ok := strings.Cut(problem[i:], `": `); ok {
			problem = rest
		}
	}
	problem = strings.TrimPrefix(problem, "unable to parse requirement: ")
	return fmt.Sprintf("%s in label selector %q", problem, views.Echo(selector, 0))
}

// inOrder returns the rows of subset in the order they have in order (n is
// the number of rows indexed).
func inOrder(order, subset []int32, n int) []int32 {
	in := make([]bool, n)
	for _, r := range subset {
		in[r] = true
	}
	out := make([]int32, 0, len(subset))
	for _, r := range order {
		if in[r] {
			out = append(out, r)
		}
	}
	return out
}

// memoSize bounds the filter results a screen remembers while a filter is
// typed (each at most 4 bytes per row).
const memoSize = 32
