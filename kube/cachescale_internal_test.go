package kube

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// podIn is a pod with labels, an owner and a resourceVersion.
func podIn(ns, name, rv string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, UID: types.UID("uid-" + ns + "-" + name),
		Labels:          map[string]string{"app": "web", "pod-template-hash": "abc"},
		OwnerReferences: []metav1.OwnerReference{{Kind: "ReplicaSet", Name: "web-abc", UID: "rs-uid"}}}}
}

// labelledPods is listingPods with the labels and owners a real plugin
// puts in a row.
type labelledPods struct{ listingPods }

func (labelledPods) Row(obj any) (Row, bool) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return Row{}, false
	}
	r := Row{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Cells: []Cell{Text(p.Name)}, Labels: p.Labels}
	for _, o := range p.OwnerReferences {
		r.Owners = append(r.Owners, string(o.UID))
	}
	return r, true
}

// newScaleClient returns a Client over cs with the labelled pods plugin;
// access reviews fail, so the Client assumes it may watch.
func newScaleClient(t *testing.T, cs kubernetes.Interface, fakeCS *fake.Clientset, opts Options) *Client {
	t.Helper()
	fakeCS.PrependReactor("create", "selfsubjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("reviews not served")
	})
	reg, err := NewRegistry(labelledPods{})
	if err != nil {
		t.Fatal(err)
	}
	opts.Registry = reg
	c := NewFromClientset(cs, opts)
	t.Cleanup(c.Close)
	return c
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestCacheHoldsRowsNotObjects: the informer's store holds cachedItems
// whose row the handler took, never the objects; pods of one ReplicaSet
// share their labels and owners; a relist of an unchanged object keeps
// the stored item.
func TestCacheHoldsRowsNotObjects(t *testing.T) {
	cs := fake.NewClientset(podIn("demo", "a", "1"), podIn("demo", "b", "2"))
	c := newScaleClient(t, cs, cs, Options{})
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	tb, _ := c.Snapshot(context.Background(), req).Table("pods")
	if !tb.Cached || tb.Reading || len(tb.Rows) != 2 {
		t.Fatalf("table %+v", tb)
	}
	if reflect.ValueOf(tb.Rows[0].Labels).UnsafePointer() != reflect.ValueOf(tb.Rows[1].Labels).UnsafePointer() ||
		&tb.Rows[0].Owners[0] != &tb.Rows[1].Owners[0] {
		t.Fatal("rows of one ReplicaSet do not share their labels and owners")
	}
	kc := c.caches[cacheKey{kind: "pods", namespace: "demo"}]
	items := kc.informer.GetStore().List()
	if len(items) != 2 {
		t.Fatalf("store holds %d items", len(items))
	}
	for _, obj := range items {
		it, ok := obj.(*cachedItem)
		if !ok {
			t.Fatalf("store holds a %T, want *cachedItem", obj)
		}
		if it.row != nil {
			t.Fatalf("item %s still holds its row after the handler took it", it.key())
		}
	}
	stored, _, _ := kc.informer.GetStore().GetByKey("demo/a")
	if again, _ := kc.transform(podIn("demo", "a", "1")); again != stored {
		t.Fatal("a relisted object at the same resourceVersion became a new item")
	}
	if newer, _ := kc.transform(podIn("demo", "a", "3")); newer == stored || newer.(*cachedItem).row == nil {
		t.Fatal("a changed object kept the old item")
	}
}

