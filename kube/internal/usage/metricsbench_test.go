package usage

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// BenchmarkMetricsIngest measures one reading of 10,000 pods (two
// containers each) after the API answered: the PodMetrics turned into
// PodUsage with exact totals, each sample added to its pod's history, the
// answer's map and its content hash. Every iteration is a new sample.
func BenchmarkMetricsIngest(b *testing.B) {
	const n = 10000
	items := make([]metricsv1beta1.PodMetrics, n)
	for i := range items {
		items[i] = metricsv1beta1.PodMetrics{
			ObjectMeta: metav1.ObjectMeta{Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("web-7d9f8c6b5-%05d", i)},
			Window:     metav1.Duration{Duration: 15 * time.Second},
			Containers: []metricsv1beta1.ContainerMetrics{
				{Name: "app", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("123456789n"), corev1.ResourceMemory: resource.MustParse("104857600")}},
				{Name: "proxy", Usage: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2345678n"), corev1.ResourceMemory: resource.MustParse("20Mi")}},
			},
		}
	}
	var st Poller
	st.pods, st.nodes = map[string]*history{}, map[string]*history{}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		at := metav1.NewTime(start.Add(time.Duration(i) * 15 * time.Second))
		var r metricsReading
		r.pods = make([]PodUsage, 0, n)
		for j := range items {
			items[j].Timestamp = at
			r.pods = append(r.pods, podUsageOf(&items[j]))
		}
		m := Metrics{}
		m.Pods, m.Nodes = st.ingest(r, at.Time, DefaultMetricsHistory, defaultMetricsMaxObjects)
		_ = m.contentHash()
	}
}

// BenchmarkMetricsHistoryMemory measures what the histories of 10,000 pods
// hold once each has a full trend (DefaultMetricsHistory samples, after
// enough readings that every buffer has grown to its largest): the heap
// after a GC with the histories kept, less before, reported as MB and
// bytes per pod. The answers' maps and PodUsage (the poll's last reading)
// are not counted.
func BenchmarkMetricsHistoryMemory(b *testing.B) {
	const n = 10000
	keys := make([]PodUsage, n)
	for i := range keys {
		keys[i] = PodUsage{Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("web-7d9f8c6b5-%05d", i)}
	}
	start := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	var ms runtime.MemStats
	for range b.N {
		runtime.GC()
		runtime.ReadMemStats(&ms)
		before := ms.HeapAlloc
		st := &Poller{pods: map[string]*history{}, nodes: map[string]*history{}}
		for r := range DefaultMetricsHistory * 2 {
			at := start.Add(time.Duration(r) * 15 * time.Second)
			reading := metricsReading{pods: make([]PodUsage, n)}
			for i := range reading.pods {
				reading.pods[i] = keys[i]
				reading.pods[i].Timestamp = at
				reading.pods[i].Total = vocab.Usage{CPU: int64(i), Memory: int64(r)}
			}
			st.ingest(reading, at, DefaultMetricsHistory, defaultMetricsMaxObjects)
		}
		runtime.GC()
		runtime.ReadMemStats(&ms)
		held := float64(ms.HeapAlloc) - float64(before)
		runtime.KeepAlive(st)
		b.ReportMetric(held/1e6, "MB")
		b.ReportMetric(held/n, "B/pod")
	}
}
