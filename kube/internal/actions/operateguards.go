package actions

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// opTarget is the object an action reads fresh: a workload, a pod, a
// CronJob, or the metadata of an object of any other kind.
type opTarget struct {
	wo   objects.PodOwner // a workload; zero for any other kind
	pod  *corev1.Pod      // a pod; nil for any other kind
	cj   *batchv1.CronJob // a CronJob read for its own actions; nil for the others
	node *corev1.Node     // a Node read for cordon and uncordon; nil for the others
	meta *metav1.ObjectMeta
}

// opWrite sends an action's write against the fresh read t and returns
// the object's resourceVersion after it ("" after a delete).
type opWrite func(ctx context.Context, t opTarget) (string, error)

// operationPlan is an action made ready to send.
type operationPlan struct {
	// verdicts are the guards' verdicts, in the order they ran (guards.Checker.Run).
	verdicts vocab.Verdicts
	target   opTarget
	write    opWrite
	// noop, when set, says why there is nothing to write (already
	// paused, already at that many replicas, the template already matches
	// the previous revision).
	noop string
	// done is the outcome's detail after the write.
	done string
	// info is the kind's KindInfo, as the rule stage resolved it.
	info vocab.KindInfo
	// created is the object the write creates (a trigger's Job), zero
	// when none.
	created vocab.ObjectRef
}

// planOperation runs op's guards (see Plan) through the guard
// pipeline (guards.Checker.Run) and prepares its write: the action's rules against
// its kind (actionRule), the access review (AccessFor), the object read
// fresh against what the person saw (guardSeen) and the action's rules
// that need it (prepareWrite: a refusal, or a GuardAction verdict with
// Nothing set when there is nothing to send), then otherGuards.
func (ac Actor) planOperation(ctx context.Context, op Operation) (operationPlan, error) {
	if err := validOperation(op); err != nil {
		return operationPlan{}, err
	}
	var p operationPlan
	vs, err := ac.Guards.Run(ctx, guards.Write{
		Rule: func() vocab.Verdict {
			p.info = ac.KindInfo(op.Ref.Kind) // may ask discovery: not before read-only
			if p.info.ID != op.Ref.Kind {
				p.info = vocab.KindInfo{ID: op.Ref.Kind} // an alias: an action names its kind by plugin id
			}
			return actionRule(op, p.info)
		},
		AccessOf: func() []guards.AccessCheck { return []guards.AccessCheck{AccessFor(op, p.info)} },
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			t, err := ac.readTarget(ctx, op.Ref, p.info)
			if apierrors.IsNotFound(err) {
				return vocab.Verdicts{guards.Gone(string(op.Ref.Kind) + "/" + op.Ref.Name + " no longer exists")}, nil
			}
			if err != nil {
				return nil, err
			}
			p.target = t
			if why, ok := alreadyDeleting(op, t.meta); ok {
				p.noop = why
				return vocab.Verdicts{{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Nothing: true, Sentence: why + ": nothing to send"},
					guards.Finalizers(t.meta)}, nil
			}
			vs := vocab.Verdicts{guardSeen(op, t.meta)}
			if vs.Refusal() != nil {
				return vs, nil
			}
			ruled, err := ac.prepareWrite(ctx, op, &p)
			vs = append(vs, ruled...)
			if p.noop != "" {
				// The action's verdict says so before the person confirms, not
				// "kubectl would allow" (kubectl itself refuses an already paused
				// Deployment's pause: "is already paused").
				vs = append(vs, vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Nothing: true,
					Sentence: p.noop + ": nothing to send"})
			}
			return vs, err
		},
		Risks: func(ctx context.Context) (vocab.Verdicts, error) { return ac.otherGuards(ctx, op, p.target), nil },
	})
	p.verdicts = vs
	return p, err
}

