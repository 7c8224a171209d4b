package kube

import (
	"fmt"
	"slices"
	"testing"
)

// naiveRows is the reference for rowSet: a map sorted whole.
type naiveRows map[string]Row

func (n naiveRows) sorted() []Row {
	out := make([]Row, 0, len(n))
	for _, r := range n {
		out = append(out, r)
	}
	sortRows(out)
	return out
}

func sameRows(a, b []Row) bool {
	return slices.EqualFunc(a, b, func(x, y Row) bool {
		return x.Namespace == y.Namespace && x.Name == y.Name && x.Status == y.Status
	})
}

func TestRowSetMergesChanges(t *testing.T) {
	row := func(ns, name, status string) Row { return Row{Namespace: ns, Name: name, Status: status} }
	tests := []struct {
		name string
		ops  func(s *rowSet)
		want []Row
	}{
		{"empty", func(*rowSet) {}, []Row{}},
		{"puts sort", func(s *rowSet) {
			s.put("b/x", row("b", "x", "1"))
			s.put("a/y", row("a", "y", "1"))
			s.put("a-b/x", row("a-b", "x", "1")) // "a-b/x" < "a/y" as keys, not as rows
		}, []Row{row("a", "y", "1"), row("a-b", "x", "1"), row("b", "x", "1")}},
		{"update replaces", func(s *rowSet) {
			s.put("a/x", row("a", "x", "1"))
			s.rows()
			s.put("a/x", row("a", "x", "2"))
		}, []Row{row("a", "x", "2")}},
		{"delete after merge", func(s *rowSet) {
			s.put("a/x", row("a", "x", "1"))
			s.put("a/y", row("a", "y", "1"))
			s.rows()
			if !s.remove("a/x", "a", "x") {
				panic("a/x not found")
			}
		}, []Row{row("a", "y", "1")}},
		{"put then delete before merge", func(s *rowSet) {
			s.put("a/x", row("a", "x", "1"))
			s.remove("a/x", "a", "x")
		}, []Row{}},
		{"delete of nothing", func(s *rowSet) {
			if s.remove("a/x", "a", "x") {
				panic("removed a row never put")
			}
		}, []Row{}},
		{"delete then put again", func(s *rowSet) {
			s.put("a/x", row("a", "x", "1"))
			s.rows()
			s.remove("a/x", "a", "x")
			s.put("a/x", row("a", "x", "3"))
		}, []Row{row("a", "x", "3")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s rowSet
			tt.ops(&s)
			if got := s.rows(); !sameRows(got, tt.want) || got == nil {
				t.Fatalf("rows %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRowSetCopiesOnWrite: a slice rows returned is never written again.
func TestRowSetCopiesOnWrite(t *testing.T) {
	var s rowSet
	s.put("a/x", Row{Namespace: "a", Name: "x", Status: "1"})
	s.put("a/y", Row{Namespace: "a", Name: "y", Status: "1"})
	first := s.rows()
	s.put("a/x", Row{Namespace: "a", Name: "x", Status: "2"})
	s.remove("a/y", "a", "y")
	second := s.rows()
	if first[0].Status != "1" || len(first) != 2 || first[1].Name != "y" {
		t.Fatalf("a shared slice was written: %+v", first)
	}
	if len(second) != 1 || second[0].Status != "2" {
		t.Fatalf("second %+v", second)
	}
	if &s.rows()[0] != &second[0] {
		t.Fatal("rows without changes built a new slice")
	}
}

// FuzzRowSet applies a byte-coded sequence of puts, deletes and merges to
// a rowSet and to a map sorted whole: they always agree.
func FuzzRowSet(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 0x81, 0xff, 4, 0x82})
	f.Add([]byte{5, 5, 0x85, 0xff, 5, 0xff})
	f.Fuzz(func(t *testing.T, ops []byte) {
		var s rowSet
		ref := naiveRows{}
		for i, op := range ops {
			if op == 0xff {
				if got, want := s.rows(), ref.sorted(); !sameRows(got, want) {
					t.Fatalf("after op %d: rows %v, want %v", i, got, want)
				}
				continue
			}
			ns, name := fmt.Sprintf("ns%d", op&0x3%3), fmt.Sprintf("p%d", op>>2&0x7)
			key := ns + "/" + name
			if op&0x80 != 0 {
				_, had := ref[key]
				if got := s.remove(key, ns, name); got != had {
					t.Fatalf("op %d: remove %s = %v, had %v", i, key, got, had)
				}
				delete(ref, key)
				continue
			}
			r := Row{Namespace: ns, Name: name, Status: fmt.Sprint(i)}
			s.put(key, r)
			ref[key] = r
		}
		if got, want := s.rows(), ref.sorted(); !sameRows(got, want) {
			t.Fatalf("rows %v, want %v", got, want)
		}
	})
}
