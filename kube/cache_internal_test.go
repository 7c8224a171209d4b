package kube

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

// listingPods is a minimal pods plugin: package kube cannot import kinds.
type listingPods struct{}

func (listingPods) Info() KindInfo {
	return KindInfo{ID: "pods", Version: "v1", Resource: "pods", Namespaced: true, Columns: []Column{{Name: "NAME"}}}
}

func (listingPods) Row(obj any) (Row, bool) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return Row{}, false
	}
	return Row{Namespace: p.Namespace, Name: p.Name, UID: string(p.UID), Cells: []Cell{Text(p.Name)}}, true
}

func (listingPods) List(ctx context.Context, cs kubernetes.Interface, ns string, sel Selector) ([]any, error) {
	l, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.Labels, FieldSelector: sel.Fields})
	if err != nil {
		return nil, err
	}
	out := make([]any, len(l.Items))
	for i := range l.Items {
		out[i] = &l.Items[i]
	}
	return out, nil
}

func TestStripForCache(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Annotations:   map[string]string{lastAppliedAnnotation: `{"big":"json"}`, "keep": "me"}}}
	out, err := stripForCache(pod)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.Pod)
	if got.ManagedFields != nil || len(got.Annotations) != 1 || got.Annotations["keep"] != "me" {
		t.Fatalf("stripped pod metadata %+v", got.ObjectMeta)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"},
		Data: map[string][]byte{"password": []byte("hunter2")}, StringData: map[string]string{"x": "y"}}
	out, _ = stripForCache(secret)
	s := out.(*corev1.Secret)
	if v, ok := s.Data["password"]; !ok || v != nil || s.StringData != nil {
		t.Fatalf("secret values kept in the cache: %+v", s)
	}
}

// TestBrokenWatchListsUntilTheInformerRecovers: while the informer's watch
// is failing, Snapshots list directly (so an outage shows as unavailable);
// once the informer moves past the failure, rows come from the cache again.
func TestBrokenWatchListsUntilTheInformerRecovers(t *testing.T) {
	cs := fake.NewClientset(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "a"}})
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("reviews not served") // the client then assumes it may watch
	})
	var down atomic.Bool
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if down.Load() {
			return true, nil, apierrors.NewServiceUnavailable("the API server is shutting down")
		}
		return false, nil, nil
	})
	reg, err := NewRegistry(listingPods{})
	if err != nil {
		t.Fatal(err)
	}
	c := NewFromClientset(cs, Options{Registry: reg})
	defer c.Close()
	req := SnapshotRequest{Kinds: []Kind{"pods"}, Namespace: "demo"}
	if tb, _ := c.Snapshot(context.Background(), req).Table("pods"); !tb.Cached || len(tb.Rows) != 1 {
		t.Fatalf("before the outage: %+v", tb)
	}
	kc := c.caches[cacheKey{kind: "pods", namespace: "demo"}]
	down.Store(true)
	kc.onWatchError(nil, errors.New("connection refused"))
	snap := c.Snapshot(context.Background(), req)
	if tr, ok := snap.Truncation("pods"); !ok || tr.Reason != ReasonUnavailable {
		t.Fatalf("during the outage: %+v, want an unavailable truncation", snap)
	}
	// The API server is back and the informer sees a change: cached again.
	down.Store(false)
	if _, err := cs.CoreV1().Pods("demo").Create(context.Background(), &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		tb, ok := c.Snapshot(context.Background(), req).Table("pods")
		if ok && tb.Cached && len(tb.Rows) == 2 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the outage: %+v", tb)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
