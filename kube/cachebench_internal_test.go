package kube

import (
	"fmt"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// eventCache returns a cache of n pods' rows as the informer leaves it
// (the rows merged once), with no informer running.
func eventCache(n int) *kindCache {
	kc := &kindCache{plugin: labelledPods{}, seq: new(atomic.Uint64)}
	for i := range n {
		pod := podIn(fmt.Sprintf("ns-%02d", i%50), fmt.Sprintf("web-%06d", i), fmt.Sprint(i+1))
		obj, _ := kc.transform(pod)
		kc.put(obj)
	}
	kc.set.rows()
	return kc
}

// BenchmarkWatchEventAt100k measures one watch event at 100,000 cached
// rows. "event" is what each event costs: the informer's transform of the
// changed pod and the handler taking its row (one map write). "update" and
// "add-delete" add the next Snapshot's merge of the change into the sorted
// rows: one pass that copies them into a new slice (the old one is shared
// with earlier Snapshots), paid once per refresh however many events came.
// "before" is what a Snapshot after a change cost until now: every row
// gathered from a map and sorted.
func BenchmarkWatchEventAt100k(b *testing.B) {
	const n = 100_000
	b.Run("event", func(b *testing.B) {
		kc := eventCache(n)
		pod := podIn("ns-07", "web-050007", "1")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			pod.ResourceVersion = fmt.Sprint(n + i)
			obj, _ := kc.transform(pod)
			kc.put(obj)
		}
	})
	b.Run("update", func(b *testing.B) {
		kc := eventCache(n)
		pod := podIn("ns-07", "web-050007", "1")
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			pod.ResourceVersion = fmt.Sprint(n + i)
			obj, _ := kc.transform(pod)
			kc.put(obj)
			kc.mu.Lock()
			rows := kc.set.rows()
			kc.mu.Unlock()
			if len(rows) != n {
				b.Fatalf("%d rows", len(rows))
			}
		}
	})
	// Two events per op: a pod added, then deleted, each merged.
	b.Run("add-delete", func(b *testing.B) {
		kc := eventCache(n)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			i++
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns-07", Name: fmt.Sprintf("new-%d", i), ResourceVersion: fmt.Sprint(n + i)}}
			obj, _ := kc.transform(pod)
			kc.put(obj)
			kc.mu.Lock()
			added := len(kc.set.rows())
			kc.mu.Unlock()
			kc.remove(obj)
			kc.mu.Lock()
			rows := kc.set.rows()
			kc.mu.Unlock()
			if added != n+1 || len(rows) != n {
				b.Fatalf("%d rows, then %d", added, len(rows))
			}
		}
	})
	b.Run("before", func(b *testing.B) {
		kc := eventCache(n)
		byKey := map[string]Row{}
		for _, r := range kc.set.rows() {
			byKey[r.Namespace+"/"+r.Name] = r
		}
		b.ReportAllocs()
		for b.Loop() {
			rows := make([]Row, 0, len(byKey))
			for _, r := range byKey {
				rows = append(rows, r)
			}
			sortRows(rows)
		}
	})
}
