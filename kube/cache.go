package kube

// The read cache of each kind (design: "Reads are cached, with fallback"):
// one informer per kind and namespace, started when a Snapshot first needs
// it (kindCache) once the user may watch the kind, its rows answered while
// its first list still arrives (waitRows, partialRows) and refused for a
// direct list while its watch fails, dropped, counted (CacheStats) and
// closed. The informer's transform and handlers are in cacheevents.go, the
// janitor and the memory policy in cachejanitor.go.

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// Cache defaults; Options overrides them.
const (
	defaultSyncBudget   = 10 * time.Second
	defaultFirstRows    = 50 * time.Millisecond
	defaultCacheIdle    = 2 * time.Minute
	defaultNoWatchRetry = 5 * time.Minute
)

// lastAppliedAnnotation is kubectl apply's copy of the last applied object:
// often the largest part of an object's metadata, and shown by no screen.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// cacheKey names one informer: a kind in one namespace ("" for all, and
// always "" for cluster-scoped kinds).
type cacheKey struct {
	kind      Kind
	namespace string
}

// kindCache is one kind's informer and the rows of its objects, kept up to
// date by the informer's event handler so that a Snapshot costs a sort at
// most, and nothing at all when no object changed.
type kindCache struct {
	plugin   Plugin
	seq      *atomic.Uint64 // the Client's revision counter
	informer cache.SharedIndexInformer
	handler  cache.ResourceEventHandlerRegistration
	reach    *reachability // the Client's; nil for a clientset handed in
	memory   memoryPolicy  // the Client's
	stop     chan struct{}
	stopOnce sync.Once

	intern interner // shares what many rows hold alike
	// slim, when set, keeps the part of an object kube reads besides its
	// row (cachedItem.keep).
	slim func(obj any) any
	// streaming is set while the informer's list is a watch-list (a watch
	// with sendInitialEvents, items arriving one by one), cleared when it
	// lists instead; noteRequest sees each request.
	streaming atomic.Bool

	started time.Time // when the cache was made: FirstRows and SyncBudget count from it

	mu       sync.Mutex
	set      rowSet // the rows of the objects the informer holds
	rev      uint64 // counts changes to rows
	lastUsed time.Time
	// initial is true until the informer first synced; early holds, until
	// then, the rows of the items a streaming list delivered so far, shown
	// while the rest arrives (Table.Reading).
	initial bool
	early   rowSet
	// adopt says whether the handler took the early rows whole as its rows
	// (adopted) when the first of a streaming list's items reached it, or
	// found rows already there (declined); see put.
	adopt adoption
	// partial is the last answer while reading (partialRows): its rows,
	// their version, when and at what cost they were merged.
	partial        []Row
	partialVersion uint64
	partialAt      time.Time
	partialCost    time.Duration
	// watchErr is the last error the reflector reported, and errRV the
	// resource version the informer had then; the cache is trusted again
	// once the informer has moved past errRV (an event, a relist or a
	// bookmark arrived). forbidden marks a watch RBAC refused.
	watchErr  error
	errRV     string
	forbidden bool
	// outage marks a cache whose watch failed while the API server could
	// not be reached at all.
	outage bool
}

// afterOutage reports whether the cache lost its watch in an outage that
// is now over (the server answers again) and the informer has not moved
// since: its rows cannot be shown as current until it has, so the caller
// replaces it with a fresh informer.
func (kc *kindCache) afterOutage() bool {
	if kc.reach == nil || kc.reach.down() {
		return false
	}
	kc.mu.Lock()
	defer kc.mu.Unlock()
	return kc.outage && kc.watchErr != nil && kc.informer.LastSyncResourceVersion() == kc.errRV
}

