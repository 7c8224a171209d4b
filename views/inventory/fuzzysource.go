package inventory

import "github.com/sahilm/fuzzy"

// names is a fuzzy.Source over the names of some rows: the library's view
// of what fuzzyRank searches, which its answers are held to (tests run
// fuzzy.FindFrom over it and compare).
type names struct {
	ix    *index
	order []int32
}

var _ fuzzy.Source = names{}

func (n names) String(i int) string { return n.ix.rows[n.order[i]].Name }
func (n names) Len() int            { return len(n.order) }
