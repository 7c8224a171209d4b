package fleet_test

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleet"
)

// metricsMember is a member that reads metrics: its reading as set.
type metricsMember struct {
	*fakeMember
	mu    sync.Mutex
	met   kube.Metrics
	asked kube.MetricsRequest // the last request
	calls atomic.Int32
}

func (m *metricsMember) Metrics(_ context.Context, req kube.MetricsRequest) kube.Metrics {
	m.calls.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.asked = req
	out := m.met
	out.Request = req
	return out
}

func (m *metricsMember) setMetrics(met kube.Metrics) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.met = met
}

// sourcesConn connects to the sources given, at once.
type sourcesConn map[string]views.Source

func (c sourcesConn) Connect(name string) (views.Source, error) { return c[name], nil }

// connectedFleet returns a Source over srcs (in the order of names) once
// every member is connected.
func connectedFleet(t *testing.T, srcs sourcesConn, names ...string) *fleet.Source {
	t.Helper()
	s := fleet.New(srcs, names, "", nil)
	t.Cleanup(s.Close)
	until(t, "every member connected", func() bool {
		for _, n := range names {
			if _, ok := s.Member(n); !ok {
				return false
			}
		}
		return true
	})
	return s
}

func podUsage(ns, name string, cpu int64) kube.PodUsage {
	return kube.PodUsage{Namespace: ns, Name: name, Total: kube.Usage{CPU: cpu, Memory: cpu << 20}}
}

func TestMetricsMergedWithTheContextInTheKey(t *testing.T) {
	taken := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	eu := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 4, Taken: taken,
		Pods: map[string]kube.PodUsage{"demo/web-1": podUsage("demo", "web-1", 10)}}}
	us := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 9, Taken: taken.Add(-time.Second),
		Pods: map[string]kube.PodUsage{"demo/web-1": podUsage("demo", "web-1", 20), "demo/api-1": podUsage("demo", "api-1", 30)}}}
	noMetrics := &kube.Truncation{Reason: kube.ReasonNotFound, Message: "the server could not find the requested resource"}
	lab := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 1, Truncated: noMetrics}}
	plain := newFake() // a client that reads no metrics at all
	s := connectedFleet(t, sourcesConn{"eu/one": eu, "us": us, "lab": lab, "plain": plain}, "eu/one", "us", "lab", "plain")

	req := kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo"}
	got := s.Metrics(context.Background(), req)
	want := map[string]int64{
		kube.UsageKey("eu/one", "demo", "web-1"): 10,
		kube.UsageKey("us", "demo", "web-1"):     20,
		kube.UsageKey("us", "demo", "api-1"):     30,
	}
	if len(got.Pods) != len(want) {
		t.Fatalf("pods %v, want the keys of %v", got.Pods, want)
	}
	for k, cpu := range want {
		if got.Pods[k].Total.CPU != cpu {
			t.Errorf("pod %q: cpu %d, want %d", k, got.Pods[k].Total.CPU, cpu)
		}
	}
	if got.Truncated != nil {
		t.Errorf("truncated %+v with two members read", got.Truncated)
	}
	if got.Unread["lab"] != noMetrics || got.Unread["plain"] == nil || got.Unread["plain"].Message != views.NoMetricsClient || len(got.Unread) != 2 {
		t.Errorf("unread %v, want lab's truncation and plain's no-metrics client", got.Unread)
	}
	if !got.Taken.Equal(taken.Add(-time.Second)) {
		t.Errorf("taken %v, want the oldest member's", got.Taken)
	}
	if got.Generation == 0 || got.Request != req {
		t.Errorf("generation %d request %+v", got.Generation, got.Request)
	}

	// Asked again with nothing changed: the same answer, same Generation.
	again := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Fresh: true})
	if again.Generation != got.Generation || len(again.Pods) != 3 {
		t.Fatalf("unchanged reading: generation %d → %d", got.Generation, again.Generation)
	}
	// One member's new reading moves the merged Generation on.
	us.setMetrics(kube.Metrics{Generation: 10, Taken: taken, Pods: map[string]kube.PodUsage{"demo/web-1": podUsage("demo", "web-1", 21)}})
	next := s.Metrics(context.Background(), req)
	if next.Generation == got.Generation || next.Pods[kube.UsageKey("us", "demo", "web-1")].Total.CPU != 21 || len(next.Pods) != 2 {
		t.Fatalf("after us changed: generation %d (was %d), pods %v", next.Generation, got.Generation, next.Pods)
	}
	if calls := us.calls.Load(); calls != 3 {
		t.Errorf("us was asked %d times, want once per call (its own cache answers)", calls)
	}
}

