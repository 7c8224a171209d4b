package kube_test

import (
	"context"
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

func TestWorkloadOf(t *testing.T) {
	bareRS := rs("handmade", "h", "", "web:v1", 1, 1, func(r *appsv1.ReplicaSet) { r.OwnerReferences = nil })
	jobPod := pod("pi-x", "Job", "pi", nil, "")
	jobPod.OwnerReferences[0].APIVersion = "batch/v1"
	barePod := pod("bare", "ReplicaSet", "x", nil, "")
	barePod.OwnerReferences = nil
	// A pod whose ReplicaSet of that name was deleted and made again.
	replaced := newPod("web-new-r", "")
	replaced.OwnerReferences[0].UID = types.UID("an-older-uid")
	c, _ := kubetest.FakeClient(t,
		rs("web-new", "new", "2", "web:v2", 1, 1, nil), bareRS,
		newPod("web-new-a", ""), stsPod("db-0", "db-2", ""), dsPod("agent-a", "new", "2", ""),
		jobPod, barePod, replaced,
		pod("orphaned", "ReplicaSet", "handmade", nil, ""),
	)
	ctx := context.Background()
	for _, tc := range []struct {
		kind       kube.Kind
		name       string
		want       kube.WorkloadRef
		reason     kube.Reason // when an error is expected
		notManaged bool
		text       string // the error's text, when given
	}{
		{kind: "deployments", name: "web", want: webRef},
		{kind: "deploy", name: "web", want: webRef},
		{kind: "sts", name: "db", want: dbRef},
		{kind: "daemonsets", name: "agent", want: agentRef},
		{kind: "replicasets", name: "web-new", want: webRef},
		{kind: "rs", name: "web-new", want: webRef},
		{kind: "pods", name: "web-new-a", want: webRef},
		{kind: "po", name: "db-0", want: dbRef},
		{kind: "pods", name: "agent-a", want: agentRef},
		{kind: "pods", name: "bare", reason: kube.ReasonError, notManaged: true,
			text: "pod demo/bare is not managed by a Deployment, StatefulSet or DaemonSet"},
		{kind: "pods", name: "pi-x", reason: kube.ReasonError, notManaged: true,
			text: "pod demo/pi-x is not managed by a Deployment, StatefulSet or DaemonSet (its controller is Job pi)"},
		{kind: "pods", name: "orphaned", reason: kube.ReasonError, notManaged: true,
			text: "pod demo/orphaned is not managed by a Deployment, StatefulSet or DaemonSet (replicaset handmade has no controller)"},
		{kind: "replicasets", name: "handmade", reason: kube.ReasonError, notManaged: true},
		{kind: "pods", name: "web-new-r", reason: kube.ReasonError},
		{kind: "pods", name: "gone", reason: kube.ReasonNotFound},
		{kind: "replicasets", name: "gone", reason: kube.ReasonNotFound},
		{kind: "services", name: "web", reason: kube.ReasonInvalid},
	} {
		got, err := c.WorkloadOf(ctx, tc.kind, "demo", tc.name)
		if tc.reason == "" {
			if err != nil || got != tc.want {
				t.Errorf("%s %s: %+v %v, want %+v", tc.kind, tc.name, got, err, tc.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s %s: %+v, want an error", tc.kind, tc.name, got)
			continue
		}
		if r := kube.ReasonOf(err); r != tc.reason {
			t.Errorf("%s %s: reason %q (%v), want %q", tc.kind, tc.name, r, err, tc.reason)
		}
		if errors.Is(err, kube.ErrNotManaged) != tc.notManaged {
			t.Errorf("%s %s: %v: errors.Is ErrNotManaged is %v", tc.kind, tc.name, err, !tc.notManaged)
		}
		if tc.text != "" && err.Error() != tc.text {
			t.Errorf("%s %s: error %q, want %q", tc.kind, tc.name, err, tc.text)
		}
	}
}

// TestWorkloadOfReadsFresh checks that a pod's owner is read from the API
// server at the time of asking, not from a cache: a ReplicaSet adopted by a
// Deployment after the first answer is seen at the next.
func TestWorkloadOfReadsFresh(t *testing.T) {
	orphan := rs("web-new", "new", "2", "web:v2", 1, 1, func(r *appsv1.ReplicaSet) { r.OwnerReferences = nil })
	c, cs := kubetest.FakeClient(t, orphan, newPod("web-new-a", ""))
	ctx := context.Background()
	if _, err := c.WorkloadOf(ctx, "pods", "demo", "web-new-a"); !errors.Is(err, kube.ErrNotManaged) {
		t.Fatalf("before adoption: %v", err)
	}
	adopted := orphan.DeepCopy()
	adopted.OwnerReferences = controller("Deployment", "web", "dep-uid")
	if _, err := cs.AppsV1().ReplicaSets("demo").Update(ctx, adopted, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := c.WorkloadOf(ctx, "pods", "demo", "web-new-a")
	if err != nil || got != webRef {
		t.Fatalf("after adoption: %+v %v", got, err)
	}
}
