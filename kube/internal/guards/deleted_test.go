package guards

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube/vocab"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestFinalizersNamesWhoRemovesEach: a well-known finalizer names its
// Kubernetes component; one a manager added names that manager; one no
// manager names says it may need removing by hand; a managedFields entry
// that does not parse is skipped, not fatal.
func TestFinalizersNamesWhoRemovesEach(t *testing.T) {
	meta := &metav1.ObjectMeta{
		Finalizers: []string{"kubernetes.io/pvc-protection", "example.com/cleanup", "bare"},
		ManagedFields: []metav1.ManagedFieldsEntry{
			{Manager: "cleaner", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:finalizers":{".":{},"v:\"example.com/cleanup\"":{}}}}`)}},
			{Manager: "broken", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{not json`)}},
		},
	}
	v := Finalizers(meta)
	for _, want := range []string{
		"until its finalizers are removed",
		"kubernetes.io/pvc-protection (kube-controller-manager's PVC protection controller",
		"example.com/cleanup (added by cleaner, which must remove it)",
		"bare (no field manager names it",
	} {
		if !strings.Contains(v.Sentence, want) {
			t.Errorf("sentence %q lacks %q", v.Sentence, want)
		}
	}
	if v.Outcome != vocab.OutcomePass || v.Guard != vocab.GuardFinalizers {
		t.Errorf("verdict %+v", v)
	}
	if got := Finalizers(&metav1.ObjectMeta{}); got.Sentence != "no finalizers hold it" {
		t.Errorf("none: %+v", got)
	}
}

// TestDependentsCountsByKind: counts are listed by kind, zero counts left
// out, with the kinds looked in and the controller.
func TestDependentsCountsByKind(t *testing.T) {
	v := Dependents(map[vocab.Kind]int{"pods": 3, "jobs": 0, "replicasets": 1}, []vocab.Kind{"pods", "replicasets", "jobs"}, "Deployment web")
	want := "the garbage collector deletes with it what it owns: 3 pods, 1 replicasets (looked for in the kinds read so far: jobs, pods, replicasets); its controller Deployment web may make it again"
	if v.Sentence != want {
		t.Errorf("got  %q\nwant %q", v.Sentence, want)
	}
	if v := Dependents(nil, []vocab.Kind{"pods"}, ""); v.Sentence != "it owns nothing (looked for in the kinds read so far: pods)" {
		t.Errorf("none: %q", v.Sentence)
	}
}
