package vocab

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"k8s.io/client-go/kubernetes"
)

// Kind is the id of a kind plugin: the plural resource name kubectl uses
// ("pods", "deployments", "nodes"). It names a Table and a Truncation.
type Kind string

// KindInfo describes what a plugin serves.
type KindInfo struct {
	// ID is the plugin id, also the resource's plural name.
	ID Kind
	// Group and Version of the resource ("" and "v1" for the core group).
	Group, Version string
	// Resource is the plural resource name as the API serves it.
	Resource string
	// Namespaced is false for cluster-scoped kinds (nodes, namespaces).
	Namespaced bool
	// Aliases are the other names a person may type: singular, short names
	// (from the API server's discovery, e.g. "po", "deploy", "ns").
	Aliases []string
	// Columns are the table columns, as `kubectl get` prints them.
	Columns []Column
	// Capabilities are the actions kyyard offers on the kind's objects:
	// the one answer to "does this kind support this action" that the
	// guards, Permissions, the streams, the screens' keys, help marks and
	// action list all read (see Capability, Supports).
	Capabilities Capability
	// DrillDown is the kind shown when a person opens one of these objects
	// (a Namespace opens its pods, a Deployment the pods it selects); empty
	// when there is none. Plugins other than namespaces' implement Driller.
	DrillDown Kind
	// SortColumn names the column rows are first sorted by on screen
	// ("LAST SEEN" for events); empty means by namespace and name.
	SortColumn string
	// SortDescending sorts SortColumn newest or largest first.
	SortDescending bool
	// PartOf, for a kind whose rows are parts of another kind's object
	// (containers of a pod), names that kind; the plugin implements Expander.
	// Such a kind cannot be listed on its own and is left out of completion.
	PartOf Kind
}

// Selector narrows the objects of a read, in the API server's own syntax.
// The zero value selects everything.
type Selector struct {
	// Labels is a label selector ("app=web,tier!=db", "env in (a,b)").
	Labels string
	// Fields is a field selector ("spec.nodeName=n1", "metadata.name=web-0"):
	// metadata.name and metadata.namespace work for every kind, other fields
	// only where the kind's plugin fills Row.Fields (and the API server
	// supports them).
	Fields string
	// Owner, when set, keeps only objects whose ownerReferences name this
	// UID (a CronJob's Jobs). The API server cannot select on it; it is
	// applied after the read.
	Owner string
	// Via, with Owner, keeps the objects owned by an object of kind Via
	// that Owner owns, one generation further: a CronJob owns Jobs, which
	// own the pods (Owner: the CronJob's UID, Via: "jobs").
	Via Kind
}

// IsZero reports whether the selector selects everything.
func (s Selector) IsZero() bool { return s == Selector{} }

// Plugin turns one kind's objects into rows. Built-in plugins live in
// package kube/kinds; the Client is handed a Registry of them when it is made.
//
// The Client reads objects through a shared informer when it can (the kind's
// group/version/resource is one client-go's informer factory serves, and
// the user may watch it) and through the plugin's List otherwise; either way
// every object goes through Row.
type Plugin interface {
	// Info describes the kind. It is called often and must be cheap.
	Info() KindInfo
	// Row turns one object of the kind into its row. obj is the typed
	// pointer the informer or List gives (*corev1.Pod for pods); ok is false
	// when obj is not of this kind. Row must not keep obj's mutable parts
	// beyond its labels map, which it may share.
	Row(obj any) (row Row, ok bool)
	// List reads the kind's objects straight from the API server, in
	// namespace ("" means all namespaces; ignored for cluster-scoped kinds),
	// passing sel's label and field selectors to the server. It returns the
	// typed pointers Row accepts. Errors are the API server's, unwrapped, so
	// that the Client can classify them (forbidden, unavailable, timeout).
	List(ctx context.Context, cs kubernetes.Interface, namespace string, sel Selector) ([]any, error)
}

// Driller is implemented by plugins whose objects open another kind's rows
// (KindInfo.DrillDown): a Deployment opens the pods its selector matches.
type Driller interface {
	// DrillSelector returns the selector of the DrillDown kind's objects that
	// belong to obj; ok is false when obj selects nothing (a Service without
	// a selector).
	DrillSelector(obj any) (sel Selector, ok bool)
}

// Watcher is implemented by a plugin whose objects client-go's informer
// factory does not serve (the default Table plugin, for CRDs and
// aggregated APIs) but which can still be cached. ListWatch gives what an
// informer of the kind in namespace ("" for all) runs: lw a client-go
// cache.ListerWatcher and example a runtime.Object of the type it yields,
// which Row accepts. They are typed any, like List's objects, so that no
// client-go type is part of kube's API; values of other types leave the
// kind uncached. Rows read this way cannot be narrowed by field selectors
// other than metadata.name and metadata.namespace, so the Client lists
// such requests directly.
type Watcher interface {
	ListWatch(cs kubernetes.Interface, namespace string) (lw, example any)
}