// cached returns the rows of a kind from its informer, starting it on first
// use. ok is false when the kind must be read with a direct list instead:
// caching is off, the kind was discovered (listedOnly) and its plugin is
// no Watcher or the server does not watch it, client-go's informer factory
// does not serve the kind, the user may not watch it, or its list or watch
// is failing. A cache whose first list is still arriving is never listed
// beside (issue 14: one read at a time per kind): after Options.FirstRows
// it gives the rows a streaming list delivered so far, and after
// Options.SyncBudget what it has, with reading set. The version
// identifies the rows: it changes only when they changed.
func (c *Client) cached(ctx context.Context, plugin Plugin, info KindInfo, ns string) (rows []Row, version uint64, reading, ok bool) {
	if c.opts.NoCache || c.closed.Load() || (c.listedOnly(info) && !watchable(plugin, info)) {
		return nil, 0, false, false
	}
	key := cacheKey{kind: info.ID, namespace: ns}
	kc := c.kindCache(ctx, key, plugin, info)
	if kc != nil && kc.afterOutage() {
		// The informer may well have resumed its watch, but a quiet kind
		// gives no event to prove it for a minute or more: start afresh,
		// which costs one list.
		c.dropCache(key, kc, time.Time{})
		kc = c.kindCache(ctx, key, plugin, info)
	}
	if kc == nil {
		return nil, 0, false, false
	}
	if !kc.synced() && !kc.waitRows(ctx, c.opts.FirstRows, c.opts.SyncBudget) {
		return nil, 0, false, false
	}
	synced := kc.synced() // read before kc.mu: HasSynced may wait for the handler
	kc.mu.Lock()
	defer kc.mu.Unlock()
	kc.lastUsed = time.Now()
	if kc.forbidden {
		return nil, 0, false, false
	}
	if c.reach != nil && c.reach.down() {
		// The server stopped answering; the informer retries quietly. Trust
		// the cache again only once it has moved past this point, or once
		// it was started afresh after the server came back.
		kc.outage = true
		if kc.watchErr == nil {
			kc.watchErr, kc.errRV = errUnreachable, kc.informer.LastSyncResourceVersion()
		}
	}
	if kc.watchErr != nil {
		if kc.informer.LastSyncResourceVersion() == kc.errRV {
			return nil, 0, false, false
		}
		kc.watchErr, kc.outage = nil, false
	}
	if !synced && kc.adopt != adopted && kc.initial {
		return kc.partialRows()
	}
	rows = kc.set.rows()
	if kc.initial {
		kc.initial, kc.early, kc.partial = false, rowSet{}, nil
		if len(rows) >= kc.memory.rows {
			go kc.releaseWhenSynced()
		}
	}
	return rows, kc.rev, false, true
}

// partialRows answers for a cache whose first list is still arriving
// (kc.mu held): the rows so far, merged at most every
// max(partialEvery, partialShare × the last merge's time) and the same
// answer in between (an empty one is never held). A merge holds kc.mu,
// which the list's items wait for (transform), so at 100,000 pods
// answering every refresh stalled the list itself; complete rows are
// answered as soon as the list is in.
func (kc *kindCache) partialRows() ([]Row, uint64, bool, bool) {
	if len(kc.partial) > 0 && time.Since(kc.partialAt) < max(partialEvery, partialShare*kc.partialCost) {
		return kc.partial, kc.partialVersion, true, true
	}
	began := time.Now()
	// The handler takes the list in only once it has all arrived: until
	// it has taken in as many rows as arrived, the early rows are the
	// more complete (the count never goes back).
	var rows []Row
	if n := len(kc.set.sorted) + len(kc.set.pending); n > 0 && n >= len(kc.early.sorted)+len(kc.early.pending) {
		rows = kc.set.rows()
	} else {
		rows = kc.early.rows()
	}
	kc.partial, kc.partialVersion = rows, kc.rev^readingMark
	kc.partialAt, kc.partialCost = time.Now(), time.Since(began)
	return rows, kc.partialVersion, true, true
}

// partialEvery and partialShare pace the answers of a first list still
// arriving (partialRows).
const (
	partialEvery = 250 * time.Millisecond
	partialShare = 10
)

