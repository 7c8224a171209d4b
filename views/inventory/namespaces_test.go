package inventory_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestSeveralNamespacesScreen is issue 27's screen of several namespaces
// (-n demo,other): the title names both, the rows of both show with the
// NAMESPACE column; a namespace the user may not read is named on a line
// of its own with the API server's message while the other's rows stay;
// at 80x24 and 200x50.
func TestSeveralNamespacesScreen(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		client, _ := kubetest.FakeClient(t, demoObjects()...)
		m, _ := load(t, client, "pods", "demo,other", size[0], size[1])
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		if !strings.Contains(m.Title(), "pods(demo,other)[4]") || !strings.Contains(view, "NAMESPACE") ||
			!strings.Contains(view, "elsewhere") || !strings.Contains(view, "web-7d9f-abcde") {
			t.Fatalf("%dx%d, title %q:\n%s", size[0], size[1], m.Title(), view)
		}
		viewtest.Golden(t, fmt.Sprintf("pods-several-namespaces-%dx%d", size[0], size[1]), view)

		client, cs := kubetest.FakeClient(t, demoObjects()...)
		forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "dev" cannot list resource "pods" in API group "" in the namespace "other"`))
		cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
			return a.GetNamespace() == "other", nil, forbidden
		})
		cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
			return a.GetNamespace() == "other", nil, forbidden
		})
		m, _ = load(t, client, "pods", "demo,other", size[0], size[1])
		view = m.View()
		viewtest.Size(t, view, size[0], size[1])
		if !strings.Contains(view, "namespace other not read: forbidden") || strings.Contains(view, "elsewhere") ||
			!strings.Contains(view, "web-7d9f-abcde") || !strings.Contains(m.Title(), "[3]") {
			t.Fatalf("%dx%d with other forbidden, title %q:\n%s", size[0], size[1], m.Title(), view)
		}
		viewtest.Golden(t, fmt.Sprintf("pods-several-namespaces-one-forbidden-%dx%d", size[0], size[1]), view)
	}
}
