package kube

import "github.com/kyyard/kyyard/kube/internal/objects"

// AccessOfOperation exposes accessFor to the external tests: the access
// review Operate and Permissions make for op.
func AccessOfOperation(op Operation) AccessRequest {
	a := accessFor(op)
	return AccessRequest{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource}
}

// WorkloadResourceOf exposes workloadResource (the resource applyGuards'
// access review of the workload form's patch names) to the external tests.
func WorkloadResourceOf(kind Kind) (string, error) { return objects.EditableResource(kind) }
