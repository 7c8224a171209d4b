package kube

import (
	"context"
	"errors"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/kube/internal/ownertree"
	"github.com/kyyard/kyyard/kube/vocab"
)

type (
	// OwnerNode is vocab.OwnerNode.
	OwnerNode = vocab.OwnerNode
	// OwnerTree is vocab.OwnerTree.
	OwnerTree = vocab.OwnerTree
)

// ownerTreeKinds are the kinds an owner tree reads besides the object's
// own, in the order children are shown: the owners and the owned of
// Kubernetes' controllers (Deployment > ReplicaSet > Pod, StatefulSet and
// DaemonSet > Pod, CronJob > Job > Pod, a StatefulSet's claims), and the
// Services whose Pods are selected.
var ownerTreeKinds = []Kind{KindDeployments, KindStatefulSets, KindDaemonSets, "cronjobs", KindReplicaSets, "jobs",
	KindPods, "services", "persistentvolumeclaims"}

// OwnerTree returns the owner tree of the object name of kind (a plugin
// id or alias: any kind, CRDs included) in namespace: its owners up along
// metadata.ownerReferences to the topmost one read, then everything owned
// from there down, a Service's selected Pods under it, each node's health
// rolled up (OwnerNode.Worst). The rows come from one Snapshot of the
// object's kind and ownerTreeKinds in the namespace: from the caches when
// those kinds are cached (no request), else one list each; a Service's
// Pods add its selector's read. A kind that cannot be read (forbidden) is
// a note, never a failure. Errors: an unknown kind (ReasonInvalid); the
// object not found in its kind's rows (not_found); its kind's own read
// failing (ReasonOf that).
func (c *Client) OwnerTree(ctx context.Context, kind Kind, namespace, name string) (OwnerTree, error) {
	plugin, ok := c.Lookup(string(kind))
	if !ok {
		return OwnerTree{}, fmt.Errorf("%w: no plugin serves %s", errInvalid, kind)
	}
	info := plugin.Info()
	kinds := []Kind{info.ID}
	for _, k := range ownerTreeKinds {
		if p, ok := c.Lookup(string(k)); ok && p.Info().ID != info.ID {
			kinds = append(kinds, p.Info().ID)
		}
	}
	if !info.Namespaced {
		namespace = ""
	}
	snap := c.Snapshot(ctx, SnapshotRequest{Kinds: kinds, Namespace: namespace})
	var notes []string
	for _, tr := range snap.Truncated {
		if tr.Kind == info.ID {
			return OwnerTree{}, &vocab.Refusal{Reason: tr.Reason, Detail: fmt.Sprintf("%s could not be read: %s", info.ID, tr.Message)}
		}
		notes = append(notes, fmt.Sprintf("%s not read (%s): the tree may miss some", tr.Kind, tr.Reason))
	}
	var items []ownertree.Item
	target := ""
	for ti := range snap.Tables {
		t := &snap.Tables[ti]
		for ri := range t.Rows {
			r := &t.Rows[ri]
			items = append(items, ownertree.Item{Kind: t.Kind, Row: r})
			if t.Kind == info.ID && r.Name == name && (!info.Namespaced || r.Namespace == namespace) {
				target = r.UID
			}
		}
	}
	if target == "" {
		return OwnerTree{}, &vocab.Refusal{Reason: ReasonNotFound, Detail: fmt.Sprintf("%s/%s is not there (deleted?)", info.ID, name)}
	}
	selected := map[string][]ownertree.Item{}
	if info.ID == "services" {
		pods, err := c.selectedPods(ctx, info.ID, namespace, name)
		switch {
		case errors.Is(err, ErrSelectsNothing):
		case err != nil:
			notes = append(notes, fmt.Sprintf("the Service's pods not read: %v", err))
		default:
			selected[target] = pods
		}
	}
	tree, err := ownertree.Build(items, target, selected, kinds[1:])
	if err != nil {
		return OwnerTree{}, err
	}
	// The topmost owner read may be owned by an object of a kind not read
	// (a custom resource's operator object): its ownerReferences name the
	// kind, which is read then (one metadata get, and one list when that
	// kind is not cached), once.
	more, why := c.ownersOfKindsNotRead(ctx, tree.Root, items, namespace)
	if len(more) > 0 {
		if again, err := ownertree.Build(append(items, more...), target, selected, kinds[1:]); err == nil {
			tree = again
		}
	}
	if why != "" {
		notes = append(notes, why)
	}
	tree.Notes = append(notes, tree.Notes...)
	return tree, nil
}