// TestSlowFirstListIsNotListedTwice is issue 14's "one read at a time per
// kind": while the informer's first list is still arriving, Snapshots past
// the sync budget show what has arrived (nothing here: Reading) and never
// start a direct list of the same kind beside it.
func TestSlowFirstListIsNotListedTwice(t *testing.T) {
	cs := fake.NewClientset(podIn("demo", "a", "1"), podIn("demo", "b", "2"))
	var lists atomic.Int32
	release := make(chan struct{})
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		<-release
		return false, nil, nil
	})
	c := newScaleClient(t, cs, cs, Options{SyncBudget: 50 * time.Millisecond, FirstRows: 10 * time.Millisecond})
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	for range 3 {
		snap := c.Snapshot(context.Background(), req)
		tb, ok := snap.Table("pods")
		if !ok || !tb.Cached || !tb.Reading || len(tb.Rows) != 0 {
			t.Fatalf("while the list is slow: table %+v, truncated %+v", tb, snap.Truncated)
		}
	}
	if n := lists.Load(); n != 1 {
		t.Fatalf("%d lists of pods while the first was arriving, want 1", n)
	}
	close(release)
	waitUntil(t, "the rows", func() bool {
		tb, _ := c.Snapshot(context.Background(), req).Table("pods")
		return !tb.Reading && len(tb.Rows) == 2
	})
	if n := lists.Load(); n != 1 {
		t.Fatalf("%d lists of pods, want 1", n)
	}
}

// streamingClientset hides the fake clientset's refusal of watch-lists, so
// that client-go's reflector streams the first list (a watch with
// sendInitialEvents), as it does against a real API server.
type streamingClientset struct{ kubernetes.Interface }

// TestStreamingListShowsRowsAsTheyArrive is issue 14's "first rows at
// once": the items of a streaming list show (Reading) before the list
// ends; sorting is by namespace and name as ever; once the
// initial-events-end bookmark arrives the table is complete, and later
// events follow as before.
func TestStreamingListShowsRowsAsTheyArrive(t *testing.T) {
	cs := fake.NewClientset()
	stream := watch.NewFakeWithChanSize(100, false)
	var lists, streams atomic.Int32
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		lists.Add(1)
		return false, nil, nil
	})
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if w, ok := a.(k8stesting.WatchActionImpl); ok && w.ListOptions.SendInitialEvents != nil && *w.ListOptions.SendInitialEvents {
			streams.Add(1)
			return true, stream, nil
		}
		return false, nil, nil
	})
	c := newScaleClient(t, streamingClientset{cs}, cs, Options{FirstRows: 10 * time.Millisecond})
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	stream.Add(podIn("demo", "b", "11"))
	stream.Add(podIn("demo", "a", "12"))
	var tb Table
	waitUntil(t, "the first two rows", func() bool {
		tb, _ = c.Snapshot(context.Background(), req).Table("pods")
		return tb.Reading && len(tb.Rows) == 2
	})
	if !tb.Cached || tb.Rows[0].Name != "a" || tb.Rows[1].Name != "b" {
		t.Fatalf("rows so far %+v", tb)
	}
	stream.Add(podIn("demo", "c", "13"))
	waitUntil(t, "the third row", func() bool {
		tb, _ = c.Snapshot(context.Background(), req).Table("pods")
		return tb.Reading && len(tb.Rows) == 3
	})
	end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "13", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	stream.Action(watch.Bookmark, end)
	waitUntil(t, "the end of the list", func() bool {
		tb, _ = c.Snapshot(context.Background(), req).Table("pods")
		return !tb.Reading && len(tb.Rows) == 3
	})
	stream.Delete(podIn("demo", "b", "14"))
	waitUntil(t, "the deletion", func() bool {
		tb, _ = c.Snapshot(context.Background(), req).Table("pods")
		return !tb.Reading && len(tb.Rows) == 2 && tb.Rows[1].Name == "c"
	})
	if lists.Load() != 0 || streams.Load() != 1 {
		t.Fatalf("%d lists and %d streaming lists, want 0 and 1", lists.Load(), streams.Load())
	}
}

// newStreamingClient returns a Client whose pods' first list streams from
// the returned fake watch (a watch with sendInitialEvents, as a real API
// server answers the informer).
func newStreamingClient(t *testing.T, opts Options) (*Client, *watch.FakeWatcher) {
	cs := fake.NewClientset()
	stream := watch.NewFakeWithChanSize(100, false)
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if w, ok := a.(k8stesting.WatchActionImpl); ok && w.ListOptions.SendInitialEvents != nil && *w.ListOptions.SendInitialEvents {
			return true, stream, nil
		}
		return false, nil, nil
	})
	return newScaleClient(t, streamingClientset{cs}, cs, opts), stream
}

