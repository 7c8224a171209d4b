package kube

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// allowReviews is a fake clientset's reactor that allows every
// SelfSubjectAccessReview (the debug tests; the port-forward tests have
// their own in kube/internal/forwarding).
func allowReviews(action k8stesting.Action) (bool, runtime.Object, error) {
	r := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	r.Status.Allowed = true
	return true, r, nil
}

// denyReviews is a fake clientset's reactor that denies every
// SelfSubjectAccessReview, with the reason "RBAC: not allowed".
func denyReviews(action k8stesting.Action) (bool, runtime.Object, error) {
	r := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	r.Status.Reason = "RBAC: not allowed"
	return true, r, nil
}
