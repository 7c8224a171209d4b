package kube_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2ECordonUncordon: on a kwok Node of the local cluster, cordon
// sends one strategic merge patch of spec.unschedulable with the
// resourceVersion read (kubectl cordon's write), and the Node is
// unschedulable; a second cordon sends nothing ("already cordoned", as
// kubectl says); uncordon clears it. The read-only user's cordon is
// forbidden and sends no write; --readonly sends no request.
func TestE2ECordonUncordon(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	nodes, err := e.cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{LabelSelector: "type=kwok"})
	if err != nil || len(nodes.Items) == 0 {
		t.Fatalf("no kwok node: %v", err)
	}
	// The last kwok node: the demo's pods sit on the first ones.
	node := nodes.Items[len(nodes.Items)-1]
	for _, n := range nodes.Items {
		if n.Name > node.Name && !n.Spec.Unschedulable {
			node = n
		}
	}
	if node.Spec.Unschedulable {
		t.Fatalf("node %s is cordoned before the test", node.Name)
	}
	t.Cleanup(func() {
		_, _ = e.cs.CoreV1().Nodes().Patch(context.Background(), node.Name, types.StrategicMergePatchType,
			[]byte(`{"spec":{"unschedulable":null}}`), metav1.PatchOptions{})
	})
	ref := kube.ObjectRef{Kind: kube.KindNodes, Name: node.Name, UID: string(node.UID)}
	c, agent := e.client(e.cfg, kube.Options{})

	since := time.Now()
	out := e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionCordon})
	w := oneWrite(t, agent, since, "patch", "nodes")
	var body map[string]any
	if err := json.Unmarshal(w.Request, &body); err != nil {
		t.Fatal(err)
	}
	spec, _ := body["spec"].(map[string]any)
	md, _ := body["metadata"].(map[string]any)
	if spec["unschedulable"] != true || md["resourceVersion"] == nil || !strings.HasPrefix(out.Detail, "cordoned nodes/"+node.Name) {
		t.Fatalf("cordon: patch %s, outcome %+v", w.Request, out)
	}
	if n, _ := e.cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{}); !n.Spec.Unschedulable {
		t.Fatal("the node is not unschedulable after cordon")
	}

	since = time.Now()
	out = e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionCordon})
	if out.Written || !strings.Contains(out.Detail, "already cordoned") {
		t.Fatalf("second cordon: %+v", out)
	}
	if ws := realWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("a second cordon sent %+v", ws)
	}

	// The read-only user, and read-only mode.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	since = time.Now()
	e.refused(viewer, kube.Operation{Ref: ref, Action: kube.ActionUncordon}, kube.ReasonForbidden)
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the read-only user's uncordon sent %+v", ws)
	}
	ro, _ := e.client(e.cfg, kube.Options{ReadOnly: true})
	e.refused(ro, kube.Operation{Ref: ref, Action: kube.ActionUncordon}, kube.ReasonReadOnly)

	since = time.Now()
	out = e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionUncordon})
	oneWrite(t, agent, since, "patch", "nodes")
	if n, _ := e.cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{}); n.Spec.Unschedulable || !strings.HasPrefix(out.Detail, "uncordoned ") {
		t.Fatalf("after uncordon: unschedulable %v, %+v", n.Spec.Unschedulable, out)
	}
}
