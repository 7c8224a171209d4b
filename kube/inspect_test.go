package kube_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// requests lists the fake's requests as "verb resource".
func requests(cs interface{ Actions() []k8stesting.Action }) []string {
	var got []string
	for _, a := range cs.Actions() {
		got = append(got, a.GetVerb()+" "+a.GetResource().Resource)
	}
	return got
}

// TestInspectDeployment reads the Deployment and the pods its selector
// selects (a pod of another app is left out) in exactly one get and one
// list, with kubectl's READY and STATUS.
func TestInspectDeployment(t *testing.T) {
	other := pod("other-1", "ReplicaSet", "other", nil, "")
	other.Labels = map[string]string{"app": "other"}
	c, cs := kubetest.FakeClient(t, dep(func(d *appsv1.Deployment) {
		d.ResourceVersion = "812"
		d.Status.ReadyReplicas, d.Status.AvailableReplicas = 2, 1
	}), rs("web-new", "new", "2", "web:v2", 3, 3, nil),
		newPod("web-new-b", ""), newPod("web-new-a", "ImagePullBackOff"), oldPod("web-old-a", ""), other)
	cs.ClearActions()
	in, err := c.Inspect(context.Background(), kube.WorkloadRef{Kind: "deploy", Namespace: "demo", Name: "web"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := requests(cs), []string{"get deployments", "list pods"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	want := kube.Inspection{
		Ref: webRef, UID: "dep-uid", ResourceVersion: "812", Generation: 2, ObservedGeneration: 2,
		Desired: 3, Ready: 2, Updated: 3, Available: 1,
		Pods: []kube.RolloutPod{
			{Name: "web-new-a", Ready: "0/1", Status: "ImagePullBackOff"},
			{Name: "web-new-b", Ready: "1/1", Status: "Running"},
			{Name: "web-old-a", Ready: "1/1", Status: "Running"},
		},
	}
	if !reflect.DeepEqual(in, want) {
		t.Errorf("got  %+v\nwant %+v", in, want)
	}
}

// TestInspectStatefulSetAndDaemonSet: a StatefulSet's pods of its
// updateRevision and a DaemonSet's of its template generation are new.
func TestInspectStatefulSetAndDaemonSet(t *testing.T) {
	c, cs := kubetest.FakeClient(t,
		sts(func(s *appsv1.StatefulSet) { s.Status.UpdateRevision = "db-2"; s.Status.CurrentRevision = "db-1" }),
		stsPod("db-0", "db-1", ""), stsPod("db-1", "db-2", ""))
	cs.ClearActions()
	in, err := c.Inspect(context.Background(), dbRef)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := requests(cs), []string{"get statefulsets", "list pods"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	if in.UID != "db-uid" || in.Desired != 3 || len(in.Pods) != 2 || in.Pods[0].Name != "db-1" || !in.Pods[0].New || in.Pods[1].New {
		t.Errorf("statefulset: %+v", in)
	}

	c, cs = kubetest.FakeClient(t, ds(nil), dsPod("agent-a", "old", "1", ""), dsPod("agent-b", "new", "2", ""))
	cs.ClearActions()
	in, err = c.Inspect(context.Background(), agentRef)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := requests(cs), []string{"get daemonsets", "list pods"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	if in.UID != "agent-uid" || in.Desired != 2 || in.Generation != 3 || len(in.Pods) != 2 ||
		in.Pods[0].Name != "agent-b" || !in.Pods[0].New || in.Pods[1].New {
		t.Errorf("daemonset: %+v", in)
	}
}

// TestInspectGone: a workload that is gone answers Missing, no error, after
// one get.
func TestInspectGone(t *testing.T) {
	c, cs := kubetest.FakeClient(t)
	for _, kind := range []kube.Kind{kube.KindDeployments, kube.KindStatefulSets, kube.KindDaemonSets} {
		cs.ClearActions()
		ref := kube.WorkloadRef{Kind: kind, Namespace: "demo", Name: "gone"}
		in, err := c.Inspect(context.Background(), ref)
		if err != nil || !reflect.DeepEqual(in, kube.Inspection{Ref: ref, Missing: true}) {
			t.Errorf("%s: %+v, %v; want Missing", ref, in, err)
		}
		if got := requests(cs); len(got) != 1 {
			t.Errorf("%s: requests %q, want one get", ref, got)
		}
	}
}

// TestInspectTooManyPods: more than MaxInspectPods pods is unavailable,
// never a cut list; the list asks the server for one more than the
// maximum.
func TestInspectTooManyPods(t *testing.T) {
	for _, tc := range []struct {
		name     string
		n        int
		cont     string
		wantErr  bool
		wantPods int
	}{
		{"at the maximum", kube.MaxInspectPods, "", false, kube.MaxInspectPods},
		{"one more", kube.MaxInspectPods + 1, "", true, 0},
		{"a continue token", 10, "next", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cs := kubetest.FakeClient(t, dep(nil))
			var limit int64
			cs.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
				limit = a.(k8stesting.ListActionImpl).GetListOptions().Limit
				list := &corev1.PodList{ListMeta: metav1.ListMeta{Continue: tc.cont}}
				for i := range tc.n {
					list.Items = append(list.Items, *newPod(fmt.Sprintf("web-%05d", i), ""))
				}
				return true, list, nil
			})
			in, err := c.Inspect(context.Background(), webRef)
			if limit != kube.MaxInspectPods+1 {
				t.Errorf("list limit %d, want %d", limit, kube.MaxInspectPods+1)
			}
			if !tc.wantErr {
				if err != nil || len(in.Pods) != tc.wantPods {
					t.Fatalf("%d pods, %v; want %d", len(in.Pods), err, tc.wantPods)
				}
				return
			}
			var r *kube.Refusal
			if !errors.As(err, &r) || r.Reason != kube.ReasonUnavailable || kube.ReasonOf(err) != kube.ReasonUnavailable ||
				!strings.Contains(err.Error(), fmt.Sprintf("more than %d pods", kube.MaxInspectPods)) || len(in.Pods) != 0 {
				t.Errorf("err %v (%q), %d pods; want an unavailable refusal and no pods", err, kube.ReasonOf(err), len(in.Pods))
			}
		})
	}
}

// TestInspectErrors: another kind is invalid; a forbidden list of pods is
// forbidden, naming the workload.
func TestInspectErrors(t *testing.T) {
	c, cs := kubetest.FakeClient(t, dep(nil))
	ctx := context.Background()
	_, err := c.Inspect(ctx, kube.WorkloadRef{Kind: "pods", Namespace: "demo", Name: "web"})
	if kube.ReasonOf(err) != kube.ReasonInvalid {
		t.Errorf("pods: %v, want invalid", err)
	}
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC"))
	})
	_, err = c.Inspect(ctx, webRef)
	if kube.ReasonOf(err) != kube.ReasonForbidden || !strings.Contains(err.Error(), "demo/deployments/web") {
		t.Errorf("forbidden pods: %v (%q)", err, kube.ReasonOf(err))
	}
}
