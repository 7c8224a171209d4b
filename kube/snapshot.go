package kube

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Snapshot reads every kind of the request at once (a slow API server costs
// the slowest read, not their sum). Each kind is read from its informer when
// it can be cached (see Client.cached), else listed directly within
// Options.ListTimeout. A kind that cannot be read, or that no plugin serves,
// is named in Truncated with its Reason; it never fails the others. The rows
// of a workload whose Pods cannot start are judged by them (RowWorkload,
// judgeByPods: from the caches, never a request per row). Rows are
// sorted by namespace then name and are shared with the cache: read only.
// Only a cancelled ctx ends it early, with every kind truncated.
func (c *Client) Snapshot(ctx context.Context, req SnapshotRequest) Snapshot {
	type result struct {
		table   Table
		version uint64
		trunc   *Truncation
	}
	results := make([]result, len(req.Kinds))
	owners, ownersHash, err := c.ownersVia(ctx, req)
	var match rowMatcher
	if err == nil {
		match, err = compileSelector(req.Selector, owners)
	}
	var wg sync.WaitGroup
	for i, kind := range req.Kinds {
		if err != nil {
			results[i].trunc = &Truncation{Kind: kind, Reason: ReasonOf(err), Message: err.Error()}
			continue
		}
		plugin, ok := c.Lookup(string(kind))
		if !ok {
			results[i].trunc = &Truncation{Kind: kind, Reason: ReasonUnknownKind, Message: "no plugin serves " + string(kind)}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			info := plugin.Info()
			rows, version, cached, reading, unread, err := c.readNamespaces(ctx, plugin, info, scopeOf(info, req.Namespace), req.Selector, match)
			if err != nil {
				results[i].trunc = &Truncation{Kind: kind, Reason: ReasonOf(err), Message: err.Error()}
				if results[i].trunc.Reason == ReasonNotFound && c.listedOnly(info) {
					// A discovered kind the server no longer serves at this
					// version (a CRD deleted, or its version changed): read
					// discovery again, so the next Snapshot knows.
					go c.Rediscover(context.Background())
				}
				return
			}
			// Columns are read after the rows: a plugin that takes them from the
			// API server's answer (the default Table plugin) knows them only then.
			results[i].table = Table{Kind: info.ID, Columns: plugin.Info().Columns, Rows: rows, Cached: cached, Reading: reading, Unread: unread}
			results[i].version = version ^ ownersHash
		}()
	}
	wg.Wait()

	snap := Snapshot{Namespace: req.Namespace, Taken: time.Now()}
	h := fnv.New64a()
	var buf [8]byte
	for _, r := range results {
		if r.trunc != nil {
			snap.Truncated = append(snap.Truncated, *r.trunc)
			vocab.HashStrings(h, string(r.trunc.Kind), string(r.trunc.Reason), r.trunc.Message)
			continue
		}
		snap.Tables = append(snap.Tables, r.table)
		vocab.HashStrings(h, string(r.table.Kind))
		binary.LittleEndian.PutUint64(buf[:], r.version)
		h.Write(buf[:])
	}
	snap.Generation = c.nextGeneration(requestKey(req), h.Sum64())
	return snap
}

// read returns one kind's rows: from its informer when cached (version is
// the cache's revision; reading while its first list is still arriving),
// else from a direct list (version hashes the rows).
func (c *Client) read(ctx context.Context, plugin Plugin, info KindInfo, ns string, sel Selector, match rowMatcher) (rows []Row, version uint64, cached, reading bool, err error) {
	if info.PartOf != "" {
		rows, err = c.expand(ctx, plugin, info, ns, sel)
		if err != nil {
			return nil, 0, false, false, err
		}
		return rows, hashRows(rows), false, false, nil
	}
	// A Watcher's cached rows know no fields but the name and namespace:
	// a field selector goes to the server.
	if _, watcher := plugin.(Watcher); !watcher || sel.Fields == "" {
		if rows, version, reading, ok := c.cached(ctx, plugin, info, ns); ok {
			if match != nil {
				rows = filterRows(rows, match)
				version ^= hashRows(nil) // a filtered view of the same revision
			}
			return rows, version, true, reading, nil
		}
	}
	lctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
	defer cancel()
	objs, err := plugin.List(lctx, c.cs, ns, sel)
	if err != nil {
		return nil, 0, false, false, err
	}
	rows = make([]Row, 0, len(objs))
	for _, obj := range objs {
		if row, ok := plugin.Row(obj); ok {
			rows = append(rows, row)
		}
	}
	// The server applied the label and field selectors; the owner is ours
	// to apply. Matching again costs little and also covers the fields a
	// server ignores.
	if match != nil {
		rows = filterRows(rows, match)
	}
	sortRows(rows)
	return rows, hashRows(rows), false, false, nil
}

// expand reads the rows of a kind that is part of another (a Pod's
// containers): the parent object named by sel's metadata.name, expanded by
// the plugin.
func (c *Client) expand(ctx context.Context, plugin Plugin, info KindInfo, ns string, sel Selector) ([]Row, error) {
	exp, ok := plugin.(Expander)
	if !ok {
		return nil, fmt.Errorf("%s: plugin cannot expand %s", info.ID, info.PartOf)
	}
	name, ok := selectedName(sel)
	if !ok {
		return nil, fmt.Errorf("%w: %s are part of %s: select one by metadata.name", errInvalid, info.ID, info.PartOf)
	}
	parent, ok := c.Lookup(string(info.PartOf))
	if !ok {
		return nil, fmt.Errorf("%s: no plugin serves %s", info.ID, info.PartOf)
	}
	obj, err := c.object(ctx, parent, ns, name)
	if err != nil {
		return nil, err
	}
	rows := exp.Expand(obj)
	return rows, nil
}

func sortRows(rows []Row) {
	sort.Slice(rows, func(i, j int) bool {
		if rows[i].Namespace != rows[j].Namespace {
			return rows[i].Namespace < rows[j].Namespace
		}
		return rows[i].Name < rows[j].Name
	})
}

func requestKey(req SnapshotRequest) string {
	parts := make([]string, 0, len(req.Kinds)+1)
	parts = append(parts, req.Namespace)
	for _, k := range req.Kinds {
		parts = append(parts, string(k))
	}
	parts = append(parts, req.Selector.Labels, req.Selector.Fields, req.Selector.Owner, string(req.Selector.Via))
	return strings.Join(parts, "\x00")
}

// nextGeneration returns the request's generation: unchanged when the
// content hash is the one seen last, else the next number of the Client's
// one sequence.
func (c *Client) nextGeneration(key string, hash uint64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.generations[key]
	if g.n == 0 || g.hash != hash {
		c.lastGeneration++
		g.n, g.hash = c.lastGeneration, hash
		c.generations[key] = g
	}
	return g.n
}

// hashRows hashes everything a screen draws from rows, except the time:
// ages are drawn from Cell.Since, which is hashed.
func hashRows(rows []Row) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	num := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	num(int64(len(rows)))
	for _, r := range rows {
		vocab.HashStrings(h, r.Namespace, r.Name, r.UID, r.Status)
		num(int64(r.Health))
		num(r.Created.UnixNano())
		for _, cell := range r.Cells {
			vocab.HashStrings(h, cell.Text)
			num(cell.Since.UnixNano())
		}
		if res := r.Resources; res != nil {
			// A pod resized in place changes its resources and no cell.
			num(res.Allocatable.CPU)
			num(res.Allocatable.Memory)
			for _, c := range res.Containers {
				vocab.HashStrings(h, c.Name)
				num(c.Requests.CPU)
				num(c.Requests.Memory)
				num(c.Limits.CPU)
				num(c.Limits.Memory)
			}
		}
	}
	return h.Sum64()
}

