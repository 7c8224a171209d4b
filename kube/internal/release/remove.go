package release

// Remove: an instance's objects deleted by its labels, claims kept, the
// record last.

import (
	"context"
	"sort"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// removeTasks lists what Remove deletes, all pending: the instance's
// Deployments, Services, ConfigMaps and Secrets (each found by the labels
// app.kubernetes.io/managed-by: kyyard and app.kubernetes.io/instance:
// <instance>; an object without them is never listed, so never touched),
// in that order and by name; then its claims as keep steps; then the
// record Secret (kyyard-app-<instance>, when it carries the record's
// labels).
func (c Deployer) removeTasks(ctx context.Context, ns, instance string) ([]*task, error) {
	var tasks, claims []*task
	var record *task
	for _, r := range deployResources {
		found, err := c.listInstance(ctx, ns, r.kind, instanceSelector(instance))
		if err != nil {
			return nil, err
		}
		sort.Slice(found, func(i, j int) bool { return found[i].meta.GetName() < found[j].meta.GetName() })
		for i := range found {
			l := &found[i]
			t := &task{old: l, step: DeployStep{Service: l.meta.GetLabels()[render.LabelName], Kind: l.kind,
				Name: l.meta.GetName(), Action: StepDelete, Outcome: StepPending}}
			switch {
			case l.kind == kindSecret && l.meta.GetLabels()[RecordLabel] == "true":
				if l.meta.GetName() != recordName(instance) {
					continue
				}
				t.step.Action, t.step.Service, t.step.Detail = StepRecord, "", "the instance record"
				record = t
			case l.kind == kindClaim:
				t.step.Action, t.step.Detail = StepKeep, "retained"
				claims = append(claims, t)
			default:
				tasks = append(tasks, t)
			}
		}
	}
	tasks = append(tasks, claims...)
	if record != nil {
		tasks = append(tasks, record)
	}
	return tasks, nil
}

// PlanRemove lists the steps Remove would run, all pending (claims as keep
// steps with detail "retained"), nothing written. Errors: a list failed
// (forbidden, unavailable, ...).
func (c Deployer) PlanRemove(ctx context.Context, namespace, instance string) (DeployResult, error) {
	tasks, err := c.removeTasks(ctx, namespace, instance)
	if err != nil {
		return DeployResult{Reason: vocab.ReasonOf(err)}, err
	}
	r := &runner{tasks: tasks}
	return r.result(), nil
}

// Remove deletes an instance (removeTasks), its guards run by the guard
// pipeline (guards.Checker.Run): read-only refuses everything;
// then the access reviews of delete (and list) of deployments, services,
// configmaps and secrets in the namespace; a refusal skips every step.
// Each delete is foreground (a Deployment's ReplicaSets and pods go
// before it) with the UID listed as precondition; one already gone is
// done. Claims are kept: skipped steps, detail "retained" (a separate,
// confirmed action deletes them). The record goes last. The first delete
// that fails ends the run and every later step is skipped; progress (when
// set) is called with every step as it changes. The error is nil on
// success, else the *Refusal of the refusal or the failed step (a failed
// list: its error).
func (c Deployer) Remove(ctx context.Context, namespace, instance string, progress func(DeployStep)) (DeployResult, error) {
	var access []guards.AccessCheck
	for _, res := range deployResources {
		verbs := []string{"list", "delete"}
		if res.kind == kindClaim {
			verbs = []string{"list"}
		}
		for _, v := range verbs {
			access = append(access, guards.AccessCheck{Verb: v, Group: res.group, Resource: res.resource, Namespace: namespace})
		}
	}
	vs, _ := c.Guards.Run(ctx, guards.Write{Access: access}) // no stage that reads: no error
	tasks, err := c.removeTasks(ctx, namespace, instance)
	if ref := vs.Refusal(); ref != nil {
		if err != nil {
			return DeployResult{Reason: ref.Reason}, ref
		}
		r := &runner{tasks: tasks, progress: progress}
		r.refuseAll(ref)
		return r.result(), ref
	}
	if err != nil {
		return DeployResult{Reason: vocab.ReasonOf(err)}, err
	}
	r := &runner{tasks: tasks, progress: progress}
	for _, t := range tasks {
		if t.step.Action == StepKeep {
			r.set(t, StepSkipped, "", "")
			continue
		}
		r.set(t, StepRunning, "", "")
		err := c.deleteObject(ctx, namespace, t.old.kind, t.old.meta.GetName(), string(t.old.meta.GetUID()))
		detail := "deleted"
		if apierrors.IsNotFound(err) {
			err, detail = nil, "already gone"
		}
		if err != nil {
			ref := r.fail(t, c.deployWriteRefusal(ctx, namespace, t.old.kind, "delete", err).Reason, apiMessage(err))
			return r.result(), ref
		}
		r.set(t, StepDone, "", detail)
	}
	return r.result(), nil
}

// recordSelector selects every record Secret.
func recordSelector() string {
	return labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedBy, RecordLabel: "true"}).String()
}
