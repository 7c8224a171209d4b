package seed

import (
	"context"
	"fmt"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
)

// ViewerServiceAccount is the ServiceAccount (in Namespace) of the readonly
// kubeconfig; viewerTokenSecret holds its non-expiring legacy token.
const (
	ViewerServiceAccount = "viewer"
	viewerTokenSecret    = "viewer-token"
)

// viewerRules let the viewer get and list (never watch) the common kinds in
// Namespace. Secrets are left out on purpose.
var viewerRules = []rbacv1.PolicyRule{
	{APIGroups: []string{""}, Resources: []string{"pods", "pods/log", "services", "endpoints", "configmaps", "events",
		"persistentvolumeclaims", "serviceaccounts"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"apps"}, Resources: []string{"deployments", "replicasets", "statefulsets", "daemonsets"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"batch"}, Resources: []string{"jobs", "cronjobs"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"networking.k8s.io"}, Resources: []string{"ingresses", "networkpolicies"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"autoscaling"}, Resources: []string{"horizontalpodautoscalers"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"policy"}, Resources: []string{"poddisruptionbudgets"}, Verbs: []string{"get", "list"}},
	{APIGroups: []string{"events.k8s.io"}, Resources: []string{"events"}, Verbs: []string{"get", "list"}},
}

// viewerObjects returns the ServiceAccount, its Role and RoleBinding (namespace
// only, nothing cluster-wide) and the legacy token Secret that the
// controller-manager's token controller fills in.
func viewerObjects() []runtime.Object { return viewerObjectsWith(viewerRules) }

// viewerObjectsWith is viewerObjects with the Role's rules given.
func viewerObjectsWith(rules []rbacv1.PolicyRule) []runtime.Object {
	labels := map[string]string{"app.kubernetes.io/part-of": "kyyard-demo"}
	return []runtime.Object{
		&corev1.ServiceAccount{ObjectMeta: objectMeta(ViewerServiceAccount, labels)},
		&rbacv1.Role{ObjectMeta: objectMeta("viewer", labels), Rules: rules},
		&rbacv1.RoleBinding{
			ObjectMeta: objectMeta("viewer", labels),
			RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "viewer"},
			Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: ViewerServiceAccount, Namespace: Namespace}},
		},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Name:        viewerTokenSecret,
				Namespace:   Namespace,
				Labels:      labels,
				Annotations: map[string]string{corev1.ServiceAccountNameKey: ViewerServiceAccount},
			},
			Type: corev1.SecretTypeServiceAccountToken,
		},
	}
}

// viewerToken waits until the token controller has written the token.
func viewerToken(ctx context.Context, cs kubernetes.Interface, timeout time.Duration) (string, error) {
	deadline := time.Now().Add(timeout)
	for {
		s, err := cs.CoreV1().Secrets(Namespace).Get(ctx, viewerTokenSecret, metav1.GetOptions{})
		if err == nil && len(s.Data[corev1.ServiceAccountTokenKey]) > 0 {
			return string(s.Data[corev1.ServiceAccountTokenKey]), nil
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("secret %s/%s has no token after %s (is kube-controller-manager running?): %v", Namespace, viewerTokenSecret, timeout, err)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// accessCheck is one expectation about the viewer's permissions.
type accessCheck struct {
	attrs authorizationv1.ResourceAttributes
	allow bool
}

var viewerChecks = []accessCheck{
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "list", Resource: "pods"}, true},
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "get", Resource: "pods", Subresource: "log"}, true},
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "list", Group: "apps", Resource: "deployments"}, true},
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "watch", Resource: "pods"}, false},
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "list", Resource: "secrets"}, false},
	{authorizationv1.ResourceAttributes{Namespace: Namespace, Verb: "delete", Resource: "pods"}, false},
	{authorizationv1.ResourceAttributes{Verb: "list", Resource: "namespaces"}, false},
	{authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "pods"}, false},
}

// verifyViewer asks the API server, as the viewer, what it may do
// (SelfSubjectAccessReview) and lists pods in Namespace for real. It returns a
// summary line per check.
func verifyViewer(ctx context.Context, viewer kubernetes.Interface) ([]string, error) {
	return verifyViewerReadsPods(ctx, viewer, true)
}

// viewerChecksFor are viewerChecks with listing pods allowed or not.
func viewerChecksFor(readsPods bool) []accessCheck {
	out := append([]accessCheck{}, viewerChecks...)
	for i, c := range out {
		if c.attrs.Verb == "list" && c.attrs.Resource == "pods" && c.attrs.Namespace == Namespace {
			out[i].allow = readsPods
		}
	}
	return out
}

// verifyViewerReadsPods is verifyViewer for a viewer whose Role grants pods
// (readsPods) or not; without, the real list of pods must be forbidden.
func verifyViewerReadsPods(ctx context.Context, viewer kubernetes.Interface, readsPods bool) ([]string, error) {
	var lines []string
	for _, c := range viewerChecksFor(readsPods) {
		attrs := c.attrs
		r, err := viewer.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
			Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &attrs},
		}, metav1.CreateOptions{})
		if err != nil {
			return lines, fmt.Errorf("SelfSubjectAccessReview as viewer: %w", err)
		}
		what := fmt.Sprintf("%s %s", attrs.Verb, attrs.Resource)
		if attrs.Subresource != "" {
			what += "/" + attrs.Subresource
		}
		if attrs.Namespace != "" {
			what += " in " + attrs.Namespace
		}
		if r.Status.Allowed != c.allow {
			return lines, fmt.Errorf("viewer: %s: allowed=%t, want %t (%s)", what, r.Status.Allowed, c.allow, r.Status.Reason)
		}
		lines = append(lines, fmt.Sprintf("%s: allowed=%t", what, r.Status.Allowed))
	}
	pods, err := viewer.CoreV1().Pods(Namespace).List(ctx, metav1.ListOptions{})
	if !readsPods {
		if !apierrors.IsForbidden(err) {
			return lines, fmt.Errorf("viewer: list pods in %s: %v, want forbidden", Namespace, err)
		}
		return append(lines, fmt.Sprintf("real list pods in %s: forbidden", Namespace)), nil
	}
	if err != nil {
		return lines, fmt.Errorf("viewer: list pods in %s: %w", Namespace, err)
	}
	lines = append(lines, fmt.Sprintf("real list pods in %s: %d pods", Namespace, len(pods.Items)))
	return lines, nil
}
