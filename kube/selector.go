package kube

import (
	"context"
	"fmt"
	"slices"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/kube/vocab"
)

// errInvalid is vocab.ErrInvalid, the mark of a request kyyard refuses
// before sending it.
var errInvalid = vocab.ErrInvalid

// rowMatcher reports whether a row is selected.
type rowMatcher func(*Row) bool

// compileSelector parses a Selector once for matching cached rows; nil
// when it selects everything. owners, when not nil, replaces the Owner
// test: a row must be owned by one of them (a selector's Via, resolved).
// Errors: a malformed label or field selector (the messages are
// apimachinery's, as kubectl prints them).
func compileSelector(s Selector, owners map[string]bool) (rowMatcher, error) {
	if s.IsZero() {
		return nil, nil
	}
	var ls labels.Selector
	if s.Labels != "" {
		var err error
		if ls, err = labels.Parse(s.Labels); err != nil {
			return nil, fmt.Errorf("%w: label selector %q: %v", errInvalid, s.Labels, err)
		}
	}
	var fs fields.Selector
	if s.Fields != "" {
		var err error
		if fs, err = fields.ParseSelector(s.Fields); err != nil {
			return nil, fmt.Errorf("%w: field selector %q: %v", errInvalid, s.Fields, err)
		}
	}
	owner := s.Owner
	return func(r *Row) bool {
		if ls != nil && !ls.Matches(labels.Set(r.Labels)) {
			return false
		}
		if fs != nil && !fs.Matches(rowFields{r}) {
			return false
		}
		if owners != nil {
			for _, o := range r.Owners {
				if owners[o] {
					return true
				}
			}
			return false
		}
		return owner == "" || ownedBy(r, owner)
	}, nil
}

// rowFields is fields.Fields over a row: metadata.name and
// metadata.namespace, then what the plugin put in Row.Fields.
type rowFields struct{ r *Row }

func (f rowFields) Has(field string) bool {
	_, ok := f.lookup(field)
	return ok
}

func (f rowFields) Get(field string) string {
	v, _ := f.lookup(field)
	return v
}

func (f rowFields) lookup(field string) (string, bool) {
	switch field {
	case "metadata.name":
		return f.r.Name, true
	case "metadata.namespace":
		return f.r.Namespace, true
	}
	v, ok := f.r.Fields[field]
	return v, ok
}

func ownedBy(r *Row, uid string) bool { return slices.Contains(r.Owners, uid) }

// filterRows returns the rows match selects, in a new slice.
func filterRows(rows []Row, match rowMatcher) []Row {
	out := make([]Row, 0, len(rows)/4)
	for i := range rows {
		if match(&rows[i]) {
			out = append(out, rows[i])
		}
	}
	return out
}

// selectedName returns the name a selector's fields pin down exactly.
func selectedName(s Selector) (string, bool) {
	if s.Fields == "" {
		return "", false
	}
	fs, err := fields.ParseSelector(s.Fields)
	if err != nil {
		return "", false
	}
	return fs.RequiresExactMatch("metadata.name")
}

// object returns one object of a plugin's kind, read fresh with a direct
// list of that one name: the caches keep rows, not objects (issue 14). When
// a healthy cache holds the object at the resourceVersion of the last
// object read this way, that object is returned again without a request
// (a Pod's containers re-read their pod on every refresh). Errors: the API
// server's, or NotFound when no object has the name.
func (c *Client) object(ctx context.Context, plugin Plugin, ns, name string) (any, error) {
	info := plugin.Info()
	if !info.Namespaced {
		ns = ""
	}
	it := c.cachedItem(info, ns, name)
	memoKey := string(info.ID) + "\x00" + ns + "\x00" + name
	if it != nil {
		c.mu.Lock()
		m := c.lastObject
		c.mu.Unlock()
		if m.key == memoKey && m.resourceVersion == it.resourceVersion {
			return m.obj, nil
		}
	}
	lctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	objs, err := plugin.List(lctx, c.cs, ns, Selector{Fields: "metadata.name=" + name})
	if err != nil {
		return nil, err
	}
	for _, obj := range objs {
		if row, ok := plugin.Row(obj); ok && row.Name == name {
			if m, err := meta.Accessor(obj); err == nil {
				c.mu.Lock()
				c.lastObject = objectMemo{key: memoKey, resourceVersion: m.GetResourceVersion(), obj: obj}
				c.mu.Unlock()
			}
			return obj, nil
		}
	}
	gr := schema.GroupResource{Group: info.Group, Resource: info.Resource}
	return nil, apierrors.NewNotFound(gr, name)
}

// objectMemo is the last object Client.object read, by kind, namespace and
// name, at its resourceVersion.
type objectMemo struct {
	key, resourceVersion string
	obj                  any
}

// cachedItem returns the item a running, healthy cache holds for the
// object, or nil.
func (c *Client) cachedItem(info KindInfo, ns, name string) *cachedItem {
	c.mu.Lock()
	kc := c.caches[cacheKey{kind: info.ID, namespace: ns}]
	if kc == nil && ns != "" {
		kc = c.caches[cacheKey{kind: info.ID}]
	}
	c.mu.Unlock()
	if kc == nil || !kc.healthy() {
		return nil
	}
	kc.mu.Lock()
	kc.lastUsed = time.Now() // a drill-down re-reads its parent on each refresh
	kc.mu.Unlock()
	key := name
	if ns != "" {
		key = ns + "/" + name
	}
	obj, ok, err := kc.informer.GetStore().GetByKey(key)
	if err != nil || !ok {
		return nil
	}
	it, _ := obj.(*cachedItem)
	return it
}

// drillSelector returns the Driller's selector for one object: the answer
// a healthy cache kept when it took the object in, else the answer for
// the object read fresh. Errors: those of object.
func (c *Client) drillSelector(ctx context.Context, plugin Plugin, driller Driller, ns, name string) (Selector, bool, error) {
	info := plugin.Info()
	if !info.Namespaced {
		ns = ""
	}
	if it := c.cachedItem(info, ns, name); it != nil && it.drill != nil {
		return it.drill.sel, it.drill.ok, nil
	}
	obj, err := c.object(ctx, plugin, ns, name)
	if err != nil {
		return Selector{}, false, err
	}
	sel, ok := driller.DrillSelector(obj)
	return sel, ok, nil
}

// healthy reports whether the cache has synced and its watch is not failing.
func (kc *kindCache) healthy() bool {
	if !kc.synced() {
		return false
	}
	kc.mu.Lock()
	defer kc.mu.Unlock()
	return !kc.forbidden && (kc.watchErr == nil || kc.informer.LastSyncResourceVersion() != kc.errRV)
}
