package fleet

import (
	"slices"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// merge returns the Snapshot of req from the members' shares (member-major,
// see shares), its Generation left 0. It reads the shares' tables only
// (read only, shared with the members' answers), so it runs without s.mu.
func (s *Source) merge(req kube.SnapshotRequest, names []string, shares []share) kube.Snapshot {
	snap := kube.Snapshot{Namespace: req.Namespace}
	n := len(req.Kinds)
	col := make([]share, len(names))
	for k, kind := range req.Kinds {
		for i := range names {
			col[i] = shares[i*n+k]
		}
		t, trunc, taken := s.mergeKind(kind, names, col)
		if trunc != nil {
			snap.Truncated = append(snap.Truncated, *trunc)
		} else {
			snap.Tables = append(snap.Tables, t)
		}
		if taken.After(snap.Taken) {
			snap.Taken = taken
		}
	}
	if snap.Taken.IsZero() {
		snap.Taken = s.now()
	}
	return snap
}

// mergeKind merges one kind's shares (one per member, fleet order): the
// table of the rows of every member that has some, or, when none has a
// table and none is still reading, the Truncation naming each member's
// failure. taken is the latest Taken of the answers merged.
func (s *Source) mergeKind(kind kube.Kind, names []string, col []share) (t kube.Table, trunc *kube.Truncation, taken time.Time) {
	var first *kube.Table
	var unread []kube.NamespaceUnread
	reading, cached, total := false, true, 0
	for i, sh := range col {
		if sh.state == views.ClusterReading {
			reading = true
		}
		if sh.table == nil {
			continue
		}
		for _, u := range sh.table.Unread { // several namespaces (-n a,b): one not read there
			u.Namespace += " in " + names[i]
			unread = append(unread, u)
		}
		if first == nil {
			first = sh.table
		}
		cached = cached && sh.table.Cached
		total += len(sh.table.Rows)
		if sh.taken.After(taken) {
			taken = sh.taken
		}
	}
	switch {
	case first != nil:
		return kube.Table{Kind: first.Kind, Columns: first.Columns, Cached: cached, Reading: reading,
			Rows: mergeRows(first.Columns, names, col, total), Unread: unread}, nil, taken
	case reading:
		// Nobody answered yet: an empty table, still reading, with the
		// kind's own columns when some client knows them.
		t := kube.Table{Kind: kind, Reading: true}
		if info, ok := s.Kind(string(kind)); ok {
			t.Kind, t.Columns = info.ID, info.Columns
		}
		return t, nil, taken
	case len(col) == 0:
		return t, &kube.Truncation{Kind: kind, Reason: kube.ReasonError, Message: "the fleet has no contexts"}, taken
	}
	why := make([]string, len(col))
	for i, sh := range col {
		why[i] = names[i] + ": " + string(sh.reason)
		if sh.message != "" {
			why[i] += ": " + sh.message
		}
	}
	return t, &kube.Truncation{Kind: kind, Reason: col[0].reason, Message: strings.Join(why, "; ")}, taken
}

// head is one member's rows not yet merged.
type head struct {
	rows    []kube.Row
	context string
	// index maps each merged column to the member's (-1: none), nil when
	// the member's columns are the merged ones; cells is the room left
	// for the remapped cells.
	index []int
	cells []kube.Cell
}

// mergeRows merges the sorted rows of the shares' tables (fleet order) by
// namespace, then name, then fleet order, in one pass over total rows
// (k-way, k the members with rows): each Row a copy with Context set to
// its member's name, its Cells shared, or remapped by column name when
// the member's columns differ from cols.
func mergeRows(cols []kube.Column, names []string, col []share, total int) []kube.Row {
	heads := make([]head, 0, len(col))
	for i, sh := range col {
		if sh.table == nil || len(sh.table.Rows) == 0 {
			continue
		}
		h := head{rows: sh.table.Rows, context: names[i]}
		if !slices.Equal(sh.table.Columns, cols) {
			h.index = remapIndex(cols, sh.table.Columns)
			h.cells = make([]kube.Cell, len(h.rows)*len(cols))
		}
		heads = append(heads, h)
	}
	out := make([]kube.Row, 0, total)
	for len(heads) > 0 {
		// b is the head whose first row goes first; o the one after it
		// (ties go to the earlier member: heads are in fleet order).
		b, o := 0, -1
		for j := 1; j < len(heads); j++ {
			switch {
			case compare(&heads[j].rows[0], &heads[b].rows[0]) < 0:
				b, o = j, b
			case o < 0 || compare(&heads[j].rows[0], &heads[o].rows[0]) < 0:
				o = j
			}
		}
		h := &heads[b]
		// Take b's rows while they go before o's first (or tie with it,
		// b being the earlier member).
		next := len(h.rows)
		if o >= 0 {
			bound, tie := &heads[o].rows[0], 0
			if b < o {
				tie = 1
			}
			next = 1
			for next < len(h.rows) && compare(&h.rows[next], bound) < tie {
				next++
			}
		}
		for _, r := range h.rows[:next] {
			r.Context = h.context
			if h.index != nil {
				c := h.cells[:len(cols):len(cols)]
				h.cells = h.cells[len(cols):]
				for i, j := range h.index {
					if j >= 0 && j < len(r.Cells) {
						c[i] = r.Cells[j]
					}
				}
				r.Cells = c
			}
			out = append(out, r)
		}
		h.rows = h.rows[next:]
		if len(h.rows) == 0 {
			heads = slices.Delete(heads, b, b+1)
		}
	}
	return out
}

// compare orders rows by namespace, then name: -1, 0 or +1.
func compare(a, b *kube.Row) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}

// remapIndex maps each column of cols to the one of the same name in
// from, -1 when from has none.
func remapIndex(cols, from []kube.Column) []int {
	index := make([]int, len(cols))
	for i, c := range cols {
		index[i] = slices.IndexFunc(from, func(f kube.Column) bool { return f.Name == c.Name })
	}
	return index
}