// ownersOfKindsNotRead reads the owners of root that are not among items:
// root's ownerReferences from its metadata, each owner's kind mapped to
// its plugin through discovery and read in namespace. Nothing when root's
// owners are all read or the client has no REST config; why says what
// failed ("" when nothing did: the tree keeps its note).
func (c *Client) ownersOfKindsNotRead(ctx context.Context, root *OwnerNode, items []ownertree.Item, namespace string) (out []ownertree.Item, why string) {
	have := make(map[string]bool, len(items))
	var rootRow *Row
	for _, it := range items {
		have[it.Row.UID] = true
		if it.Row.UID == root.UID {
			rootRow = it.Row
		}
	}
	missing := false
	for _, o := range rootRow.Owners {
		missing = missing || !have[o]
	}
	if !missing {
		return nil, ""
	}
	o, err := c.objectClients()
	if err != nil {
		return nil, ""
	}
	plugin, ok := c.Lookup(string(root.Kind))
	if !ok {
		return nil, ""
	}
	info := plugin.Info()
	gvr := schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
	meta, err := o.md.Resource(gvr).Namespace(root.Namespace).Get(ctx, root.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Sprintf("the owners of %s/%s not read: %v", root.Kind, root.Name, err)
	}
	read := map[Kind]bool{}
	for _, ref := range meta.OwnerReferences {
		if have[string(ref.UID)] {
			continue
		}
		gv, err := schema.ParseGroupVersion(ref.APIVersion)
		if err != nil {
			why = fmt.Sprintf("owner %s %s: %v", ref.Kind, ref.Name, err)
			continue
		}
		mapping, err := o.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
		if err != nil {
			why = fmt.Sprintf("owner %s %s: its kind is not served: %v", ref.Kind, ref.Name, err)
			continue
		}
		name := mapping.Resource.Resource
		if gv.Group != "" {
			name += "." + gv.Group
		}
		p, ok := c.Lookup(name)
		if !ok {
			// A kind installed since discovery was read (a new CRD).
			c.Rediscover(ctx)
			p, ok = c.Lookup(name)
		}
		if !ok {
			why = fmt.Sprintf("owner %s %s: no plugin serves %s", ref.Kind, ref.Name, name)
			continue
		}
		if read[p.Info().ID] {
			continue
		}
		read[p.Info().ID] = true
		ns := namespace
		if !p.Info().Namespaced {
			ns = ""
		}
		snap := c.Snapshot(ctx, SnapshotRequest{Kinds: []Kind{p.Info().ID}, Namespace: ns})
		for _, tr := range snap.Truncated {
			why = fmt.Sprintf("owner %s %s: %s not read (%s)", ref.Kind, ref.Name, tr.Kind, tr.Reason)
		}
		for ti := range snap.Tables {
			t := &snap.Tables[ti]
			for ri := range t.Rows {
				out = append(out, ownertree.Item{Kind: t.Kind, Row: &t.Rows[ri]})
			}
		}
	}
	return out, why
}

// selectedPods are the Pods kind/name's selector selects (DrillDown).
func (c *Client) selectedPods(ctx context.Context, kind Kind, namespace, name string) ([]ownertree.Item, error) {
	req, err := c.DrillDown(ctx, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	snap := c.Snapshot(ctx, req)
	if len(snap.Truncated) > 0 {
		return nil, fmt.Errorf("%s", snap.Truncated[0].Message)
	}
	var out []ownertree.Item
	for ti := range snap.Tables {
		t := &snap.Tables[ti]
		for ri := range t.Rows {
			out = append(out, ownertree.Item{Kind: t.Kind, Row: &t.Rows[ri]})
		}
	}
	return out, nil
}
