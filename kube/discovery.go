package kube

import (
	"github.com/kyyard/kyyard/kube/vocab"

	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// PartialDiscoveryError is what Discover returns when some API groups could
// not be read (an aggregated API whose backend is down, such as
// metrics.k8s.io without metrics-server). The kinds of every other group are
// registered all the same.
type PartialDiscoveryError struct {
	// Groups maps each group/version that failed ("metrics.k8s.io/v1beta1",
	// "v1" for the core group) to the API server's message.
	Groups map[string]string
}

// Error names every failed group/version, sorted.
func (e *PartialDiscoveryError) Error() string {
	names := make([]string, 0, len(e.Groups))
	for gv := range e.Groups {
		names = append(names, gv)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, gv := range names {
		parts[i] = gv + ": " + e.Groups[gv]
	}
	return "discovery: some API groups could not be read, their kinds are missing: " + strings.Join(parts, "; ")
}

// Discover reads the API server's discovery (the resources of every API
// group, at the version the server prefers, as `kubectl api-resources`
// lists them) and serves each listable resource that no Registry plugin
// serves through Options.TablePlugin: CRDs, aggregated APIs and built-in
// resources without a plugin of their own.
//
// A resource is taken when it supports the "list" verb and is not a
// subresource ("pods/log"). A Registry plugin serves a resource when its
// KindInfo names the same Group and Resource; such a resource is skipped.
//
// Names follow kubectl: a kind's id is its plural resource name, and its
// aliases are the singular name, the short names discovery gives ("crd",
// "cm"), the lower-case Kind and, outside the core group, the
// "resource.group" form kubectl accepts ("clusterlogs.kwok.x-k8s.io").
// Registry names always win, then the resource met first: the server lists
// groups by priority (core first), and the resources of one group/version
// are taken in name order. A kind whose plural a Registry name has, or
// that another discovered kind shares, gets "resource.group" as its id, so
// that its screen names the group it shows ("widgets.a.example"); of
// kinds sharing a plural, the first keeps the bare plural as an alias, and
// a core-group one keeps it as its id (a core-group kind whose plural
// clashes with a Registry name is skipped: it has no other name). An alias
// already taken is dropped, but stays a name of its kind qualified by the
// group, as kubectl takes it: "wdg.b.example" (Registry.Lookup).
//
// Discover may be called again to refresh: the set is replaced atomically.
// When some groups fail it still registers the rest, keeps the kinds an
// earlier Discover found in the failed groups, and returns a
// *PartialDiscoveryError. Any other error (the server cannot be reached,
// Options.TablePlugin is nil) leaves the previous set in place.
func (c *Client) Discover(ctx context.Context) error {
	if c.opts.TablePlugin == nil {
		return errors.New("discovery: Options.TablePlugin is not set")
	}
	lists, err := discovery.ServerPreferredResourcesWithContext(ctx, c.cs.Discovery())
	var partial *PartialDiscoveryError
	if err != nil {
		failed, ok := discovery.GroupDiscoveryFailedErrorGroups(err)
		if !ok {
			return fmt.Errorf("discovery: %w", err)
		}
		partial = &PartialDiscoveryError{Groups: map[string]string{}}
		for gv, gerr := range failed {
			partial.Groups[gv.String()] = gerr.Error()
		}
	}
	candidates := resourceCandidates(lists)
	if partial != nil {
		candidates = append(candidates, c.keptCandidates(candidates, partial)...)
	}
	infos, claimed := c.nameKinds(candidates)
	plugins := make([]Plugin, 0, len(infos))
	prev := map[Kind]Plugin{}
	if old := c.discovered.Load(); old != nil {
		for _, p := range old.Plugins() {
			prev[p.Info().ID] = p
		}
	}
	for _, info := range infos {
		// A kind discovery describes as before keeps its plugin (and so
		// its cache and the columns it learnt); a changed one gets a new
		// plugin, and its cache is started afresh (Client.kindCache).
		if p, ok := prev[info.ID]; ok && sameKind(p.Info(), info) {
			plugins = append(plugins, p)
			continue
		}
		plugins = append(plugins, c.opts.TablePlugin(info))
	}
	reg, rerr := vocab.NewDiscoveredRegistry(plugins, claimed)
	if rerr != nil { // nameKinds keeps names unique; a plugin that renames its kind breaks that
		return fmt.Errorf("discovery: %w", rerr)
	}
	c.discovered.Store(reg)
	if partial != nil {
		return partial
	}
	return nil
}

// sameKind reports whether two descriptions of a discovered kind name the
// same resource the same way (columns aside, which a plugin learns).
func sameKind(a, b KindInfo) bool {
	return a.ID == b.ID && a.Group == b.Group && a.Version == b.Version && a.Resource == b.Resource &&
		a.Namespaced == b.Namespaced && a.Capabilities == b.Capabilities && slices.Equal(a.Aliases, b.Aliases)
}

// rediscoverEvery is the least time between two discovery reads that
// Rediscover starts.
const rediscoverEvery = 5 * time.Second

// Rediscover reads discovery again (Discover), unless a read it started
// finished less than 5 s ago or one is under way; it waits for the read
// (at most 10 s, or until ctx ends). It reports whether the set of kinds
// changed: a CRD was installed, removed, or is served at another version.
// Screens call it when a name is unknown; Snapshot calls it when a
// discovered kind is no longer found. Discovery errors are dropped: the
// previous set stays.
func (c *Client) Rediscover(ctx context.Context) bool {
	c.rediscoverMu.Lock()
	defer c.rediscoverMu.Unlock()
	if time.Since(c.rediscovered) < rediscoverEvery {
		return false
	}
	before := c.discovered.Load()
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_ = c.Discover(dctx)
	c.rediscovered = time.Now()
	after := c.discovered.Load()
	if before == nil || after == nil {
		return before != after
	}
	return !slices.Equal(before.Plugins(), after.Plugins())
}

// candidate is one listable resource discovery named, before it has a name
// of its own: names holds what it may be called besides its plural and the
// "resource.group" form, in order of preference.
type candidate struct {
	info  KindInfo
	names []string
}

// resourceCandidates turns discovery's lists into candidates: listable,
// not subresources, in list order and by name within a list.
func resourceCandidates(lists []*metav1.APIResourceList) []candidate {
	var out []candidate
	for _, list := range lists {
		if list == nil {
			continue
		}
		gv, err := schema.ParseGroupVersion(list.GroupVersion)
		if err != nil {
			continue
		}
		resources := append([]metav1.APIResource(nil), list.APIResources...)
		sort.Slice(resources, func(i, j int) bool { return resources[i].Name < resources[j].Name })
		for _, r := range resources {
			if r.Name == "" || strings.Contains(r.Name, "/") || !hasVerb(r.Verbs, "list") {
				continue
			}
			info := KindInfo{
				ID: Kind(r.Name), Group: gv.Group, Version: gv.Version, Resource: r.Name, Namespaced: r.Namespaced,
			}
			if hasVerb(r.Verbs, "watch") {
				info.Capabilities |= CanWatch
			}
			if hasVerb(r.Verbs, "delete") && hasVerb(r.Verbs, "get") {
				info.Capabilities |= CanDelete // read fresh, then deleted (actions.Actor)
			}
			names := []string{r.SingularName}
			names = append(names, r.ShortNames...)
			names = append(names, strings.ToLower(r.Kind))
			out = append(out, candidate{info: info, names: names})
		}
	}
	return out
}

// keptCandidates returns the kinds the previous Discover found in the
// groups that failed this time and that are not among fresh, so that an
// aggregated API that is briefly down does not lose its screens.
func (c *Client) keptCandidates(fresh []candidate, partial *PartialDiscoveryError) []candidate {
	prev := c.discovered.Load()
	if prev == nil {
		return nil
	}
	failed := map[string]bool{}
	for gv := range partial.Groups {
		if g, err := schema.ParseGroupVersion(gv); err == nil {
			failed[g.Group] = true
		}
	}
	have := map[string]bool{}
	for _, f := range fresh {
		have[f.info.Group+"/"+f.info.Resource] = true
	}
	var out []candidate
	for _, info := range prev.Kinds() {
		if !failed[info.Group] || have[info.Group+"/"+info.Resource] {
			continue
		}
		names := prev.Claimed(info.ID)
		info.ID, info.Aliases, info.Columns = Kind(info.Resource), nil, nil
		out = append(out, candidate{info: info, names: names})
	}
	return out
}

// nameKinds gives every candidate that no Registry plugin serves its id and
// aliases under the rules Discover documents, and returns with them, per
// id, every name discovery gave the kind besides its plural (claimed), won
// or not, which Registry.Lookup accepts qualified by the kind's group.
// Plurals are given out before any alias, so that a short name never takes
// another kind's plural.
func (c *Client) nameKinds(candidates []candidate) ([]KindInfo, map[Kind][]string) {
	builtin := map[string]bool{}
	taken := map[string]bool{}
	for _, k := range c.registry.Kinds() {
		if k.Resource != "" {
			builtin[k.Group+"/"+k.Resource] = true
		}
	}
	for _, n := range c.registry.Names() {
		taken[strings.ToLower(n)] = true
	}
	// claimants counts the discovered kinds of each plural: when there are
	// several, none of them outside the core group is called by the bare
	// plural alone.
	claimants := map[string]int{}
	for _, cand := range candidates {
		if !builtin[cand.info.Group+"/"+cand.info.Resource] {
			claimants[strings.ToLower(cand.info.Resource)]++
		}
	}
	var infos []KindInfo
	var names [][]string
	claimed := map[Kind][]string{}
	for _, cand := range candidates {
		info := cand.info
		if builtin[info.Group+"/"+info.Resource] {
			continue
		}
		plural := strings.ToLower(info.Resource)
		dotted := ""
		if info.Group != "" {
			dotted = plural + "." + strings.ToLower(info.Group)
		}
		id := plural
		if (taken[plural] || claimants[plural] > 1) && dotted != "" {
			id = dotted
		}
		if taken[id] { // a core-group kind whose plural a Registry plugin has
			continue
		}
		taken[id] = true
		info.ID = Kind(id)
		infos = append(infos, info)
		var extra []string
		if id != plural {
			extra = append(extra, plural) // the first claimant keeps it, below
		}
		extra = append(extra, cand.names...)
		if dotted != "" && dotted != id {
			extra = append(extra, dotted)
		}
		names = append(names, extra)
		claimed[info.ID] = cand.names
	}
	// The bare plurals of clashing kinds go first (to the first claimant),
	// then the other names.
	for _, pluralsOnly := range []bool{true, false} {
		for i := range infos {
			for _, n := range names[i] {
				n = strings.ToLower(strings.TrimSpace(n))
				if n == "" || taken[n] || pluralsOnly && n != strings.ToLower(infos[i].Resource) {
					continue
				}
				taken[n] = true
				infos[i].Aliases = append(infos[i].Aliases, n)
			}
		}
	}
	return infos, claimed
}

// listedOnly reports whether a kind is served by a plugin Discover made
// (the default Table plugin), whose Row takes only the rows of the API
// server's Table answer, never the typed objects client-go's informer
// factory would hand it: such a kind is cached only through its plugin's
// own list and watch (Watcher), or else listed.
func (c *Client) listedOnly(info KindInfo) bool {
	_, builtin := c.registry.Lookup(string(info.ID))
	return !builtin
}

func hasVerb(verbs metav1.Verbs, verb string) bool {
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}
