package kube_test

import (
	"context"
	"fmt"
	goruntime "runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
)

// TestMetricsFresh: a Fresh request reads now, before the next read is
// due, unless a read ended less than a second ago; its samples go to the
// same history and its answer is what the request without Fresh answers
// next.
func TestMetricsFresh(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	ctx := context.Background()
	e.setPod(t, podMetrics("demo", "web", metricsEpoch.Add(-5*time.Second), nil, cu{"web", "10m", "1Mi"}))
	fresh := demoPods
	fresh.Fresh = true
	first := e.c.Metrics(ctx, fresh) // nothing read yet: a read
	if e.reads() != 1 || first.Request != fresh || len(first.Pods) != 1 {
		t.Fatalf("first: %d reads, %+v", e.reads(), first)
	}
	e.clock.Advance(500 * time.Millisecond)
	if m := e.c.Metrics(ctx, fresh); e.reads() != 1 || m.Generation != first.Generation {
		t.Errorf("half a second after a read: %d reads", e.reads())
	}
	e.clock.Advance(600 * time.Millisecond)
	e.setPod(t, podMetrics("demo", "web", metricsEpoch.Add(time.Second), nil, cu{"web", "20m", "1Mi"}))
	if m := e.c.Metrics(ctx, demoPods); e.reads() != 1 || m.Pods["demo/web"].Total.CPU != 10 {
		t.Fatalf("not fresh, not due: %d reads", e.reads())
	}
	m := e.c.Metrics(ctx, fresh)
	web := m.Pods["demo/web"]
	if e.reads() != 2 || web.Total.CPU != 20 || len(web.Trend) != 2 || m.Generation == first.Generation {
		t.Errorf("fresh after 1.1s: %d reads, %+v", e.reads(), web)
	}
	if plain := e.c.Metrics(ctx, demoPods); e.reads() != 2 || plain.Generation != m.Generation || plain.Request != demoPods {
		t.Errorf("the same request without Fresh: %d reads, %+v", e.reads(), plain)
	}
}

// TestMetricsFreshShared: concurrent Fresh callers share one read in
// flight.
func TestMetricsFreshShared(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	ctx := context.Background()
	e.c.Metrics(ctx, demoPods)
	e.clock.Advance(5 * time.Second)
	release := make(chan struct{})
	e.mcs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return false, nil, nil
	})
	fresh := demoPods
	fresh.Fresh = true
	const callers = 6
	answers := make(chan kube.Metrics, callers)
	for range callers {
		go func() { answers <- e.c.Metrics(ctx, fresh) }()
	}
	for kube.MetricsWaiting(e.c, demoPods) < callers {
		goruntime.Gosched()
	}
	close(release)
	for range callers {
		if m := <-answers; m.Truncated != nil || !m.Taken.Equal(metricsEpoch.Add(5*time.Second)) {
			t.Errorf("answer %+v", m)
		}
	}
	if got := e.reads(); got != 2 {
		t.Errorf("%d fresh callers: %d reads in all, want 2", callers, got)
	}
}

// TestMetricsHistoryOutlivesTheScreen: a pod's and a node's histories are
// kept MetricsHistory × MetricsInterval (15 minutes by default) after a
// reading last reported them, however long ago the poll was dropped; a
// deleted pod's goes after that.
func TestMetricsHistoryOutlivesTheScreen(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{}) // CacheIdle 2m, 60 × 15s
	ctx := context.Background()
	nodes := kube.MetricsRequest{Kind: kube.KindNodes}
	for i := range 3 {
		at := metricsEpoch.Add(time.Duration(i) * 15 * time.Second)
		e.setPod(t, podMetrics("demo", "web", at, nil, cu{"web", "1m", "1Mi"}))
		e.setPod(t, podMetrics("demo", "gone", at, nil, cu{"gone", "1m", "1Mi"}))
		e.setNode(t, "n1", at, "1", "1Mi")
		e.c.Metrics(ctx, demoPods)
		e.c.Metrics(ctx, nodes)
		e.clock.Advance(15 * time.Second)
	}
	// Away from the screens for 14 minutes: the polls go, the histories stay.
	for range 14 {
		e.clock.Advance(time.Minute)
		kube.PruneMetrics(e.c)
	}
	if polls, pods, n := kube.MetricsHeld(e.c); polls != 0 || pods != 2 || n != 1 {
		t.Fatalf("after 14 minutes away: %d polls, %d pods, %d nodes; want 0, 2, 1", polls, pods, n)
	}
	e.deletePod(t, "demo", "gone")
	now := e.clock.Now()
	e.setPod(t, podMetrics("demo", "web", now, nil, cu{"web", "2m", "1Mi"}))
	e.setNode(t, "n1", now, "2", "1Mi")
	if tr := e.c.Metrics(ctx, demoPods).Pods["demo/web"].Trend; len(tr) != 4 {
		t.Errorf("pod trend on return: %d samples, want 4", len(tr))
	}
	if tr := e.c.Metrics(ctx, nodes).Nodes["n1"].Trend; len(tr) != 4 {
		t.Errorf("node trend on return: %d samples, want 4", len(tr))
	}
	// The deleted pod's history goes 15 minutes after its last reading.
	e.clock.Advance(2 * time.Minute)
	kube.PruneMetrics(e.c)
	if _, pods, _ := kube.MetricsHeld(e.c); pods != 1 {
		t.Errorf("a deleted pod's history after 16 minutes: %d pods held", pods)
	}
}

// TestMetricsMaxObjects: past the cap, the histories reported longest ago
// are dropped for new ones; a reading larger than the cap keeps what fits
// and answers the rest with a one-sample trend.
func TestMetricsMaxObjects(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	kube.SetMetricsMaxObjects(e.c, 10)
	ctx := context.Background()
	for i := range 8 {
		e.setPod(t, podMetrics("old", fmt.Sprintf("p%d", i), metricsEpoch, nil, cu{"c", "1m", "1Mi"}))
	}
	e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindPods, Namespace: "old"})
	e.clock.Advance(time.Minute)
	for i := range 5 {
		e.setPod(t, podMetrics("new", fmt.Sprintf("p%d", i), metricsEpoch.Add(time.Minute), nil, cu{"c", "1m", "1Mi"}))
	}
	m := e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindPods, Namespace: "new"})
	if _, pods, _ := kube.MetricsHeld(e.c); pods > 10 || pods < 5 {
		t.Errorf("held %d pods, cap 10", pods)
	}
	if len(m.Pods) != 5 {
		t.Errorf("answer: %d pods", len(m.Pods))
	}
	// All namespaces, 13 pods at once: 10 held, every one answered.
	e.clock.Advance(time.Minute)
	all := e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindPods})
	if _, pods, _ := kube.MetricsHeld(e.c); pods != 10 || len(all.Pods) != 13 {
		t.Errorf("a reading of 13: %d held, %d answered", pods, len(all.Pods))
	}
	for key, p := range all.Pods {
		if len(p.Trend) < 1 || !p.Trend[len(p.Trend)-1].At.Equal(p.Timestamp) {
			t.Errorf("%s: trend %v", key, p.Trend)
		}
	}
}
