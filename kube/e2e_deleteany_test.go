package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2EDeleteAnyKind: on the local cluster, a ConfigMap is deleted (one
// delete of configmaps in the audit log); a custom resource held by a
// finalizer that widget-controller added is marked for deletion, the plan
// and the outcome say which finalizer holds it and who added it, and a
// second delete sends nothing; the read-only user's delete of a demo
// ConfigMap is refused as forbidden and writes nothing.
func TestE2EDeleteAnyKind(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	c, agent := e.client(e.cfg, kube.Options{TablePlugin: kinds.NewTable})

	cm, err := e.cs.CoreV1().ConfigMaps(e.ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "doomed"},
		Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	since := time.Now()
	out := e.operate(c, kube.Operation{Ref: kube.ObjectRef{Kind: "configmaps", Namespace: e.ns, Name: "doomed", UID: string(cm.UID)}, Action: kube.ActionDelete})
	if !out.Written || out.Detail != "deleted "+e.ns+"/configmaps/doomed" {
		t.Fatalf("outcome %+v", out)
	}
	oneWrite(t, agent, since, "delete", "configmaps")
	if _, err := e.cs.CoreV1().ConfigMaps(e.ns).Get(ctx, "doomed", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the ConfigMap is still there: %v", err)
	}

	// A custom resource held by a finalizer.
	dyn := dynamic.NewForConfigOrDie(e.cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "Widget" + strings.TrimPrefix(gvr.Resource, "widgets"),
		"metadata": map[string]any{"name": "held", "finalizers": []any{"e2e.kyyard.dev/hold"}},
		"spec":     map[string]any{"color": "red"},
	}}
	w, err = dyn.Resource(gvr).Namespace(e.ns).Create(ctx, w, metav1.CreateOptions{FieldManager: "widget-controller"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // let it go: the finalizer's controller is this test
		_, _ = dyn.Resource(gvr).Namespace(e.ns).Patch(context.Background(), "held", types.MergePatchType,
			[]byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	})
	var info kube.KindInfo
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(time.Second) {
		if err := c.Discover(ctx); err != nil {
			t.Fatal(err)
		}
		var ok bool
		if info, ok = c.Kind(gvr.Resource + "." + gvr.Group); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not discovered", gvr)
		}
	}
	if !info.Capabilities.Has(kube.CanDelete) {
		t.Fatalf("the custom resource's kind %+v does not offer delete", info)
	}
	ref := kube.ObjectRef{Kind: info.ID, Namespace: e.ns, Name: "held", UID: string(w.GetUID())}
	vs, err := c.PlanOperation(ctx, kube.Operation{Ref: ref, Action: kube.ActionDelete})
	if err != nil || vs.Refusal() != nil {
		t.Fatalf("plan %+v, %v", vs, err)
	}
	var fin kube.Verdict
	for _, v := range vs {
		if v.Guard == kube.GuardFinalizers {
			fin = v
		}
	}
	if !strings.Contains(fin.Sentence, "e2e.kyyard.dev/hold (added by widget-controller") {
		t.Fatalf("finalizers verdict %+v", fin)
	}
	since = time.Now()
	out = e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionDelete})
	if !out.Written || !strings.Contains(out.Detail, "for deletion: it stays until its finalizer is removed (e2e.kyyard.dev/hold)") {
		t.Fatalf("outcome %+v", out)
	}
	oneWrite(t, agent, since, "delete", gvr.Resource)
	got, err := dyn.Resource(gvr).Namespace(e.ns).Get(ctx, "held", metav1.GetOptions{})
	if err != nil || got.GetDeletionTimestamp() == nil {
		t.Fatalf("the held widget: %v, %v", got, err)
	}
	since = time.Now()
	out = e.operate(c, kube.Operation{Ref: ref, Action: kube.ActionDelete})
	if out.Written || !strings.Contains(out.Detail, "is already being deleted") {
		t.Fatalf("second delete: %+v", out)
	}
	if ws := auditWrites(t, agent, since); len(ws) != 0 {
		t.Fatalf("the second delete wrote %+v", ws)
	}

	// The read-only user may not delete the demo's ConfigMap.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	demo, err := e.cs.CoreV1().ConfigMaps(kubetest.DemoNamespace).Get(ctx, "web-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	since = time.Now()
	e.refused(viewer, kube.Operation{Ref: kube.ObjectRef{Kind: "configmaps", Namespace: kubetest.DemoNamespace, Name: "web-config", UID: string(demo.UID)},
		Action: kube.ActionDelete}, kube.ReasonForbidden)
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the refused delete wrote %+v", ws)
	}
}
