package kube

import (
	"context"
	"slices"
)

// permissionActions are the actions Permissions asks about, in order.
var permissionActions = []Action{ActionRestart, ActionScale, ActionDelete, ActionPause, ActionResume, ActionUndo, ActionEdit,
	ActionShell, ActionPortForward}

// Permissions asks the API server which of the actions kyyard offers on
// objects of kind in namespace ("" is all namespaces) the user may not do,
// with one SelfSubjectAccessReview per distinct request the actions make
// (patch of the resource, update of its scale subresource, delete), each
// answer cached for the guards' 30 seconds. It returns, per action
// denied, the reviewer's sentence ("you may not delete deployments in
// demo (…)"); actions allowed, and those whose review could not be made
// (the API server unreachable), are left out: an action is only shown
// disabled when the server said no. Every action is still checked again
// by its guards when it is run. ActionEdit (the workload form's apply, a
// patch) is asked about only for the kinds the form edits: Deployments,
// StatefulSets and DaemonSets (on a pod, e edits its owner). On pods,
// scale is not asked about (s there is the pod's shell): ActionShell is,
// the create of pods/exec a shell makes; ActionPortForward is asked about
// for the kinds a port-forward starts from (create pods/portforward).
func (c *Client) Permissions(ctx context.Context, kind Kind, namespace string) map[Action]string {
	off := map[Action]string{}
	for _, a := range permissionActions {
		check := accessFor(Operation{Action: a, Ref: ObjectRef{Kind: kind, Namespace: namespace}})
		switch {
		case a == ActionEdit && kind != KindDeployments && kind != KindStatefulSets && kind != KindDaemonSets,
			a == ActionScale && kind == KindPods,
			a == ActionShell && kind != KindPods,
			a == ActionPortForward && !slices.Contains(forwardKinds, kind):
			continue
		case a == ActionShell:
			check = accessCheck{verb: "create", resource: "pods", subresource: "exec", namespace: namespace}
		case a == ActionPortForward:
			check = accessCheck{verb: "create", resource: "pods", subresource: "portforward", namespace: namespace}
		}
		v := c.guardAccess(ctx, check)
		if v.Outcome == OutcomeRefuse && v.Reason == ReasonForbidden {
			off[a] = v.Sentence
		}
	}
	return off
}
