package vocab

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestReasonOfFieldConflict: a server-side apply's 409 with
// FieldManagerConflict causes is a field conflict; a resourceVersion
// precondition's 409 stays a conflict.
func TestReasonOfFieldConflict(t *testing.T) {
	field := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldManagerConflict, Field: ".data.k", Message: `conflict with "kubectl-edit"`},
		}},
	}}
	stale := apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "c", nil)
	if got := ReasonOf(field); got != ReasonFieldConflict {
		t.Fatalf("ReasonOf(field conflict) = %q", got)
	}
	if got := ReasonOf(stale); got != ReasonConflict {
		t.Fatalf("ReasonOf(stale resourceVersion) = %q", got)
	}
	if IsFieldConflict(nil) || IsFieldConflict(stale) {
		t.Fatal("IsFieldConflict true for an error that is not a field conflict")
	}
	if ReasonFieldConflict.Sentence() == "" {
		t.Fatal("no sentence for ReasonFieldConflict")
	}
}