// actionRule checks what op asks against its kind alone, before any
// request: whether the kind has the action (info, its plugin's
// Capabilities), replicas within 0..MaxReplicas, a pod delete's grace
// period and force (kubectl delete's rules).
func actionRule(op Operation, info vocab.KindInfo) vocab.Verdict {
	refuse := func(s string) vocab.Verdict {
		return vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonInvalid, Sentence: s}
	}
	kind := op.Ref.Kind
	switch {
	case !info.Supports(op.Action):
		s := info.NotOffered(op.Action)
		switch {
		case info.Capabilities.Has(vocab.CanEditOwner):
			s += ": " + string(op.Action) + " the Deployment, StatefulSet or DaemonSet that controls it instead"
		case op.Action == vocab.ActionScale && kind == vocab.KindDaemonSets:
			s += ": a DaemonSet has no replicas (it runs one pod on each node it selects)"
		}
		return refuse(s)
	case info.Namespaced && op.Ref.Namespace == "":
		return refuse(string(kind) + " live in namespaces: the action needs the object's namespace")
	case !info.Namespaced && op.Ref.Namespace != "":
		return refuse(string(kind) + " are cluster-scoped: the action takes no namespace")
	case op.Action == vocab.ActionScale && (op.Replicas < 0 || op.Replicas > vocab.MaxReplicas):
		return refuse(fmt.Sprintf("replicas %d is outside 0..%d", op.Replicas, vocab.MaxReplicas))
	case (op.Force || op.GracePeriodSeconds != nil) && (kind != vocab.KindPods || op.Action != vocab.ActionDelete):
		return refuse("a grace period and force are for deleting a pod only")
	case op.GracePeriodSeconds != nil && *op.GracePeriodSeconds < 0:
		return refuse(fmt.Sprintf("grace period %d s is negative", *op.GracePeriodSeconds))
	case op.Force && op.GracePeriodSeconds != nil && *op.GracePeriodSeconds > 0:
		return refuse("--force and --grace-period greater than 0 cannot be specified together")
	case op.Force:
		return vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Sentence: "Immediate deletion does not wait for confirmation " +
			"that the running resource has been terminated. The resource may continue to run on the cluster indefinitely."}
	}
	return vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Sentence: "kubectl would allow " + string(op.Action) + " of " + string(kind)}
}

// AccessFor is the access review of op's exact request on an object of
// the kind info describes (its plugin's or discovery's group and
// resource; the plugin id when it names no resource): patch of the object
// (restart, pause, resume, undo), update of its scale subresource (scale),
// delete of the object; create of jobs (batch) in the CronJob's
// namespace (trigger), patch of the CronJob (suspend, unsuspend). The
// namespace is op's ("" for a cluster-scoped kind, or for all namespaces).
func AccessFor(op Operation, info vocab.KindInfo) guards.AccessCheck {
	a := guards.AccessCheck{Group: info.Group, Resource: info.Resource, Namespace: op.Ref.Namespace}
	if a.Resource == "" {
		a.Resource = string(op.Ref.Kind)
	}
	switch op.Action {
	case vocab.ActionTrigger:
		a.Verb, a.Group, a.Resource = "create", "batch", string(vocab.KindJobs)
	case vocab.ActionScale:
		a.Verb, a.Subresource = "update", "scale"
	case vocab.ActionDelete:
		a.Verb = "delete"
	default:
		a.Verb = "patch"
	}
	return a
}

