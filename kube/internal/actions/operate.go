package actions

// Operate: the everyday actions on one workload, pod or CronJob (restart,
// scale, delete, pause, resume, undo; trigger, suspend, unsuspend), each
// run after the guards of kube/internal/guards (design: "Guards, and two
// policies"). Plan answers the guards'
// verdicts for a confirmation screen without writing; Operate runs the
// same guards, refuses what is refused or unconfirmed, then writes.

import (
	"context"
	"fmt"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
)

// Actor runs the actions and their guards over plain inputs; package
// kube's Client builds one from its own clientset, guard pipeline and kind
// resolver. Its zero value is not usable: every field is required.
type Actor struct {
	// CS is the clientset the actions read and write with.
	CS kubernetes.Interface
	// Guards is the guard pipeline (read-only, access reviews cached 30 s,
	// the policy's treatment of warnings) every action runs first.
	Guards *guards.Checker
	// KindInfo describes the kind a plugin id or alias names (its
	// Capabilities say which actions it has); it may ask discovery, so
	// it is called only after read-only let the action through.
	KindInfo func(vocab.Kind) vocab.KindInfo
	// Metadata returns the metadata-only client
	// (k8s.io/client-go/metadata) through which an action on a kind other
	// than pods and the workloads reads and deletes its object; nil, or
	// its error (a Client made from a clientset has no connection to build
	// one from), fails such an action with that error.
	Metadata func() (metadata.Interface, error)
	// Dependents counts, by kind, the objects kyyard has read (its caches)
	// in namespace ("" for every namespace) whose ownerReferences name uid,
	// and returns the kinds it looked in; nil: none is known.
	Dependents func(namespace, uid string) (map[vocab.Kind]int, []vocab.Kind)
	// Now is the clock a trigger names its Job by (TriggeredJobName);
	// nil is time.Now. The one optional field.
	Now func() time.Time
}

// Operation is one action on one object.
type Operation struct {
	// Ref is the object and what the person saw of it.
	Ref vocab.ObjectRef
	// Action is what to do.
	Action vocab.Action
	// Replicas is ActionScale's target, 0..vocab.MaxReplicas.
	Replicas int32
	// CurrentReplicas, when set, is the replicas the person saw before
	// asking for Replicas (the scale dialog's "replicas now"): a scale of
	// an object whose replicas are other by now is refused as a conflict,
	// as `kubectl scale --current-replicas` refuses it, so a scale another
	// writer made in between is never overwritten unseen.
	CurrentReplicas *int32
	// GracePeriodSeconds is a pod delete's grace period in seconds; nil
	// keeps the pod's own terminationGracePeriodSeconds. 0 without Force
	// becomes 1, as `kubectl delete --grace-period=0` does
	// (k8s.io/kubectl/pkg/cmd/delete/delete.go), so a pod is never dropped
	// from the API before its kubelet has stopped it by accident.
	GracePeriodSeconds *int64
	// Force deletes a pod at once (grace period 0), as `kubectl delete
	// --force --grace-period=0`: the pod leaves the API without waiting
	// for its node to confirm its containers stopped. A grace period above
	// 0 with Force is refused (invalid), as kubectl refuses it. Pods only.
	Force bool
	// Confirmed are the reasons of the warnings the person confirmed
	// (Verdicts.Unconfirmed): application_managed and pvc_retention after
	// typing the object's name (Verdict.Confirm), autoscaled and
	// pod_security after a plain yes.
	Confirmed []vocab.Reason
}

// OperateOutcome is what one Operate call did, one line of a bulk action's
// outcome list.
type OperateOutcome struct {
	// Op is the operation asked for.
	Op Operation
	// Reason is "" when the action was done (or there was nothing to do),
	// else the code it was refused with (forbidden, conflict, paused,
	// application_managed, pvc_retention, read_only, not_found, invalid,
	// admission_denied, ...).
	Reason vocab.Reason
	// Detail is a sentence for people: what was done ("restarted
	// demo/deployments/web: its pods are replaced"), or why not.
	Detail string
	// Verdicts are the guards' answers, in the order they ran.
	Verdicts vocab.Verdicts
	// ResourceVersion is the object's resourceVersion after the write, ""
	// after a delete or when nothing was written; after a trigger, the
	// created Job's.
	ResourceVersion string
	// Created is the object the action created, zero when it created
	// none: a trigger's Job (its Kind "jobs", namespace and name; no UID).
	Created vocab.ObjectRef
	// Written reports whether a write reached the API server and was accepted.
	Written bool
}

// OK reports whether the action was done (or there was nothing to do).
func (o OperateOutcome) OK() bool { return o.Reason == "" }

