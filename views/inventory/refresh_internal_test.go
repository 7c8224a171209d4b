package inventory

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// refreshSource is a views.Source that answers one snapshot and one
// drill-down, and records what it was asked.
type refreshSource struct {
	views.Source // nil: the refresh calls only Snapshot and DrillDown
	snap         kube.Snapshot
	drill        kube.SnapshotRequest
	drillErr     error
	asked        []kube.SnapshotRequest
	drilled      int
}

func (s *refreshSource) Snapshot(_ context.Context, req kube.SnapshotRequest) kube.Snapshot {
	s.asked = append(s.asked, req)
	return s.snap
}

func (s *refreshSource) DrillDown(context.Context, kube.Kind, string, string) (kube.SnapshotRequest, error) {
	s.drilled++
	return s.drill, s.drillErr
}

// refreshNamespaces adds NamespaceReader.
type refreshNamespaces struct {
	*refreshSource
	read int
}

func (s *refreshNamespaces) NamespaceState(context.Context, string) kube.NamespaceState {
	s.read++
	return kube.NamespaceMissing
}

// refreshMetrics adds views.MetricsSource.
type refreshMetrics struct {
	*refreshSource
	met kube.Metrics
}

func (s *refreshMetrics) Metrics(context.Context, kube.MetricsRequest) kube.Metrics { return s.met }

// refreshTable is a table of kind with rows named names, in that order.
func refreshTable(kind kube.Kind, reading bool, names ...string) kube.Table {
	t := kube.Table{Kind: kind, Columns: []kube.Column{{Name: "NAME"}, {Name: "STATUS"}}, Reading: reading}
	for _, n := range names {
		t.Rows = append(t.Rows, kube.Row{Namespace: "demo", Name: n, UID: "uid-" + n, Cells: []kube.Cell{kube.Text(n), kube.Text("Running")}})
	}
	return t
}

