package kube

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// NamespaceState is what a get of a namespace tells of it.
type NamespaceState int

// What a get of a namespace answers.
const (
	// NamespaceUnknown: the get did not say (forbidden, unreachable, any
	// other error): nothing may be claimed about the namespace.
	NamespaceUnknown NamespaceState = iota
	// NamespaceExists: the API server returned the namespace.
	NamespaceExists
	// NamespaceMissing: the API server answered 404 Not Found.
	NamespaceMissing
)

// NamespaceState reads namespace name with one get (never a list), to say
// why a list in it is empty: NamespaceMissing only when the API server
// answers 404; a 403 (an account that may list pods in a namespace but not
// get namespaces) or any other error is NamespaceUnknown.
func (c *Client) NamespaceState(ctx context.Context, name string) NamespaceState {
	_, err := c.cs.CoreV1().Namespaces().Get(ctx, name, metav1.GetOptions{})
	switch {
	case err == nil:
		return NamespaceExists
	case apierrors.IsNotFound(err):
		return NamespaceMissing
	}
	return NamespaceUnknown
}
