package kube_test

import (
	"context"
	"errors"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube"
)

func TestFacts(t *testing.T) {
	c, cs := newClient(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-1"}},
	)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2", Platform: "linux/amd64"}
	cs.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, &authenticationv1.SelfSubjectReview{Status: authenticationv1.SelfSubjectReviewStatus{
			UserInfo: authenticationv1.UserInfo{Username: "jane"}}}, nil
	})
	f := c.Facts(context.Background())
	want := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok linux/amd64", Nodes: "2",
		Context: kube.Unknown, Cluster: kube.Unknown, User: "jane"}
	if f != want {
		t.Fatalf("Facts() = %+v, want %+v", f, want)
	}
}

func TestFactsUnreadableAreUnknown(t *testing.T) {
	c, cs := newClient()
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.30.1-eks-abc", Platform: "linux/arm64"}
	cs.PrependReactor("list", "nodes", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "nodes"}, "", errors.New("no"))
	})
	cs.PrependReactor("create", "selfsubjectreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "selfsubjectreviews"}, "", errors.New("no"))
	})
	f := c.Facts(context.Background())
	if f.Nodes != kube.Unknown || f.User != kube.Unknown || f.Platform != "EKS linux/arm64" || f.ServerVersion != "v1.30.1-eks-abc" {
		t.Fatalf("Facts() = %+v", f)
	}
	for _, v := range []string{f.ServerVersion, f.Platform, f.Nodes, f.Context, f.Cluster, f.User} {
		if v == "" {
			t.Fatalf("a fact was left out: %+v", f)
		}
	}
}

// TestFactsPlatformOfMixedNodes: a cluster whose nodes are not all alike
// (kwok's fake nodes beside a real kubelet, as the local cluster runs) is
// named the same way on every refresh from the nodes cache, whatever order
// the cache keeps its nodes in.
func TestFactsPlatformOfMixedNodes(t *testing.T) {
	c, cs := newClient(
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "a-real-node"}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0", Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "z-real-node"}},
	)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2", Platform: "linux/amd64"}
	if f := c.Facts(context.Background()); f.Nodes != "3" {
		t.Fatalf("before the cache: Facts() = %+v", f)
	}
	// A snapshot of nodes starts their cache; Facts then reads from it.
	for i := 0; i < 50; i++ {
		c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"nodes"}})
		if f := c.Facts(context.Background()); f.Platform != "kwok linux/amd64" || f.Nodes != "3" {
			t.Fatalf("refresh %d: Facts() = %+v, want platform kwok linux/amd64 of 3 nodes", i, f)
		}
	}
}