// readTarget reads ref's object fresh: a pod, a workload, a CronJob or a
// Node through the typed clients, an object of any other kind (info: its group, version,
// resource and scope) as metadata only (readMeta). Errors are the API
// server's.
func (ac Actor) readTarget(ctx context.Context, ref vocab.ObjectRef, info vocab.KindInfo) (opTarget, error) {
	switch ref.Kind {
	case vocab.KindCronJobs:
		return ac.readCronJob(ctx, ref)
	case vocab.KindNodes:
		return ac.readNode(ctx, ref)
	case vocab.KindPods:
		pod, err := ac.CS.CoreV1().Pods(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
		if err != nil {
			return opTarget{}, err
		}
		return opTarget{pod: pod, meta: &pod.ObjectMeta}, nil
	case vocab.KindDeployments, vocab.KindStatefulSets, vocab.KindDaemonSets:
		wo, err := objects.ReadEditable(ctx, ac.CS, ref.Workload())
		if err != nil {
			return opTarget{}, err
		}
		return opTarget{wo: wo, meta: wo.Meta}, nil
	}
	meta, err := ac.readMeta(ctx, ref, info)
	if err != nil {
		return opTarget{}, err
	}
	return opTarget{meta: meta}, nil
}

// alreadyDeleting says why a delete has nothing to send when the API
// server already marked the object for deletion (metadata.deletionTimestamp
// set, the UID the person saw; a pod excepted, which may be deleted again
// to force it). ok is false for anything else.
func alreadyDeleting(op Operation, meta *metav1.ObjectMeta) (why string, ok bool) {
	if op.Action != vocab.ActionDelete || meta.DeletionTimestamp == nil || op.Ref.Kind == vocab.KindPods || string(meta.UID) != op.Ref.UID {
		return "", false
	}
	return fmt.Sprintf("%s is already being deleted (since %s)", op.Ref, meta.DeletionTimestamp.UTC().Format(time.RFC3339)), true
}

// guardSeen compares the object read fresh with what the person saw: the
// same UID (else it was deleted and created again: conflict), not being
// deleted (a pod being deleted may still be deleted again, to force it),
// and, when the person's resourceVersion is known and moved, the same
// generation (status moved alone) or a conflict.
func guardSeen(op Operation, meta *metav1.ObjectMeta) vocab.Verdict {
	ref := op.Ref
	name := string(ref.Kind) + "/" + ref.Name
	conflict := func(s string) vocab.Verdict {
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict, Sentence: s}
	}
	switch {
	case string(meta.UID) != ref.UID:
		return conflict(name + " was deleted and created again since you saw it (its UID changed)")
	case meta.DeletionTimestamp != nil && !(ref.Kind == vocab.KindPods && op.Action == vocab.ActionDelete):
		return conflict(name + " is being deleted")
	case ref.ResourceVersion == "" || ref.ResourceVersion == meta.ResourceVersion:
		return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass, Sentence: name + " is the object you saw (UID " + ref.UID + ")"}
	case ref.Generation == 0 || ref.Generation != meta.Generation:
		return conflict(fmt.Sprintf("%s was changed since you saw it (resourceVersion %s is now %s)", name, ref.ResourceVersion, meta.ResourceVersion))
	}
	return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass,
		Sentence: fmt.Sprintf("%s is as you saw it (generation %d; only its status moved)", name, meta.Generation)}
}

// prepareWrite checks the action's rules that need the object read
// (p.target) and returns their GuardAction verdicts (a refusal, when one
// fails), setting p's write, or p.noop when there is nothing to write.
// Errors: a read the rules need failed (an undo's ReplicaSets).
func (ac Actor) prepareWrite(ctx context.Context, op Operation, p *operationPlan) (vocab.Verdicts, error) {
	var ruled vocab.Verdicts
	t := p.target
	rule := func(v vocab.Verdict) { v.Guard = vocab.GuardAction; ruled = append(ruled, v) }
	paused := t.wo.Paused != nil && *t.wo.Paused
	switch op.Action {
	case vocab.ActionTrigger, vocab.ActionSuspend, vocab.ActionUnsuspend:
		return ac.prepareCronJob(ctx, op, p)
	case vocab.ActionCordon, vocab.ActionUncordon:
		return ac.prepareCordon(op, p)
	case vocab.ActionRestart:
		if paused {
			// objectrestarter.go's own text.
			rule(vocab.Verdict{Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonPaused, Sentence: "can't restart paused deployment (run rollout resume first)"})
			return ruled, nil
		}
		p.write = func(ctx context.Context, t opTarget) (string, error) {
			return ac.patchOp(ctx, op.Ref, restartPatch(t.meta.ResourceVersion, time.Now()))
		}
		p.done = "restarted " + op.Ref.String() + ": its pods are replaced"
	case vocab.ActionScale:
		from := objects.ReplicasOf(t.wo.Replicas)
		if op.CurrentReplicas != nil && *op.CurrentReplicas != from {
			ruled = append(ruled, vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict,
				Sentence: fmt.Sprintf("%s has %s now, not the %d you saw: it was scaled since; scale it again from %d",
					op.Ref, vocab.Plural(from, "replica"), *op.CurrentReplicas, from)})
			return ruled, nil
		}
		if from == op.Replicas {
			p.noop = fmt.Sprintf("%s already has %s", op.Ref, vocab.Plural(from, "replica"))
			return ruled, nil
		}
		p.write = func(ctx context.Context, t opTarget) (string, error) {
			return ac.updateScale(ctx, op.Ref, t.meta.ResourceVersion, op.Replicas)
		}
		p.done = fmt.Sprintf("scaled %s from %d to %s", op.Ref, from, vocab.Plural(op.Replicas, "replica"))
	case vocab.ActionPause, vocab.ActionResume:
		want := op.Action == vocab.ActionPause
		if paused == want {
			// rollout_pause.go and rollout_resume.go print these.
			p.noop = op.Ref.String() + map[bool]string{true: " already paused", false: " already resumed"}[want]
			return ruled, nil
		}
		p.write = func(ctx context.Context, t opTarget) (string, error) {
			return ac.patchOp(ctx, op.Ref, specFlagPatch(t.meta.ResourceVersion, "paused", want))
		}
		p.done = map[bool]string{true: "paused ", false: "resumed "}[want] + op.Ref.String()
	case vocab.ActionUndo:
		return ac.prepareUndo(ctx, op, p, paused)
	case vocab.ActionDelete:
		p.write = func(ctx context.Context, t opTarget) (string, error) {
			return "", ac.deleteOp(ctx, op, p.info, t)
		}
		p.done = "deleted " + op.Ref.String()
		if f := t.meta.Finalizers; len(f) > 0 && t.pod == nil {
			p.done = fmt.Sprintf("marked %s for deletion: it stays until %s removed (%s)", op.Ref,
				map[bool]string{true: "its finalizer is", false: "its finalizers are"}[len(f) == 1], strings.Join(f, ", "))
		}
		if op.Force {
			p.done = "force-deleted " + op.Ref.String() + " (its containers may still run on the node)"
		}
	}
	return ruled, nil
}