// ownersVia resolves a selector's Via: the UIDs of the objects of kind Via,
// in the request's namespace, that Owner owns (a CronJob's Jobs), and a
// hash of them so that the generation moves when they change. Without Via
// it returns nil. Errors: Via cannot be read (its reason is kept).
func (c *Client) ownersVia(ctx context.Context, req SnapshotRequest) (map[string]bool, uint64, error) {
	sel := req.Selector
	if sel.Via == "" {
		return nil, 0, nil
	}
	if sel.Owner == "" {
		return nil, 0, fmt.Errorf("%w: a selector's Via needs its Owner", errInvalid)
	}
	plugin, ok := c.Lookup(string(sel.Via))
	if !ok {
		return nil, 0, fmt.Errorf("%w: no plugin serves %s", errInvalid, sel.Via)
	}
	info := plugin.Info()
	first := Selector{Owner: sel.Owner}
	match, _ := compileSelector(first, nil)
	rows, _, _, _, _, err := c.readNamespaces(ctx, plugin, info, scopeOf(info, req.Namespace), first, match)
	if err != nil {
		return nil, 0, fmt.Errorf("read %s owned by %s: %w", info.ID, sel.Owner, err)
	}
	owners := make(map[string]bool, len(rows))
	uids := make([]string, 0, len(rows))
	for _, r := range rows {
		owners[r.UID] = true
		uids = append(uids, r.UID)
	}
	sort.Strings(uids)
	h := fnv.New64a()
	vocab.HashStrings(h, uids...)
	return owners, h.Sum64(), nil
}
