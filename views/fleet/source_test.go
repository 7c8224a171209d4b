package fleet_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleet"
)

var podsReq = kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}}

// patient is a gather window no test waits out: a call returns when every
// member answered.
const patient = time.Hour

// brief is a gather window a call waits out when a member is held.
const brief = 20 * time.Millisecond

// fleetOf returns a Source over the fakes named, in order, none of them
// home, and closes it at the test's end.
func fleetOf(t *testing.T, conn *fakeConn, names []string, opts ...fleet.Option) *fleet.Source {
	t.Helper()
	s := fleet.New(conn, names, "", nil, opts...)
	t.Cleanup(s.Close)
	return s
}

// rowKeys lists rows as "context/namespace/name".
func rowKeys(rows []kube.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r.Context + "/" + r.Namespace + "/" + r.Name
	}
	return out
}

func part(t *testing.T, parts []views.ClusterPart, context string) views.ClusterPart {
	t.Helper()
	for _, p := range parts {
		if p.Context == context {
			return p
		}
	}
	t.Fatalf("no part of %s in %+v", context, parts)
	return views.ClusterPart{}
}

func table(t *testing.T, snap kube.Snapshot) kube.Table {
	t.Helper()
	if len(snap.Tables) != 1 {
		t.Fatalf("tables: got %d, want 1 (truncated %+v)", len(snap.Tables), snap.Truncated)
	}
	return snap.Tables[0]
}

func TestMergeOrdersRowsByNamespaceNameAndFleet(t *testing.T) {
	a := newFake(row("ns1", "web-1", "web-1", "Running"), row("ns2", "db", "db", "Running"))
	b := newFake(row("ns1", "api", "api", "Running"), row("ns1", "web-1", "web-1", "Pending"), row("ns3", "x", "x", "Running"))
	c := newFake(row("ns0", "z", "z", "Running"), row("ns1", "web-1", "web-1", "Failed"), row("ns2", "a", "a", "Running"))
	c.cached = false
	clk := newClock()
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b, "c": c}), []string{"a", "b", "c"},
		fleet.WithGatherWindow(patient), fleet.WithClock(clk.Now))

	// "po" is an alias: the members name their table "pods".
	snap, parts := s.FleetSnapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"po"}, Namespace: ""})
	tab := table(t, snap)
	want := []string{"c/ns0/z", "b/ns1/api", "a/ns1/web-1", "b/ns1/web-1", "c/ns1/web-1", "c/ns2/a", "a/ns2/db", "b/ns3/x"}
	if got := rowKeys(tab.Rows); !slices.Equal(got, want) {
		t.Fatalf("rows:\n got %v\nwant %v", got, want)
	}
	if tab.Kind != "pods" || !slices.Equal(tab.Columns, a.cols) || tab.Reading || tab.Cached {
		t.Errorf("table: kind %q columns %v reading %v cached %v; want pods, %v, false, false (c is not cached)",
			tab.Kind, tab.Columns, tab.Reading, tab.Cached, a.cols)
	}
	// The cells are the members' own, not copies.
	if &tab.Rows[2].Cells[0] != &a.rows[0].Cells[0] {
		t.Error("a's row cells were copied; want them shared")
	}
	if len(snap.Truncated) != 0 || snap.Generation == 0 {
		t.Errorf("truncated %v generation %d; want none and >= 1", snap.Truncated, snap.Generation)
	}
	for name, n := range map[string]int{"a": 2, "b": 3, "c": 3} {
		p := part(t, parts, name)
		if p.State != views.ClusterAnswered || p.Rows != n || !p.Since.Equal(clk.Now()) || p.Reason != "" {
			t.Errorf("part %s: %+v; want answered, %d rows, since now", name, p, n)
		}
	}
	if got := []string{parts[0].Context, parts[1].Context, parts[2].Context}; !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("parts in order %v; want a b c", got)
	}
	if !snap.Taken.Equal(time.Unix(1, 0)) {
		t.Errorf("taken %v; want the members' latest", snap.Taken)
	}
	if got := s.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"po"}}); got.Generation != snap.Generation {
		t.Errorf("Snapshot: generation %d; want FleetSnapshot's %d", got.Generation, snap.Generation)
	}
}

