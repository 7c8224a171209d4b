package inventory

import (
	"maps"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The metrics cells: one reading (kube.Metrics) made into the text and the
// sort value of every row's metrics columns, measured once, off the UI
// goroutine (buildMetrics, called by refresh.run).

// Cell texts that are not numbers: notAvailable when the metrics cannot be
// read (Metrics.Truncated, or a client that reads none), a share of an
// amount no container sets, or a pod (container) that is not running and
// so never gets a sample (views.NotRunning); noSample for a running object
// the metrics API has no sample of yet (a pod just started: metrics-server
// scrapes every 15s).
const (
	notAvailable = "n/a"
	noSample     = "-"
)

// metricCells are the metrics cells of one index's rows for one reading.
type metricCells struct {
	cols int // metrics columns per row
	// text[r*cols+k] is row r's cell of metrics column k; val the same
	// cell's quantity to sort by (millicores, bytes, percent), NaN for
	// "n/a" and "-" (sorted last either way).
	text []string
	val  []float64
	// widths[r*cols+k] is the drawn width of text[r*cols+k], and colMax[k]
	// the widest of column k over every row, measured once in
	// buildMetrics (off the UI goroutine): a layout then reads numbers.
	widths []uint16
	colMax []int
	// gen is the reading's Metrics.Generation (0: none read).
	gen uint64
	// problem says why there are no metrics (views.MetricsProblem), "" when
	// they were read.
	problem string
	// sidecars is set when a native sidecar's cells say "n/a"
	// (views.NativeSidecar): the line above the table says why.
	sidecars bool
	// unread, across several clusters, names the contexts whose metrics
	// were not read and why (unreadProblem); their rows' cells say "n/a".
	unread string
	// kept, with a problem, is the newest sample's time of the previous
	// reading whose values the cells still show: the metrics API failed
	// for a while (unavailable, timeout), and kube kept what it had.
	kept time.Time
}

// metricsInput is a reading and what the cells of one table need from the
// screen: the kind, and for containers the pod they are part of.
type metricsInput struct {
	kind kube.Kind
	pod  string // containers: the pod's name
	// met is the reading; nil when the client reads no metrics.
	met *kube.Metrics
}

// buildMetrics makes the metrics cells of rows: O(rows), done in the
// refresh's goroutine. kind's columns decide the cells; a kind without
// metrics columns gives nil.
func buildMetrics(in metricsInput, rows []kube.Row) *metricCells {
	cols := metricColumnsOf(in.kind)
	if len(cols) == 0 {
		return nil
	}
	mc := &metricCells{cols: len(cols), text: make([]string, len(rows)*len(cols)), val: make([]float64, len(rows)*len(cols))}
	for i := range mc.val {
		mc.val[i] = math.NaN()
	}
	switch {
	case in.met == nil:
		mc.problem = "metrics: not available — " + views.NoMetricsClient
	case in.met.Truncated != nil:
		mc.problem = views.MetricsProblem(in.met.Truncated)
		if len(in.met.Unread) > 0 {
			mc.problem = unreadProblem(in.met.Unread) // across clusters: name them
		}
		if transient(in.met.Truncated.Reason) {
			mc.kept = newestSample(in.met)
		}
	}
	if mc.problem != "" && mc.kept.IsZero() {
		for i := range mc.text {
			mc.text[i] = notAvailable
		}
		if in.met != nil {
			mc.gen = in.met.Generation
		}
		return mc.measure()
	}
	mc.gen = in.met.Generation
	mc.unread = unreadProblem(in.met.Unread)
	var key strings.Builder
	for r := range rows {
		row := &rows[r]
		text, val := mc.text[r*mc.cols:(r+1)*mc.cols], mc.val[r*mc.cols:(r+1)*mc.cols]
		// A row of a context whose metrics were not read: n/a, or its
		// last good samples when the failure is transient.
		unread := in.met.Unread[row.Context]
		key.Reset()
		if row.Context != "" {
			key.WriteString(row.Context)
			key.WriteByte('/')
		}
		switch in.kind {
		case kube.KindNodes:
			key.WriteString(row.Name)
			nu, ok := in.met.Nodes[key.String()]
			if unread != nil && (!ok || !transient(unread.Reason)) {
				fillCells(text, notAvailable)
				continue
			}
			nodeCells(text, val, row, nu, ok)
		default:
			key.WriteString(row.Namespace)
			key.WriteByte('/')
			if in.kind == kube.KindContainers {
				key.WriteString(in.pod)
			} else {
				key.WriteString(row.Name)
			}
			pu, ok := in.met.Pods[key.String()]
			switch {
			case unread != nil && (!ok || !transient(unread.Reason)):
				fillCells(text, notAvailable)
			case !ok:
				fillCells(text, missing(in.kind, row))
			case in.kind == kube.KindContainers:
				containerCells(text, val, row, &pu)
			default:
				podCells(text, val, row, &pu)
			}
			if in.kind == kube.KindContainers && text[0] == notAvailable && views.NativeSidecar(in.kind, row) {
				mc.sidecars = true
			}
		}
	}
	return mc.measure()
}

// transient reports whether a failed read may pass by itself (the API
// server or metrics-server down or slow): the last reading's values are
// then shown, with their age, rather than n/a.
func transient(r kube.Reason) bool {
	return r == kube.ReasonUnavailable || r == kube.ReasonTimeout || r == kube.ReasonError
}

// unreadProblem says which contexts' metrics were not read, and why, in
// one line, contexts of one reason together: "metrics in kyyard-fleet-2:
// not available — no metrics-server; in lab-1, lab-2: forbidden (may not
// list pods.metrics.k8s.io)" (views.MetricsProblem of each, reasons in
// the order of their first context, contexts sorted); "" for none.
func unreadProblem(unread map[string]*kube.Truncation) string {
	if len(unread) == 0 {
		return ""
	}
	var problems []string
	byProblem := map[string][]string{}
	for _, name := range slices.Sorted(maps.Keys(unread)) {
		p := strings.TrimPrefix(views.MetricsProblem(unread[name]), "metrics: ")
		if _, ok := byProblem[p]; !ok {
			problems = append(problems, p)
		}
		byProblem[p] = append(byProblem[p], views.Sanitize(name))
	}
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = "in " + strings.Join(byProblem[p], ", ") + ": " + p
	}
	return "metrics " + strings.Join(parts, "; ")
}

