package kube

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"slices"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
)

// judgedRows is the last answer of judgeByPods for one kind and
// namespace: the rows it was given (their first element and length), the
// hash of what it changed and the rows it answered, so that an idle
// refresh answers the same slice (no copy, no new generation).
type judgedRows struct {
	base *Row
	n    int
	hash uint64
	out  []Row
}

// judgeByPods applies RowWorkload's rule to rows, the rows of kind read
// in ns ("" for all namespaces): a row with Workload set that the plugin
// judged progressing or a warning, one of whose Pods cannot start
// (Row.CannotStart), becomes a warning, or failed when it has no
// available Pod, with that Pod's reason as its Status (of its Pods by
// namespace and name, the first). Other rows are kept as they are, and a
// row already failed keeps its own reason.
//
// Cost: a pass over rows; the Pods that cannot start, from the Pods cache
// of ns (or of all namespaces, when one runs), which keeps them apart
// (rowSet.stuck); and, for a row whose Pods are owned through another
// kind (RowWorkload.Via: a Deployment's ReplicaSets), one pass over that
// kind's cached rows. No API request is made but a cache's start (its access
// review, list and watch), and only when some row is judged progressing
// or a warning: a healthy inventory starts no Pods cache. A cache not yet
// synced is not waited for: rows stay as the plugin judged them until a
// later Snapshot finds it synced.
//
// It returns rows themselves when no row changed, else a new slice (rows
// are shared read-only), and a hash of the changes (0 for none) for the
// table's version.
func (c *Client) judgeByPods(ctx context.Context, kind Kind, ns string, rows []Row) ([]Row, uint64) {
	var suspects []int
	for i := range rows {
		r := &rows[i]
		if r.Workload != nil && (r.Health == HealthProgressing || r.Health == HealthWarning) {
			suspects = append(suspects, i)
		}
	}
	if len(suspects) == 0 {
		return rows, 0
	}
	reasons := c.stuckOwners(ctx, ns)
	if len(reasons) == 0 {
		return rows, 0
	}
	viaReasons := map[Kind]map[string]string{}

	var out []Row
	h := fnv.New64a()
	var buf [8]byte
	for _, i := range suspects {
		r := &rows[i]
		found := reasons
		if via := r.Workload.Via; via != "" {
			if _, ok := viaReasons[via]; !ok {
				viaReasons[via] = c.reasonsVia(ctx, via, ns, reasons)
			}
			found = viaReasons[via]
		}
		reason, ok := found[r.UID]
		if !ok {
			continue
		}
		health, raised := vocab.RaisedHealth(r.Health, r.Workload.Available)
		if !raised {
			continue
		}
		if out == nil {
			out = slices.Clone(rows)
		}
		out[i].Status, out[i].Health = reason, health
		vocab.HashStrings(h, r.Namespace, r.Name, reason)
		binary.LittleEndian.PutUint64(buf[:], uint64(health))
		h.Write(buf[:])
	}
	if out == nil {
		return rows, 0
	}
	sum := h.Sum64() | 1 // never 0, which says "no change"

	key := cacheKey{kind: kind, namespace: ns}
	c.mu.Lock()
	defer c.mu.Unlock()
	if last, ok := c.judged[key]; ok && last.base == &rows[0] && last.n == len(rows) && last.hash == sum {
		return last.out, sum
	}
	if c.judged == nil {
		c.judged = map[cacheKey]judgedRows{}
	}
	c.judged[key] = judgedRows{base: &rows[0], n: len(rows), hash: sum, out: out}
	return out, sum
}

// stuckOwners reads the Pods that cannot start in ns ("" for all
// namespaces) from the Pods cache (peekCache) and maps the UIDs of their
// owners to the reason of the first of them by namespace and name; nil
// while the cache is not in.
func (c *Client) stuckOwners(ctx context.Context, ns string) map[string]string {
	pods := c.peekCache(ctx, KindPods, ns)
	if pods == nil {
		return nil
	}
	pods.mu.Lock()
	stuck := pods.set.stuckRows()
	pods.mu.Unlock()
	if len(stuck) == 0 {
		return nil
	}
	slices.SortFunc(stuck, compareRows)
	reasons := map[string]string{}
	for _, p := range stuck {
		for _, o := range p.Owners {
			if _, ok := reasons[o]; !ok {
				reasons[o] = p.CannotStart
			}
		}
	}
	return reasons
}

// reasonsVia maps the UIDs of the owners of the objects of kind via in ns
// (a Deployment's ReplicaSets) whose UIDs reasons holds to those objects'
// reasons (the first by namespace and name), from via's cache; nil when
// reasons is empty or via's cache cannot be read from a synced cache yet.
func (c *Client) reasonsVia(ctx context.Context, via Kind, ns string, reasons map[string]string) map[string]string {
	if len(reasons) == 0 {
		return nil
	}
	kc := c.peekCache(ctx, via, ns)
	if kc == nil {
		return nil
	}
	kc.mu.Lock()
	rows := kc.set.rows()
	kc.mu.Unlock()
	out := map[string]string{}
	for i := range rows {
		reason, ok := reasons[rows[i].UID]
		if !ok {
			continue
		}
		for _, o := range rows[i].Owners {
			if _, ok := out[o]; !ok {
				out[o] = reason
			}
		}
	}
	return out
}

// peekCache returns the cache of kind in ns ("" for all namespaces) when
// its rows can be trusted now (synced, its watch working, the API server
// reachable), starting it when there is none; nil otherwise, at once: it
// never waits for a list. A running cache of all namespaces serves a
// namespace too. Caching off, or a kind no plugin serves, is nil.
func (c *Client) peekCache(ctx context.Context, kind Kind, ns string) *kindCache {
	if c.opts.NoCache || c.closed.Load() {
		return nil
	}
	plugin, ok := c.Lookup(string(kind))
	if !ok {
		return nil
	}
	info := plugin.Info()
	if !info.Namespaced {
		ns = ""
	}
	if ns != "" {
		c.mu.Lock()
		all := c.caches[cacheKey{kind: info.ID}]
		c.mu.Unlock()
		if all != nil && all.plugin == plugin && all.trusted() {
			return all
		}
	}
	key := cacheKey{kind: info.ID, namespace: ns}
	kc := c.kindCache(ctx, key, plugin, info)
	if kc != nil && kc.afterOutage() {
		c.dropCache(key, kc, time.Time{})
		kc = c.kindCache(ctx, key, plugin, info)
	}
	if kc == nil || !kc.trusted() {
		return nil
	}
	return kc
}

// trusted reports whether the cache's rows are current: it has synced,
// the API server answers, its watch is not refused, and it has moved past
// its last watch error. It counts as a use (the janitor keeps it).
func (kc *kindCache) trusted() bool {
	if !kc.synced() || (kc.reach != nil && kc.reach.down()) {
		return false
	}
	kc.mu.Lock()
	defer kc.mu.Unlock()
	kc.lastUsed = time.Now()
	if kc.forbidden {
		return false
	}
	return kc.watchErr == nil || kc.informer.LastSyncResourceVersion() != kc.errRV
}
