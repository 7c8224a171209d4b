package inventory_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// TestStreamKeys: l and p open a pod's logs (p its previous container's),
// shift+f its port-forward; on a deployment l opens the workload's logs
// and s stays scale; on a namespace they say where they work.
func TestStreamKeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, append(demoObjects(), opDeployment("web", 3),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}})...)
	p, _ := load(t, client, "pods", "demo", 80, 8)
	msg, _ := press(p, "l")().(views.OpenLogsMsg)
	want := kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "badimage-66f-qq9", UID: "demo/badimage-66f-qq9",
		Options: kube.LogOptions{Follow: true, TailLines: -1}}
	if msg.Request.Kind != want.Kind || msg.Request.Name != want.Name || msg.Request.UID != want.UID || msg.Request.Options != want.Options {
		t.Fatalf("l on a pod: %#v", msg)
	}
	msg, _ = press(p, "p")().(views.OpenLogsMsg)
	if !msg.Request.Options.Previous || msg.Request.Options.Follow {
		t.Fatalf("p on a pod: %#v", msg)
	}
	if pf, _ := press(p, "F")().(views.OpenPortForwardMsg); pf != (views.OpenPortForwardMsg{Kind: kube.KindPods, Namespace: "demo", Name: "badimage-66f-qq9", UID: "demo/badimage-66f-qq9"}) {
		t.Fatalf("shift+f on a pod: %#v", pf)
	}

	d, _ := load(t, client, "deployments", "demo", 80, 8)
	if msg, _ := press(d, "l")().(views.OpenLogsMsg); msg.Request.Kind != kube.KindDeployments || msg.Request.Name != "web" {
		t.Fatalf("l on a deployment: %#v", msg)
	}
	if op, _ := press(d, "s")().(views.OperateMsg); op.Action != kube.ActionScale {
		t.Fatalf("s on a deployment: %#v", op)
	}

	n, _ := load(t, client, "namespaces", "", 80, 8)
	for _, k := range []string{"l", "s", "F"} {
		st, _ := press(n, k)().(views.StatusMsg)
		if !strings.Contains(st.Text, "namespaces") {
			t.Errorf("%s on a namespace: %#v", k, st)
		}
	}
}
