package logs

import "sort"

// The entries shown depend on the filter: all of them, only the log lines
// with a match (showOnly), or every entry but those (showHidden).

// visible reports whether entry seq is shown.
func (m *Model) visible(seq int64) bool {
	switch {
	case m.ix == nil || m.filter == showAll:
		return true
	case m.filter == showOnly:
		return m.ix.has(seq)
	}
	return !m.ix.has(seq)
}

// next returns the first shown entry after seq.
func (m *Model) next(seq int64) (int64, bool) {
	b := m.buf
	seq = max(seq+1, b.first)
	if m.ix != nil && m.filter == showOnly {
		l := m.ix.lines
		i := sort.Search(len(l), func(i int) bool { return l[i] >= seq })
		if i < len(l) {
			return l[i], true
		}
		return 0, false
	}
	for ; seq < b.end(); seq++ {
		if m.visible(seq) {
			return seq, true
		}
	}
	return 0, false
}

// prev returns the last shown entry before seq.
func (m *Model) prev(seq int64) (int64, bool) {
	b := m.buf
	seq = min(seq-1, b.end()-1)
	if m.ix != nil && m.filter == showOnly {
		l := m.ix.lines
		i := sort.Search(len(l), func(i int) bool { return l[i] > seq })
		if i > 0 && l[i-1] >= b.first {
			return l[i-1], true
		}
		return 0, false
	}
	for ; seq >= b.first; seq-- {
		if m.visible(seq) {
			return seq, true
		}
	}
	return 0, false
}

// shown counts the entries shown and the rank (from 1) of seq among them.
func (m *Model) shown(seq int64) (rank, total int) {
	b := m.buf
	switch {
	case m.ix == nil || m.filter == showAll:
		return int(seq-b.first) + 1, b.n
	case m.filter == showOnly:
		return m.ix.linesBefore(seq) + 1, len(m.ix.lines)
	}
	return int(seq-b.first) - m.ix.linesBefore(seq) + 1, b.n - len(m.ix.lines)
}

// height is the number of rows for entries: the screen less the header,
// the fields' header row when shown, and the footer.
func (m *Model) height() int {
	h := m.vc.Height - 2
	if m.columnsShown() {
		h-- // the fields' header row
	}
	return max(h, 1)
}

// position is where the screen starts: an entry and its first row shown.
type position struct {
	seq int64
	sub int
}

// bottomTop is the position of the top row when the last rows are shown.
func (m *Model) bottomTop() (position, bool) {
	seq, ok := m.prev(m.buf.end())
	if !ok {
		return position{}, false
	}
	h := m.height()
	for {
		n := len(m.rows(seq))
		if n >= h {
			return position{seq, n - h}, true
		}
		h -= n
		p, ok := m.prev(seq)
		if !ok {
			return position{seq, 0}, true
		}
		seq = p
	}
}

// topPos is the position of the screen's top row now.
func (m *Model) topPos() (position, bool) {
	bt, ok := m.bottomTop()
	if !ok || m.follow {
		return bt, ok
	}
	p := position{m.top, m.sub}
	if !m.visible(p.seq) || !m.buf.held(p.seq) {
		s, ok := m.next(p.seq - 1)
		if !ok {
			return bt, true
		}
		p = position{s, 0}
	}
	if p.seq > bt.seq || p.seq == bt.seq && p.sub > bt.sub {
		return bt, true // past the last page: the last page
	}
	return p, true
}

// scroll moves the screen by d rows (up when negative) and stops
// following.
func (m *Model) scroll(d int) {
	p, ok := m.topPos()
	if !ok {
		return
	}
	m.follow = false
	p = m.walk(p, d)
	m.top, m.sub = p.seq, p.sub
}

// walk returns the position d rows below p (above when negative), as far
// as there are rows.
func (m *Model) walk(p position, d int) position {
	for d < 0 {
		if p.sub > 0 {
			k := min(p.sub, -d)
			p.sub -= k
			d += k
			continue
		}
		s, ok := m.prev(p.seq)
		if !ok {
			break
		}
		p = position{s, len(m.rows(s))}
	}
	for d > 0 {
		n := len(m.rows(p.seq))
		if p.sub+d < n {
			p.sub += d
			break
		}
		s, ok := m.next(p.seq)
		if !ok {
			p.sub = n - 1
			break
		}
		d -= n - p.sub
		p = position{s, 0}
	}
	return p
}

// home shows the first entries and stops following.
func (m *Model) home() {
	m.follow = false
	if s, ok := m.next(m.buf.first - 1); ok {
		m.top, m.sub = s, 0
	}
}

// reveal shows entry seq a third of the way down the screen, not
// following: the row of it that holds the current match (a long line
// wrapped over many rows), else its first.
func (m *Model) reveal(seq int64) {
	m.follow = false
	m.currentRow = -1
	m.draw(seq) // notes the current match's row (fit)
	row := max(m.currentRow, 0)
	if n := len(m.rows(seq)); row >= n {
		row = 0
	}
	p := m.walk(position{seq, row}, -m.height()/3)
	m.top, m.sub = p.seq, p.sub
}