func TestMergeRemapsDifferingColumnsByName(t *testing.T) {
	a := newFake(row("ns", "a", "a", "Running", "10.0.0.1"))
	a.cols = []kube.Column{{Name: "NAME"}, {Name: "STATUS"}, {Name: "IP", Wide: true}}
	b := newFake(row("ns", "b", "Pending", "node-1", "b"))
	b.cols = []kube.Column{{Name: "STATUS"}, {Name: "NODE"}, {Name: "NAME"}}
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b}), []string{"a", "b"}, fleet.WithGatherWindow(patient))

	tab := table(t, s.Snapshot(context.Background(), podsReq))
	if !slices.Equal(tab.Columns, a.cols) {
		t.Fatalf("columns %v; want the first member's %v", tab.Columns, a.cols)
	}
	texts := func(r kube.Row) []string {
		var out []string
		for _, c := range r.Cells {
			out = append(out, c.Text)
		}
		return out
	}
	if got, want := texts(tab.Rows[1]), []string{"b", "Pending", ""}; !slices.Equal(got, want) {
		t.Errorf("b's cells %q; want %q (remapped by name, IP empty)", got, want)
	}
	if got, want := texts(tab.Rows[0]), []string{"a", "Running", "10.0.0.1"}; !slices.Equal(got, want) {
		t.Errorf("a's cells %q; want %q", got, want)
	}
	if &tab.Rows[0].Cells[0] != &a.rows[0].Cells[0] {
		t.Error("a's cells were copied although its columns are the table's")
	}
	if &b.rows[0].Cells[0] == &tab.Rows[1].Cells[0] || b.rows[0].Cells[0].Text != "Pending" {
		t.Error("b's own row was changed by the remap")
	}
}

func TestSlowMemberDoesNotHoldTheOthers(t *testing.T) {
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"))
	c := newFake(row("ns", "c1"))
	clk := newClock()
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b, "c": c}), []string{"a", "b", "c"},
		fleet.WithGatherWindow(brief), fleet.WithStaleAfter(time.Second), fleet.WithClock(clk.Now))
	releaseC := c.block(t, "")
	start := clk.Now()

	// c never answers: each call returns with the others' rows, c
	// reading since its read began, while c's read is still held.
	var snap kube.Snapshot
	var parts []views.ClusterPart
	until(t, "a and b answered", func() bool {
		snap, parts = s.FleetSnapshot(context.Background(), podsReq)
		return part(t, parts, "a").State == views.ClusterAnswered && part(t, parts, "b").State == views.ClusterAnswered
	})
	if c.inflight.Load() != 1 {
		t.Fatalf("c's reads under way: %d; want its first, still held", c.inflight.Load())
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1", "b/ns/b1"}) {
		t.Errorf("rows %v; want a's and b's", got)
	}
	if p := part(t, parts, "c"); p.State != views.ClusterReading || !p.Since.Equal(start) || p.Rows != 0 {
		t.Errorf("c: %+v; want reading since its read began, no rows", p)
	}
	if !table(t, snap).Reading {
		t.Error("table not reading while c is")
	}
	// A member that never answered stays reading past the stale threshold
	// (it has nothing to be stale with).
	clk.Add(2 * time.Second)
	if _, parts = s.FleetSnapshot(context.Background(), podsReq); part(t, parts, "c").State != views.ClusterReading {
		t.Errorf("c: %+v; want still reading", part(t, parts, "c"))
	}
	if n := c.calls.Load(); n != 1 {
		t.Errorf("c read %d times; want one read at a time", n)
	}

	// Once c answered, then held again: answered while within the stale
	// threshold, stale past it, with its rows kept.
	releaseC()
	recv(t, c.returned, "c's answer")
	until(t, "c answered", func() bool {
		_, parts = s.FleetSnapshot(context.Background(), podsReq)
		return part(t, parts, "c").State == views.ClusterAnswered
	})
	answered := part(t, parts, "c").Since
	c.block(t, "")
	clk.Add(time.Second / 2)
	until(t, "c's second read held", func() bool {
		s.FleetSnapshot(context.Background(), podsReq)
		select {
		case <-c.entered:
			return true
		default:
			return false
		}
	})
	_, parts = s.FleetSnapshot(context.Background(), podsReq)
	if p := part(t, parts, "c"); p.State != views.ClusterAnswered || !p.Since.Equal(answered) {
		t.Errorf("c within the stale threshold: %+v; want answered since %v", p, answered)
	}
	clk.Add(time.Second)
	snap, parts = s.FleetSnapshot(context.Background(), podsReq)
	p := part(t, parts, "c")
	if p.State != views.ClusterStale || !p.Since.Equal(answered) || p.Reason != kube.ReasonTimeout || p.Message == "" || p.Rows != 1 {
		t.Errorf("c past the stale threshold: %+v; want stale since %v, timeout, its row", p, answered)
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1", "b/ns/b1", "c/ns/c1"}) {
		t.Errorf("rows %v; want c's kept", got)
	}
	if c.inflight.Load() != 1 {
		t.Errorf("c's reads under way: %d; want the held one", c.inflight.Load())
	}
}