// readingMark is mixed into the version of rows still arriving, so that the
// same rows complete are a new version.
const readingMark = 0x9e3779b97f4a7c15

// kindCache returns the running cache of key, starting it when the user may
// watch the kind; nil when the kind must be listed directly.
func (c *Client) kindCache(ctx context.Context, key cacheKey, plugin Plugin, info KindInfo) *kindCache {
	c.mu.Lock()
	kc := c.caches[key]
	until, refused := c.noWatch[key]
	c.mu.Unlock()
	if kc != nil && kc.plugin != plugin {
		// Discovery describes the kind anew (another version): its cache
		// lists and watches what the old plugin named.
		c.dropCache(key, kc, time.Time{})
		kc = nil
	}
	if kc != nil {
		kc.mu.Lock()
		forbidden := kc.forbidden
		kc.mu.Unlock()
		if !forbidden {
			return kc
		}
		c.dropCache(key, kc, time.Now().Add(c.opts.NoWatchRetry))
		return nil
	}
	if refused && time.Now().Before(until) {
		return nil
	}
	gvr := schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
	kc = &kindCache{plugin: plugin, seq: &c.revisions, reach: c.reach, memory: c.memory, stop: make(chan struct{}), lastUsed: time.Now(), started: time.Now(), initial: true}
	if info.ID == "nodes" && info.Group == "" {
		kc.slim = platformNode
	}
	var start func(stop chan struct{})
	if w, ok := plugin.(Watcher); ok && c.listedOnly(info) {
		anyLW, anyExample := w.ListWatch(c.cs, key.namespace)
		lw, ok1 := anyLW.(cache.ListerWatcher)
		example, ok2 := anyExample.(runtime.Object)
		if !ok1 || !ok2 {
			return nil
		}
		kc.informer = cache.NewSharedIndexInformer(noticingLW(lw, kc.noteRequest), example, 0, cache.Indexers{})
		if err := kc.informer.SetTransform(kc.transform); err != nil {
			return nil
		}
		start = func(stop chan struct{}) { go kc.informer.Run(stop) }
	} else {
		factory := informers.NewSharedInformerFactoryWithOptions(c.cs, 0,
			informers.WithNamespace(key.namespace), informers.WithTransform(kc.transform),
			informers.WithTweakListOptions(kc.noteRequest))
		generic, err := factory.ForResource(gvr)
		if err != nil {
			// Not a resource client-go's factory serves, and no plugin that
			// watches it otherwise: always listed.
			c.mu.Lock()
			c.noWatch[key] = time.Now().Add(100 * 365 * 24 * time.Hour)
			c.mu.Unlock()
			return nil
		}
		kc.informer = generic.Informer()
		start = func(stop chan struct{}) { factory.Start(stop) }
	}
	if !c.mayWatch(ctx, gvr, key.namespace) {
		c.mu.Lock()
		c.noWatch[key] = time.Now().Add(c.opts.NoWatchRetry)
		c.mu.Unlock()
		return nil
	}
	_ = kc.informer.SetWatchErrorHandler(kc.onWatchError)
	var err error
	kc.handler, err = kc.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    kc.put,
		UpdateFunc: func(_, obj any) { kc.put(obj) },
		DeleteFunc: kc.remove,
	})
	if err != nil {
		return nil
	}

	c.mu.Lock()
	if other := c.caches[key]; other != nil { // another snapshot won the race
		c.mu.Unlock()
		return other
	}
	c.caches[key] = kc
	c.startJanitorLocked()
	c.mu.Unlock()
	start(kc.stop)
	return kc
}

// watchable reports whether a kind without a built-in plugin can still be
// cached: its plugin is a Watcher and the API server serves watch for it.
func watchable(plugin Plugin, info KindInfo) bool {
	_, ok := plugin.(Watcher)
	return ok && info.Capabilities.Has(CanWatch)
}

