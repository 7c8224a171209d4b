package kube_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/internal/reviewtest"
	"github.com/kyyard/kyyard/kube/kinds"
)

func overviewNode(name string, ready bool, unschedulable bool) *corev1.Node {
	status := corev1.ConditionFalse
	if ready {
		status = corev1.ConditionTrue
	}
	alloc := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2"), corev1.ResourceMemory: resource.MustParse("4Gi")}
	return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.NodeSpec{Unschedulable: unschedulable},
		Status: corev1.NodeStatus{Allocatable: alloc, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: status}}}}
}

func overviewPod(ns, name string, phase corev1.PodPhase) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Status: corev1.PodStatus{Phase: phase}}
}

func overviewEvent(name, typ string, last time.Time) *corev1.Event {
	return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name}, Type: typ, Count: 3,
		LastTimestamp: metav1.NewTime(last), FirstTimestamp: metav1.NewTime(last.Add(-time.Minute))}
}

// Overview counts Nodes ready (a cordoned ready one too) of all, Pods by
// phase in every namespace, Warning events of the last hour, and sums
// allocatable; a metrics API that is not there leaves Metrics false with
// its reason; the access reviews answer each may.
func TestOverviewCounts(t *testing.T) {
	now := time.Now()
	cs := fake.NewClientset(
		overviewNode("a", true, false), overviewNode("b", true, true), overviewNode("c", false, false),
		overviewPod("demo", "r1", corev1.PodRunning), overviewPod("other", "r2", corev1.PodRunning),
		overviewPod("demo", "p", corev1.PodPending), overviewPod("demo", "f", corev1.PodFailed), overviewPod("demo", "s", corev1.PodSucceeded),
		overviewEvent("w-new", "Warning", now.Add(-10*time.Minute)), overviewEvent("w-old", "Warning", now.Add(-2*time.Hour)),
		overviewEvent("n", "Normal", now.Add(-time.Minute)),
	)
	cs.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Allow)
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true})
	c.SetNamespace("demo")
	o := c.Overview(context.Background())
	if !o.Reachable() || o.Latency <= 0 {
		t.Fatalf("not reachable: %+v", o)
	}
	if o.NodesReady != 2 || o.NodesTotal != 3 || o.PodsRunning != 2 || o.PodsPending != 1 || o.PodsFailed != 1 || o.PodsTotal != 5 || o.Warnings != 1 {
		t.Fatalf("counts: %+v", o)
	}
	if o.Allocatable.CPU != 6000 || o.Allocatable.Memory != 3*4<<30 {
		t.Fatalf("allocatable %+v", o.Allocatable)
	}
	if o.Metrics || o.MetricsReason == "" {
		t.Fatalf("metrics without a metrics API: %v %q", o.Metrics, o.MetricsReason)
	}
	if !o.MayList || !o.MayWatch || !o.MayWrite || len(o.Unread) != 0 || o.Answered.IsZero() {
		t.Fatalf("access or parts: %+v", o)
	}
}

// A forbidden list is named in Unread, the other parts still counted; a
// server that does not answer its version ends the overview with why.
func TestOverviewPartsAndUnreachable(t *testing.T) {
	cs := fake.NewClientset(overviewNode("a", true, false), overviewPod("demo", "r1", corev1.PodRunning))
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
	})
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "selfsubjectaccessreviews"}, "", errors.New("no"))
	})
	c := kube.NewFromClientset(cs, kube.Options{Registry: kinds.Builtin(), NoCache: true, ReadOnly: true})
	o := c.Overview(context.Background())
	if o.NodesTotal != 1 || o.PodsTotal != 0 || len(o.Unread) != 1 || o.Unread[0] != "pods: forbidden" || o.MayList || !o.ReadOnly {
		t.Fatalf("overview %+v", o)
	}

	// An account of one namespace: that namespace's Pods are counted.
	scoped := fake.NewClientset(overviewPod("demo", "r1", corev1.PodRunning), overviewPod("other", "r2", corev1.PodRunning))
	scoped.PrependReactor("list", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
		if a.GetNamespace() == "" {
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("no"))
		}
		return false, nil, nil
	})
	scoped.PrependReactor("create", "selfsubjectaccessreviews", reviewtest.Allow)
	sc := kube.NewFromClientset(scoped, kube.Options{Registry: kinds.Builtin(), NoCache: true})
	sc.SetNamespace("demo")
	if o := sc.Overview(context.Background()); o.Namespace != "demo" || o.PodsTotal != 1 || o.PodsRunning != 1 || len(o.Unread) != 0 {
		t.Fatalf("one namespace's account: %+v", o)
	}

	down := fake.NewClientset()
	down.PrependReactor("get", "version", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("dial tcp 127.0.0.1:1: connect: connection refused")
	})
	o = kube.NewFromClientset(down, kube.Options{Registry: kinds.Builtin(), NoCache: true}).Overview(context.Background())
	if o.Reachable() || o.Reason == "" || o.NodesTotal != 0 {
		t.Fatalf("down: %+v", o)
	}
}