func TestForbiddenMemberFailsAlone(t *testing.T) {
	const denied = `pods is forbidden: User "viewer" cannot list resource "pods" in API group "" at the cluster scope`
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"))
	b.trunc = &kube.Truncation{Reason: kube.ReasonForbidden, Message: denied}
	c := newFake(row("ns", "c1"))
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b, "c": c}), []string{"a", "b", "c"}, fleet.WithGatherWindow(patient))

	snap, parts := s.FleetSnapshot(context.Background(), podsReq)
	if len(snap.Truncated) != 0 {
		t.Errorf("truncated %+v; want none while a and c answered", snap.Truncated)
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1", "c/ns/c1"}) {
		t.Errorf("rows %v; want a's and c's", got)
	}
	if p := part(t, parts, "b"); p.State != views.ClusterFailed || p.Reason != kube.ReasonForbidden || p.Message != denied || p.Rows != 0 {
		t.Errorf("b: %+v; want failed, forbidden, the server's message", p)
	}
	for _, name := range []string{"a", "c"} {
		if p := part(t, parts, name); p.State != views.ClusterAnswered || p.Rows != 1 {
			t.Errorf("%s: %+v; want answered with its row", name, p)
		}
	}
}

// TestNamespaceNotReadInOneMember: a fleet shown in several namespaces
// (-n a,b) keeps each member's namespaces not read (Table.Unread), named
// with their context, beside every member's rows.
func TestNamespaceNotReadInOneMember(t *testing.T) {
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"))
	b.unread = []kube.NamespaceUnread{{Namespace: "shop", Reason: kube.ReasonForbidden, Message: "pods is forbidden"}}
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b}), []string{"a", "b"}, fleet.WithGatherWindow(patient))
	snap, _ := s.FleetSnapshot(context.Background(), podsReq)
	tb := table(t, snap)
	if got := rowKeys(tb.Rows); !slices.Equal(got, []string{"a/ns/a1", "b/ns/b1"}) {
		t.Errorf("rows %v; want a's and b's", got)
	}
	if len(tb.Unread) != 1 || tb.Unread[0].Namespace != "shop in b" || tb.Unread[0].Reason != kube.ReasonForbidden {
		t.Errorf("unread %+v; want shop in b, forbidden", tb.Unread)
	}
}

