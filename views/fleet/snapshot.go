package fleet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// request is one SnapshotRequest's answers, one slot per member.
type request struct {
	key string
	req kube.SnapshotRequest
	// slots hold each member's reads of the request, in fleet order
	// (never reallocated: a read's goroutine keeps a pointer).
	slots []slot
	// evicted is set when the request is forgotten (or the Source
	// closed): an answer that comes later is dropped.
	evicted bool
	// merged is the last merged Snapshot (when hasMerged) and sig the
	// members' shares it was merged from.
	merged    kube.Snapshot
	sig       []share
	hasMerged bool
}

// slot is one member's reads of one request.
type slot struct {
	// inflight is set while a read is under way, since started.
	inflight bool
	started  time.Time
	cancel   context.CancelFunc
	// kinds are the answers per requested kind (nil until the first).
	kinds []answer
}

// answer is what one member's reads said of one kind of a request.
type answer struct {
	// table is the last table given (nil: never); at is when it came,
	// gen the member Snapshot's Generation and taken its Taken.
	table *kube.Table
	at    time.Time
	gen   uint64
	taken time.Time
	// readingSince is when the read began that first gave a table still
	// Reading (zero when table is not Reading).
	readingSince time.Time
	// failed is set when the last read named the kind in Truncated, for
	// reason and message.
	failed  bool
	reason  kube.Reason
	message string
}

// share is one member's share of one kind of a merged Snapshot: its
// state, and the table whose rows are merged (nil: none).
type share struct {
	state   views.ClusterState
	reason  kube.Reason
	message string
	// gen is the Generation of the member's answer that gave table (0
	// when table is nil); with state, reason and message it says whether
	// a merge is still current.
	gen   uint64
	table *kube.Table
	// since and taken are left out of the comparison of shares.
	since time.Time
	taken time.Time
}

// same reports whether two shares merge into the same rows and state.
func (a share) same(b share) bool {
	return a.state == b.state && a.reason == b.reason && a.message == b.message && a.gen == b.gen
}

// requestKey names a request: its kinds, namespace and selector.
func requestKey(req kube.SnapshotRequest) string {
	var b strings.Builder
	for _, k := range req.Kinds {
		b.WriteString(string(k))
		b.WriteByte(0)
	}
	for _, f := range []string{req.Namespace, req.Selector.Labels, req.Selector.Fields, req.Selector.Owner, string(req.Selector.Via)} {
		b.WriteByte(1)
		b.WriteString(f)
	}
	return b.String()
}

// Snapshot reads the kinds of req in every member and merges them (the
// Snapshot of FleetSnapshot).
func (s *Source) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	snap, _ := s.FleetSnapshot(ctx, req)
	return snap
}

// FleetSnapshot starts a read of req in every connected member that has
// none of req under way (each bounded by the read timeout, on a context
// of its own, not ctx: a slow member's answer is kept for a later call),
// waits until they all answered, or the gather window passed, or ctx is
// done, and merges each member's latest answer to req (never an answer
// to another request): one Table per kind of req, rows ordered by
// namespace, name, then the context's place in the fleet, each Row's
// Context set. A kind no member could read is one Truncation naming each
// context's failure; a kind some member read has no Truncation, the
// others' failures being in the parts (one per member, in fleet order).
// Generation is new only when some member's answer or state changed;
// otherwise the Snapshot is the one returned before. A failed Connect is
// tried again here once DefaultRetryAfter passed. req.Namespace
// views.OwnNamespaces reads each member's own namespace (its
// Namespace()).
func (s *Source) FleetSnapshot(ctx context.Context, req kube.SnapshotRequest) (kube.Snapshot, []views.ClusterPart) {
	s.mu.Lock()
	rq := s.request(req)
	if !s.closed {
		s.retry(s.now())
		s.readAll(rq, false)
	}
	s.mu.Unlock()
	s.gather(ctx, rq)
	return s.result(rq)
}

// request returns the remembered request of req, made (and the oldest
// forgotten past keep) when it is new; s.mu is held.
func (s *Source) request(req kube.SnapshotRequest) *request {
	key := requestKey(req)
	for i, rq := range s.reqs {
		if rq.key == key {
			s.reqs = append(append(s.reqs[:i:i], s.reqs[i+1:]...), rq)
			return rq
		}
	}
	req.Kinds = slices.Clone(req.Kinds)
	rq := &request{key: key, req: req, slots: make([]slot, len(s.members))}
	s.reqs = append(s.reqs, rq)
	for len(s.reqs) > s.keep {
		old := s.reqs[0]
		old.evicted = true
		for i := range old.slots {
			if c := old.slots[i].cancel; c != nil {
				c()
			}
		}
		s.reqs = slices.Delete(s.reqs, 0, 1)
	}
	return rq
}

