package inventory

import "github.com/kyyard/kyyard/kube"

// rowKey identifies a row's object across refreshes: its UID, or
// namespace/name when the rows carry no UID.
func rowKey(r *kube.Row) string {
	k := r.Namespace + "/" + r.Name
	if r.UID != "" {
		k = r.UID
	}
	if r.Context != "" {
		// Across several clusters: an object copied between clusters
		// (etcd restored elsewhere) keeps its UID.
		k = r.Context + "\x00" + k
	}
	return k
}

// toggleMark flips the cursor row's mark and moves the cursor down.
func (m *Model) toggleMark() {
	row := m.current()
	if row == nil {
		return
	}
	k := rowKey(row)
	if m.marks[k] {
		delete(m.marks, k)
	} else {
		m.marks[k] = true
		m.anchor = k
	}
	m.cursor++
	m.countMarks()
}

// markRange marks the shown rows from the last marked one to the cursor,
// both included; with no marked row shown it marks the cursor row.
func (m *Model) markRange() {
	row := m.current()
	if row == nil {
		return
	}
	from := m.cursor
	if m.anchor != "" && m.marks[m.anchor] {
		for i, r := range m.shown {
			if rowKey(&m.ix.rows[r]) == m.anchor {
				from = i
				break
			}
		}
	}
	lo, hi := min(from, m.cursor), max(from, m.cursor)
	for i := lo; i <= hi; i++ {
		m.marks[rowKey(&m.ix.rows[m.shown[i]])] = true
	}
	m.anchor = rowKey(row)
	m.countMarks()
}

// clearMarks unmarks every row.
func (m *Model) clearMarks() {
	clear(m.marks)
	m.anchor, m.markedShown = "", 0
}

// countMarks counts the marked rows among the shown ones.
func (m *Model) countMarks() {
	m.markedShown = 0
	if len(m.marks) == 0 || m.ix == nil {
		return
	}
	for _, r := range m.shown {
		if m.marks[rowKey(&m.ix.rows[r])] {
			m.markedShown++
		}
	}
}