func TestEveryMemberFailingIsOneTruncation(t *testing.T) {
	a := newFake()
	a.trunc = &kube.Truncation{Reason: kube.ReasonForbidden, Message: "pods is forbidden"}
	b := newFake()
	b.trunc = &kube.Truncation{Reason: kube.ReasonUnavailable, Message: "connection refused"}
	conn := newConn(map[string]*fakeMember{"a": a, "b": b})
	conn.setFail("c", errors.New("cluster c has no server"))
	s := fleetOf(t, conn, []string{"a", "b", "c"}, fleet.WithGatherWindow(patient))

	snap, parts := s.FleetSnapshot(context.Background(), podsReq)
	if len(snap.Tables) != 0 || len(snap.Truncated) != 1 {
		t.Fatalf("tables %d truncated %+v; want no table, one truncation", len(snap.Tables), snap.Truncated)
	}
	tr := snap.Truncated[0]
	want := "a: forbidden: pods is forbidden; b: unavailable: connection refused; c: error: cluster c has no server"
	if tr.Kind != "pods" || tr.Reason != kube.ReasonForbidden || tr.Message != want {
		t.Errorf("truncation %+v; want pods, forbidden (the first's), %q", tr, want)
	}
	for _, p := range parts {
		if p.State != views.ClusterFailed {
			t.Errorf("%s: %+v; want failed", p.Context, p)
		}
	}
}

func TestUnavailableAfterAnswerIsStale(t *testing.T) {
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"), row("ns", "b2"))
	clk := newClock()
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b}), []string{"a", "b"},
		fleet.WithGatherWindow(patient), fleet.WithClock(clk.Now))
	first, parts := s.FleetSnapshot(context.Background(), podsReq)
	answered := part(t, parts, "b").Since

	clk.Add(10 * time.Second)
	b.set(func(f *fakeMember) {
		f.trunc = &kube.Truncation{Reason: kube.ReasonUnavailable, Message: "dial tcp 10.0.0.9:6443: connection refused"}
	})
	snap, parts := s.FleetSnapshot(context.Background(), podsReq)
	p := part(t, parts, "b")
	if p.State != views.ClusterStale || !p.Since.Equal(answered) || p.Reason != kube.ReasonUnavailable || !strings.Contains(p.Message, "refused") || p.Rows != 2 {
		t.Errorf("b: %+v; want stale since %v, unavailable, 2 rows kept", p, answered)
	}
	if got := len(table(t, snap).Rows); got != 3 || len(snap.Truncated) != 0 {
		t.Errorf("rows %d truncated %v; want 3 (b's kept), none", got, snap.Truncated)
	}
	if snap.Generation == first.Generation {
		t.Error("generation unchanged although b went stale")
	}

	// Forbidden after answering: failed, its rows gone.
	b.set(func(f *fakeMember) { f.trunc = &kube.Truncation{Reason: kube.ReasonForbidden, Message: "forbidden"} })
	snap, parts = s.FleetSnapshot(context.Background(), podsReq)
	if p := part(t, parts, "b"); p.State != views.ClusterFailed || p.Rows != 0 {
		t.Errorf("b: %+v; want failed, no rows", p)
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1"}) {
		t.Errorf("rows %v; want a's only", got)
	}
}