// mayWatch asks the API server (SelfSubjectAccessReview) whether the user
// may watch the resource in namespace ("" for all namespaces). When the
// review itself fails it answers yes: the informer's watch error handler
// then finds out the slow way.
func (c *Client) mayWatch(ctx context.Context, gvr schema.GroupVersionResource, namespace string) bool {
	review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{
			Namespace: namespace, Verb: "watch", Group: gvr.Group, Version: gvr.Version, Resource: gvr.Resource,
		},
	}}
	rctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	got, err := c.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(rctx, review, metav1.CreateOptions{})
	if err != nil {
		return true
	}
	return got.Status.Allowed
}

// waitRows waits until the informer has synced, or until firstRows has
// passed since the cache started and a streaming list has delivered rows,
// or until budget has passed since the cache started, whichever comes
// first (so a Snapshot taken while a long first list arrives answers at
// once with what has come). It reports false when the list or watch
// failed, the API server is unreachable or ctx ended: a direct list then
// says why at once.
func (kc *kindCache) waitRows(ctx context.Context, firstRows, budget time.Duration) bool {
	start := kc.started
	wctx, cancel := context.WithDeadline(ctx, start.Add(budget))
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !kc.synced() {
		kc.mu.Lock()
		failed := kc.watchErr != nil || kc.forbidden
		arrived := kc.early.changed() || len(kc.early.sorted) > 0 || kc.set.changed()
		complete := kc.adopt == adopted
		kc.mu.Unlock()
		if complete {
			return true
		}
		if failed || (kc.reach != nil && kc.reach.down()) {
			return false
		}
		if arrived && kc.streaming.Load() && time.Since(start) >= firstRows {
			return true
		}
		select {
		case <-ctx.Done():
			return kc.synced()
		case <-wctx.Done():
			return true // what has arrived, still reading
		case <-tick.C:
		}
	}
	return true
}

func (kc *kindCache) shutdown() {
	kc.stopOnce.Do(func() { close(kc.stop) })
}

// dropCache stops a cache and keeps its kind listed directly until retry.
func (c *Client) dropCache(key cacheKey, kc *kindCache, retry time.Time) {
	c.mu.Lock()
	if c.caches[key] == kc {
		delete(c.caches, key)
	}
	if !retry.IsZero() {
		c.noWatch[key] = retry
	}
	c.mu.Unlock()
	kc.shutdown()
}

// CacheStats describes the informers a Client runs, for tests and the
// scale benchmark.
type CacheStats struct {
	// Kinds lists "kind" or "kind/namespace" for every running informer, sorted.
	Kinds []string
	// Objects is the number of objects the informers hold.
	Objects int
}

// CacheStats returns what the Client caches right now.
func (c *Client) CacheStats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s CacheStats
	for key, kc := range c.caches {
		name := string(key.kind)
		if key.namespace != "" {
			name += "/" + key.namespace
		}
		s.Kinds = append(s.Kinds, name)
		kc.mu.Lock()
		s.Objects += len(kc.set.rows())
		kc.mu.Unlock()
	}
	sort.Strings(s.Kinds)
	return s
}

// Close stops every informer and every port-forward of the Client. Snapshots after Close list
// directly. It is safe to call more than once.
func (c *Client) Close() {
	c.StopAllPortForwards()
	c.mu.Lock()
	caches := c.caches
	c.caches = map[cacheKey]*kindCache{}
	if c.janitorStop != nil {
		close(c.janitorStop)
		c.janitorStop = nil
	}
	c.closed.Store(true)
	c.mu.Unlock()
	for _, kc := range caches {
		kc.shutdown()
	}
}

// synced reports whether the rows are complete: the informer has synced and
// its handler has received every object of the initial list (the store
// fills before the handler has seen it all).
func (kc *kindCache) synced() bool {
	return kc.informer.HasSynced() && kc.handler.HasSynced()
}
