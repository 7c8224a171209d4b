package kube

import (
	"context"
	"fmt"

	"github.com/kyyard/kyyard/kube/internal/apply"
	"github.com/kyyard/kyyard/kube/internal/guards"
)

// CreateTemplate returns the YAML a new object of kind (a plugin id or
// alias, or any resource the API server serves, CRDs included) starts
// from in `:create`: the template of a common kind (ConfigMap, Secret,
// Service, Deployment, StatefulSet, DaemonSet, Job, CronJob, Namespace,
// ServiceAccount, PersistentVolumeClaim, Ingress, PodDisruptionBudget)
// or, for any other, apiVersion, kind and metadata as discovery maps the
// kind, in namespace (the Client's namespace when ""; left out for
// cluster-scoped kinds). It runs the guards that come before any editing
// first: read-only, and the SelfSubjectAccessReview of create of the
// resource in the namespace; the text is then planned with PlanApply and
// sent with ApplyManifests (server-side apply, field manager kyyard).
// Errors: no REST config; a *Refusal (read_only, forbidden); a resource
// the API server does not serve (not_found); a namespace that is no
// DNS-1123 label (invalid).
func (c *Client) CreateTemplate(ctx context.Context, kind Kind, namespace string) (string, error) {
	o, err := c.objectClients()
	if err != nil {
		return "", err
	}
	if namespace == "" {
		namespace = c.namespace
	}
	t, err := c.resolve(o, kind, namespace, "template")
	if err != nil {
		return "", err
	}
	text, err := apply.Template(t.mapping.Resource, t.gvk, t.namespaced(), t.namespace)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	vs, err := c.guards.Run(ctx, guards.Write{Access: []guards.AccessCheck{{
		Verb: "create", Group: t.mapping.Resource.Group, Resource: t.mapping.Resource.Resource, Namespace: t.namespace}}})
	if err != nil {
		return "", err
	}
	if r := vs.Refusal(); r != nil {
		return "", r
	}
	return text, nil
}