func TestMetricsOfNodesKeyedByContextAndName(t *testing.T) {
	a := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 1, Nodes: map[string]kube.NodeUsage{"n1": {Name: "n1", Usage: kube.Usage{CPU: 5}}}}}
	b := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 1, Nodes: map[string]kube.NodeUsage{"n1": {Name: "n1", Usage: kube.Usage{CPU: 7}}}}}
	s := connectedFleet(t, sourcesConn{"a": a, "b": b}, "a", "b")
	got := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindNodes})
	if got.Nodes[kube.UsageKey("a", "", "n1")].Usage.CPU != 5 || got.Nodes[kube.UsageKey("b", "", "n1")].Usage.CPU != 7 || got.Pods != nil {
		t.Fatalf("nodes %v pods %v", got.Nodes, got.Pods)
	}
}

func TestMetricsEveryMemberFailingIsTruncated(t *testing.T) {
	forbidden := &kube.Truncation{Reason: kube.ReasonForbidden, Message: `pods.metrics.k8s.io is forbidden`}
	a := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 1, Truncated: forbidden}}
	b := &metricsMember{fakeMember: newFake(), met: kube.Metrics{Generation: 1, Truncated: forbidden}}
	s := connectedFleet(t, sourcesConn{"a": a, "b": b}, "a", "b")
	got := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods})
	if got.Truncated != forbidden || len(got.Unread) != 2 {
		t.Fatalf("truncated %+v unread %v, want the first's truncation and both unread", got.Truncated, got.Unread)
	}
}

func TestMetricsBeforeAnyMemberConnects(t *testing.T) {
	conn := newConn(map[string]*fakeMember{"a": newFake()})
	conn.block(t, "a")
	s := fleetOf(t, conn, []string{"a"})
	got := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods})
	if got.Generation != 0 || got.Truncated != nil || len(got.Pods) != 0 {
		t.Fatalf("%+v, want an empty answer while nothing is connected", got)
	}
	s.Close()
	if got := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods}); got.Generation != 0 {
		t.Fatalf("closed: %+v", got)
	}
}

func TestUsageKeyIsUnambiguous(t *testing.T) {
	// A context may hold "/" (EKS ARNs do); namespaces and names never.
	a := kube.UsageKey("arn:aws:eks:x:1:cluster/p", "ns", "a")
	b := kube.UsageKey("arn:aws:eks:x:1:cluster", "p", "a")
	if a == b {
		t.Errorf("two pods share the key %q", a)
	}
	if got := kube.UsageKey("", "demo", "web"); got != "demo/web" {
		t.Errorf("one cluster's key %q, want namespace/name as kube.Metrics documents", got)
	}
	if got := kube.UsageKey("eu", "", "node-1"); got != "eu/node-1" {
		t.Errorf("a node's key %q", got)
	}
}

// views.OwnNamespaces reads each member's own namespace: its rows there,
// and its metrics there.
func TestOwnNamespacesReadEachMembersNamespace(t *testing.T) {
	a := &metricsMember{fakeMember: newFake(row("shop", "web-1", "web-1", "Running"), row("lab", "x", "x", "Running"))}
	a.ns = "shop"
	b := newFake(row("shop", "web-2", "web-2", "Running"), row("lab", "y", "y", "Running"))
	b.ns = "lab"
	s := connectedFleet(t, sourcesConn{"a": a, "b": b}, "a", "b")
	snap, _ := s.FleetSnapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: views.OwnNamespaces})
	if got, want := rowKeys(table(t, snap).Rows), []string{"b/lab/y", "a/shop/web-1"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want each member's own namespace's %v", got, want)
	}
	met := s.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: views.OwnNamespaces})
	if met.Request.Namespace != views.OwnNamespaces {
		t.Errorf("merged request %+v", met.Request)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.asked.Namespace != "shop" {
		t.Errorf("a's metrics were asked for %+v, want its own namespace shop", a.asked)
	}
}

// The home member's own namespace is WithHomeNamespace's (its context's),
// not the namespace its client was started in (kubectl's -n).
func TestOwnNamespacesOfTheHomeMember(t *testing.T) {
	home := newFake(row("shop", "web-1", "web-1", "Running"), row("lab", "x", "x", "Running"))
	home.ns = "lab" // -n lab on the command line
	other := newFake(row("shop", "web-2", "web-2", "Running"))
	other.ns = "shop"
	s := fleet.New(sourcesConn{"b": other}, []string{"a", "b"}, "a", home, fleet.WithHomeNamespace("shop"))
	t.Cleanup(s.Close)
	until(t, "b connected", func() bool { _, ok := s.Member("b"); return ok })
	snap, _ := s.FleetSnapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: views.OwnNamespaces})
	if got, want := rowKeys(table(t, snap).Rows), []string{"a/shop/web-1", "b/shop/web-2"}; !slices.Equal(got, want) {
		t.Fatalf("rows %v, want the home context's own namespace's %v", got, want)
	}
}
