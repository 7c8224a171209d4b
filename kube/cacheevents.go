package kube

// The informer's side of a kind's cache (cache.go): the transform that turns
// each object into the item the informer stores (its row and identity, the
// Secret's values and managedFields dropped), the note taken of each list and
// watch it sends (a streaming list or not), the event handlers that keep the
// rows, with the adoption of a streaming first list's early rows, and the
// watch error handler.

import (
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// stripForCache is the informers' transform: it drops what no screen uses
// before an object is stored (managedFields, kubectl's last-applied
// annotation), which is most of a small object's memory, and a Secret's
// values: rows show only its keys (the design's "Secrets are never read for
// display"), and the YAML view reads the object afresh.
func stripForCache(obj any) (any, error) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		return d, nil
	}
	if s, ok := obj.(*corev1.Secret); ok {
		for k := range s.Data {
			s.Data[k] = nil
		}
		s.StringData = nil
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	m.SetManagedFields(nil)
	if ann := m.GetAnnotations(); ann != nil {
		if _, ok := ann[lastAppliedAnnotation]; ok {
			kept := make(map[string]string, len(ann)-1)
			for k, v := range ann {
				if k != lastAppliedAnnotation {
					kept[k] = v
				}
			}
			m.SetAnnotations(kept)
		}
	}
	return obj, nil
}

// adoption is what a cache's handler did with the rows a streaming first
// list delivered (kindCache.early) when the list's first item reached it.
type adoption uint8

const (
	// undecided: no item of a streaming list has reached the handler.
	undecided adoption = iota
	// adopted: the early rows became the cache's rows (the list is
	// complete: client-go hands the handler its items only after the
	// list's end), and the handler skips the items they came from.
	adopted
	// declined: the cache had rows already; the items are taken one by one.
	declined
)

// transform is the informers' transform: it turns an object into the
// cachedItem the informer stores (the row, the identity, a Driller's
// answer), so that the object is dropped at once. An object already
// transformed (client-go transforms a watch-list's items twice) or one the
// store holds at the same resourceVersion (a relist) is returned as the
// item the store has. Rows of a streaming list's first items are recorded
// as they arrive (kindCache.early).
func (kc *kindCache) transform(obj any) (any, error) {
	switch o := obj.(type) {
	case *cachedItem, cache.DeletedFinalStateUnknown:
		return o, nil
	}
	obj, _ = stripForCache(obj)
	m, err := meta.Accessor(obj)
	if err != nil {
		return obj, nil
	}
	it := &cachedItem{namespace: m.GetNamespace(), name: m.GetName(), uid: string(m.GetUID()), resourceVersion: m.GetResourceVersion()}
	key := it.key()
	if it.resourceVersion != "" && kc.informer != nil {
		if old, ok, _ := kc.informer.GetIndexer().GetByKey(key); ok {
			if o, ok := old.(*cachedItem); ok && o.resourceVersion == it.resourceVersion {
				return o, nil
			}
		}
	}
	if row, ok := kc.plugin.Row(obj); ok {
		row = kc.intern.row(row)
		it.row = &row
		it.namespace, it.name = row.Namespace, row.Name // share the strings
		if kc.streaming.Load() {
			kc.mu.Lock()
			if kc.initial && kc.adopt == undecided {
				kc.early.put(key, row)
				kc.rev = kc.seq.Add(1)
				it.early = true
			}
			kc.mu.Unlock()
		}
	}
	if d, ok := kc.plugin.(Driller); ok {
		sel, ok := d.DrillSelector(obj)
		it.drill = &drillAnswer{sel: sel, ok: ok}
	}
	if kc.slim != nil {
		it.keep = kc.slim(obj)
	}
	return it, nil
}

// noteRequest sees the options of each list and watch the informer sends
// (client-go's tweakListOptions): a watch with sendInitialEvents starts a
// streaming list, a plain list a list that arrives at once.
func (kc *kindCache) noteRequest(o *metav1.ListOptions) {
	switch {
	case o.SendInitialEvents != nil && *o.SendInitialEvents:
		kc.streaming.Store(true)
		kc.mu.Lock()
		if kc.initial && kc.adopt == undecided {
			// A streaming list starts (again, after one that failed): the
			// rows of the last may be gone by now.
			kc.early = rowSet{}
		}
		kc.mu.Unlock()
	case !o.AllowWatchBookmarks && !o.Watch:
		kc.streaming.Store(false)
	}
}

// put takes the row of an added or changed item into the rows; the item
// keeps no copy of it.
//
// The items of a streaming first list reach the handler only after the
// whole list has arrived (client-go's reflector collects them and then
// replaces the informer's store with them), and their rows are all among
// the early rows by then: the first such item makes the early rows the
// cache's rows at once (at 100,000 pods, taking the items one by one and
// merging them took 0.6 s more), and every such item is then skipped.
// The events after the list's end follow in order: those transformed
// before the adoption are among the adopted rows too (a deletion's row
// included, which its remove then takes out), the later ones are put.
func (kc *kindCache) put(obj any) {
	it, ok := obj.(*cachedItem)
	if !ok || it.row == nil {
		return
	}
	row := *it.row
	it.row = nil
	kc.mu.Lock()
	if it.early {
		it.early = false
		if kc.adopt == undecided {
			kc.adopt = declined
			if len(kc.set.sorted) == 0 && !kc.set.changed() {
				kc.set, kc.early, kc.adopt = kc.early, rowSet{}, adopted
				kc.rev = kc.seq.Add(1)
			}
		}
		if kc.adopt == adopted {
			kc.mu.Unlock()
			return
		}
	}
	kc.set.put(it.key(), row)
	kc.rev = kc.seq.Add(1)
	kc.mu.Unlock()
}

func (kc *kindCache) remove(obj any) {
	key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return
	}
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return
	}
	kc.mu.Lock()
	if kc.set.remove(key, ns, name) {
		kc.rev = kc.seq.Add(1)
	}
	kc.mu.Unlock()
}

// onWatchError records a failing list or watch: until the informer gets
// past it, Snapshots read the kind with direct lists (which then say
// whether the API server is reachable at all). A forbidden watch stops the
// informer for good (until Options.NoWatchRetry has passed).
func (kc *kindCache) onWatchError(r *cache.Reflector, err error) {
	kc.mu.Lock()
	defer kc.mu.Unlock()
	kc.watchErr = err
	kc.errRV = kc.informer.LastSyncResourceVersion()
	if kc.reach != nil && kc.reach.down() {
		kc.outage = true
	}
	if apierrors.IsForbidden(err) || apierrors.IsUnauthorized(err) {
		kc.forbidden = true
	}
}