// Plan runs op's guards without writing, for a confirmation
// screen: read-only (no request at all when it refuses), the checks of
// the action's own rules (a kind without the action, replicas out of
// 0..MaxReplicas, a paused Deployment's restart or undo, no previous
// revision; a trigger of a CronJob whose template has no container, or
// whose Job's name is taken), the SelfSubjectAccessReview of the exact
// verb, resource, subresource and namespace (cached 30 s), the object read
// fresh against
// the UID (and resourceVersion) the person saw, and then the guards the
// action needs: another tool's markers, the namespace's Pod Security level
// (actions that create pods: a trigger and an unsuspend too), a
// HorizontalPodAutoscaler (scale), the claims a StatefulSet scale-down or
// delete removes. It stops at the first
// refusal of read-only, the action's rules, access and the fresh read, and
// after the rules checked on the object read (a paused Deployment, no
// previous revision) refuse or find nothing to write (already paused, the
// same replicas): later guards are not asked then.
// Errors: op itself is malformed (an unknown action or kind, no UID;
// wrapping vocab.ErrInvalid, vocab.ReasonOf: invalid) or a read the guards
// need failed for another reason than the object being gone (which is a
// not_found verdict).
func (ac Actor) Plan(ctx context.Context, op Operation) (vocab.Verdicts, error) {
	p, err := ac.planOperation(ctx, op)
	return p.verdicts, err
}

// Operate runs op's guards (Plan) and, when none refuses and
// every warning's reason is in op.Confirmed, writes:
//   - restart: a strategic merge patch {"metadata":{"resourceVersion":RV},
//     "spec":{"template":{"metadata":{"annotations":
//     {"kubectl.kubernetes.io/restartedAt":"<RFC 3339 now>"}}}}};
//   - scale: an update of the scale subresource with spec.replicas at RV;
//   - pause / resume: a strategic merge patch of spec.paused at RV;
//   - undo: kubectl's JSON patch (replace /spec/template and
//     /metadata/annotations) with a replace of /metadata/resourceVersion
//     as its precondition;
//   - delete: DeleteOptions{Preconditions: UID (and RV for a workload),
//     PropagationPolicy: Background}, a pod's grace period as asked;
//   - trigger: a create of the Job JobFromCronJob builds from the CronJob
//     read (named TriggeredJobName), in its namespace (the outcome's
//     Created names it); a name taken by then is refused (name_taken);
//   - suspend / unsuspend: a strategic merge patch of spec.suspend at RV.
//
// RV is the resourceVersion of the guards' fresh read. A 409 the API server
// answers is retried (up to 5 times) only when the object read again shows
// that status alone moved (same UID and generation); otherwise it is a
// conflict. The outcome says what was done or why not; the error is nil
// when it was done, the *Refusal (same Reason and Detail as the outcome)
// when it was refused by a guard or the API server, and any other error
// for a malformed op or a failed read (the outcome's Reason is then
// ReasonOf it).
func (ac Actor) Operate(ctx context.Context, op Operation) (OperateOutcome, error) {
	out := OperateOutcome{Op: op}
	p, err := ac.planOperation(ctx, op)
	out.Verdicts = p.verdicts
	if err != nil {
		out.Reason, out.Detail = vocab.ReasonOf(err), err.Error()
		return out, err
	}
	if r := p.verdicts.Unconfirmed(op.Confirmed); r != nil {
		out.Reason, out.Detail = r.Reason, r.Detail
		return out, r
	}
	if p.noop != "" {
		out.Detail = p.noop
		return out, nil
	}
	rv, err := ac.writeRetrying(ctx, op, p.info, p.target, p.write)
	if err != nil {
		r := guards.WriteRefusal(err)
		out.Reason, out.Detail = r.Reason, r.Detail
		return out, r
	}
	out.Written, out.ResourceVersion, out.Detail, out.Created = true, rv, p.done, p.created
	return out, nil
}

// validOperation checks op's shape: a name, a UID and an Operate action.
// Whether its kind has the action, and whether it needs a namespace, is
// its plugin's answer (actionRule). Errors wrap vocab.ErrInvalid.
func validOperation(op Operation) error {
	r := op.Ref
	switch {
	case r.Name == "":
		return fmt.Errorf("%w: %s: an action needs the object's name", vocab.ErrInvalid, r)
	case r.UID == "":
		return fmt.Errorf("%w: %s: an action needs the UID the person saw", vocab.ErrInvalid, r)
	}
	switch op.Action {
	case vocab.ActionRestart, vocab.ActionScale, vocab.ActionDelete, vocab.ActionPause, vocab.ActionResume, vocab.ActionUndo,
		vocab.ActionTrigger, vocab.ActionSuspend, vocab.ActionUnsuspend, vocab.ActionCordon, vocab.ActionUncordon:
	default:
		return fmt.Errorf("%w: unknown action %q", vocab.ErrInvalid, op.Action)
	}
	return nil
}
