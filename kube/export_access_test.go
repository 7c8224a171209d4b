package kube

import (
	"github.com/kyyard/kyyard/kube/internal/actions"
	"github.com/kyyard/kyyard/kube/internal/objects"
)

// AccessOfOperation exposes actions.AccessFor to the external tests: the access
// review Operate and Permissions make for op on an object of the kind info describes.
func AccessOfOperation(op Operation, info KindInfo) AccessRequest {
	a := actions.AccessFor(op, info)
	return AccessRequest{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource}
}

// WorkloadResourceOf exposes objects.EditableResource (the resource workloadform's applyGuards'
// access review of the workload form's patch names) to the external tests.
func WorkloadResourceOf(kind Kind) (string, error) { return objects.EditableResource(kind) }
