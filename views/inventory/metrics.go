package inventory

import (
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The metrics columns (issue 12) are the screen's own, not the kind
// plugin's: their cells come from a metrics reading (views.MetricsSource)
// that changes on its own interval, so they live beside the index, in
// slots after the table's columns (slot len(Columns)+2+k is metrics column
// k), and are drawn where k9s draws them: after RESTARTS (pods, containers)
// or after the last column kubectl prints without -o wide (nodes: VERSION).

// metricColumn is one metrics column of a kind.
type metricColumn struct {
	name string
	// trend marks a sparkline: shown only in the wide view (w), never
	// sorted by.
	trend bool
	// group is what the column is left out with on a narrow terminal (see
	// fitMetrics): the usage (CPU and MEM), the shares, or the trends;
	// groups go whole, the trends first, the usage last.
	group metricGroup
	// least is the column's least width, so that a value gaining a digit
	// (93m → 105m) does not move the columns right of it: "1000m",
	// "1000Mi", "100%*", a full sparkline.
	least int
}

// metricGroup is a set of metrics columns that fitMetrics keeps or leaves
// out together.
type metricGroup int

const (
	groupUsage metricGroup = iota
	groupShares
	groupTrends
)

// metricsWait bounds how long a refresh waits for a metrics reading beyond
// its snapshot: the metrics API is read inside kube at its own interval,
// and a caller that stops waiting gets the previous reading.
const metricsWait = 3 * time.Second

// trendWidth is a sparkline's width in cells: the last trendWidth samples
// (2½ minutes at the default 15s interval), the latest at the right.
const trendWidth = 10

var (
	podMetricColumns = []metricColumn{{name: "CPU", least: 5}, {name: "MEM", least: 6},
		{name: "%CPU/R", group: groupShares, least: 5}, {name: "%CPU/L", group: groupShares, least: 5},
		{name: "%MEM/R", group: groupShares, least: 5}, {name: "%MEM/L", group: groupShares, least: 5},
		{name: "CPU TREND", trend: true, group: groupTrends, least: trendWidth},
		{name: "MEM TREND", trend: true, group: groupTrends, least: trendWidth}}
	containerMetricColumns = podMetricColumns[:6]
	nodeMetricColumns      = []metricColumn{{name: "CPU", least: 5}, {name: "%CPU", group: groupShares, least: 4},
		{name: "MEM", least: 6}, {name: "%MEM", group: groupShares, least: 4},
		{name: "CPU TREND", trend: true, group: groupTrends, least: trendWidth},
		{name: "MEM TREND", trend: true, group: groupTrends, least: trendWidth}}
)

// metricColumnsOf returns the metrics columns of a kind: pods, containers
// and nodes have them, other kinds none.
func metricColumnsOf(kind kube.Kind) []metricColumn {
	switch kind {
	case kube.KindPods:
		return podMetricColumns
	case kube.KindContainers:
		return containerMetricColumns
	case kube.KindNodes:
		return nodeMetricColumns
	}
	return nil
}

// HasMetricColumns reports whether a kind's table has metrics columns
// (CPU, MEM, their shares and trends): pods, containers and nodes.
func HasMetricColumns(kind kube.Kind) bool { return metricColumnsOf(kind) != nil }

// metricsAfter returns the index of the column the metrics columns follow:
// RESTARTS when there is one, else the last column kubectl prints without
// -o wide.
func metricsAfter(cols []kube.Column) int {
	last := 0
	for i, c := range cols {
		if c.Name == "RESTARTS" {
			return i
		}
		if !c.Wide {
			last = i
		}
	}
	return last
}

// metricsRequest returns the metrics a screen of kind asks for along with
// its snapshot request: the pods (or nodes) of the request's namespace and
// label selector (the field selector and owners narrow nothing in the
// metrics API: the cells are found by name), or for containers the one pod
// they are part of.
func metricsRequest(kind kube.Kind, req kube.SnapshotRequest, pod string) kube.MetricsRequest {
	switch kind {
	case kube.KindNodes:
		return kube.MetricsRequest{Kind: kube.KindNodes, Labels: req.Selector.Labels}
	case kube.KindContainers:
		return kube.MetricsRequest{Kind: kube.KindPods, Namespace: req.Namespace, Name: pod}
	}
	return kube.MetricsRequest{Kind: kube.KindPods, Namespace: req.Namespace, Labels: req.Selector.Labels}
}

// metricsGeneration returns the Generation of the reading the shown
// metrics cells come from (0: none).
func (m *Model) metricsGeneration() uint64 {
	if m.ix == nil || m.ix.met == nil {
		return 0
	}
	return m.ix.met.gen
}

// metricsProblem says why the metrics columns read "n/a" ("" when they were
// read, or the kind has none), or, when the last reading's values are
// still shown, why and how old they are.
func (m *Model) metricsProblem() string {
	if m.ix == nil || m.ix.met == nil {
		return ""
	}
	mc := m.ix.met
	if mc.problem != "" && !mc.kept.IsZero() {
		return mc.problem + "; showing the sample of " + kube.Age(mc.kept).Render(m.now()) + " ago"
	}
	if mc.problem == "" {
		return mc.unread
	}
	return mc.problem
}

// metricsNote says why some cells say "n/a" though the metrics were read:
// native sidecars (views.SidecarUsage); "" otherwise.
func (m *Model) metricsNote() string {
	if m.ix == nil || m.ix.met == nil || !m.ix.met.sidecars {
		return ""
	}
	return views.SidecarUsage
}

// applyMetrics takes in a new reading's cells for the rows shown (the rows
// did not change): the layout is made again, and the order too when the
// rows are sorted by a metrics column. Cells for other rows are dropped.
func (m *Model) applyMetrics(mc *metricCells) {
	if m.ix == nil || len(mc.text) != len(m.ix.rows)*mc.cols {
		return
	}
	m.ix.setMetrics(mc)
	if m.sortSlot() >= m.ix.slots {
		m.resort()
		return
	}
	m.relayout()
}

// fitMetrics leaves metrics columns out of l a group at a time (the
// trends, then the four shares, then CPU and MEM together: never a CPU
// without its MEM beside the table's own columns), while the columns do
// not fit the screen for the rows on it, with kubectl's -o wide columns
// narrowed to 8 cells (they give way first): on a narrow terminal
// kubectl's own columns (NAME, STATUS, AGE) keep their room and the usage
// that fits shows. Only the unscrolled table is fitted so: once → scrolls,
// the columns right of NAME show in their order from the scroll position,
// the metrics columns included, and those that do not fit are cut off at
// the right (→ goes on to them), so every column is reached. A group
// holding the sort column is never left out.
func (m *Model) fitMetrics(l layout) layout {
	c := m.columns()
	if len(c.metrics) == 0 || m.ix == nil || l.hidden > 0 {
		return l
	}
	visible := m.visibleCells(l)
	w := l.measure(visible)
	for i, s := range l.source {
		if l.flexible[i] && s > nameSlot && s != c.contextSlot() {
			w[i] = min(w[i], 8) // kubectl's -o wide columns give way first (see widths)
		}
	}
	excess := total(w, len(w)) - m.vc.Width
	if excess <= 0 {
		return l
	}
	keep := map[metricGroup]bool{}
	if k, ok := c.metric(c.sortSlot); ok {
		keep[c.metrics[k].group] = true
	}
	drop := make([]bool, len(l.source))
	for g := groupTrends; g >= groupUsage && excess > 0; g-- {
		if keep[g] {
			continue
		}
		for i, s := range l.source {
			if k, ok := c.metric(s); ok && c.metrics[k].group == g {
				drop[i] = true
				excess -= w[i] + columnGap
				l.dropped++
			}
		}
	}
	if l.dropped == 0 {
		return l
	}
	out := layout{hidden: l.hidden, dropped: l.dropped}
	for i := range l.source {
		if !drop[i] {
			out.headers = append(out.headers, l.headers[i])
			out.source = append(out.source, l.source[i])
			out.static = append(out.static, l.static[i])
			out.flexible = append(out.flexible, l.flexible[i])
		}
	}
	return out
}
