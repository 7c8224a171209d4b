package kube

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// ObjectEvents are the events of one object and of what it owns.
type ObjectEvents struct {
	// Columns are the events kind's columns (kubectl get events'); Rows
	// the events, newest first (by LAST SEEN). Rows are shared with the
	// cache: read only.
	Columns []Column
	Rows    []Row
	// Objects is how many objects the events were gathered for (the
	// object and everything under it in its owner tree).
	Objects int
	// Notes say what could not be read (the owner tree's notes, events
	// that may not be listed).
	Notes []string
}

// Events returns the events of the object name of kind in namespace and of
// everything it owns (its subtree in OwnerTree: a Deployment's
// ReplicaSets and Pods, a CronJob's Jobs and their Pods), newest first,
// as `kubectl events --for` shows one object's, repeated events once with
// their COUNT. They are read from the events kind's rows (its cache when
// cached) in the object's namespace (every namespace for a cluster-scoped
// object), matched by involvedObject.uid, or by kind and name for an
// event that names no UID. Errors: OwnerTree's; the events that cannot be
// listed (ReasonOf: forbidden).
func (c *Client) Events(ctx context.Context, kind Kind, namespace, name string) (ObjectEvents, error) {
	tree, err := c.OwnerTree(ctx, kind, namespace, name)
	if err != nil {
		return ObjectEvents{}, err
	}
	var target *OwnerNode
	var find func(n *OwnerNode)
	find = func(n *OwnerNode) {
		if n.Target {
			target = n
		}
		for _, ch := range n.Children {
			find(ch)
		}
	}
	find(tree.Root)
	uids, names := map[string]bool{}, map[string]bool{}
	var gather func(n *OwnerNode)
	gather = func(n *OwnerNode) {
		uids[n.UID] = true
		names[string(n.Kind)+"/"+n.Name] = true
		for _, ch := range n.Children {
			gather(ch)
		}
	}
	gather(target)
	plugin, ok := c.Lookup("events")
	if !ok {
		return ObjectEvents{}, fmt.Errorf("%w: no plugin serves events", errInvalid)
	}
	ns := target.Namespace
	snap := c.Snapshot(ctx, SnapshotRequest{Kinds: []Kind{"events"}, Namespace: ns})
	if len(snap.Truncated) > 0 {
		tr := snap.Truncated[0]
		return ObjectEvents{}, &Refusal{Reason: tr.Reason, Detail: "events could not be read: " + tr.Message}
	}
	out := ObjectEvents{Columns: plugin.Info().Columns, Objects: len(uids), Notes: tree.Notes}
	for _, t := range snap.Tables {
		for _, r := range t.Rows {
			uid := r.Fields["involvedObject.uid"]
			if uid != "" && uids[uid] || uid == "" && names[c.kindID(r.Fields["involvedObject.kind"])+"/"+r.Fields["involvedObject.name"]] {
				out.Rows = append(out.Rows, r)
			}
		}
	}
	sort.SliceStable(out.Rows, func(i, j int) bool {
		return out.Rows[i].Cells[0].Since.After(out.Rows[j].Cells[0].Since)
	})
	return out, nil
}

// kindID is the plugin id of an object kind as events name it
// ("Deployment": "deployments"), or the kind itself when no plugin has
// it among its aliases.
func (c *Client) kindID(objectKind string) string {
	if p, ok := c.Lookup(strings.ToLower(objectKind)); ok {
		return string(p.Info().ID)
	}
	return objectKind
}