func TestConnectFailureIsRetriedAfterTheDelay(t *testing.T) {
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"))
	conn := newConn(map[string]*fakeMember{"a": a, "b": b})
	conn.setFail("b", &kube.Refusal{Reason: kube.ReasonUnauthorized, Detail: "token expired"})
	clk := newClock()
	s := fleetOf(t, conn, []string{"a", "b"}, fleet.WithGatherWindow(patient), fleet.WithClock(clk.Now),
		fleet.WithRetryAfter(5*time.Second))

	snap, parts := s.FleetSnapshot(context.Background(), podsReq)
	p := part(t, parts, "b")
	if p.State != views.ClusterFailed || p.Reason != kube.ReasonUnauthorized || !strings.Contains(p.Message, "token expired") {
		t.Errorf("b: %+v; want failed, unauthorized, the error", p)
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1"}) {
		t.Errorf("rows %v; want a's", got)
	}
	if _, ok := s.Member("b"); ok {
		t.Error("Member(b) answers although b could not connect")
	}

	conn.setFail("b", nil)
	clk.Add(4 * time.Second)
	if _, parts = s.FleetSnapshot(context.Background(), podsReq); conn.count("b") != 1 || part(t, parts, "b").State != views.ClusterFailed {
		t.Errorf("within the retry delay: %d connects, b %+v; want 1, still failed", conn.count("b"), part(t, parts, "b"))
	}
	clk.Add(time.Second)
	snap, parts = s.FleetSnapshot(context.Background(), podsReq)
	if conn.count("b") != 2 || part(t, parts, "b").State != views.ClusterAnswered {
		t.Errorf("after the retry delay: %d connects, b %+v; want 2, answered", conn.count("b"), part(t, parts, "b"))
	}
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1", "b/ns/b1"}) {
		t.Errorf("rows %v; want a's and b's", got)
	}
	if m, ok := s.Member("b"); !ok || m != views.Source(b) {
		t.Error("Member(b) is not b's client")
	}
}

func TestConnectPastItsTimeoutFailsThenIsTaken(t *testing.T) {
	a := newFake(row("ns", "a1"))
	b := newFake(row("ns", "b1"))
	conn := newConn(map[string]*fakeMember{"a": a, "b": b})
	release := conn.block(t, "b")
	clk := newClock()
	s := fleetOf(t, conn, []string{"a", "b"}, fleet.WithGatherWindow(brief), fleet.WithClock(clk.Now))

	var parts []views.ClusterPart
	until(t, "a answered", func() bool {
		_, parts = s.FleetSnapshot(context.Background(), podsReq)
		return part(t, parts, "a").State == views.ClusterAnswered
	})
	if p := part(t, parts, "b"); p.State != views.ClusterReading {
		t.Errorf("b connecting: %+v; want reading", p)
	}
	clk.Add(fleet.DefaultConnectTimeout)
	_, parts = s.FleetSnapshot(context.Background(), podsReq)
	if p := part(t, parts, "b"); p.State != views.ClusterFailed || p.Reason != kube.ReasonTimeout {
		t.Errorf("b past the connect timeout: %+v; want failed, timeout", p)
	}
	if n := conn.count("b"); n != 1 {
		t.Errorf("%d connects of b; want one at a time", n)
	}
	release()
	until(t, "b's late connection taken", func() bool {
		_, parts = s.FleetSnapshot(context.Background(), podsReq)
		return part(t, parts, "b").State == views.ClusterAnswered
	})
}

func TestGenerationChangesOnlyWithAnAnswer(t *testing.T) {
	a := newFake(row("n1", "a1"), row("n2", "a2"))
	b := newFake(row("n1", "b1"), row("n2", "b2"))
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b}), []string{"a", "b"}, fleet.WithGatherWindow(patient))
	ctx := context.Background()
	req1 := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "n1"}
	req2 := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "n2"}

	s1 := s.Snapshot(ctx, req1)
	s2 := s.Snapshot(ctx, req1)
	if s1.Generation == 0 || s2.Generation != s1.Generation {
		t.Fatalf("generations %d, %d; want equal and >= 1 while nothing changed", s1.Generation, s2.Generation)
	}
	if &table(t, s1).Rows[0] != &table(t, s2).Rows[0] {
		t.Error("a second merge of unchanged answers; want the same table")
	}
	b.set(func(*fakeMember) {}) // a new generation, same rows
	s3 := s.Snapshot(ctx, req1)
	if s3.Generation == s1.Generation {
		t.Error("generation unchanged although b's changed")
	}
	o := s.Snapshot(ctx, req2)
	if o.Generation == s3.Generation || o.Generation == s1.Generation {
		t.Errorf("request 2's generation %d is request 1's (%d, %d)", o.Generation, s1.Generation, s3.Generation)
	}
	if got := rowKeys(table(t, o).Rows); !slices.Equal(got, []string{"a/n2/a2", "b/n2/b2"}) {
		t.Errorf("request 2's rows %v", got)
	}
	if again := s.Snapshot(ctx, req1); again.Generation != s3.Generation {
		t.Errorf("request 1 again: generation %d; want %d (nothing changed)", again.Generation, s3.Generation)
	}
}

