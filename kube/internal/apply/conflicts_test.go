package apply

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestConflictsOf(t *testing.T) {
	err := &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: 409, Reason: metav1.StatusReasonConflict,
		Details: &metav1.StatusDetails{Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeFieldManagerConflict, Field: ".data.k", Message: `conflict with "kubectl-edit" using v1`},
			{Type: metav1.CauseTypeFieldManagerConflict, Field: ".spec.replicas", Message: `conflict with "helm" with subresource "scale"`},
			{Type: metav1.CauseTypeFieldValueInvalid, Field: ".x", Message: "other"},
		}},
	}}
	got := ConflictsOf(err)
	if len(got) != 2 || got[0].Field != ".data.k" || got[0].Manager != "kubectl-edit" || got[1].Manager != "helm" {
		t.Fatalf("conflicts = %+v", got)
	}
	if ConflictsOf(errors.New("plain")) != nil || ConflictsOf(nil) != nil {
		t.Fatal("conflicts from an error that is not a 409")
	}
	if ConflictsOf(apierrors.NewNotFound(metav1.SchemeGroupVersion.WithResource("x").GroupResource(), "a")) != nil {
		t.Fatal("conflicts from a 404")
	}
	if m := managerOf("conflict with unquoted"); m != "unquoted" {
		t.Fatalf("managerOf unquoted = %q", m)
	}
}
