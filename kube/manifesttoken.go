package kube

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ErrNoToken is wrapped by ServiceAccountToken's errors when the token
// Secret is missing, is not the ServiceAccount's, or holds no token yet.
var ErrNoToken = errors.New("no ServiceAccount token")

// ServiceAccountToken is what the token Secret of a manifest's
// ServiceAccount holds (filled in by the token controller of
// kube-controller-manager).
type ServiceAccountToken struct {
	// Namespace and Name are the ServiceAccount's.
	Namespace, Name string
	// Token is the bearer token (a JWT).
	Token string
	// CA is the cluster's CA bundle (PEM), the Secret's ca.crt; empty when
	// the controller has none.
	CA []byte
}

// ServiceAccountToken reads the token Secret TokenSecretName(name) in
// namespace (the one Manifest writes) and returns its token. Errors: the
// Secret does not exist, is not of type kubernetes.io/service-account-token
// or names another ServiceAccount, or has no token yet (all wrapping
// ErrNoToken, saying what to do); the API server's (forbidden: the caller
// may not read Secrets there, an administrator's kubeconfig is needed).
func (c *Client) ServiceAccountToken(ctx context.Context, namespace, name string) (ServiceAccountToken, error) {
	secret := TokenSecretName(name)
	where := namespace + "/" + secret
	s, err := c.cs.CoreV1().Secrets(namespace).Get(ctx, secret, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		return ServiceAccountToken{}, fmt.Errorf("%w: the token Secret %s does not exist; apply `kyyard manifest --name %s --namespace %s` first",
			ErrNoToken, where, name, namespace)
	case err != nil:
		return ServiceAccountToken{}, fmt.Errorf("read the token Secret %s: %w", where, err)
	}
	return tokenOf(s, namespace, name)
}

// tokenOf checks the token Secret s of ServiceAccount namespace/name and
// returns its token; see ServiceAccountToken for the errors.
func tokenOf(s *corev1.Secret, namespace, name string) (ServiceAccountToken, error) {
	where := namespace + "/" + s.Name
	if s.Type != corev1.SecretTypeServiceAccountToken {
		return ServiceAccountToken{}, fmt.Errorf("%w: Secret %s is of type %q, not %s", ErrNoToken, where, s.Type, corev1.SecretTypeServiceAccountToken)
	}
	if got := s.Annotations[corev1.ServiceAccountNameKey]; got != name {
		return ServiceAccountToken{}, fmt.Errorf("%w: Secret %s is the token of ServiceAccount %q, not %q", ErrNoToken, where, got, name)
	}
	token := s.Data[corev1.ServiceAccountTokenKey]
	if len(token) == 0 {
		return ServiceAccountToken{}, fmt.Errorf("%w: Secret %s has no token yet: kube-controller-manager's token controller fills it in "+
			"once the ServiceAccount %s exists; try again in a moment, and check that the ServiceAccount was applied", ErrNoToken, where, name)
	}
	return ServiceAccountToken{Namespace: namespace, Name: name, Token: string(token), CA: s.Data[corev1.ServiceAccountRootCAKey]}, nil
}
