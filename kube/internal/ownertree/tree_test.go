package ownertree

import (
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
)

func item(kind, uid string, h vocab.Health, owners ...string) Item {
	return Item{Kind: vocab.Kind(kind), Row: &vocab.Row{Name: uid, UID: uid, Health: h, Owners: owners}}
}

// TestBuildStopsOnCyclesAndPlacesEachObjectOnce: owner references that
// loop (a hostile or broken cluster) end the walk up; an object with two
// owners in the tree is drawn once; a missing target is an error.
func TestBuildStopsOnCyclesAndPlacesEachObjectOnce(t *testing.T) {
	items := []Item{item("a", "a", vocab.HealthOK, "b"), item("b", "b", vocab.HealthOK, "a"),
		item("c", "c", vocab.HealthFailed, "a", "b")}
	tree, err := Build(items, "c", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	count := 0
	var walk func(n *vocab.OwnerNode)
	walk = func(n *vocab.OwnerNode) {
		count++
		for _, c := range n.Children {
			walk(c)
		}
	}
	walk(tree.Root)
	if count != 3 || tree.Root.Worst != vocab.HealthFailed {
		t.Fatalf("%d nodes, root worst %s: want 3 and failed", count, tree.Root.Worst)
	}
	if _, err := Build(items, "zzz", nil, nil); err == nil {
		t.Error("a missing target: no error")
	}
}