func TestOldRequestsAnswerIsNeverMergedIntoANewOne(t *testing.T) {
	a := newFake(row("n1", "a1"), row("n2", "a2"))
	b := newFake(row("n1", "b1"), row("n2", "b2"))
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a, "b": b}), []string{"a", "b"}, fleet.WithGatherWindow(brief))
	ctx := context.Background()
	req1 := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "n1"}
	req2 := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "n2"}

	// b's read of n1 is held: n1 shows a's rows, b reading.
	release := b.block(t, "n1")
	var snap kube.Snapshot
	var parts []views.ClusterPart
	until(t, "a answered n1", func() bool {
		snap, parts = s.FleetSnapshot(ctx, req1)
		return part(t, parts, "a").State == views.ClusterAnswered
	})
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/n1/a1"}) || part(t, parts, "b").State != views.ClusterReading {
		t.Fatalf("n1: rows %v, b %+v; want a's, b reading", got, part(t, parts, "b"))
	}
	// n2 while b's n1 read is under way: b reads n2 too.
	until(t, "both answered n2", func() bool {
		snap, parts = s.FleetSnapshot(ctx, req2)
		return part(t, parts, "a").State == views.ClusterAnswered && part(t, parts, "b").State == views.ClusterAnswered
	})
	// b's n1 answer comes late: it is n1's, never n2's.
	release()
	recv(t, b.returned, "b's n1 answer")
	snap, _ = s.FleetSnapshot(ctx, req2)
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/n2/a2", "b/n2/b2"}) {
		t.Errorf("n2 rows %v; want n2's only", got)
	}
	until(t, "b's late n1 answer used by n1", func() bool {
		snap, _ = s.FleetSnapshot(ctx, req1)
		return slices.Equal(rowKeys(table(t, snap).Rows), []string{"a/n1/a1", "b/n1/b1"})
	})
}

func TestRequestsBeyondTheLastFewAreForgotten(t *testing.T) {
	a := newFake(row("n0", "a0"), row("n1", "a1"), row("n2", "a2"))
	s := fleetOf(t, newConn(map[string]*fakeMember{"a": a}), []string{"a"}, fleet.WithGatherWindow(patient), fleet.WithKeepRequests(2))
	ctx := context.Background()
	req := func(ns string) kube.SnapshotRequest {
		return kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: ns}
	}
	g0 := s.Snapshot(ctx, req("n0")).Generation
	s.Snapshot(ctx, req("n1"))
	if g := s.Snapshot(ctx, req("n0")).Generation; g != g0 {
		t.Errorf("n0 remembered: generation %d; want %d", g, g0)
	}
	s.Snapshot(ctx, req("n1"))
	s.Snapshot(ctx, req("n2")) // forgets n0, the least recent
	if g := s.Snapshot(ctx, req("n0")).Generation; g == g0 {
		t.Error("n0's answers kept beyond the two last requests")
	}
}