// TestRefreshRun: one refresh, without Bubble Tea: what it asks the
// source (the drill-down's parent again, the snapshot with the filter's
// label selector, the namespace of an empty list, the permissions) and
// what it answers (rows prepared and sorted when they changed, nothing
// when they did not, deferred while they arrive and were just prepared,
// the drill-down's rows dropped).
func TestRefreshRun(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 8, 0, 0, 0, time.UTC)
	clock := func() time.Time { return t0 }
	snap := func(gen uint64, tables ...kube.Table) kube.Snapshot {
		return kube.Snapshot{Namespace: "demo", Tables: tables, Generation: gen, Taken: t0}
	}
	pods := kube.SnapshotRequest{Kinds: []kube.Kind{kube.KindPods}, Namespace: "demo"}
	base := refresh{kind: kube.KindPods, req: pods, now: clock, sortColumn: "NAME", sortNow: true}
	with := func(f func(*refresh)) refresh {
		r := base
		f(&r)
		return r
	}
	denied := map[kube.Action]string{kube.ActionDelete: "may not delete pods in demo"}
	for _, tc := range []struct {
		name     string
		r        refresh
		src      refreshSource
		ns       bool // the source is a NamespaceReader
		met      *kube.Metrics
		asked    string // the label selector of the snapshot asked; "-" when none was
		order    []string
		prepared bool
		unsorted bool // prepared, the order left to resort
		deferred bool
		dropped  string
		nsAsked  bool
		off      bool
		cells    bool // new metrics cells for unchanged rows
	}{
		{name: "first rows: prepared and sorted by name", r: base, src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false, "web", "api", "db"))},
			asked: "", prepared: true, order: []string{"api", "db", "web"}},
		{name: "the filter's labels join the screen's selector", r: with(func(r *refresh) {
			r.labels, r.req.Selector = "tier=a", withLabels(kube.Selector{Labels: "app=web"}, "tier=a")
		}), src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false, "b", "a"))}, asked: "app=web,tier=a", prepared: true, order: []string{"a", "b"}},
		{name: "the kind's default order: indexed, sorted by resort", r: with(func(r *refresh) { r.sortNow = false }),
			src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false, "b", "a"))}, asked: "", prepared: true, unsorted: true},
		{name: "same generation and labels: nothing prepared", r: with(func(r *refresh) { r.loaded, r.gen = true, 4 }),
			src: refreshSource{snap: snap(4, refreshTable(kube.KindPods, false, "a"))}, asked: ""},
		{name: "same generation, other labels: prepared", r: with(func(r *refresh) { r.loaded, r.gen, r.reqLabels = true, 4, "tier=a" }),
			src: refreshSource{snap: snap(4, refreshTable(kube.KindPods, false, "a"))}, asked: "", prepared: true, order: []string{"a"}},
		{name: "still arriving, prepared just now: deferred", r: with(func(r *refresh) {
			r.loaded, r.gen, r.wasReading, r.prepAt, r.prepCost = true, 4, true, t0.Add(-time.Second), time.Second
		}), src: refreshSource{snap: snap(5, refreshTable(kube.KindPods, true, "a", "b"))}, asked: "", deferred: true},
		{name: "still arriving, prepared long enough ago: prepared", r: with(func(r *refresh) {
			r.loaded, r.gen, r.wasReading, r.prepAt, r.prepCost = true, 4, true, t0.Add(-readingShare*time.Second), time.Second
		}), src: refreshSource{snap: snap(5, refreshTable(kube.KindPods, true, "b", "a"))}, asked: "", prepared: true, order: []string{"a", "b"}},
		{name: "the kind could not be read: nothing prepared", r: base,
			src:   refreshSource{snap: kube.Snapshot{Truncated: []kube.Truncation{{Kind: kube.KindPods, Reason: kube.ReasonForbidden}}, Generation: 2}},
			asked: ""},
		{name: "drill-down: the parent's selector read again", r: with(func(r *refresh) {
			r.parent, r.redrill, r.labels = "services/sv", true, "tier=a"
			r.req.Selector = withLabels(kube.Selector{Labels: "app=old"}, "tier=a")
		}), src: refreshSource{drill: kube.SnapshotRequest{Kinds: []kube.Kind{kube.KindPods}, Selector: kube.Selector{Labels: "app=new"}},
			snap: snap(1, refreshTable(kube.KindPods, false, "a"))}, asked: "app=new,tier=a", prepared: true, order: []string{"a"}},
		{name: "drill-down: a parent that cannot be read keeps the selector", r: with(func(r *refresh) {
			r.parent, r.redrill, r.req.Selector = "services/sv", true, kube.Selector{Labels: "app=old"}
		}), src: refreshSource{drillErr: &kube.Refusal{Reason: kube.ReasonUnavailable}, snap: snap(1, refreshTable(kube.KindPods, false, "a"))},
			asked: "app=old", prepared: true, order: []string{"a"}},
		{name: "drill-down: the parent deleted", r: with(func(r *refresh) { r.parent, r.redrill = "services/sv", true }),
			src: refreshSource{drillErr: &kube.Refusal{Reason: kube.ReasonNotFound}}, asked: "-", dropped: "services/sv was deleted"},
		{name: "drill-down: the parent selects nothing", r: with(func(r *refresh) { r.parent, r.redrill = "services/sv", true }),
			src: refreshSource{drillErr: fmt.Errorf("services/sv: %w", kube.ErrSelectsNothing)}, asked: "-",
			dropped: "services/sv: " + kube.ErrSelectsNothing.Error()},
		{name: "an empty named namespace is read", r: with(func(r *refresh) { r.askNamespace = true }), ns: true,
			src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false))}, asked: "", prepared: true, nsAsked: true},
		{name: "a namespace with rows is not read", r: with(func(r *refresh) { r.askNamespace = true }), ns: true,
			src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false, "a"))}, asked: "", prepared: true, order: []string{"a"}},
		{name: "a namespace still arriving is not read", r: with(func(r *refresh) { r.askNamespace = true }), ns: true,
			src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, true))}, asked: "", prepared: true},
		{name: "a namespace read before is not read again", r: base, ns: true,
			src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false))}, asked: "", prepared: true},
		{name: "the permissions are read with the snapshot", r: with(func(r *refresh) {
			r.permissions = func(context.Context) map[kube.Action]string { return denied }
		}), src: refreshSource{snap: snap(1, refreshTable(kube.KindPods, false, "a"))}, asked: "", prepared: true, order: []string{"a"}, off: true},
		{name: "same rows, a new metrics reading: new cells", r: with(func(r *refresh) {
			r.loaded, r.gen, r.metricCols, r.metGen = true, 4, podMetricColumns, 1
		}), met: &kube.Metrics{Generation: 2, Taken: t0}, src: refreshSource{snap: snap(4, refreshTable(kube.KindPods, false, "a"))}, asked: "", cells: true},
		{name: "same rows, the same metrics reading: nothing", r: with(func(r *refresh) {
			r.loaded, r.gen, r.metricCols, r.metGen = true, 4, podMetricColumns, 2
		}), met: &kube.Metrics{Generation: 2, Taken: t0}, src: refreshSource{snap: snap(4, refreshTable(kube.KindPods, false, "a"))}, asked: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.src
			var nsr *refreshNamespaces
			r := tc.r
			r.client = &src
			switch {
			case tc.ns:
				nsr = &refreshNamespaces{refreshSource: &src}
				r.client = nsr
			case tc.met != nil:
				r.client = &refreshMetrics{refreshSource: &src, met: *tc.met}
			}
			msg := r.run(context.Background())
			if tc.asked == "-" {
				if len(src.asked) != 0 {
					t.Fatalf("asked %+v", src.asked)
				}
			} else if len(src.asked) != 1 || src.asked[0].Selector.Labels != tc.asked || src.asked[0].Namespace != "demo" ||
				!slices.Equal(src.asked[0].Kinds, []kube.Kind{kube.KindPods}) {
				t.Fatalf("asked %+v, want labels %q", src.asked, tc.asked)
			}
			if (src.drilled > 0) != r.redrill {
				t.Fatalf("drilled %d times, redrill %v", src.drilled, r.redrill)
			}
			if msg.labels != r.labels || msg.dropped != tc.dropped || msg.deferred != tc.deferred || (msg.prep != nil) != tc.prepared {
				t.Fatalf("answer: labels %q dropped %q deferred %v prepared %v", msg.labels, msg.dropped, msg.deferred, msg.prep != nil)
			}
			if p := msg.prep; p != nil {
				if (p.order == nil) != tc.unsorted || p.slot != slotOf(src.snap.Tables[0].Columns, r.metricCols, r.sortColumn, false, false) {
					t.Fatalf("prepared: order %v slot %d", p.order, p.slot)
				}
				var names []string
				for _, i := range p.order {
					names = append(names, p.ix.rows[i].Name)
				}
				if !slices.Equal(names, tc.order) {
					t.Fatalf("order %v, want %v", names, tc.order)
				}
			}
			if msg.nsAsked != tc.nsAsked || (tc.nsAsked && msg.nsState != kube.NamespaceMissing) || (nsr != nil && nsr.read != btoi(tc.nsAsked)) {
				t.Fatalf("namespace: asked %v state %v", msg.nsAsked, msg.nsState)
			}
			if (msg.off != nil) != tc.off || (tc.off && msg.off[kube.ActionDelete] != denied[kube.ActionDelete]) {
				t.Fatalf("off %v", msg.off)
			}
			if (msg.met != nil) != tc.cells || (tc.met != nil && !msg.metTaken.Equal(tc.met.Taken)) {
				t.Fatalf("metrics: cells %v taken %v", msg.met != nil, msg.metTaken)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
