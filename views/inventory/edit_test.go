package inventory_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
)

func TestEditKey(t *testing.T) {
	replicas := int32(1)
	client, _ := kubetest.FakeClient(t,
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"},
			Spec: appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}}},
		testPod("demo", "web-7d9f-abcde", time.Hour, run, true, 0),
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0"}})
	m, _ := load(t, client, "deployments", "demo", 80, 8)
	msg, ok := press(m, "e")().(views.OpenWorkloadMsg)
	if !ok || msg != (views.OpenWorkloadMsg{Kind: "deployments", Namespace: "demo", Name: "web"}) {
		t.Fatalf("e on a deployment: %#v", msg)
	}
	m, _ = load(t, client, "pods", "demo", 80, 8)
	msg, ok = press(m, "e")().(views.OpenWorkloadMsg)
	if !ok || msg != (views.OpenWorkloadMsg{Kind: "pods", Namespace: "demo", Name: "web-7d9f-abcde"}) {
		t.Fatalf("e on a pod: %#v (the form finds its owner)", msg)
	}
	m, _ = load(t, client, "nodes", "", 80, 8)
	st, ok := press(m, "e")().(views.StatusMsg)
	if !ok || st.Text != "nodes cannot be edited with the form" {
		t.Errorf("e on a node: %#v", st)
	}
}
