// Package reviewtest holds the fake SelfSubjectAccessReview answers the
// adapter's unit tests give a client-go fake clientset (PrependReactor on
// "create", "selfsubjectaccessreviews"). It is test support for the parts
// under kube/internal; it imports no kyyard package.
package reviewtest

import (
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// Allow is a fake clientset's reactor that allows every
// SelfSubjectAccessReview.
func Allow(action k8stesting.Action) (bool, runtime.Object, error) {
	r := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	r.Status.Allowed = true
	return true, r, nil
}

// Deny is a fake clientset's reactor that denies every
// SelfSubjectAccessReview, with the reason "RBAC: not allowed".
func Deny(action k8stesting.Action) (bool, runtime.Object, error) {
	r := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	r.Status.Reason = "RBAC: not allowed"
	return true, r, nil
}
