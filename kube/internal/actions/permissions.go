package actions

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// Permissions asks the API server which of the actions kyyard offers on
// objects of kind in namespace ("" is all namespaces) the user may not do,
// with one SelfSubjectAccessReview per distinct request the actions make
// (patch of the resource, update of its scale subresource, delete), each
// answer cached for the guards' 30 seconds. It returns, per action
// denied, the reviewer's sentence ("you may not delete deployments in
// demo (…)"); actions allowed, and those whose review could not be made
// (the API server unreachable), are left out: an action is only shown
// disabled when the server said no. Every action is still checked again
// by its guards when it is run. Only the actions the kind's plugin
// declares (KindInfo.Capabilities) are asked about: a kind with none costs
// no request. ActionEdit is the workload form's apply, a patch of the
// object (CanEdit; on a pod, e edits its owner: not asked); ActionShell
// is the create of pods/exec a shell makes (CanExec: pods and their
// containers); ActionPortForward the create of pods/portforward
// (CanPortForward).
func (ac Actor) Permissions(ctx context.Context, kind vocab.Kind, namespace string) map[vocab.Action]string {
	off := map[vocab.Action]string{}
	info := ac.KindInfo(kind)
	for _, a := range vocab.KindActions() {
		if !info.Supports(a) {
			continue
		}
		ns := namespace
		if !info.Namespaced {
			ns = ""
		}
		check := AccessFor(Operation{Action: a, Ref: vocab.ObjectRef{Kind: info.ID, Namespace: ns}}, info)
		switch a {
		case vocab.ActionShell:
			check = guards.AccessCheck{Verb: "create", Resource: "pods", Subresource: "exec", Namespace: namespace}
		case vocab.ActionPortForward:
			check = guards.AccessCheck{Verb: "create", Resource: "pods", Subresource: "portforward", Namespace: namespace}
		}
		v := ac.Guards.Access(ctx, check)
		if v.Outcome == vocab.OutcomeRefuse && v.Reason == vocab.ReasonForbidden {
			off[a] = v.Sentence
		}
	}
	return off
}
