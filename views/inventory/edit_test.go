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
	// A kind the form does not edit: e edits it as YAML, as E does on any kind.
	m, _ = load(t, client, "nodes", "", 80, 8)
	want := views.OpenYAMLEditMsg{Kind: "nodes", Name: "kwok-node-0"}
	for _, k := range []string{"e", "E"} {
		if got, ok := press(m, k)().(views.OpenYAMLEditMsg); !ok || got != want {
			t.Errorf("%s on a node: %#v", k, got)
		}
	}
	m, _ = load(t, client, "deployments", "demo", 80, 8)
	if got, ok := press(m, "E")().(views.OpenYAMLEditMsg); !ok || got != (views.OpenYAMLEditMsg{Kind: "deployments", Namespace: "demo", Name: "web"}) {
		t.Errorf("E on a deployment: %#v", got)
	}
}
