package inventory

import (
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// layout is the column arrangement of one table: which columns show, and the
// widest static text of each over all rows. It is computed once per
// snapshot generation (O(rows)), so drawing a frame costs only the visible
// rows.
type layout struct {
	// headers are the shown column names; the first is the marker column:
	// the cursor (">") and the health marker.
	headers []string
	// source maps a shown column to its index in Row.Cells; -1 is the
	// marker, -2 the namespace.
	source []int
	// static is the widest text per shown column, counting headers and the
	// cells that are not relative times.
	static []int
	// flexible marks the columns that give way first when the table is too
	// wide: NAMESPACE, NAME and kubectl's -o wide columns. The others (READY,
	// STATUS, RESTARTS, AGE, ...) are short and stay whole for as long as
	// they can.
	flexible []bool
}

const (
	markerColumn    = -1
	namespaceColumn = -2
	columnGap       = 2
)

// newLayout arranges the columns of table t; wide adds kubectl's -o wide
// columns, withNamespace a leading NAMESPACE column (all-namespaces view).
func newLayout(t kube.Table, wide, withNamespace bool) layout {
	l := layout{headers: []string{"  "}, source: []int{markerColumn}, flexible: []bool{false}}
	if withNamespace {
		l.headers = append(l.headers, "NAMESPACE")
		l.source = append(l.source, namespaceColumn)
		l.flexible = append(l.flexible, true)
	}
	for i, c := range t.Columns {
		if c.Wide && !wide {
			continue
		}
		l.headers = append(l.headers, c.Name)
		l.source = append(l.source, i)
		l.flexible = append(l.flexible, i == 0 || c.Wide)
	}
	l.static = make([]int, len(l.headers))
	for i, h := range l.headers {
		l.static[i] = ansi.StringWidth(h)
	}
	for r := range t.Rows {
		row := &t.Rows[r]
		for i, src := range l.source {
			var w int
			switch {
			case src == markerColumn:
				w = 2
			case src == namespaceColumn:
				w = ansi.StringWidth(row.Namespace)
			case src < len(row.Cells) && row.Cells[src].Since.IsZero():
				w = ansi.StringWidth(row.Cells[src].Text)
			}
			if w > l.static[i] {
				l.static[i] = w
			}
		}
	}
	return l
}

// cells returns the texts of one row's shown columns at time now, with
// control characters made visible so that no cluster-supplied text can
// move the cursor or restyle the terminal.
func (l layout) cells(row *kube.Row, marker string, now time.Time) []string {
	out := make([]string, len(l.source))
	for i, src := range l.source {
		switch {
		case src == markerColumn:
			out[i] = marker
		case src == namespaceColumn:
			out[i] = views.Sanitize(row.Namespace)
		case src < len(row.Cells):
			out[i] = views.Sanitize(row.Cells[src].Render(now))
		}
	}
	return out
}

// widths fits the columns into width cells: each column is as wide as its
// widest text (static widths, and the given visible rows for relative
// times). When they do not fit, columns give way in rounds, the widest
// first in each: the flexible columns (NAME and NAMESPACE down to 12 cells,
// wide columns down to 8), then the others down to their header (at least
// 6 cells), then every column down to 3. The marker column never shrinks.
func (l layout) widths(visible [][]string, width int) []int {
	w := append([]int(nil), l.static...)
	for _, cells := range visible {
		for i, c := range cells {
			if cw := ansi.StringWidth(c); cw > w[i] {
				w[i] = cw
			}
		}
	}
	excess := columnGap*(len(w)-1) - width
	for _, x := range w {
		excess += x
	}
	floor := func(round, i int) int {
		header := ansi.StringWidth(l.headers[i])
		switch {
		case l.source[i] == markerColumn:
			return w[i]
		case round == 0 && l.flexible[i] && l.source[i] <= 0:
			return 12 // NAME, NAMESPACE
		case round == 0 && l.flexible[i]:
			return 8 // a wide column, header included
		case round == 0:
			return w[i]
		case round == 1 && !l.flexible[i]:
			return max(header, 6)
		case round == 1:
			return w[i]
		default:
			return 3
		}
	}
	for round := 0; round < 3 && excess > 0; round++ {
		for excess > 0 {
			widest, slack := -1, 0
			for i := range w {
				if s := w[i] - floor(round, i); s > 0 && (widest < 0 || w[i] > w[widest]) {
					widest, slack = i, s
				}
			}
			if widest < 0 {
				break
			}
			cut := min(slack, excess, max(w[widest]-secondWidest(w, widest), 1))
			w[widest] -= cut
			excess -= cut
		}
	}
	return w
}

// secondWidest returns the largest width other than w[skip].
func secondWidest(w []int, skip int) int {
	best := 0
	for i, x := range w {
		if i != skip && x > best {
			best = x
		}
	}
	return best
}

// line joins cells padded to widths; a cell too long is cut with "…". The
// result is exactly width cells wide (or narrower, if even the minimum
// widths do not fit).
func line(cells []string, widths []int, width int) string {
	var b strings.Builder
	for i, c := range cells {
		if i > 0 {
			b.WriteString(strings.Repeat(" ", columnGap))
		}
		if ansi.StringWidth(c) > widths[i] {
			c = ansi.Truncate(c, widths[i], "…")
		}
		b.WriteString(c)
		if pad := widths[i] - ansi.StringWidth(c); pad > 0 {
			b.WriteString(strings.Repeat(" ", pad))
		}
	}
	s := b.String()
	if ansi.StringWidth(s) > width {
		s = ansi.Truncate(s, width, "")
	}
	if pad := width - ansi.StringWidth(s); pad > 0 {
		s += strings.Repeat(" ", pad)
	}
	return s
}
