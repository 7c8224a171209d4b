package usage

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/kyyard/kyyard/kube/vocab"
)

// TestPollerReadsWithItsConfig: a Poller takes everything it reads with
// from the Config of the call: the clientset (nil: not_found), the clock
// (Taken, and Prune's idle time), the kind lookup (an alias reads the
// kind's request), the owner's generations (by the request's key) and the
// hook called before a caller waits for a read.
func TestPollerReadsWithItsConfig(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	mcs := metricsfake.NewSimpleClientset()
	gvr := schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
	pm := &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1"},
		Timestamp: metav1.NewTime(at.Add(-5 * time.Second)), Window: metav1.Duration{Duration: 15 * time.Second},
		Containers: []metricsv1beta1.ContainerMetrics{{Name: "app", Usage: corev1.ResourceList{
			corev1.ResourceCPU: resource.MustParse("250m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}}}
	if err := mcs.Tracker().Create(gvr, pm, "demo"); err != nil {
		t.Fatal(err)
	}
	now := at
	var keys []string
	waited := 0
	cfg := Config{
		Client: mcs, Now: func() time.Time { return now }, Interval: 15 * time.Second, History: 3,
		ListTimeout: 5 * time.Second, CacheIdle: time.Minute,
		KindInfo: func(k vocab.Kind) vocab.KindInfo {
			if k == "po" {
				return vocab.KindInfo{ID: vocab.KindPods}
			}
			return vocab.KindInfo{ID: k}
		},
		Generation: func(key string, hash uint64) uint64 { keys = append(keys, key); return 41 + uint64(len(keys)) },
		Waiting:    func() { waited++ },
	}
	var p Poller
	m := p.Metrics(context.Background(), cfg, MetricsRequest{Kind: "po", Namespace: "demo"})
	if m.Truncated != nil {
		t.Fatalf("truncated: %+v", m.Truncated)
	}
	pu, ok := m.Pods["demo/web-1"]
	if !ok || pu.Total != (vocab.Usage{CPU: 250, Memory: 64 << 20}) || len(pu.Trend) != 1 {
		t.Fatalf("pods %+v", m.Pods)
	}
	if !m.Taken.Equal(at) || m.Generation != 42 || waited != 1 {
		t.Errorf("taken %v, generation %d, waited %d", m.Taken, m.Generation, waited)
	}
	if len(keys) != 1 || !strings.HasPrefix(keys[0], "metrics\x00pods\x00demo\x00") {
		t.Errorf("generation keys %q", keys)
	}
	// The same request by the kind's id is answered from that reading.
	if again := p.Metrics(context.Background(), cfg, MetricsRequest{Kind: vocab.KindPods, Namespace: "demo"}); again.Generation != 42 || waited != 1 {
		t.Errorf("by id: generation %d, waited %d", again.Generation, waited)
	}
	if polls, pods, nodes := p.Held(); polls != 1 || pods != 1 || nodes != 0 {
		t.Errorf("held %d %d %d", polls, pods, nodes)
	}
	// Prune by cfg's clock: the poll is idle past CacheIdle, the history
	// kept History × Interval (45s) but at least CacheIdle (1m).
	now = at.Add(61 * time.Second)
	p.Prune(cfg)
	if polls, pods, _ := p.Held(); polls != 0 || pods != 0 {
		t.Errorf("after prune: %d polls, %d pods", polls, pods)
	}

	cfg.Client = nil
	var q Poller
	if m := q.Metrics(context.Background(), cfg, MetricsRequest{Kind: vocab.KindNodes}); m.Truncated == nil || m.Truncated.Reason != vocab.ReasonNotFound || m.Nodes == nil {
		t.Errorf("no clientset: %+v", m)
	}
}