// newestSample is the time of the newest pod or node sample a reading
// holds, zero for none.
func newestSample(met *kube.Metrics) time.Time {
	var newest time.Time
	for _, p := range met.Pods {
		if p.Timestamp.After(newest) {
			newest = p.Timestamp
		}
	}
	for _, n := range met.Nodes {
		if n.Timestamp.After(newest) {
			newest = n.Timestamp
		}
	}
	return newest
}

// fillCells sets every cell of a row to s.
func fillCells(text []string, s string) {
	for i := range text {
		text[i] = s
	}
}

// podCells fills a pod row's cells: CPU and MEM are the pod's total (as
// kubectl top pod prints it), the shares per container summed over the
// containers that set the amount (kube.PodUtilisation).
func podCells(text []string, val []float64, row *kube.Row, pu *kube.PodUsage) {
	var res []kube.ContainerResources
	if row.Resources != nil {
		res = row.Resources.Containers
	}
	u := kube.PodUtilisation(res, pu.Containers)
	usageCells(text[:2], val[:2], pu.Total)
	shareCells(text[2:6], val[2:6], u.CPURequest, u.CPULimit, u.MemoryRequest, u.MemoryLimit)
	if len(text) > 6 {
		text[6] = trendCell(pu.Trend, func(s kube.Sample) int64 { return s.Usage.CPU })
		text[7] = trendCell(pu.Trend, func(s kube.Sample) int64 { return s.Usage.Memory })
	}
}

// containerCells fills a container row's cells from its pod's reading: the
// container's own usage and shares; when the reading has no such container
// (an init or ephemeral container, one not started), "n/a" if it is not
// running or is a native sidecar, else "-".
func containerCells(text []string, val []float64, row *kube.Row, pu *kube.PodUsage) {
	for _, c := range pu.Containers {
		if c.Name != row.Name {
			continue
		}
		var res []kube.ContainerResources
		if row.Resources != nil {
			res = row.Resources.Containers
		}
		u := kube.PodUtilisation(res, []kube.ContainerUsage{c})
		usageCells(text[:2], val[:2], c.Usage)
		shareCells(text[2:6], val[2:6], u.CPURequest, u.CPULimit, u.MemoryRequest, u.MemoryLimit)
		return
	}
	fillCells(text, missing(kube.KindContainers, row))
}

// missing is the cell text of a pod or container row the reading has no
// sample of: notAvailable when it is not running or is a native sidecar (it
// never will have one), noSample when it is (or its state is unknown).
func missing(kind kube.Kind, row *kube.Row) string {
	if views.NotRunning(kind, row) || views.NativeSidecar(kind, row) {
		return notAvailable
	}
	return noSample
}