// readAll starts a read of rq in every connected member with none under
// way (onlyNew: only in those that never read rq); s.mu is held.
func (s *Source) readAll(rq *request, onlyNew bool) {
	for i, m := range s.members {
		sl := &rq.slots[i]
		if m.src == nil || sl.inflight || (onlyNew && !sl.started.IsZero()) {
			continue
		}
		s.read(rq, i)
	}
}

// read starts member i's read of rq in a goroutine; s.mu is held.
func (s *Source) read(rq *request, i int) {
	sl := &rq.slots[i]
	ctx, cancel := context.WithTimeout(s.base, s.readTimeout)
	sl.inflight, sl.started, sl.cancel = true, s.now(), cancel
	src, req, started := s.members[i].src, rq.req, sl.started
	go func() {
		defer cancel()
		if req.Namespace == views.OwnNamespaces {
			req.Namespace = s.ownNamespace(src)
		}
		snap := src.Snapshot(ctx, req)
		results := split(snap, req, src)
		s.mu.Lock()
		defer s.mu.Unlock()
		sl.inflight, sl.cancel = false, nil
		if !s.closed && !rq.evicted {
			sl.record(results, snap, started, s.now())
		}
		s.notify()
	}()
}

// result is one kind of a member's Snapshot: a table or a failure.
type result struct {
	table   *kube.Table
	reason  kube.Reason
	message string
}

// split returns the table or the truncation of each kind of req in snap.
// A table is found by the kind asked for, else by the id src resolves it
// to (a Client names its tables by plugin id: "po" gives "pods").
func split(snap kube.Snapshot, req kube.SnapshotRequest, src views.Source) []result {
	out := make([]result, len(req.Kinds))
	for i, k := range req.Kinds {
		if t, ok := snap.Truncation(k); ok {
			out[i] = result{reason: t.Reason, message: t.Message}
			continue
		}
		t, ok := snap.Table(k)
		if !ok {
			if info, known := src.Kind(string(k)); known {
				t, ok = snap.Table(info.ID)
			}
		}
		if !ok {
			out[i] = result{reason: kube.ReasonError, message: fmt.Sprintf("its answer has no table of %s", k)}
			continue
		}
		out[i] = result{table: &t}
	}
	return out
}

// record keeps a read's results, begun at started and come at now.
func (sl *slot) record(results []result, snap kube.Snapshot, started, now time.Time) {
	if sl.kinds == nil {
		sl.kinds = make([]answer, len(results))
	}
	for i, r := range results {
		a := &sl.kinds[i]
		if r.table == nil {
			a.failed, a.reason, a.message = true, r.reason, r.message
			continue
		}
		switch {
		case !r.table.Reading:
			a.readingSince = time.Time{}
		case a.table == nil || !a.table.Reading || a.failed:
			a.readingSince = started
		}
		a.table, a.at, a.gen, a.taken = r.table, now, snap.Generation, snap.Taken
		a.failed, a.reason, a.message = false, "", ""
	}
}

