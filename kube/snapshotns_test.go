package kube_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
)

func TestSplitAndJoinNamespaces(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"demo", []string{"demo"}},
		{"web,shop", []string{"shop", "web"}},
		{"web, shop,web,", []string{"shop", "web"}},
	} {
		if got := kube.SplitNamespaces(tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SplitNamespaces(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := kube.JoinNamespaces([]string{"web", "shop", "web"}); got != "shop,web" {
		t.Errorf("JoinNamespaces = %q, want shop,web", got)
	}
	if kube.SeveralNamespaces("demo") || kube.SeveralNamespaces("") || kube.SeveralNamespaces("a,a") || !kube.SeveralNamespaces("a,b") {
		t.Error("SeveralNamespaces is wrong about one of demo, \"\", a,a, a,b")
	}
}

// forbidIn makes every list and watch of pods in namespace ns forbidden,
// as RBAC answers a user with no Role there.
func forbidIn(cs *k8stesting.Fake, ns string) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New(`User "dev" cannot list resource "pods" in the namespace "`+ns+`"`))
	cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		return a.GetNamespace() == ns, nil, forbidden
	})
	cs.PrependWatchReactor("pods", func(a k8stesting.Action) (bool, watch.Interface, error) {
		return a.GetNamespace() == ns, nil, forbidden
	})
}

// TestSnapshotOfSeveralNamespaces is issue 27's "several namespaces at
// once": a request of "shop,web" reads each namespace on its own and shows
// exactly their rows, sorted by namespace then name; a namespace the user
// may not read is named in Table.Unread with the API server's message and
// the other's rows stay; when none can be read the kind is truncated; an
// unchanged reading keeps its generation.
func TestSnapshotOfSeveralNamespaces(t *testing.T) {
	objs := []runtime.Object{readyPod("web", "w2"), readyPod("web", "w1"), readyPod("shop", "s1"), readyPod("other", "o1")}
	c, _ := newClient(objs...)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "shop,web"}
	snap := c.Snapshot(context.Background(), req)
	pods, ok := snap.Table("pods")
	var got []string
	for _, r := range pods.Rows {
		got = append(got, r.Namespace+"/"+r.Name)
	}
	if want := []string{"shop/s1", "web/w1", "web/w2"}; !ok || !reflect.DeepEqual(got, want) || len(pods.Unread) != 0 {
		t.Fatalf("rows %q, unread %+v; want %q", got, pods.Unread, want)
	}
	if again := c.Snapshot(context.Background(), req); again.Generation != snap.Generation {
		t.Fatalf("generation moved from %d to %d with nothing changed", snap.Generation, again.Generation)
	}

	c, cs := newClient(objs...)
	forbidIn(&cs.Fake, "web")
	snap = c.Snapshot(context.Background(), req)
	pods, ok = snap.Table("pods")
	if !ok || len(pods.Rows) != 1 || pods.Rows[0].Name != "s1" {
		t.Fatalf("with web forbidden: table %+v, truncated %+v; want shop's one row", pods, snap.Truncated)
	}
	if len(pods.Unread) != 1 || pods.Unread[0].Namespace != "web" || pods.Unread[0].Reason != kube.ReasonForbidden ||
		pods.Unread[0].Message == "" {
		t.Fatalf("unread %+v, want web forbidden with the server's message", pods.Unread)
	}

	c, cs = newClient(objs...)
	forbidIn(&cs.Fake, "web")
	forbidIn(&cs.Fake, "shop")
	snap = c.Snapshot(context.Background(), req)
	if tr, ok := snap.Truncation("pods"); !ok || tr.Reason != kube.ReasonForbidden {
		t.Fatalf("with both forbidden: truncation %+v (table %+v), want forbidden", tr, snap.Tables)
	}
}

// TestSnapshotOfSeveralNamespacesFollowsChanges: a pod added in one of the
// namespaces shows in the rows (a new generation), one added in another
// namespace does not.
func TestSnapshotOfSeveralNamespacesFollowsChanges(t *testing.T) {
	c, cs := newClient(readyPod("web", "w1"), readyPod("shop", "s1"))
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "web,shop"}
	first := c.Snapshot(context.Background(), req)
	if _, err := cs.CoreV1().Pods("web").Create(context.Background(), readyPod("web", "w0"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("other").Create(context.Background(), readyPod("other", "o1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	snap := eventually(t, c, req, 5*time.Second, 10*time.Millisecond, func(s kube.Snapshot) bool {
		pods, _ := s.Table("pods")
		return len(pods.Rows) == 3
	})
	pods, _ := snap.Table("pods")
	if snap.Generation == first.Generation || pods.Rows[1].Name != "w0" {
		t.Fatalf("rows %+v (generation %d, first %d)", pods.Rows, snap.Generation, first.Generation)
	}
	for _, r := range pods.Rows {
		if r.Namespace == "other" {
			t.Fatalf("a pod of namespace other among the rows of web and shop: %+v", r)
		}
	}
}