// nodeCells fills a node row's cells: CPU, %CPU, MEM, %MEM of allocatable
// (kube.NodeUtilisation, as kubectl top node), then the trends.
func nodeCells(text []string, val []float64, row *kube.Row, nu kube.NodeUsage, ok bool) {
	if !ok {
		fillCells(text, noSample)
		return
	}
	alloc := kube.Usage{CPU: kube.NotSet, Memory: kube.NotSet}
	if row.Resources != nil {
		alloc = row.Resources.Allocatable
	}
	cpu, mem := kube.NodeUtilisation(alloc, nu.Usage)
	text[0], val[0] = kube.FormatCPU(nu.Usage.CPU), quantity(nu.Usage.CPU)
	shareCells(text[1:2], val[1:2], cpu)
	text[2], val[2] = kube.FormatMemory(nu.Usage.Memory), quantity(nu.Usage.Memory)
	shareCells(text[3:4], val[3:4], mem)
	if len(text) > 4 {
		text[4] = trendCell(nu.Trend, func(s kube.Sample) int64 { return s.Usage.CPU })
		text[5] = trendCell(nu.Trend, func(s kube.Sample) int64 { return s.Usage.Memory })
	}
}

// usageCells fills CPU and MEM.
func usageCells(text []string, val []float64, u kube.Usage) {
	text[0], val[0] = kube.FormatCPU(u.CPU), quantity(u.CPU)
	text[1], val[1] = kube.FormatMemory(u.Memory), quantity(u.Memory)
}

// shareCells fills percentages: "45%", "45%*" when partial, "n/a".
func shareCells(text []string, val []float64, shares ...kube.Percent) {
	for i, p := range shares {
		text[i] = p.String()
		if p.Set {
			val[i] = float64(p.Value)
		}
	}
}

// quantity is a usage's sort value, NaN when not set.
func quantity(v int64) float64 {
	if v < 0 {
		return math.NaN()
	}
	return float64(v)
}

// trendCell draws the last trendWidth samples' amount as a sparkline,
// left-aligned under its header like every cell (the latest sample is the
// rightmost drawn; the column is trendWidth wide whatever the count);
// "-" when there is none.
func trendCell(trend []kube.Sample, amount func(kube.Sample) int64) string {
	if len(trend) == 0 {
		return noSample
	}
	trend = trend[max(len(trend)-trendWidth, 0):]
	var values [trendWidth]float64
	for i, s := range trend {
		values[i] = float64(max(amount(s), 0))
	}
	return views.Sparkline(values[:len(trend)], len(trend))
}

// width returns the drawn width of row r's metrics column k.
func (mc *metricCells) width(r int32, k int) int {
	if mc.widths != nil {
		return int(mc.widths[int(r)*mc.cols+k])
	}
	return utf8.RuneCountInString(mc.text[int(r)*mc.cols+k])
}

// measure fills widths and colMax from text, and makes equal cells share
// one string: a reading's cells repeat ("n/a", "10m", "45%"), and at
// 100,000 pods their copies were a quarter of the screen's heap.
func (mc *metricCells) measure() *metricCells {
	mc.widths = make([]uint16, len(mc.text))
	mc.colMax = make([]int, mc.cols)
	seen := make(map[string]string, 256)
	for i, t := range mc.text {
		if s, ok := seen[t]; ok {
			mc.text[i] = s
		} else if len(seen) < maxSharedCells {
			seen[t] = t
		}
		w := utf8.RuneCountInString(t)
		mc.widths[i] = uint16(min(w, math.MaxUint16))
		mc.colMax[i%mc.cols] = max(mc.colMax[i%mc.cols], w)
	}
	return mc
}

// maxSharedCells bounds the strings measure shares per reading.
const maxSharedCells = 1 << 16

// cell returns row r's metrics column k, "" when there are no cells.
func (mc *metricCells) cell(r int32, k int) string {
	if mc == nil || int(r)*mc.cols+k >= len(mc.text) {
		return ""
	}
	return mc.text[int(r)*mc.cols+k]
}

// sortKeys returns the sort keys of metrics column k: quantities, and
// missing for "n/a" and "-" (last in either direction).
func (mc *metricCells) sortKeys(k, rows int) []sortKey {
	keys := make([]sortKey, rows)
	for r := range keys {
		keys[r] = sortKey{class: classMissing}
		if mc == nil || r*mc.cols+k >= len(mc.val) {
			continue
		}
		if v := mc.val[r*mc.cols+k]; !math.IsNaN(v) {
			keys[r] = sortKey{class: classNumber, num: v}
		}
	}
	return keys
}
