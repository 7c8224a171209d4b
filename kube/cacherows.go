package kube

import (
	"slices"
	"strings"
)

// rowSet is one cache's rows, sorted by namespace then name, kept up to
// date change by change. A change costs a map write (a watch event
// touches one row); rows merges the changes since the last call into a
// new sorted slice, in one pass over it and a sort of the changes alone,
// never a sort of every row. The slice rows returns is shared read-only
// with the Snapshots that return it, so a later merge writes a new one
// (copy on write) and never touches it.
type rowSet struct {
	sorted  []Row
	pending map[string]rowChange // by namespace/name, since sorted was made
	// stuck holds, by namespace/name, the rows with CannotStart set (Pods
	// that cannot start; few), kept with every put and remove, so that
	// judging workloads by their Pods costs those rows and not a pass
	// over every row (stuckRows).
	stuck map[string]Row
}

// rowChange is a row put (deleted false) or deleted, by its identity.
type rowChange struct {
	row     Row // for a deletion, only Namespace and Name are set
	deleted bool
}

// put records the row of key (namespace/name), new or changed.
func (s *rowSet) put(key string, row Row) {
	if s.pending == nil {
		s.pending = map[string]rowChange{}
	}
	s.pending[key] = rowChange{row: row}
	switch {
	case row.CannotStart != "":
		if s.stuck == nil {
			s.stuck = map[string]Row{}
		}
		s.stuck[key] = row
	case s.stuck != nil:
		delete(s.stuck, key)
	}
}

// remove records that the row of key is gone; it reports whether there
// was one (in the sorted rows or among the changes).
func (s *rowSet) remove(key, namespace, name string) bool {
	delete(s.stuck, key)
	if ch, ok := s.pending[key]; ok {
		if ch.deleted {
			return false
		}
		if _, found := s.find(namespace, name); !found {
			delete(s.pending, key) // put since the last merge, gone again
			return true
		}
	} else if _, found := s.find(namespace, name); !found {
		return false
	}
	if s.pending == nil {
		s.pending = map[string]rowChange{}
	}
	s.pending[key] = rowChange{row: Row{Namespace: namespace, Name: name}, deleted: true}
	return true
}

// find returns the index of the row namespace/name in sorted.
func (s *rowSet) find(namespace, name string) (int, bool) {
	return slices.BinarySearchFunc(s.sorted, Row{Namespace: namespace, Name: name}, compareRows)
}

// stuckRows returns the rows with CannotStart set, in no order (a copy).
func (s *rowSet) stuckRows() []Row {
	if len(s.stuck) == 0 {
		return nil
	}
	out := make([]Row, 0, len(s.stuck))
	for _, r := range s.stuck {
		out = append(out, r)
	}
	return out
}

// changed reports whether rows would merge changes.
func (s *rowSet) changed() bool { return len(s.pending) > 0 }

// rows returns every row, sorted, merging the changes recorded since the
// last call: O(n + k log k) for k changes, nothing when there are none.
func (s *rowSet) rows() []Row {
	if len(s.pending) == 0 {
		if s.sorted == nil {
			s.sorted = []Row{}
		}
		return s.sorted
	}
	changes := make([]rowChange, 0, len(s.pending))
	for _, ch := range s.pending {
		changes = append(changes, ch)
	}
	s.pending = nil
	slices.SortFunc(changes, func(a, b rowChange) int { return compareRows(a.row, b.row) })
	return s.merge(changes)
}

// merge writes the sorted rows with changes (sorted) applied into a new
// slice.
func (s *rowSet) merge(changes []rowChange) []Row {
	out := make([]Row, 0, len(s.sorted)+len(changes))
	i := 0
	for _, ch := range changes {
		// The untouched run before the change is copied at once.
		at, found := slices.BinarySearchFunc(s.sorted[i:], ch.row, compareRows)
		out = append(out, s.sorted[i:i+at]...)
		i += at
		if found {
			i++ // replaced or deleted
		}
		if !ch.deleted {
			out = append(out, ch.row)
		}
	}
	out = append(out, s.sorted[i:]...)
	s.sorted = out
	return out
}

// compareRows orders rows by namespace, then name (Table.Rows' order).
func compareRows(a, b Row) int {
	if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
		return c
	}
	return strings.Compare(a.Name, b.Name)
}
