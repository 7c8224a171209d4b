package inventory

import (
	"slices"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Classes of sort keys. Within a column, numbers (and moments, ratios and
// quantities) come before text; missing values ("", "<none>", "<unknown>")
// come last in either direction.
const (
	classNumber = iota
	classText
	classMissing
)

// sortKey is one cell made comparable: a number (num, then num2), or text
// compared in natural order.
type sortKey struct {
	class    uint8
	num      float64
	num2     float64
	text     string
	isMoment bool
}

// keyOf makes a cell comparable by its type: a relative time by its age (so
// that ascending is youngest first, as the ages on screen read), a count
// with a time ("3 (5m ago)") by the count, "1/2" by the ready ratio and then
// the total, a Kubernetes quantity ("500m", "1.5Gi", "129M") as a quantity
// (casebook C11), "15%" as 15; anything else is text.
func keyOf(c kube.Cell) sortKey {
	if !c.Since.IsZero() && c.Text == "" {
		return sortKey{class: classNumber, num: -float64(c.Since.UnixNano()), isMoment: true}
	}
	s := strings.TrimSpace(c.Text)
	switch s {
	case "", "<none>", "<unknown>", "<pending>", "<nil>", "<unset>":
		return sortKey{class: classMissing}
	}
	if v, ok := views.ParseQuantity(s); ok {
		return sortKey{class: classNumber, num: v}
	}
	if a, b, ok := strings.Cut(s, "/"); ok {
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if err1 == nil && err2 == nil && x >= 0 && y >= 0 {
			ratio := float64(x)
			if y > 0 {
				ratio /= float64(y)
			}
			return sortKey{class: classNumber, num: ratio, num2: float64(y)}
		}
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		if v, err := strconv.ParseFloat(p, 64); err == nil {
			return sortKey{class: classNumber, num: v}
		}
	}
	return sortKey{class: classText, text: s}
}

// sortKeys returns the keys of slot s for every row, made on first use.
func (ix *index) sortKeys(s int) []sortKey {
	if k, ok := ix.keys[s]; ok {
		return k
	}
	if s >= ix.slots && ix.met != nil {
		k := ix.met.sortKeys(s-ix.slots, len(ix.rows))
		ix.keys[s] = k
		return k
	}
	k := make([]sortKey, len(ix.rows))
	for r := range ix.rows {
		row := &ix.rows[r]
		switch {
		case s == namespaceSlot && row.Namespace == "":
			k[r] = sortKey{class: classMissing}
		case s == namespaceSlot:
			k[r] = sortKey{class: classText, text: row.Namespace}
		case s == ix.contextSlot():
			k[r] = sortKey{class: classText, text: row.Context}
		case s-1 < len(row.Cells):
			k[r] = keyOf(row.Cells[s-1])
		default:
			k[r] = sortKey{class: classMissing}
		}
	}
	ix.keys[s] = k
	return k
}

// momentColumn reports whether slot s holds relative times (AGE, LAST SEEN).
func (ix *index) momentColumn(s int) bool {
	for _, k := range ix.sortKeys(s) {
		if k.class != classMissing {
			return k.isMoment
		}
	}
	return false
}

// sorted returns the rows' order by slot s (a stable sort, so ties keep the
// snapshot's namespace/name order); s < 0 is the snapshot's own order.
func (ix *index) sorted(s int, descending bool) []int32 {
	order := make([]int32, len(ix.rows))
	for i := range order {
		order[i] = int32(i)
	}
	if s < 0 {
		return order
	}
	keys := ix.sortKeys(s)
	slices.SortStableFunc(order, func(a, b int32) int {
		ka, kb := &keys[a], &keys[b]
		if ka.class != kb.class {
			if ka.class == classMissing || kb.class == classMissing || !descending {
				return int(ka.class) - int(kb.class)
			}
			return int(kb.class) - int(ka.class)
		}
		c := compareKeys(ka, kb)
		if descending {
			return -c
		}
		return c
	})
	return order
}

// compareKeys orders two keys of one class.
func compareKeys(a, b *sortKey) int {
	switch a.class {
	case classNumber:
		switch {
		case a.num < b.num:
			return -1
		case a.num > b.num:
			return 1
		case a.num2 < b.num2:
			return -1
		case a.num2 > b.num2:
			return 1
		}
		return 0
	case classText:
		return naturalCompare(a.text, b.text)
	}
	return 0
}

// naturalCompare orders strings the way people read them: runs of digits
// by their value ("pod-2" before "pod-10"), other bytes case-insensitively,
// and byte order to break ties.
func naturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ca, cb := a[i], b[j]
		if isDigit(ca) && isDigit(cb) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			da := strings.TrimLeft(a[si:i], "0")
			db := strings.TrimLeft(b[sj:j], "0")
			if len(da) != len(db) {
				return len(da) - len(db)
			}
			if c := strings.Compare(da, db); c != 0 {
				return c
			}
			continue
		}
		la, lb := lower(ca), lower(cb)
		if la != lb {
			return int(la) - int(lb)
		}
		i, j = i+1, j+1
	}
	if d := (len(a) - i) - (len(b) - j); d != 0 {
		return d
	}
	return strings.Compare(a, b)
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func lower(b byte) byte {
	if b >= 'A' && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

// sortSlot returns the slot the rows are sorted by, -1 for none.
func (m *Model) sortSlot() int {
	return slotOf(m.table.Columns, m.metricColumns(), m.sortColumn, m.withNamespace(), m.fleet != nil)
}

// slotOf returns the slot of the column named name among columns (the
// namespace's slot when the screen shows a NAMESPACE column, the context's
// when it shows CONTEXT), else among the metrics columns (not the trends:
// they are not sorted by), -1 for none.
func slotOf(columns []kube.Column, metrics []metricColumn, name string, withNamespace, withContext bool) int {
	if name == "" {
		return -1
	}
	if name == "NAMESPACE" && withNamespace {
		return namespaceSlot
	}
	if name == contextHeader && withContext {
		return len(columns) + 1
	}
	for i, c := range columns {
		if c.Name == name {
			return i + 1
		}
	}
	for k, c := range metrics {
		if c.name == name && !c.trend {
			return len(columns) + 2 + k
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