// TestBigFirstListReturnsItsMemory: once a first list of at least
// memoryPolicy.rows rows has all arrived, its decoding's garbage is given
// back to the operating system once (at 100,000 pods RSS after sync was
// 400 MiB for 127 MB of live heap); a smaller list, or the refreshes
// after, do not collect.
func TestBigFirstListReturnsItsMemory(t *testing.T) {
	var released atomic.Int32
	for _, tc := range []struct {
		pods, want int
	}{{2, 0}, {3, 1}} {
		released.Store(0)
		c, stream := newStreamingClient(t, Options{FirstRows: time.Millisecond})
		c.memory = memoryPolicy{rows: 3, release: func() { released.Add(1) }}
		req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
		for i := range tc.pods {
			stream.Add(podIn("demo", fmt.Sprintf("p%d", i), strconv.Itoa(11+i)))
		}
		end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "20", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
		stream.Action(watch.Bookmark, end)
		waitUntil(t, "the whole list", func() bool {
			tb, _ := c.Snapshot(context.Background(), req).Table("pods")
			return !tb.Reading && len(tb.Rows) == tc.pods
		})
		for range 3 {
			c.Snapshot(context.Background(), req)
		}
		waitUntil(t, "the release", func() bool { return int(released.Load()) >= tc.want })
		time.Sleep(20 * time.Millisecond)
		if got := int(released.Load()); got != tc.want {
			t.Errorf("a first list of %d pods: %d releases, want %d", tc.pods, got, tc.want)
		}
	}
}

// TestRowsSoFarArePaced: while a first list is still arriving, the rows
// so far are merged at most every partialEvery (a merge holds the lock
// the list's items wait for: at 100,000 pods answering every refresh
// stalled the list), the same answer and version in between; the
// complete rows are answered as soon as the list is in.
func TestRowsSoFarArePaced(t *testing.T) {
	c, stream := newStreamingClient(t, Options{FirstRows: time.Millisecond})
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	stream.Add(podIn("demo", "a", "11"))
	var first Table
	waitUntil(t, "the first row", func() bool {
		first, _ = c.Snapshot(context.Background(), req).Table("pods")
		return first.Reading && len(first.Rows) == 1
	})
	at := time.Now()
	stream.Add(podIn("demo", "b", "12"))
	stream.Add(podIn("demo", "c", "13"))
	time.Sleep(20 * time.Millisecond) // the items are transformed
	snap := c.Snapshot(context.Background(), req)
	if tb, _ := snap.Table("pods"); time.Since(at) < partialEvery && (len(tb.Rows) != 1 || !tb.Reading) {
		t.Fatalf("rows so far merged again within %s: %d rows", partialEvery, len(tb.Rows))
	}
	waitUntil(t, "the rows so far, merged again", func() bool {
		tb, _ := c.Snapshot(context.Background(), req).Table("pods")
		return tb.Reading && len(tb.Rows) == 3
	})
	if wait := time.Since(at); wait < partialEvery {
		t.Fatalf("rows so far merged again after %s, before %s", wait, partialEvery)
	}
	stream.Add(podIn("demo", "d", "14"))
	end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "14", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	stream.Action(watch.Bookmark, end)
	done := time.Now()
	waitUntil(t, "the whole list", func() bool {
		tb, _ := c.Snapshot(context.Background(), req).Table("pods")
		return !tb.Reading && len(tb.Rows) == 4
	})
	t.Logf("whole list answered %s after its end", time.Since(done))
}

