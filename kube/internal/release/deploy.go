package release

// Deploy and PlanDeploy: an app described by a render.Request applied
// service by service after every precondition passed (deployplan.go),
// followed until available (deployrollout.go), pruned, and recorded in the
// instance record (deployrecord.go, where the protocol two deploys at once
// follow is described).

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// renderObjects renders req to the objects a deploy applies. Errors: the
// request is not valid (render.ErrInvalid, wrapped with vocab.ErrInvalid so
// that ReasonOf answers invalid).
func renderObjects(req render.Request) ([]planned, error) {
	rendered, err := render.Objects(req)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", vocab.ErrInvalid, err)
	}
	out := make([]planned, 0, len(rendered))
	for _, r := range rendered {
		if kindOf(r.Object) == "" {
			return nil, fmt.Errorf("%w: render made a %T, which kyyard does not deploy", vocab.ErrInvalid, r.Object)
		}
		out = append(out, planned{service: r.Service, obj: r.Object})
	}
	return out, nil
}

// PlanDeploy runs a deploy's preconditions without writing (see
// prepareDeploy: read-only, access reviews of get/list/create/update of
// each kind and delete of the kinds pruned, Pod Security, name_taken,
// claim_immutable) and answers the steps Deploy would run (all pending),
// every verdict, the record's version and generation (to give back in
// DeployOptions), the diff of each planned object (planDiffs: "" new,
// DiffUnchanged, or what kyyard last applied, else the live object cut to
// the rendered fields, against the plan; Secret values as sizes) and,
// when no guard
// refuses, the API server's dry run of each write (DryRun: "" accepted,
// else the server's text; claims that exist are not written and not
// dry-run). Errors: an invalid request (ReasonOf: invalid) or a read that
// failed.
func (c Deployer) PlanDeploy(ctx context.Context, req render.Request) (DeployPlan, error) {
	objs, err := renderObjects(req)
	if err != nil {
		return DeployPlan{}, err
	}
	st, err := c.prepareDeploy(ctx, req.Namespace, req.Instance, objs)
	if err != nil {
		return DeployPlan{}, err
	}
	plan := DeployPlan{Verdicts: st.verdicts, Diff: map[string]string{}, DryRun: map[string]string{},
		RecordVersion: st.record.version, RecordGeneration: st.record.generation}
	for _, t := range st.tasks {
		plan.Steps = append(plan.Steps, t.step)
		switch t.step.Action {
		case StepPrune:
			plan.Prune = append(plan.Prune, objectKey(t.step.Kind, t.step.Name))
		case StepKeep:
			if t.old != nil {
				plan.Keep = append(plan.Keep, objectKey(t.step.Kind, t.step.Name))
			}
		}
	}
	previous := map[string]runtime.Object{}
	if st.record.mine && st.record.request != nil {
		// A record that no longer renders leaves the live objects to
		// compare with (liveView).
		prev, _ := previousObjects(st.record.request)
		for _, p := range prev {
			previous[keyOf(p.obj)] = p.obj
		}
	}
	plan.Diff = planDiffs(objs, st.existing, previous)
	if st.verdicts.Refusal() != nil {
		return plan, nil
	}
	for _, t := range st.tasks {
		if t.step.Action != StepCreate && t.step.Action != StepUpdate {
			continue
		}
		key := objectKey(t.step.Kind, t.step.Name)
		plan.DryRun[key] = ""
		if err := c.dryRunWrite(ctx, st.ns, t); err != nil {
			plan.DryRun[key] = apiMessage(err)
		}
	}
	return plan, nil
}

// dryRunWrite sends a task's create or update with dryRun=All.
func (c Deployer) dryRunWrite(ctx context.Context, ns string, t *task) error {
	if t.step.Action == StepUpdate {
		_, err := c.updateObject(ctx, ns, forUpdate(t.existing, t.plan), metav1.DryRunAll)
		return err
	}
	_, err := c.createObject(ctx, ns, t.plan.DeepCopyObject(), metav1.DryRunAll)
	return err
}

// objectDiff is a unified diff of before and after as YAML (diffView).
func objectDiff(name string, before, after runtime.Object) string {
	a, _ := yaml.Marshal(diffView(before, nil))
	b, _ := yaml.Marshal(diffView(after, before))
	text, _ := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(string(a)), B: difflib.SplitLines(string(b)),
		FromFile: name + " (deployed)", ToFile: name + " (planned)", Context: 3,
	})
	return text
}

// runner runs a deploy's or a remove's tasks, reporting each change.
type runner struct {
	tasks    []*task
	progress func(DeployStep)
	reason   vocab.Reason
}

// set changes task i's outcome and reports it.
func (r *runner) set(t *task, outcome StepOutcome, reason vocab.Reason, detail string) {
	t.step.Outcome, t.step.Reason = outcome, reason
	if detail != "" {
		t.step.Detail = detail
	}
	if r.progress != nil {
		r.progress(t.step)
	}
}

