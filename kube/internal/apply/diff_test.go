package apply

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func obj(m map[string]any) *unstructured.Unstructured { return &unstructured.Unstructured{Object: m} }

func TestDiffMasksSecretValues(t *testing.T) {
	live := obj(map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s", "resourceVersion": "7", "managedFields": []any{"x"}},
		"data":     map[string]any{"password": "aHVudGVyMg==", "user": "YWRtaW4="}})
	res := obj(map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s", "resourceVersion": "8"},
		"data":     map[string]any{"password": "c2VjcmV0LXZhbHVl", "user": "YWRtaW4="}})
	d, err := Diff(live, res)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"aHVudGVyMg==", "c2VjcmV0LXZhbHVl", "YWRtaW4=", "hunter2", "managedFields", "resourceVersion"} {
		if strings.Contains(d, secret) {
			t.Fatalf("diff shows %q:\n%s", secret, d)
		}
	}
	if !strings.Contains(d, "(7 bytes)") || !strings.Contains(d, "(12 bytes, changed)") {
		t.Fatalf("diff lacks the masked sizes:\n%s", d)
	}
	if strings.Contains(d, "-  user") || strings.Contains(d, "+  user") {
		t.Fatalf("an unchanged key shows as changed:\n%s", d)
	}
}

func TestDiffNewAndSame(t *testing.T) {
	cm := obj(map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c"}, "data": map[string]any{"k": "v"}, "status": map[string]any{"x": int64(1)}})
	d, err := Diff(nil, cm)
	if err != nil || !strings.Contains(d, "+data:") || strings.Contains(d, "status") {
		t.Fatalf("new object diff = %q, %v", d, err)
	}
	// Every line of a new object is an addition: no empty context line.
	if !strings.Contains(d, "@@ -0,0 +1,6 @@") || strings.Contains(d, "\n \n") || strings.HasSuffix(d, "\n \n") {
		t.Fatalf("new object diff has a context line:\n%s", d)
	}
	if d, err := Diff(cm, cm.DeepCopy()); err != nil || d != "" {
		t.Fatalf("same object diff = %q, %v", d, err)
	}
}
