package kubetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// CRDResource is the resource of CustomResourceDefinitions.
var CRDResource = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// WidgetCRD installs a CRD of its own, widgets<suffix>.e2e.kyyard.dev
// (namespaced; printer columns Color, a string, and Since, a date), waits
// until it is established, and deletes it when the test ends. It returns
// the resource; its kind is Widget<suffix>.
func WidgetCRD(t testing.TB, dyn dynamic.Interface) schema.GroupVersionResource {
	t.Helper()
	suffix := fmt.Sprintf("%x", time.Now().UnixNano()&0xffffff)
	gvr := schema.GroupVersionResource{Group: "e2e.kyyard.dev", Version: "v1", Resource: "widgets" + suffix}
	name := gvr.Resource + "." + gvr.Group
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": name},
		"spec": map[string]any{
			"group": gvr.Group, "scope": "Namespaced",
			"names": map[string]any{"plural": gvr.Resource, "singular": "widget" + suffix, "kind": "Widget" + suffix},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{
					"type": "object", "x-kubernetes-preserve-unknown-fields": true,
				}},
				"additionalPrinterColumns": []any{
					map[string]any{"name": "Color", "type": "string", "jsonPath": ".spec.color"},
					map[string]any{"name": "Since", "type": "date", "jsonPath": ".spec.since"},
				},
			}},
		},
	}}
	ctx := context.Background()
	if _, err := dyn.Resource(CRDResource).Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create CRD: %v", err)
	}
	t.Cleanup(func() {
		if err := dyn.Resource(CRDResource).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete CRD: %v", err)
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := dyn.Resource(CRDResource).Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
			for _, c := range conds {
				if m, ok := c.(map[string]any); ok && m["type"] == "Established" && m["status"] == "True" {
					return gvr
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("CRD %s not established after 30 s (last error %v)", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
