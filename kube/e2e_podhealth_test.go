package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2EC10DeploymentsWhosePodsCannotStart: on the local cluster, a
// Deployment whose pods crash-loop and one whose image cannot be pulled
// (kwok's crashloop and imagepull stages, as the seeded demo's crashy and
// badimage) are failed in a Snapshot, named by their pods' reason, within
// seconds of their pods' first failure, long before their 10-minute progress
// deadline; RolloutStatus says failed for the same reason. The seeded
// demo's crashy and badimage are unhealthy too (read only).
func TestE2EC10DeploymentsWhosePodsCannotStart(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-podhealth")
	for _, tc := range []struct{ name, state string }{{"crashy", "crashloop"}, {"badimage", "imagepull"}} {
		labels := map[string]string{"app": tc.name}
		podLabels := map[string]string{"app": tc.name, demoStateLabel: tc.state}
		d := &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: appsv1.DeploymentSpec{
				Replicas: ptr(int32(2)),
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: podLabels}, Spec: kwokPodSpec("registry.local/" + tc.name + ":1")},
			},
		}
		if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	want := map[string]string{"crashy": "CrashLoopBackOff", "badimage": "ImagePullBackOff"}
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"deployments"}, Namespace: ns}
	snap := eventually(t, c, req, 60*time.Second, 200*time.Millisecond, func(s kube.Snapshot) bool {
		tb, _ := s.Table("deployments")
		n := 0
		for _, r := range tb.Rows {
			if r.Health == kube.HealthFailed && r.Status == want[r.Name] {
				n++
			}
		}
		return n == len(want)
	})
	tb, _ := snap.Table("deployments")
	for _, r := range tb.Rows {
		// Judged by the pods, not by the deadline: the controller still
		// says the rollout progresses.
		if r.Status == "ProgressDeadlineExceeded" {
			t.Errorf("%s judged by its progress deadline", r.Name)
		}
		st, err := c.RolloutStatus(context.Background(), kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: r.Name})
		if err != nil || st.Phase != kube.RolloutFailed || !strings.Contains(st.Message, want[r.Name]) {
			t.Errorf("rollout of %s: %+v, %v; want failed with %s", r.Name, st, err, want[r.Name])
		}
	}

	demo := kube.SnapshotRequest{Kinds: []kube.Kind{"deployments"}, Namespace: "demo"}
	eventually(t, c, demo, 30*time.Second, 200*time.Millisecond, func(s kube.Snapshot) bool {
		tb, _ := s.Table("deployments")
		n := 0
		for _, r := range tb.Rows {
			if (r.Name == "crashy" || r.Name == "badimage") && r.Health >= kube.HealthWarning {
				n++
			}
		}
		return n == 2
	})
}