func TestHomeMemberIsHomeSourceAndCloseClosesOnlyItsOwn(t *testing.T) {
	a := newFake(row("ns", "a1"))
	home := newFake(row("ns", "h1"))
	c := newFake(row("ns", "c1"))
	d := newFake()
	d.honorCtx = true
	conn := newConn(map[string]*fakeMember{"a": a, "c": c, "d": d})
	s := fleet.New(conn, []string{"a", "home", "c", "d"}, "home", home, fleet.WithGatherWindow(brief))
	defer s.Close()

	d.block(t, "")
	var snap kube.Snapshot
	var parts []views.ClusterPart
	until(t, "a, home and c answered", func() bool {
		snap, parts = s.FleetSnapshot(context.Background(), podsReq)
		return part(t, parts, "a").State == views.ClusterAnswered && part(t, parts, "home").State == views.ClusterAnswered &&
			part(t, parts, "c").State == views.ClusterAnswered
	})
	if got := rowKeys(table(t, snap).Rows); !slices.Equal(got, []string{"a/ns/a1", "c/ns/c1", "home/ns/h1"}) {
		t.Errorf("rows %v", got)
	}
	if n := conn.count("home"); n != 0 {
		t.Errorf("home connected %d times; want never", n)
	}
	if m, ok := s.Member("home"); !ok || m != views.Source(home) {
		t.Error("Member(home) is not homeSource")
	}
	if got := s.Contexts(); !slices.Equal(got, []string{"a", "home", "c", "d"}) {
		t.Errorf("Contexts %v", got)
	}
	recv(t, d.entered, "d's held read")

	s.Close()
	s.Close()
	for name, f := range map[string]*fakeMember{"a": a, "c": c, "d": d, "home": home} {
		want := int32(1)
		if name == "home" {
			want = 0
		}
		if got := f.closes.Load(); got != want {
			t.Errorf("%s closed %d times; want %d", name, got, want)
		}
	}
	recv(t, d.returned, "d's held read cancelled")
	if d.cancels.Load() != 1 {
		t.Error("d's held read returned but not by its context")
	}
	snap, parts = s.FleetSnapshot(context.Background(), podsReq)
	for _, p := range parts {
		if p.State != views.ClusterFailed || !strings.Contains(p.Message, "closed") {
			t.Errorf("%s after Close: %+v; want failed, closed", p.Context, p)
		}
	}
	if len(snap.Tables) != 0 || len(snap.Truncated) != 1 || !strings.Contains(snap.Truncated[0].Message, "closed") {
		t.Errorf("after Close: tables %d, truncated %+v; want one truncation saying closed", len(snap.Tables), snap.Truncated)
	}
	if _, ok := s.Member("a"); ok {
		t.Error("Member(a) answers after Close")
	}
	if again, _ := s.FleetSnapshot(context.Background(), podsReq); again.Generation != snap.Generation {
		t.Errorf("after Close: generation %d then %d; want unchanged", snap.Generation, again.Generation)
	}
}

func TestKindFallsBackToHomeSourceBeforeMembersConnect(t *testing.T) {
	a := newFake()
	a.kinds["widgets"] = kube.KindInfo{ID: "widgets", Group: "example.com"}
	home := newFake()
	home.rediscov.Store(true)
	conn := newConn(map[string]*fakeMember{"a": a})
	release := conn.block(t, "a")
	s := fleet.New(conn, []string{"a"}, "elsewhere", home)
	defer s.Close()

	if info, ok := s.Kind("po"); !ok || info.ID != "pods" {
		t.Errorf("Kind(po) = %+v, %v before a connected; want homeSource's pods", info, ok)
	}
	if _, ok := s.Kind("widgets"); ok {
		t.Error("Kind(widgets) known before a, the only client serving it, connected")
	}
	if got := s.Names(); !slices.Equal(got, []string{"po", "pods"}) {
		t.Errorf("Names %v; want homeSource's", got)
	}
	if s.Namespace() != "home-ns" || s.Facts(context.Background()).ServerVersion != "v1.99.0" {
		t.Error("Namespace or Facts are not homeSource's")
	}
	if !s.Rediscover(context.Background()) {
		t.Error("Rediscover false although homeSource's kinds changed")
	}
	release()
	until(t, "a connected", func() bool { _, ok := s.Member("a"); return ok })
	if info, ok := s.Kind("widgets"); !ok || info.Group != "example.com" {
		t.Errorf("Kind(widgets) = %+v, %v; want a's", info, ok)
	}
	if got := s.Names(); !slices.Equal(got, []string{"po", "pods", "widgets"}) {
		t.Errorf("Names %v; want the union, sorted, once each", got)
	}
}

