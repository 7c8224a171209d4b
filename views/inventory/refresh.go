package inventory

import (
	"context"
	"errors"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The refresh: a chain of snapshots (fetch, then a tick after each
// answer), each one a refresh built on the UI goroutine from the screen's
// state and run off it (refresh.run: pure of Bubble Tea, table-tested),
// whose answer apply takes in.

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
	// parts, across several clusters, are each cluster's state.
	parts []views.ClusterPart
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

// refresh is one refresh's inputs: what it needs to know of the screen,
// copied on the UI goroutine (Model.newRefresh), so that reading and
// preparing the rows run off it without touching the Model.
type refresh struct {
	client views.Source
	// req is the snapshot asked: the kind, the namespace, the screen's
	// selector with the filter's label selector (labels) added.
	req    kube.SnapshotRequest
	kind   kube.Kind
	labels string
	// parent is a drill-down's "<kind>/<name>"; redrill reads it again
	// first (its selector may have changed, or it may be gone): not for a
	// part of one object (a Pod's containers), which needs no second read.
	parent  string
	redrill bool
	// What the screen shows now: whether it has rows, their generation and
	// the label selector they were read with; whether they were still
	// arriving, when they were prepared (on now's clock) and what that cost.
	loaded     bool
	gen        uint64
	reqLabels  string
	wasReading bool
	prepAt     time.Time
	prepCost   time.Duration
	now        func() time.Time
	// The sort the screen asks for: the column, whether the namespace is a
	// column, the direction; sortNow is false while the kind's default
	// order's direction is still to be resolved (Model.resort does it).
	sortColumn    string
	withNamespace bool
	withContext   bool
	descending    bool
	sortNow       bool
	// The metrics: the kind's columns, the generation of the reading
	// shown, whether to ask for a new reading (ctrl+r), and for containers
	// the pod they are part of.
	metricCols []metricColumn
	metGen     uint64
	fresh      bool
	pod        string
	// askNamespace: an empty list would read the namespace (once per
	// screen) to say whether it exists (NamespaceReader).
	askNamespace bool
	// permissions, when set, reads the actions the API server denies.
	permissions func(context.Context) map[kube.Action]string
}

// newRefresh copies what the next refresh needs of the screen (and takes
// the metrics' fresh request: it goes with this refresh only).
func (m *Model) newRefresh() refresh {
	_, parentName, redrill := strings.Cut(m.parent, "/")
	r := refresh{client: m.vc.Client, kind: m.info.ID, labels: m.labels,
		req:    kube.SnapshotRequest{Kinds: []kube.Kind{m.info.ID}, Namespace: m.namespace, Selector: withLabels(m.selector, m.labels)},
		parent: m.parent, redrill: redrill && m.info.PartOf == "",
		loaded: m.loaded, gen: m.gen, reqLabels: m.reqLabels, wasReading: m.table.Reading, prepAt: m.prepAt, prepCost: m.prepCost, now: m.now,
		sortColumn: m.sortColumn, withNamespace: m.withNamespace(), withContext: m.fleet != nil, descending: !m.ascending, sortNow: !m.sortFromKind,
		metricCols: m.metricColumns(), metGen: m.metricsGeneration(), fresh: m.freshMetrics,
		permissions: m.permissionsRead()}
	m.freshMetrics = false
	if r.kind == kube.KindContainers {
		r.pod = parentName
	}
	// An empty list of a named namespace reads the namespace, once per
	// screen, to say whether it exists (not for a drill-down or a label
	// selector, whose emptiness says nothing of the namespace).
	r.askNamespace = !m.nsAsked && m.info.Namespaced && m.namespace != "" && !kube.SeveralNamespaces(m.namespace) && m.parent == "" && m.selector.IsZero() && m.labels == ""
	return r
}

// fetch starts one refresh of the screen's chain.
func (m *Model) fetch() tea.Cmd {
	r, owner, token := m.newRefresh(), m, m.token
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		msg := r.run(ctx)
		msg.owner, msg.token = owner, token
		return msg
	}
}

// run reads the snapshot, with what comes beside it (the drill-down's
// parent, the metrics, the namespace, the permissions), and prepares the
// rows when they changed: the answer apply takes (owner and token unset).
// ctx bounds every read.
func (r refresh) run(ctx context.Context) snapshotMsg {
	req, labels := r.req, r.labels
	if r.redrill {
		parentKind, parentName, _ := strings.Cut(r.parent, "/")
		fresh, err := r.client.DrillDown(ctx, kube.Kind(parentKind), req.Namespace, parentName)
		switch {
		case err == nil && len(fresh.Kinds) == 1 && fresh.Kinds[0] == r.kind:
			req.Selector = withLabels(fresh.Selector, labels)
		case kube.ReasonOf(err) == kube.ReasonNotFound:
			return snapshotMsg{labels: labels, dropped: r.parent + " was deleted"}
		case errors.Is(err, kube.ErrSelectsNothing):
			// The parent's selector was removed: it selects no rows now.
			return snapshotMsg{labels: labels, dropped: err.Error()}
		}
		// Any other failure keeps the selector read before.
	}
	// The metrics are read beside the snapshot: a slow metrics API
	// delays neither the rows nor a key press (the reading is cached
	// inside kube; this is mostly a map read).
	var reading chan kube.Metrics
	if metrics, ok := r.client.(views.MetricsSource); ok && len(r.metricCols) > 0 {
		reading = make(chan kube.Metrics, 1)
		mreq := metricsRequest(r.kind, req, r.pod)
		mreq.Fresh = r.fresh
		go func() {
			// A slow metrics API holds the rows back metricsWait at most:
			// the reading then is the previous one (see kube.Client.Metrics).
			mctx, cancel := context.WithTimeout(ctx, metricsWait)
			defer cancel()
			reading <- metrics.Metrics(mctx, mreq)
		}()
	}
	msg := snapshotMsg{labels: labels}
	if fs, ok := r.client.(views.FleetSource); ok {
		msg.snap, msg.parts = fs.FleetSnapshot(ctx, req)
	} else {
		msg.snap = r.client.Snapshot(ctx, req)
	}
	if nsReader, ok := r.client.(NamespaceReader); ok && r.askNamespace {
		if t, ok := msg.snap.Table(r.kind); ok && len(t.Rows) == 0 && !t.Reading {
			msg.nsAsked, msg.nsState = true, nsReader.NamespaceState(ctx, req.Namespace)
		}
	}
	if r.permissions != nil {
		msg.off = r.permissions(ctx)
	}
	in := metricsInput{kind: r.kind, pod: r.pod}
	if reading != nil {
		met := <-reading
		in.met = &met
		msg.metTaken = met.Taken
	}
	t, ok := msg.snap.Table(r.kind)
	switch {
	case !ok:
	case r.loaded && msg.snap.Generation == r.gen && labels == r.reqLabels:
		if in.met != nil && in.met.Generation != r.metGen && len(r.metricCols) > 0 {
			msg.met = buildMetrics(in, t.Rows)
		}
	case r.loaded && labels == r.reqLabels && r.wasReading && t.Reading && r.now().Sub(r.prepAt) < readingShare*r.prepCost:
		msg.deferred = true
	default:
		began := time.Now()
		p := &prepared{ix: newIndex(t), slot: slotOf(t.Columns, r.metricCols, r.sortColumn, r.withNamespace, r.withContext), descending: r.descending}
		if len(r.metricCols) > 0 {
			p.ix.setMetrics(buildMetrics(in, t.Rows))
		}
		if r.sortNow {
			p.order = p.ix.sorted(p.slot, r.descending)
		}
		p.cost = time.Since(began)
		msg.prep = p
	}
	return msg
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
