package usage

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
)

// TestHistoryAdd: every trend add returns is the last limit samples of
// distinct, increasing times, and stays as it was handed out while the
// history goes on (for limits that make buf grow, slide and move).
func TestHistoryAdd(t *testing.T) {
	base := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, limit := range []int{1, 2, 3, 5, 60} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			var h history
			var all []Sample
			type handed struct{ trend, copy []Sample }
			var out []handed
			for i := range 5 * limit {
				at := base.Add(time.Duration(i/2) * time.Second) // each time twice
				if i%7 == 6 {
					at = base // an older sample: ignored
				}
				s := Sample{At: at, Usage: vocab.Usage{CPU: int64(i), Memory: int64(i)}}
				if len(all) == 0 || at.After(all[len(all)-1].At) {
					all = append(all, s)
				}
				tr := h.add(s, limit)
				want := all[max(0, len(all)-limit):]
				if !reflect.DeepEqual(tr, want) {
					t.Fatalf("add %d: trend %v\nwant %v", i, tr, want)
				}
				if cap(tr) != len(tr) {
					t.Fatalf("add %d: cap %d > len %d", i, cap(tr), len(tr))
				}
				if len(h.buf) > max(limit+limit/2, limit+1) {
					t.Fatalf("add %d: buf holds %d", i, len(h.buf))
				}
				out = append(out, handed{tr, append([]Sample(nil), tr...)})
			}
			for i, o := range out {
				if !reflect.DeepEqual(o.trend, o.copy) {
					t.Errorf("trend %d changed", i)
				}
			}
		})
	}
}

// TestSummariseUsage: Min, Max and Mean per container name over the pods
// that reported it, a NotSet value left out of its resource alone, names
// in the given order, unreported names and strangers left out.
func TestSummariseUsage(t *testing.T) {
	pod := func(cs ...ContainerUsage) PodUsage { return PodUsage{Containers: cs} }
	c := func(name string, cpu, mem int64) ContainerUsage {
		return ContainerUsage{Name: name, Usage: vocab.Usage{CPU: cpu, Memory: mem}}
	}
	pods := map[string]PodUsage{
		"a": pod(c("app", 10, 100), c("side", vocab.NotSet, 7)),
		"b": pod(c("app", 21, 300), c("stranger", 1, 1)),
		"c": pod(c("app", vocab.NotSet, vocab.NotSet)),
	}
	got := summariseUsage([]string{"side", "app", "missing", "app"}, pods)
	want := []ContainerUsageSummary{
		{Name: "side", Pods: 1, Min: vocab.Usage{CPU: vocab.NotSet, Memory: 7}, Max: vocab.Usage{CPU: vocab.NotSet, Memory: 7}, Mean: vocab.Usage{CPU: vocab.NotSet, Memory: 7}},
		{Name: "app", Pods: 3, Min: vocab.Usage{CPU: 10, Memory: 100}, Max: vocab.Usage{CPU: 21, Memory: 300}, Mean: vocab.Usage{CPU: 16, Memory: 200}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got := summariseUsage([]string{"app"}, nil); len(got) != 0 {
		t.Errorf("no pods: %+v", got)
	}
}
