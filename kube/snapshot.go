package kube

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"sort"
	"strings"
	"sync"
	"time"
)

// SnapshotRequest says what a screen wants to see.
type SnapshotRequest struct {
	// Kinds are plugin ids or aliases; each becomes one Table.
	Kinds []Kind
	// Namespace scopes namespaced kinds; "" means all namespaces.
	Namespace string
}

// Truncation names a kind a Snapshot could not read, and why.
type Truncation struct {
	// Kind is the kind as it was asked for.
	Kind Kind
	// Reason classifies the failure (forbidden, unavailable, timeout, ...).
	Reason Reason
	// Message is the API server's own message, for the details line.
	Message string
}

// Snapshot is the inventory one screen asked for, read at one moment.
type Snapshot struct {
	// Namespace is the request's namespace ("" for all namespaces).
	Namespace string
	// Tables holds one table per kind that could be read, in request order.
	Tables []Table
	// Truncated names every kind that could not be read; the others are
	// still in Tables (one forbidden list never blanks the screen).
	Truncated []Truncation
	// Generation changes only when the rows or truncations changed since the
	// previous snapshot of the same request, so an idle screen does no work.
	// It starts at 1.
	Generation uint64
	// Taken is when the reads finished.
	Taken time.Time
}

// Table returns the table of a kind, if it was read.
func (s Snapshot) Table(kind Kind) (Table, bool) {
	for _, t := range s.Tables {
		if t.Kind == kind {
			return t, true
		}
	}
	return Table{}, false
}

// Truncation returns why a kind could not be read, if it could not.
func (s Snapshot) Truncation(kind Kind) (Truncation, bool) {
	for _, t := range s.Truncated {
		if t.Kind == kind {
			return t, true
		}
	}
	return Truncation{}, false
}

// Snapshot lists every kind of the request at once (a slow API server costs
// the slowest list, not their sum), each bounded by Options.ListTimeout. A
// kind that cannot be read, or that no plugin serves, is named in Truncated
// with its Reason; it never fails the others. Rows are sorted by namespace
// then name. Only a cancelled ctx ends it early, with every kind truncated.
func (c *Client) Snapshot(ctx context.Context, req SnapshotRequest) Snapshot {
	type result struct {
		table Table
		trunc *Truncation
	}
	results := make([]result, len(req.Kinds))
	var wg sync.WaitGroup
	for i, kind := range req.Kinds {
		plugin, ok := c.registry.Lookup(string(kind))
		if !ok {
			results[i].trunc = &Truncation{Kind: kind, Reason: ReasonUnknownKind, Message: "no plugin serves " + string(kind)}
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			info := plugin.Info()
			ns := req.Namespace
			if !info.Namespaced {
				ns = ""
			}
			lctx, cancel := context.WithTimeout(ctx, c.opts.ListTimeout)
			defer cancel()
			rows, err := plugin.List(lctx, c.cs, ns)
			if err != nil {
				results[i].trunc = &Truncation{Kind: kind, Reason: ReasonOf(err), Message: err.Error()}
				return
			}
			sortRows(rows)
			results[i].table = Table{Kind: info.ID, Columns: info.Columns, Rows: rows}
		}()
	}
	wg.Wait()

	snap := Snapshot{Namespace: req.Namespace, Taken: time.Now()}
	for _, r := range results {
		if r.trunc != nil {
			snap.Truncated = append(snap.Truncated, *r.trunc)
			continue
		}
		snap.Tables = append(snap.Tables, r.table)
	}
	snap.Generation = c.nextGeneration(requestKey(req), hashSnapshot(snap))
	return snap
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
	return strings.Join(parts, "\x00")
}

// nextGeneration returns the request's generation: unchanged when the
// content hash is the one seen last, else one more.
func (c *Client) nextGeneration(key string, hash uint64) uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.generations[key]
	if g.n == 0 || g.hash != hash {
		g.n++
		g.hash = hash
		c.generations[key] = g
	}
	return g.n
}

// hashSnapshot hashes everything a screen draws from a snapshot, except the
// time it was taken: ages are drawn from Cell.Since, which is hashed.
func hashSnapshot(s Snapshot) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	str := func(v string) {
		h.Write([]byte(v))
		h.Write([]byte{0})
	}
	num := func(v int64) {
		binary.LittleEndian.PutUint64(buf[:], uint64(v))
		h.Write(buf[:])
	}
	for _, t := range s.Tables {
		str(string(t.Kind))
		num(int64(len(t.Rows)))
		for _, r := range t.Rows {
			str(r.Namespace)
			str(r.Name)
			str(r.UID)
			str(r.Status)
			num(int64(r.Health))
			num(r.Created.UnixNano())
			for _, cell := range r.Cells {
				str(cell.Text)
				num(cell.Since.UnixNano())
			}
		}
	}
	for _, t := range s.Truncated {
		str(string(t.Kind))
		str(string(t.Reason))
		str(t.Message)
	}
	return h.Sum64()
}