// TestBurstOfChangesReturnsItsMemory: after at least memoryPolicy.rows row
// changes, the memory is returned once the changes have (nearly)
// stopped for a janitor period, not while they go on, and not for the
// rows read before the first tick or a trickle of changes.
func TestBurstOfChangesReturnsItsMemory(t *testing.T) {
	var released atomic.Int32
	done := make(chan struct{}, 10)
	b := changeBurst{memory: memoryPolicy{rows: 1000, release: func() { released.Add(1); done <- struct{}{} }}}
	steps := []struct {
		rev     uint64
		release bool
	}{
		{100000, false}, // the first tick: the first lists' rows
		{100500, false}, // changes going on
		{101200, false}, // 1,200 changes, the last period busy
		{101205, true},  // quiet: returned
		{101209, false}, // quiet, nothing since
		{101600, false}, // a trickle
		{101900, false},
		{101905, false}, // 700 since: not a burst
	}
	for i, st := range steps {
		before := released.Load()
		b.tick(st.rev)
		if st.release {
			select {
			case <-done:
			case <-time.After(5 * time.Second):
				t.Fatalf("step %d (%d): memory not returned", i, st.rev)
			}
		}
		time.Sleep(5 * time.Millisecond)
		if got := released.Load() - before; got != map[bool]int32{false: 0, true: 1}[st.release] {
			t.Fatalf("step %d (%d): %d releases, want release=%v", i, st.rev, got, st.release)
		}
	}
}

// TestStreamedListIsAdoptedWhole: the rows a streaming first list
// delivered become the cache's rows when its first item reaches the
// handler (not item by item), and the events after the list's end,
// taken in before or after that, still leave exactly the API server's
// state: a change, a deletion of a listed pod, a pod added, and one
// added and deleted again. A streaming list that ends without its
// bookmark and starts again leaves no row of the first attempt behind.
func TestStreamedListIsAdoptedWhole(t *testing.T) {
	cs := fake.NewClientset()
	first, second := watch.NewFakeWithChanSize(100, false), watch.NewFakeWithChanSize(100, false)
	var streams atomic.Int32
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		if w, ok := a.(k8stesting.WatchActionImpl); ok && w.ListOptions.SendInitialEvents != nil && *w.ListOptions.SendInitialEvents {
			if streams.Add(1) == 1 {
				return true, first, nil
			}
			return true, second, nil
		}
		return false, nil, nil
	})
	c := newScaleClient(t, streamingClientset{cs}, cs, Options{FirstRows: time.Millisecond})
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	names := func(tb Table) string {
		var got []string
		for _, r := range tb.Rows {
			got = append(got, r.Name+"="+r.Labels["app"])
		}
		return fmt.Sprint(got)
	}

	// The first attempt delivers x and a, then ends without its bookmark.
	first.Add(podIn("demo", "x", "5"))
	first.Add(podIn("demo", "a", "6"))
	waitUntil(t, "the first attempt's rows", func() bool {
		tb, _ := c.Snapshot(context.Background(), req).Table("pods")
		return tb.Reading && len(tb.Rows) == 2
	})
	first.Stop()
	waitUntil(t, "the second attempt", func() bool { return streams.Load() == 2 })

	for i, name := range []string{"a", "b", "c"} {
		second.Add(podIn("demo", name, strconv.Itoa(11+i)))
	}
	end := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "13", Annotations: map[string]string{metav1.InitialEventsAnnotationKey: "true"}}}
	second.Action(watch.Bookmark, end)
	changed := podIn("demo", "a", "14")
	changed.Labels = map[string]string{"app": "api"}
	second.Modify(changed)
	second.Delete(podIn("demo", "b", "15"))
	second.Add(podIn("demo", "d", "16"))
	second.Add(podIn("demo", "e", "17"))
	second.Delete(podIn("demo", "e", "18"))

	want := "[a=api c=web d=web]"
	var tb Table
	waitUntil(t, want, func() bool {
		tb, _ = c.Snapshot(context.Background(), req).Table("pods")
		return !tb.Reading && names(tb) == want
	})
	time.Sleep(50 * time.Millisecond)
	if tb, _ = c.Snapshot(context.Background(), req).Table("pods"); names(tb) != want {
		t.Fatalf("rows %s after settling, want %s", names(tb), want)
	}
	c.mu.Lock()
	kc := c.caches[cacheKey{kind: "pods", namespace: "demo"}]
	c.mu.Unlock()
	kc.mu.Lock()
	adopt := kc.adopt
	kc.mu.Unlock()
	if adopt != adopted {
		t.Fatalf("the streamed rows were not adopted whole (%d)", adopt)
	}
}