// gather waits until every member settled rq (see settled), the gather
// window passed or ctx is done. Members connected meanwhile read rq too.
func (s *Source) gather(ctx context.Context, rq *request) {
	timer := time.NewTimer(s.gatherWindow)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if !s.closed && !rq.evicted {
			s.readAll(rq, true)
		}
		done := s.closed || rq.evicted || s.settled(rq, s.now())
		changed := s.changed
		s.mu.Unlock()
		if done {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// settled reports whether no member of rq is still connecting (within
// the connect timeout) or reading rq; s.mu is held.
func (s *Source) settled(rq *request, now time.Time) bool {
	for i, m := range s.members {
		if m.src == nil {
			if m.connecting && now.Sub(m.connStart) < s.connectTimeout {
				return false
			}
			continue
		}
		if rq.slots[i].inflight {
			return false
		}
	}
	return true
}

// result returns rq's merged Snapshot (the one merged before when no
// share changed) and the parts, as they stand now.
func (s *Source) result(rq *request) (kube.Snapshot, []views.ClusterPart) {
	s.mu.Lock()
	shares := s.shares(rq, s.now())
	parts := s.parts(shares)
	if rq.hasMerged && sameShares(rq.sig, shares) {
		snap := rq.merged
		s.mu.Unlock()
		return snap, parts
	}
	names := s.Contexts()
	s.mu.Unlock()

	snap := s.merge(rq.req, names, shares)

	s.mu.Lock()
	defer s.mu.Unlock()
	if rq.hasMerged && sameShares(rq.sig, shares) {
		return rq.merged, parts // merged meanwhile by another call
	}
	s.gen++
	snap.Generation = s.gen
	rq.merged, rq.sig, rq.hasMerged = snap, shares, true
	return snap, parts
}

// sameShares compares two requests' shares (see share.same).
func sameShares(a, b []share) bool {
	return slices.EqualFunc(a, b, share.same)
}

// shares returns each member's share of each kind of rq, member-major
// (member i, kind k at i*len(kinds)+k); s.mu is held.
func (s *Source) shares(rq *request, now time.Time) []share {
	n := len(rq.req.Kinds)
	out := make([]share, 0, len(s.members)*n)
	for i, m := range s.members {
		for k := range n {
			out = append(out, s.share(m, &rq.slots[i], k, now))
		}
	}
	return out
}

// share is member m's share of kind k of a request, from its slot;
// s.mu is held.
func (s *Source) share(m *member, sl *slot, k int, now time.Time) share {
	if s.closed {
		return share{state: views.ClusterFailed, reason: kube.ReasonError, message: errClosed.Error()}
	}
	if m.src == nil {
		switch {
		case m.connecting && now.Sub(m.connStart) >= s.connectTimeout:
			return share{state: views.ClusterFailed, reason: kube.ReasonTimeout,
				message: fmt.Sprintf("no connection within %s", s.connectTimeout)}
		case m.connecting:
			return share{state: views.ClusterReading, since: m.connStart}
		case m.connErr != nil:
			return share{state: views.ClusterFailed, reason: reasonOf(m.connErr), message: m.connErr.Error()}
		}
		return share{state: views.ClusterReading}
	}
	var a *answer
	if sl.kinds != nil {
		a = &sl.kinds[k]
	}
	if a == nil || a.table == nil {
		switch {
		case a != nil && a.failed:
			return share{state: views.ClusterFailed, reason: a.reason, message: a.message}
		case sl.inflight && now.Sub(sl.started) >= s.readTimeout:
			return share{state: views.ClusterFailed, reason: kube.ReasonTimeout,
				message: fmt.Sprintf("no answer within %s", s.readTimeout)}
		}
		return share{state: views.ClusterReading, since: sl.started}
	}
	sh := share{state: views.ClusterAnswered, table: a.table, gen: a.gen, since: a.at, taken: a.taken}
	switch {
	case a.failed && (a.reason == kube.ReasonUnavailable || a.reason == kube.ReasonTimeout):
		sh.state, sh.reason, sh.message = views.ClusterStale, a.reason, a.message
	case a.failed:
		return share{state: views.ClusterFailed, reason: a.reason, message: a.message}
	case sl.inflight && now.Sub(sl.started) >= s.staleAfter:
		sh.state, sh.reason = views.ClusterStale, kube.ReasonTimeout
		sh.message = fmt.Sprintf("its read has not answered within %s", s.staleAfter)
	case a.table.Reading:
		sh.state, sh.since = views.ClusterReading, a.readingSince
	}
	return sh
}

// reasonOf is kube.ReasonOf, kube.ReasonError for an unclassified error.
func reasonOf(err error) kube.Reason {
	if r := kube.ReasonOf(err); r != "" {
		return r
	}
	return kube.ReasonError
}

// parts sums the shares of each member: its rows of every kind, and the
// worst state of its kinds (with that kind's Since, Reason and Message);
// s.mu is held. A request of no kind has each member answered once
// connected.
func (s *Source) parts(shares []share) []views.ClusterPart {
	parts := make([]views.ClusterPart, len(s.members))
	n := 0
	if len(s.members) > 0 {
		n = len(shares) / len(s.members)
	}
	for i, m := range s.members {
		p := views.ClusterPart{Context: m.name}
		if n == 0 {
			sh := s.share(m, &slot{kinds: []answer{{table: &kube.Table{}}}}, 0, s.now())
			p.State, p.Since, p.Reason, p.Message = sh.state, sh.since, sh.reason, sh.message
		}
		for k, sh := range shares[i*n : (i+1)*n] {
			if sh.table != nil {
				p.Rows += len(sh.table.Rows)
			}
			if k == 0 || sh.state > p.State {
				p.State, p.Since, p.Reason, p.Message = sh.state, sh.since, sh.reason, sh.message
			}
		}
		parts[i] = p
	}
	return parts
}