func TestReadsOfOneObjectAskForItsContext(t *testing.T) {
	s := fleet.New(nil, nil, "", nil)
	defer s.Close()
	ctx := context.Background()
	_, err1 := s.Describe(ctx, "pods", "ns", "web")
	_, err2 := s.YAML(ctx, "pods", "ns", "web", kube.YAMLOptions{})
	_, err3 := s.DrillDown(ctx, "deployments", "ns", "web")
	for i, err := range []error{err1, err2, err3} {
		if !errors.Is(err, fleet.ErrNeedsContext) || kube.ReasonOf(err) != kube.ReasonInvalid || !strings.Contains(err.Error(), "ns/web") {
			t.Errorf("read %d: %v (reason %q); want ErrNeedsContext, invalid, naming the object", i, err, kube.ReasonOf(err))
		}
	}
}

func BenchmarkMerge(b *testing.B) {
	const members, perMember = 3, 30000
	fakes := map[string]*fakeMember{}
	var names []string
	for m := range members {
		var rows []kube.Row
		for i := range perMember {
			// The members' rows interleave: namespace i%50, names
			// unique per member.
			rows = append(rows, row(fmt.Sprintf("ns-%02d", i%50), fmt.Sprintf("pod-%06d-%d", i, m), "x", "Running"))
		}
		slices.SortFunc(rows, func(x, y kube.Row) int {
			return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
		})
		name := fmt.Sprintf("ctx-%d", m)
		fakes[name] = newFake(rows...)
		names = append(names, name)
	}
	s := fleet.New(newConn(fakes), names, "", nil, fleet.WithGatherWindow(time.Hour))
	defer s.Close()
	ctx := context.Background()
	if snap := s.Snapshot(ctx, podsReq); len(snap.Tables) != 1 || len(snap.Tables[0].Rows) != members*perMember {
		b.Fatalf("tables %d, truncated %v; want one of %d rows", len(snap.Tables), snap.Truncated, members*perMember)
	}
	b.ReportAllocs()
	for b.Loop() {
		fakes["ctx-0"].set(func(*fakeMember) {}) // every call re-merges
		s.Snapshot(ctx, podsReq)
	}
}

// TestMergeMatchesAStableSort checks the k-way merge against a sort of
// every member's rows by namespace, name and fleet order, with many ties.
func TestMergeMatchesAStableSort(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for round := range 50 {
		fakes := map[string]*fakeMember{}
		var names, want []string
		n := 1 + rnd.IntN(5)
		for m := range n {
			var rows []kube.Row
			for range rnd.IntN(30) {
				rows = append(rows, row(fmt.Sprintf("ns%d", rnd.IntN(3)), fmt.Sprintf("p%d", rnd.IntN(8))))
			}
			slices.SortStableFunc(rows, func(x, y kube.Row) int {
				return strings.Compare(x.Namespace+"/"+x.Name, y.Namespace+"/"+y.Name)
			})
			name := fmt.Sprintf("c%d", m)
			fakes[name] = newFake(rows...)
			names = append(names, name)
			for _, r := range rows {
				want = append(want, fmt.Sprintf("%s/%s/%d", r.Namespace, r.Name, m))
			}
		}
		slices.Sort(want) // namespace, name, then member: the order wanted
		s := fleet.New(newConn(fakes), names, "", nil, fleet.WithGatherWindow(patient))
		snap := s.Snapshot(context.Background(), podsReq)
		s.Close()
		var got []string
		for _, r := range table(t, snap).Rows {
			got = append(got, fmt.Sprintf("%s/%s/%s", r.Namespace, r.Name, strings.TrimPrefix(r.Context, "c")))
		}
		if !slices.Equal(got, want) {
			t.Fatalf("round %d:\n got %v\nwant %v", round, got, want)
		}
	}
}
