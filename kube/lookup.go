package kube

import (
	"context"
	"fmt"
	"sort"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Lookup returns the plugin for a kind id or alias, bare or qualified by
// the kind's group as kubectl takes it ("deployments.apps",
// "deploy.v1.apps", "Deployment.apps"; see Registry.Lookup): the built-in
// registry first, then the kinds Discover found (CRDs and every other
// served resource).
func (c *Client) Lookup(name string) (Plugin, bool) {
	if p, ok := c.registry.Lookup(name); ok {
		return p, true
	}
	if d := c.discovered.Load(); d != nil {
		return d.Lookup(name)
	}
	return nil, false
}

// Kinds returns every kind the Client serves, built-in and discovered,
// sorted by id; kinds that are part of another (containers) are left out.
func (c *Client) Kinds() []KindInfo {
	var out []KindInfo
	seen := map[Kind]bool{}
	for _, r := range []*Registry{c.registry, c.discovered.Load()} {
		for _, k := range r.Kinds() {
			if k.PartOf == "" && !seen[k.ID] {
				seen[k.ID] = true
				out = append(out, k)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Names returns every id and alias a person may type for a kind the Client
// serves, sorted; the prompt completes over them.
func (c *Client) Names() []string {
	set := map[string]bool{}
	for _, k := range c.Kinds() {
		set[string(k.ID)] = true
		for _, a := range k.Aliases {
			set[a] = true
		}
	}
	out := make([]string, 0, len(set))
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// ErrSelectsNothing is vocab.ErrSelectsNothing: DrillDown's error for an
// object whose selector is absent or empty wraps it.
var ErrSelectsNothing = vocab.ErrSelectsNothing

// DrillDown returns what opening the object name (of kind, in namespace)
// shows: a Namespace opens its pods; a Pod its containers; a Deployment,
// Node, Service or Job the pods it selects (KindInfo.DrillDown, through the
// plugin's Driller). Errors: the kind opens nothing, the object is gone
// (not_found), it selects nothing (ErrSelectsNothing), or the API server's own.
func (c *Client) DrillDown(ctx context.Context, kind Kind, namespace, name string) (SnapshotRequest, error) {
	plugin, ok := c.Lookup(string(kind))
	if !ok {
		return SnapshotRequest{}, fmt.Errorf("%w: no plugin serves %s", errInvalid, kind)
	}
	info := plugin.Info()
	if info.DrillDown == "" {
		return SnapshotRequest{}, fmt.Errorf("%w: %s open nothing", errInvalid, info.ID)
	}
	target, ok := c.Lookup(string(info.DrillDown))
	if !ok {
		return SnapshotRequest{}, fmt.Errorf("%w: no plugin serves %s", errInvalid, info.DrillDown)
	}
	tinfo := target.Info()
	req := SnapshotRequest{Kinds: []Kind{tinfo.ID}, Namespace: namespace}
	switch {
	case info.ID == "namespaces":
		req.Namespace = name
		return req, nil
	case tinfo.PartOf == info.ID:
		req.Selector = Selector{Fields: "metadata.name=" + name}
		return req, nil
	}
	driller, ok := plugin.(Driller)
	if !ok {
		return SnapshotRequest{}, fmt.Errorf("%s: plugin cannot open %s", info.ID, tinfo.ID)
	}
	sel, ok, err := c.drillSelector(ctx, plugin, driller, namespace, name)
	if err != nil {
		return SnapshotRequest{}, err
	}
	if !ok {
		return SnapshotRequest{}, fmt.Errorf("%s/%s has no selector: %w", info.ID, name, ErrSelectsNothing)
	}
	if !info.Namespaced {
		req.Namespace = ""
	}
	req.Selector = sel
	return req, nil
}

// Kind describes the kind a name (id or alias) stands for; ok is false
// when the Client serves no such kind.
func (c *Client) Kind(name string) (KindInfo, bool) {
	p, ok := c.Lookup(name)
	if !ok {
		return KindInfo{}, false
	}
	return p.Info(), true
}
