// Package ownertree builds the owner tree of one object from rows
// (kube.Client.OwnerTree reads them): up along metadata.ownerReferences
// to the topmost owner among the rows, then down to everything that owns
// refer to, with each node's health rolled up. It is pure: no request.
package ownertree

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Item is one object a tree may hold: its kind and its row (UID, owner
// UIDs, status, health).
type Item struct {
	Kind vocab.Kind
	Row  *vocab.Row
}

// Build returns the tree of the object whose UID is target among items:
// its owners followed up (the first owner reference of each; a cycle
// stops it) to the topmost one among items, then every item owned,
// recursively, from there; selected[uid] adds items under the object of
// that UID as selected (a Service's Pods; an item already owned there is
// not added twice). kindOrder orders children by kind (kinds not in it
// last, by name), then by name. Notes name owners not among items.
// Errors: target is not among items.
func Build(items []Item, target string, selected map[string][]Item, kindOrder []vocab.Kind) (vocab.OwnerTree, error) {
	byUID := make(map[string]int, len(items))
	owned := make(map[string][]int, len(items))
	for i, it := range items {
		byUID[it.Row.UID] = i
	}
	for i, it := range items {
		for _, o := range it.Row.Owners {
			if _, ok := byUID[o]; ok {
				owned[o] = append(owned[o], i)
			}
		}
	}
	t, ok := byUID[target]
	if !ok {
		return vocab.OwnerTree{}, fmt.Errorf("the object (uid %s) is not among the objects read", target)
	}
	var tree vocab.OwnerTree
	root, seen := t, map[int]bool{t: true}
	for {
		r := items[root].Row
		next := -1
		for _, o := range r.Owners {
			if j, ok := byUID[o]; ok && !seen[j] {
				next = j
				break
			}
		}
		if next < 0 {
			for _, o := range r.Owners {
				if _, ok := byUID[o]; !ok {
					tree.Notes = append(tree.Notes, fmt.Sprintf("%s/%s is owned by uid %s, of a kind not read: the tree starts below it", items[root].Kind, r.Name, o))
				}
			}
			break
		}
		seen[next], root = true, next
	}
	order := make(map[vocab.Kind]int, len(kindOrder))
	for i, k := range kindOrder {
		order[k] = i
	}
	rank := func(k vocab.Kind) int {
		if i, ok := order[k]; ok {
			return i
		}
		return len(order)
	}
	placed := map[int]bool{}
	var walk func(i int, sel bool) *vocab.OwnerNode
	walk = func(i int, sel bool) *vocab.OwnerNode {
		placed[i] = true
		it := items[i]
		n := &vocab.OwnerNode{Kind: it.Kind, Namespace: it.Row.Namespace, Name: it.Row.Name, UID: it.Row.UID,
			Status: it.Row.Status, Health: it.Row.Health, Worst: it.Row.Health, Selected: sel, Target: i == t}
		for _, c := range owned[it.Row.UID] {
			if !placed[c] {
				n.Children = append(n.Children, walk(c, false))
			}
		}
		for _, s := range selected[it.Row.UID] {
			if j, ok := byUID[s.Row.UID]; ok && placed[j] {
				continue
			}
			c := &vocab.OwnerNode{Kind: s.Kind, Namespace: s.Row.Namespace, Name: s.Row.Name, UID: s.Row.UID,
				Status: s.Row.Status, Health: s.Row.Health, Worst: s.Row.Health, Selected: true}
			n.Children = append(n.Children, c)
		}
		slices.SortStableFunc(n.Children, func(a, b *vocab.OwnerNode) int {
			if d := rank(a.Kind) - rank(b.Kind); d != 0 {
				return d
			}
			if a.Kind != b.Kind {
				return strings.Compare(string(a.Kind), string(b.Kind))
			}
			return strings.Compare(a.Name, b.Name)
		})
		for _, c := range n.Children {
			n.Worst = max(n.Worst, c.Worst)
		}
		return n
	}
	tree.Root = walk(root, false)
	return tree, nil
}
