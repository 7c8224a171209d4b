package kube

// A Snapshot of several namespaces (SnapshotRequest.Namespace "a,b",
// issue 27): each namespace is read on its own, from its own informer, as a
// user allowed into some namespaces only may read them, and the rows are
// put together; a namespace that cannot be read is named in
// Table.Unread, the others' rows still shown.

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"sync"

	"github.com/kyyard/kyyard/kube/vocab"
)

// scopeOf returns the namespaces a kind is read in for a request's
// namespace: "" for a cluster-scoped kind or all namespaces, else each one
// the request names (vocab.SplitNamespaces).
func scopeOf(info KindInfo, ns string) []string {
	nss := vocab.SplitNamespaces(ns)
	if !info.Namespaced || len(nss) == 0 {
		return []string{""}
	}
	return nss
}

// mergedRows are the rows of several namespaces put together for one
// request, kept while no namespace's rows changed (version), so that an
// idle screen of several namespaces copies no rows.
type mergedRows struct {
	version uint64
	rows    []Row
}

// maxMerged bounds the requests of several namespaces whose rows are kept.
const maxMerged = 8

// readNamespaces reads one kind in each of nss at once (read), a workload
// judged by its Pods in its namespace (judgeByPods), and returns the rows
// together: in namespace order, each namespace's sorted by name, so that
// the whole stays sorted by namespace then name. A namespace that cannot be
// read is named in unread with the API server's reason and message; err is
// the first namespace's error when none could be read. version changes when
// any namespace's rows or the unread ones change. With one namespace it is
// read's own answer.
func (c *Client) readNamespaces(ctx context.Context, plugin Plugin, info KindInfo, nss []string, sel Selector, match rowMatcher) (rows []Row, version uint64, cached, reading bool, unread []NamespaceUnread, err error) {
	type part struct {
		rows            []Row
		version         uint64
		cached, reading bool
		err             error
	}
	parts := make([]part, len(nss))
	readOne := func(i int) {
		p := &parts[i]
		p.rows, p.version, p.cached, p.reading, p.err = c.read(ctx, plugin, info, nss[i], sel, match)
		if p.err == nil {
			// A workload is judged by its Pods too (RowWorkload).
			var judged uint64
			p.rows, judged = c.judgeByPods(ctx, info.ID, nss[i], p.rows)
			p.version ^= judged
		}
	}
	if len(nss) == 1 {
		readOne(0)
		p := parts[0]
		return p.rows, p.version, p.cached, p.reading, nil, p.err
	}
	var wg sync.WaitGroup
	for i := range nss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			readOne(i)
		}()
	}
	wg.Wait()

	h := fnv.New64a()
	var buf [8]byte
	cached, total := true, 0
	for i, p := range parts {
		if p.err != nil {
			u := NamespaceUnread{Namespace: nss[i], Reason: ReasonOf(p.err), Message: p.err.Error()}
			unread = append(unread, u)
			vocab.HashStrings(h, u.Namespace, string(u.Reason), u.Message)
			if err == nil {
				err = p.err
			}
			continue
		}
		vocab.HashStrings(h, nss[i])
		binary.LittleEndian.PutUint64(buf[:], p.version)
		h.Write(buf[:])
		cached, reading, total = cached && p.cached, reading || p.reading, total+len(p.rows)
	}
	if len(unread) == len(nss) {
		return nil, 0, false, false, nil, err
	}
	version = h.Sum64()
	key := string(info.ID) + "\x00" + vocab.JoinNamespaces(nss) + "\x00" + sel.Labels + "\x00" + sel.Fields + "\x00" + sel.Owner + "\x00" + string(sel.Via)
	c.mu.Lock()
	kept, ok := c.merged[key]
	c.mu.Unlock()
	if ok && kept.version == version {
		return kept.rows, version, cached, reading, unread, nil
	}
	rows = make([]Row, 0, total)
	for _, p := range parts {
		rows = append(rows, p.rows...)
	}
	c.mu.Lock()
	if c.merged == nil {
		c.merged = map[string]mergedRows{}
	}
	if _, ok := c.merged[key]; !ok && len(c.merged) >= maxMerged {
		for k := range c.merged { // any one: screens of several namespaces are few
			delete(c.merged, k)
			break
		}
	}
	c.merged[key] = mergedRows{version: version, rows: rows}
	c.mu.Unlock()
	return rows, version, cached, reading, unread, nil
}