// fail marks t failed and every later pending task skipped with the same
// reason; it returns the *Refusal of the failure.
func (r *runner) fail(t *task, reason vocab.Reason, detail string) *vocab.Refusal {
	r.set(t, StepFailed, reason, detail)
	if r.reason == "" {
		r.reason = reason
	}
	for _, later := range r.tasks {
		if later.step.Outcome == StepPending {
			r.set(later, StepSkipped, reason, "not run: "+t.step.Kind+"/"+t.step.Name+" failed")
		}
	}
	return &vocab.Refusal{Reason: reason, Detail: t.step.Kind + "/" + t.step.Name + ": " + detail}
}

// result is the steps as they stand.
func (r *runner) result() DeployResult {
	out := DeployResult{Reason: r.reason}
	for _, t := range r.tasks {
		out.Steps = append(out.Steps, t.step)
	}
	return out
}

// refuseAll reports every task skipped because of a refusal before any
// write.
func (r *runner) refuseAll(ref *vocab.Refusal) {
	r.reason = ref.Reason
	for _, t := range r.tasks {
		r.set(t, StepSkipped, ref.Reason, "not run: "+ref.Detail)
	}
}

// Deploy applies req: the preconditions of PlanDeploy run again, and any
// refusal, or any warning whose reason is not in opts.Confirmed, stops it
// before anything is written (every step skipped, the result's Reason the
// refusal's). Then, in order (each step reported through opts.Progress as
// it starts and ends):
//
//  1. the instance record is claimed (deployrecord.go: written as
//     "deploying" against opts.RecordVersion/RecordGeneration; a later
//     deploy's claim, or another instance's record, is conflict and
//     nothing is written);
//  2. per service, in the request's order: its objects in render's order
//     (Service, claims, ConfigMap, Secret, Deployment) created, or
//     updated with a PUT at the resourceVersion the preconditions read
//     (forUpdate: what kyyard renders replaced, the rest kept), a claim
//     that exists kept as it is; a 409 is read again and retried once
//     when the object is still this instance's. A write the API server
//     refuses is forbidden when the verb is not granted (asked again) and
//     admission_denied when it is, with the server's text; then its
//     Deployment's rollout is followed (deployrollout.go) until
//     available, a failure the cluster reports, or opts.Timeout: either
//     is rollout_timeout, and the objects are restored (restore steps
//     follow the skipped ones);
//  3. the instance's objects no longer planned are deleted (foreground,
//     UID precondition), claims kept (skipped, "retained");
//  4. the record is written: state deployed, the request and objects.
//
// The first step that is not a success ends the run: every later step is
// skipped (Reason: the failure's), and when the record was claimed, a
// last record step releases it. The error is nil on success, else the
// *Refusal of the first failure (or an invalid request, or a failed read
// of the preconditions).
func (c Deployer) Deploy(ctx context.Context, req render.Request, opts DeployOptions) (DeployResult, error) {
	objs, err := renderObjects(req)
	if err != nil {
		return DeployResult{Reason: vocab.ReasonInvalid}, err
	}
	pending, err := render.RecordOf(req)
	if err != nil {
		return DeployResult{Reason: vocab.ReasonInvalid}, fmt.Errorf("%w: %w", vocab.ErrInvalid, err)
	}
	st, err := c.prepareDeploy(ctx, req.Namespace, req.Instance, objs)
	if err != nil {
		return DeployResult{Reason: vocab.ReasonOf(err)}, err
	}
	r := &runner{tasks: st.tasks, progress: opts.Progress}
	if ref := st.verdicts.Unconfirmed(opts.Confirmed); ref != nil {
		r.refuseAll(ref)
		return r.result(), ref
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = DefaultDeployTimeout
	}
	d := &deployRun{c: c, st: st, r: r, timeout: timeout}
	err = d.run(ctx, pending, opts)
	return r.result(), err
}

// deployRun is one Deploy under way.
type deployRun struct {
	c       Deployer
	st      deployState
	r       *runner
	timeout time.Duration
	claimed instanceRecord
}

// run runs the tasks in order (see Deploy).
func (d *deployRun) run(ctx context.Context, pending []byte, opts DeployOptions) error {
	st, r := d.st, d.r
	var done []*task
	for i, t := range r.tasks {
		r.set(t, StepRunning, "", "")
		var detail string
		var ref *vocab.Refusal
		switch {
		case i == 0:
			d.claimed, ref = asRefusal(d.c.claimRecord(ctx, st.ns, st.instance, st.record, opts.RecordVersion, opts.RecordGeneration, pending))
			detail = fmt.Sprintf("claimed: state deploying, generation %d", d.claimed.generation)
		case t.step.Action == StepRecord:
			var objs []recordedObject
			for _, p := range st.objs {
				objs = append(objs, recordedObject{Service: p.service, Kind: kindOf(p.obj), Name: metaOf(p.obj).GetName()})
			}
			var out instanceRecord
			out, ref = asRefusal(d.c.finishRecord(ctx, st.ns, st.instance, d.claimed, pending, objs, time.Now()))
			detail = fmt.Sprintf("recorded: state deployed, generation %d", out.generation)
		case t.step.Action == StepKeep:
			r.set(t, StepSkipped, "", "")
			continue
		case t.step.Action == StepRollout:
			detail, ref = d.c.followRollout(ctx, st.ns, t.step.Name, d.timeout, func(detail string) { r.set(t, StepRunning, "", detail) })
		case t.step.Action == StepPrune:
			detail, ref = d.c.pruneOne(ctx, st.ns, t.old)
		default:
			detail, ref = d.c.writeOne(ctx, st.ns, st.instance, t)
		}
		if ref != nil {
			failed := r.fail(t, ref.Reason, ref.Detail)
			if i > 0 {
				d.afterFailure(ctx, t, done)
			}
			return failed
		}
		r.set(t, StepDone, "", detail)
		done = append(done, t)
	}
	return nil
}

