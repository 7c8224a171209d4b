package inventory_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestMissingNamespaceIsSaid: `:pods nonexist-ns` said "No pods in
// namespace nonexist-ns." without saying the namespace does not exist. A
// get of the namespace answering 404 says it, at 80x24 and 200x50; one
// answering 403 claims nothing; the namespace is read at most once per
// screen, and never while the list has rows.
func TestMissingNamespaceIsSaid(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		client, cs := kubetest.FakeClient(t, demoObjects()...)
		var gets atomic.Int32
		cs.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
			gets.Add(1)
			return false, nil, nil
		})
		m, _ := load(t, client, "pods", "nonexist-ns", size[0], size[1])
		refresh(t, m, m.Init())
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		if !strings.Contains(view, "No pods: namespace nonexist-ns does not exist") {
			t.Fatalf("%dx%d:\n%s", size[0], size[1], view)
		}
		viewtest.Golden(t, fmt.Sprintf("pods-namespace-missing-%dx%d", size[0], size[1]), view)
		if n := gets.Load(); n != 1 {
			t.Fatalf("%d gets of the namespace, want 1", n)
		}
		gets.Store(0)
		load(t, client, "pods", "demo", size[0], size[1])
		if n := gets.Load(); n != 0 {
			t.Fatalf("a list with rows read its namespace %d times", n)
		}
	}
	// Forbidden: nothing is claimed.
	client, cs := kubetest.FakeClient(t, demoObjects()...)
	cs.PrependReactor("get", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "nonexist-ns", fmt.Errorf("no"))
	})
	m, _ := load(t, client, "pods", "nonexist-ns", 80, 24)
	if view := m.View(); !strings.Contains(view, "No pods in namespace nonexist-ns.") || strings.Contains(view, "does not exist") {
		t.Fatalf("forbidden:\n%s", view)
	}
}
