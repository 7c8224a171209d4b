package inventory_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/kubetest"
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
	for kind, want := range map[string]string{
		"pods":  "e edits the Deployment, StatefulSet or DaemonSet that owns pods/web-7d9f-abcde: open it from :deploy, :sts or :ds",
		"nodes": "nodes cannot be edited with the form",
	} {
		ns := "demo"
		if kind == "nodes" {
			ns = ""
		}
		m, _ := load(t, client, "pods", ns, 80, 8)
		if kind == "nodes" {
			m, _ = load(t, client, "nodes", "", 80, 8)
		}
		st, ok := press(m, "e")().(views.StatusMsg)
		if !ok || st.Text != want {
			t.Errorf("e on %s: %#v, want %q", kind, st, want)
		}
	}
}
