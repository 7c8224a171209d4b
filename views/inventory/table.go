package inventory

import (
	"slices"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// layout is the column arrangement of one table: which columns show, and the
// widest static text of each over the rows that pass the filter. It is
// rebuilt when the rows, the filter, the sort or the wide flag change, from
// the index's cached widths (O(shown rows × columns), no text measured), so
// drawing a frame costs only the visible rows.
type layout struct {
	// headers are the shown column names; the first is the marker column:
	// the cursor (">"), or the mark ("*"; "»" for a marked row under the
	// cursor), and the health marker. The sort
	// column's header ends in ↑ or ↓.
	headers []string
	// source maps a shown column to its slot (see markerSlot).
	source []int
	// static is the widest text per shown column, counting headers and the
	// cells that are not relative times.
	static []int
	// flexible marks the columns that give way first when the table is too
	// wide: NAMESPACE, NAME and kubectl's -o wide columns. The others (READY,
	// STATUS, RESTARTS, AGE, ...) are short and stay whole for as long as
	// they can.
	flexible []bool
	// hidden is how many columns right of NAME are scrolled out of view.
	hidden int
	// dropped is how many metrics columns are left out for want of room
	// (see fitMetrics); scrolling right brings them in.
	dropped int
}

const (
	columnGap   = 2
	markerWidth = 2
)

// columns describes the columns a table may show, before scrolling.
type columns struct {
	cols []kube.Column
	// metrics are the kind's metrics columns, in slots after cols'; they
	// show after cols[metricsAt] (trends only when wide).
	metrics       []metricColumn
	metricsAt     int
	wide          bool
	withNamespace bool
	withContext   bool // a screen across several clusters: CONTEXT first
	sortSlot      int  // -1: none
	ascending     bool // the sort's direction as the cells read
}

// contextHeader is the header of the rows' kubeconfig context.
const contextHeader = "CONTEXT"

// contextSlot returns the slot of the rows' kubeconfig context.
func (c columns) contextSlot() int { return len(c.cols) + 1 }

// scrollable returns the slots right of NAME that show, in order, and the
// slots that never scroll (CONTEXT, NAMESPACE, NAME).
func (c columns) slots() (pinned, scrollable []int) {
	if c.withContext {
		pinned = append(pinned, c.contextSlot())
	}
	if c.withNamespace {
		pinned = append(pinned, namespaceSlot)
	}
	for i, col := range c.cols {
		switch {
		case col.Wide && !c.wide:
		case i == 0:
			pinned = append(pinned, nameSlot)
		default:
			scrollable = append(scrollable, i+1)
		}
		if i == c.metricsAt {
			for k, mc := range c.metrics {
				if !mc.trend || c.wide {
					scrollable = append(scrollable, len(c.cols)+2+k)
				}
			}
		}
	}
	return pinned, scrollable
}

// metric returns the metrics column of slot s, ok false for a slot of the
// table's own columns.
func (c columns) metric(s int) (k int, ok bool) {
	k = s - len(c.cols) - 2
	return k, k >= 0 && k < len(c.metrics)
}

// flexible reports whether slot s gives way first: NAMESPACE, NAME and
// kubectl's -o wide columns.
func (c columns) flexible(s int) bool {
	if _, ok := c.metric(s); ok {
		return false
	}
	return s <= nameSlot || s == c.contextSlot() || c.cols[s-1].Wide
}

// header returns slot s's header text.
func (c columns) header(s int) string {
	name := "NAMESPACE"
	if k, ok := c.metric(s); ok {
		name = c.metrics[k].name
	} else if s == c.contextSlot() {
		name = contextHeader
	} else if s > namespaceSlot {
		name = c.cols[s-1].Name
	}
	if s == c.sortSlot {
		if c.ascending {
			return name + "↑"
		}
		return name + "↓"
	}
	return name
}

// newLayout arranges the columns with the first hidden columns right of
// NAME scrolled out, measuring the rows shown (indexes into ix).
func newLayout(c columns, ix *index, shown []int32, hidden int) layout {
	pinned, scrollable := c.slots()
	hidden = max(min(hidden, len(scrollable)-1), 0)
	marker := strings.Repeat(" ", markerWidth)
	if hidden > 0 {
		marker = "«" + marker[1:]
	}
	l := layout{headers: []string{marker}, source: []int{markerSlot}, flexible: []bool{false}, hidden: hidden}
	for _, s := range append(pinned, scrollable[min(hidden, len(scrollable)):]...) {
		l.headers = append(l.headers, c.header(s))
		l.source = append(l.source, s)
		l.flexible = append(l.flexible, c.flexible(s))
	}
	l.static = make([]int, len(l.headers))
	for i, h := range l.headers {
		l.static[i] = ansi.StringWidth(h)
	}
	if ix == nil {
		return l
	}
	// Every row shown (no filter, or one that keeps all, as a fuzzy
	// filter's first letter may): the widest cells are known per column.
	all := len(shown) == len(ix.rows)
	for i, s := range l.source {
		if k, ok := c.metric(s); ok {
			l.static[i] = max(l.static[i], c.metrics[k].least)
			if ix.met == nil {
				continue
			}
			if all && ix.met.colMax != nil {
				l.static[i] = max(l.static[i], ix.met.colMax[k])
				continue
			}
			for _, r := range shown {
				l.static[i] = max(l.static[i], ix.met.width(r, k))
			}
			continue
		}
		if s == markerSlot || s >= ix.slots {
			continue
		}
		if all {
			l.static[i] = max(l.static[i], ix.slotMax(s))
			continue
		}
		best := l.static[i]
		stride, w := ix.slots, ix.widths
		for _, r := range shown {
			if x := int(w[int(r)*stride+s]); x > best {
				best = x
			}
		}
		l.static[i] = best
	}
	return l
}

// measure returns each column's width with nothing given way: its static
// width, or wider for the visible rows' relative times.
func (l layout) measure(visible [][]string) []int {
	w := append([]int(nil), l.static...)
	for _, cells := range visible {
		for i, c := range cells {
			if cw := textWidth(c); cw > w[i] {
				w[i] = cw
			}
		}
	}
	return w
}

// total is the width of the first n columns of w with their gaps.
func total(w []int, n int) int {
	sum := columnGap * (n - 1)
	for _, x := range w[:n] {
		sum += x
	}
	return sum
}

// overflows reports whether the columns do not fit width whole, with the
// visible rows' cells.
func (l layout) overflows(visible [][]string, width int) bool {
	return total(l.measure(visible), len(l.static)) > width
}

// cells returns the texts of one row's shown columns at time now, with
// control characters made visible so that no cluster-supplied text can
// move the cursor or restyle the terminal.
func (l layout) cells(ix *index, r int32, marker string, now time.Time) []string {
	row := &ix.rows[r]
	out := make([]string, len(l.source))
	for i, src := range l.source {
		switch {
		case src == markerSlot:
			out[i] = marker
		case src == namespaceSlot:
			out[i] = views.Sanitize(row.Namespace)
		case src == ix.contextSlot():
			out[i] = views.Sanitize(row.Context)
		case src >= ix.slots:
			// A metrics cell: made of numbers and blocks, nothing to sanitize.
			out[i] = ix.met.cell(r, src-ix.slots)
		case src-1 < len(row.Cells):
			out[i] = views.Sanitize(row.Cells[src-1].Render(now))
		}
	}
	return out
}

// widths fits the columns into width cells: each column is as wide as its
// widest text (static widths, and the given visible rows for relative
// times). When they do not fit, columns give way in rounds, the widest
// first in each: the flexible columns (NAME and NAMESPACE down to 12 cells,
// wide columns down to 8), then the others down to their header (at least
// 6 cells). When even that is too wide, whole columns are left out from
// the right (never the marker column, NAMESPACE or NAME; when scrolled,
// the column scrolled to gives way only in the last round): widths returns
// how many columns are drawn, the first shown of them, and the rest give
// way as before. Only when NAMESPACE and NAME alone do not fit do they go
// down to 3 cells. The marker column never shrinks.
func (l layout) widths(visible [][]string, width int) (w []int, shown int) {
	w = l.measure(visible)
	// The column → scrolled to is the first right of NAME: it stays whole
	// for as long as columns right of it can be cut off instead, so that
	// scrolling shows each column whole at some position.
	first := -1
	if l.hidden > 0 {
		first = slices.IndexFunc(l.source, func(s int) bool { return s > nameSlot })
	}
	floor := func(round, i int) int {
		header := ansi.StringWidth(l.headers[i])
		switch {
		case l.source[i] == markerSlot:
			return w[i]
		case i == first && round < 2:
			return w[i]
		case round == 0 && l.flexible[i] && l.source[i] <= nameSlot:
			return min(w[i], 12) // NAME, NAMESPACE
		case round == 0 && l.flexible[i]:
			return min(w[i], 8) // a wide column, header included
		case round == 0:
			return w[i]
		case round == 1 && !l.flexible[i]:
			return min(w[i], max(header, 6))
		case round == 1:
			return w[i]
		default:
			return min(w[i], 3)
		}
	}
	// The least each column takes after the first two rounds.
	least := make([]int, len(w))
	for i := range w {
		least[i] = min(floor(0, i), floor(1, i))
	}
	shown = len(w)
	for shown > 1 && l.source[shown-1] > nameSlot && total(least, shown) > width {
		shown--
	}
	w = w[:shown]
	excess := total(w, shown) - width
	for round := 0; round < 3 && excess > 0; round++ {
		excess = views.GiveWay(w, excess, func(i int) int { return floor(round, i) })
	}
	return w, shown
}

// middle shortens a name to n cells by cutting out its middle, keeping at
// most its last 6 cells ("crashy…t6nxd"): names of objects made by a controller differ at the end (a
// Pod's generated suffix), which a cut at the end would hide. A name that
// fits, or a width under 5 cells, is left to line's cut at the end.
func middle(s string, n int) string {
	w := ansi.StringWidth(s)
	if w <= n || n < 5 {
		return s
	}
	tail := min(6, (n-1)/2) // a generated suffix ("-t6nxd")
	head := n - 1 - tail
	return ansi.Truncate(s, head, "") + "…" + ansi.TruncateLeft(s, w-tail, "")
}

// line joins cells padded to widths; a cell too long is cut with "…". The
// result is exactly width cells wide (or narrower, if even the minimum
// widths do not fit).
func line(cells []string, widths []int, width int) string {
	var b strings.Builder
	drawn := 0 // the width written so far
	for i, c := range cells {
		if i > 0 {
			b.WriteString(strings.Repeat(" ", columnGap))
			drawn += columnGap
		}
		cw := textWidth(c)
		if cw > widths[i] {
			c = ansi.Truncate(c, widths[i], "…")
			cw = ansi.StringWidth(c)
		}
		b.WriteString(c)
		drawn += cw
		if pad := widths[i] - cw; pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
			drawn += pad
		}
	}
	s := b.String()
	if drawn > width {
		s = ansi.Truncate(s, width, "")
		drawn = ansi.StringWidth(s)
	}
	if pad := width - drawn; pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}

// textWidth is ansi.StringWidth of a cell, with the common cases made
// cheap (a frame measures every visible cell twice): printable ASCII is one
// cell a byte, and the sparkline blocks ▁..█ (U+2581..U+2588, UTF-8 e2 96
// 81..88) one cell each. Anything else is measured by ansi.StringWidth.
func textWidth(s string) int {
	n := 0
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c >= 0x20 && c < 0x7f:
			i++
		case c == 0xe2 && i+2 < len(s) && s[i+1] == 0x96 && s[i+2] >= 0x81 && s[i+2] <= 0x88:
			i += 3
		default:
			return ansi.StringWidth(s)
		}
		n++
	}
	return n
}