// otherGuards runs the guards an action needs beyond read-only, access and
// the fresh read: another tool's markers (every workload action, and a
// pod's delete when no controller owns it: deleting a controlled pod is
// undone by its controller anyway); the namespace's Pod Security level for
// actions that create pods (restart, scale up, resume, undo); the
// autoscaler and the claims a StatefulSet scale-down deletes (scale); the
// claims a StatefulSet's delete deletes. A CronJob's trigger creates pods
// (its Job's) and its unsuspend lets its schedule create them again: both
// are checked against the namespace's Pod Security level.
func (ac Actor) otherGuards(ctx context.Context, op Operation, t opTarget) vocab.Verdicts {
	var vs vocab.Verdicts
	if t.pod == nil || metav1.GetControllerOf(t.pod) == nil {
		vs = append(vs, ac.Guards.Managed(op.Ref.Name, t.meta.Labels, t.meta.Annotations))
	}
	switch op.Action {
	case vocab.ActionRestart, vocab.ActionResume, vocab.ActionUndo, vocab.ActionTrigger, vocab.ActionUnsuspend:
		vs = append(vs, ac.Guards.PodSecurity(ctx, op.Ref.Namespace))
	case vocab.ActionScale:
		from := objects.ReplicasOf(t.wo.Replicas)
		if op.Replicas > from {
			vs = append(vs, ac.Guards.PodSecurity(ctx, op.Ref.Namespace))
		}
		vs = append(vs, ac.Guards.Claims(ctx, t.wo, from, op.Replicas), ac.Guards.Autoscaler(ctx, op.Ref.Workload()))
	case vocab.ActionDelete:
		if t.wo.StatefulSet != nil {
			vs = append(vs, ac.Guards.ClaimsDeleted(ctx, t.wo))
		}
		vs = append(vs, guards.Finalizers(t.meta))
		if op.Ref.Kind == vocab.KindNamespaces || op.Ref.Kind == vocab.KindCustomResourceDefinitions {
			vs = append(vs, ac.Guards.ContentsDeleted(op.Ref.Kind, op.Ref.Name))
		} else {
			vs = append(vs, ac.dependents(op, t))
		}
	}
	return vs
}

// dependents is a delete's verdict on what it takes with it
// (guards.Dependents): the objects of the kinds kyyard has read that name
// t in their ownerReferences (Actor.Dependents), and t's controller.
func (ac Actor) dependents(op Operation, t opTarget) vocab.Verdict {
	var counts map[vocab.Kind]int
	var seen []vocab.Kind
	if ac.Dependents != nil {
		counts, seen = ac.Dependents(op.Ref.Namespace, string(t.meta.UID))
	}
	var controller string
	if c := metav1.GetControllerOfNoCopy(t.meta); c != nil {
		controller = c.Kind + " " + c.Name
	}
	return guards.Dependents(counts, seen, controller)
}