// Expander is implemented by the plugin of a kind whose rows are parts of
// another kind's object (a Pod's containers): KindInfo.PartOf names that
// kind, and a Snapshot of it must select one object by name.
type Expander interface {
	// Expand returns the rows of the parts of obj, an object of the PartOf kind.
	Expand(obj any) []Row
}

// Registry holds the kind plugins a Client knows, looked up by id or alias.
// It is read-only once built and safe for concurrent use.
type Registry struct {
	plugins []Plugin
	byName  map[string]Plugin
	// qualified maps the forms kubectl accepts besides the bare names:
	// "name.group" and "name.version.group" ("deployments.apps",
	// "deploy.v1.apps", "services.v1."), for every name of a kind.
	qualified map[string]Plugin
	// claimed holds, per kind, the names discovery gave it besides its
	// plural, kept or lost to another kind (Discover's registry only).
	claimed map[Kind][]string
}

// NewRegistry builds a registry of plugins. It fails when two plugins claim
// the same id or alias (names are compared case-insensitively).
func NewRegistry(plugins ...Plugin) (*Registry, error) {
	return NewDiscoveredRegistry(plugins, nil)
}

// NewDiscoveredRegistry builds a registry of plugins, as NewRegistry does;
// claimed adds, per kind, names it answers to only when qualified by its
// group (names another kind won: the registry of kinds the API server's
// discovery served). It fails as NewRegistry does.
func NewDiscoveredRegistry(plugins []Plugin, claimed map[Kind][]string) (*Registry, error) {
	r := &Registry{byName: map[string]Plugin{}, qualified: map[string]Plugin{}, claimed: claimed}
	for _, p := range plugins {
		info := p.Info()
		for _, name := range append([]string{string(info.ID)}, info.Aliases...) {
			key := strings.ToLower(name)
			if other, ok := r.byName[key]; ok {
				return nil, fmt.Errorf("kind name %q claimed by both %s and %s", name, other.Info().ID, info.ID)
			}
			r.byName[key] = p
		}
		r.plugins = append(r.plugins, p)
	}
	// kubectl tries "resource.version.group" before "resource.group"; the
	// first plugin to claim a form keeps it.
	for _, withVersion := range []bool{true, false} {
		for _, p := range plugins {
			info := p.Info()
			if info.Resource == "" || info.PartOf != "" {
				continue
			}
			suffix := "." + strings.ToLower(info.Group)
			if withVersion {
				suffix = "." + strings.ToLower(info.Version) + suffix
			}
			names := append([]string{string(info.ID), info.Resource}, info.Aliases...)
			for _, name := range append(names, claimed[info.ID]...) {
				name = strings.ToLower(strings.TrimSpace(name))
				if name == "" || strings.Contains(name, ".") {
					continue
				}
				if _, ok := r.qualified[name+suffix]; !ok {
					r.qualified[name+suffix] = p
				}
			}
		}
	}
	return r, nil
}

// Lookup returns the plugin for a kind id or alias ("po", "Pods", "deploy"),
// or for one qualified by the kind's group, as kubectl accepts it:
// "deployments.apps", "deploy.apps", "Deployment.v1.apps", "services.v1.".
func (r *Registry) Lookup(name string) (Plugin, bool) {
	if r == nil {
		return nil, false
	}
	key := strings.ToLower(strings.TrimSpace(name))
	if p, ok := r.byName[key]; ok {
		return p, true
	}
	p, ok := r.qualified[key]
	return p, ok
}

// Kinds returns the description of every registered kind, sorted by id.
func (r *Registry) Kinds() []KindInfo {
	if r == nil {
		return nil
	}
	out := make([]KindInfo, 0, len(r.plugins))
	for _, p := range r.plugins {
		out = append(out, p.Info())
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Names returns every id and alias a person may type, sorted; the prompt
// completes over them. The qualified forms Lookup also accepts
// ("deployments.apps") are left out.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.byName))
	for name := range r.byName {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Plugins returns the registered plugins in the order they were given (a
// copy: the Registry stays read-only).
func (r *Registry) Plugins() []Plugin {
	if r == nil {
		return nil
	}
	return append([]Plugin(nil), r.plugins...)
}

// Claimed returns the names discovery gave kind besides its plural, kept
// or lost to another kind (NewDiscoveredRegistry's claimed; nil for a
// registry NewRegistry built).
func (r *Registry) Claimed(kind Kind) []string {
	if r == nil {
		return nil
	}
	return r.claimed[kind]
}