// afterFailure appends, after a failed task, the restore steps (after a
// rollout's failure: restore) and the record's release.
func (d *deployRun) afterFailure(ctx context.Context, failed *task, done []*task) {
	if failed.step.Action == StepRollout {
		d.c.restore(ctx, d.r, d.st, d.claimed, done)
	}
	if failed.step.Action == StepRecord {
		return // the record is another deploy's now, or cannot be written
	}
	t := &task{step: DeployStep{Kind: kindSecret, Name: recordName(d.st.instance), Action: StepRecord, Outcome: StepPending}}
	d.r.tasks = append(d.r.tasks, t)
	d.r.set(t, StepRunning, "", "release the claim")
	detail, err := d.c.releaseRecord(ctx, d.st.ns, d.st.instance, d.claimed)
	if err != nil {
		ref := guards.WriteRefusal(err)
		d.r.set(t, StepFailed, ref.Reason, ref.Detail)
		return
	}
	d.r.set(t, StepDone, "", detail)
}

// asRefusal turns a record write's error into a *Refusal.
func asRefusal(rec instanceRecord, err error) (instanceRecord, *vocab.Refusal) {
	if err == nil {
		return rec, nil
	}
	return rec, guards.WriteRefusal(err)
}

// writeOne creates or updates a task's object. A create that finds the
// object made since the preconditions read is a conflict; an update
// answered 409 is read again and retried once when the object is still
// this instance's.
func (c Deployer) writeOne(ctx context.Context, ns, instance string, t *task) (string, *vocab.Refusal) {
	key := objectKey(t.step.Kind, t.step.Name)
	if t.step.Action == StepCreate {
		_, err := c.createObject(ctx, ns, t.plan.DeepCopyObject())
		if apierrors.IsAlreadyExists(err) {
			return "", &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: key + " was created by someone else since it was read"}
		}
		if err != nil {
			return "", c.deployWriteRefusal(ctx, ns, t.step.Kind, "create", err)
		}
		return "created", nil
	}
	existing := t.existing
	for attempt := 0; ; attempt++ {
		_, err := c.updateObject(ctx, ns, forUpdate(existing, t.plan))
		if err == nil {
			return "updated", nil
		}
		if !apierrors.IsConflict(err) || attempt == 1 {
			if apierrors.IsConflict(err) {
				return "", &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: key + " changed again while it was written: " + apiMessage(err)}
			}
			return "", c.deployWriteRefusal(ctx, ns, t.step.Kind, "update", err)
		}
		fresh, rerr := c.getObject(ctx, ns, t.step.Kind, t.step.Name)
		if rerr != nil {
			return "", guards.WriteRefusal(rerr)
		}
		if v := ownerVerdict(key, fresh, instance); v.Outcome == vocab.OutcomeRefuse {
			return "", &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: v.Sentence + " (changed since it was read)"}
		}
		existing = fresh
	}
}

// deployWriteRefusal classifies a write's error: a 403 is forbidden when
// the verb is not granted (the access review asked again, past its
// cache) and admission_denied when it is (a quota, a policy, a webhook
// refused it); either carries the API server's text.
func (c Deployer) deployWriteRefusal(ctx context.Context, ns, kind, verb string, err error) *vocab.Refusal {
	ref := guards.WriteRefusal(err)
	if !apierrors.IsForbidden(err) {
		return ref
	}
	r := resourceOf(kind)
	a := guards.AccessCheck{Verb: verb, Group: r.group, Resource: r.resource, Namespace: ns}
	c.Guards.Forget(a)
	if v := c.Guards.Access(ctx, a); v.Outcome == vocab.OutcomePass {
		ref.Reason = vocab.ReasonAdmissionDenied
	} else {
		ref.Reason = vocab.ReasonForbidden
	}
	return ref
}

// pruneOne deletes an object of the instance no longer planned
// (foreground, UID precondition); one already gone is done.
func (c Deployer) pruneOne(ctx context.Context, ns string, l *listed) (string, *vocab.Refusal) {
	err := c.deleteObject(ctx, ns, l.kind, l.meta.GetName(), string(l.meta.GetUID()))
	switch {
	case apierrors.IsNotFound(err):
		return "already gone", nil
	case err != nil:
		return "", c.deployWriteRefusal(ctx, ns, l.kind, "delete", err)
	}
	return "deleted", nil
}
