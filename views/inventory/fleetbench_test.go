package inventory_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleet"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// staticConnector connects each context to a static source of n pods;
// changing makes each read a new generation (every refresh finds a change).
type staticConnector struct {
	n        int
	changing bool
}

func (c staticConnector) Connect(string) (views.Source, error) {
	src := staticSource{snap: bigSnapshot(c.n), reg: kinds.Builtin()}
	if c.changing {
		return &countingSource{src}, nil
	}
	return src, nil
}

// fleetScreen returns a 200x50 pods screen across three contexts of n pods
// each, read (views/fleet: connected, merged) once.
func fleetBench(b *testing.B, n int, changing bool) *inventory.Model {
	b.Helper()
	conn := staticConnector{n: n, changing: changing}
	home, _ := conn.Connect("a")
	src := fleet.New(conn, []string{"a", "b", "c"}, "a", home)
	b.Cleanup(src.Close)
	m, err := inventory.New(viewtest.Context(src, 200, 50), "pods", "demo")
	if err != nil {
		b.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	for deadline := time.Now().Add(10 * time.Second); ; {
		m.Update(m.Init()())
		if _, parts := src.FleetSnapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"}); len(parts) == 3 &&
			parts[0].State == views.ClusterAnswered && parts[1].State == views.ClusterAnswered && parts[2].State == views.ClusterAnswered {
			m.Update(m.Init()())
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the fleet never answered")
		}
	}
	if got, want := m.Title(), fmt.Sprintf("pods(demo)[%d]", 3*n); got != want {
		b.Fatalf("title %q, want %q", got, want)
	}
	return m
}

// BenchmarkFleetView measures one 200x50 frame of pods across three
// clusters of 30,000 each (90,000 rows with a CONTEXT column): as flat as
// one cluster's (BenchmarkView).
func BenchmarkFleetView(b *testing.B) {
	m := fleetBench(b, 30_000, false)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		_ = m.View()
	}
}

// BenchmarkFleetRefresh measures one refresh of pods across three
// clusters of 30,000: "unchanged" an idle one (no member changed: the
// merged snapshot is the one before), "changed" one where every member
// changed (the merge, indexing and sorting of 90,000 rows, off the UI
// goroutine, then taken in).
func BenchmarkFleetRefresh(b *testing.B) {
	for _, changing := range []bool{false, true} {
		name := "unchanged"
		if changing {
			name = "changed"
		}
		b.Run(name, func(b *testing.B) {
			m := fleetBench(b, 30_000, changing)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				m.Update(m.Init()())
			}
		})
	}
}
