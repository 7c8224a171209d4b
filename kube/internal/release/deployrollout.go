package release

// A deploy's rollout followed (RolloutStatus polled) and, when it does not
// become available, the objects restored.

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// deployPoll is how often a deploy reads its rollout's status.
var deployPoll = 500 * time.Millisecond

// followRollout polls the Deployment's RolloutStatus until it is complete
// ("2/2 available"), the cluster reports it failed (a new pod in
// CrashLoopBackOff, ImagePullBackOff, ErrImagePull, ..., the progress
// deadline, pods refused: RolloutStatus's rules), or timeout passed: both
// are rollout_timeout, with a Detail that leads with the cluster's cause
// (failureDetail, timeoutDetail: "ImagePullBackOff: pod web-x container
// web: ...", "FailedBinding: claim shop-db-data is Pending: no persistent
// volumes available for this claim and no storage class is set; not
// available after 3m0s: ..."). While it waits, what holds it (readHolds,
// else the status message) is given to running each time it changes
// (nil: not reported). A Deployment deleted meanwhile is not_found; a
// cancelled ctx its reason.
func (c Deployer) followRollout(ctx context.Context, ns, name string, timeout time.Duration, running func(detail string)) (string, *vocab.Refusal) {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ref := vocab.WorkloadRef{Kind: vocab.KindDeployments, Namespace: ns, Name: name}
	last, shown := "no status read yet", ""
	var holds []hold
	timedOut := func() *vocab.Refusal {
		return &vocab.Refusal{Reason: vocab.ReasonRolloutTimeout, Detail: timeoutDetail(holds, timeout, last)}
	}
	for {
		st, err := c.Rollouts.Status(wctx, ref)
		switch {
		case err != nil && ctx.Err() != nil:
			return "", &vocab.Refusal{Reason: vocab.ReasonOf(ctx.Err()), Detail: "the deploy was cancelled while " + name + " rolled out"}
		case err != nil && wctx.Err() != nil:
			return "", timedOut()
		case err != nil:
			return "", guards.WriteRefusal(err)
		case st.Missing:
			return "", &vocab.Refusal{Reason: vocab.ReasonNotFound, Detail: "Deployment " + name + " was deleted while it rolled out"}
		case st.Phase == vocab.RolloutComplete:
			return fmt.Sprintf("%d/%d available", st.Available, st.Desired), nil
		case st.Phase == vocab.RolloutFailed:
			return "", &vocab.Refusal{Reason: vocab.ReasonRolloutTimeout, Detail: failureDetail(c.readHolds(ctx, ns, name, st), st.Message)}
		}
		last = st.Message
		if h := c.readHolds(wctx, ns, name, st); wctx.Err() == nil {
			holds = h
		}
		detail := last
		if len(holds) > 0 {
			detail = holdsText(holds)
		}
		if running != nil && detail != shown {
			shown = detail
			running(detail)
		}
		select {
		case <-wctx.Done():
			if ctx.Err() != nil {
				return "", &vocab.Refusal{Reason: vocab.ReasonOf(ctx.Err()), Detail: "the deploy was cancelled while " + name + " rolled out"}
			}
			return "", timedOut()
		case <-time.After(deployPoll):
		}
	}
}

// restore puts the objects back after a rollout failed, as restore steps
// appended to r: with a successful deploy recorded before (claimed.request),
// each of its objects is rendered again from its request and updated
// (created when gone) back to it, and the objects this deploy created that
// it did not have are deleted; with none, the objects this deploy created
// are deleted. Claims are never deleted (a keep step, "retained"), and an
// object this deploy updated without a record to restore it from is
// left as it is (a skipped step says so). A restore step that fails is
// reported and the others still run.
func (c Deployer) restore(ctx context.Context, r *runner, st deployState, claimed instanceRecord, done []*task) {
	add := func(step DeployStep) *task {
		t := &task{step: step}
		t.step.Outcome = StepPending
		r.tasks = append(r.tasks, t)
		r.set(t, StepRunning, "", "")
		return t
	}
	end := func(t *task, detail string, err error) {
		if err != nil {
			ref := guards.WriteRefusal(err)
			r.set(t, StepFailed, ref.Reason, ref.Detail)
			return
		}
		r.set(t, StepDone, "", detail)
	}
	previous := map[string]bool{}
	if claimed.request != nil {
		prev, err := previousObjects(claimed.request)
		if err != nil {
			t := add(DeployStep{Kind: kindSecret, Name: recordName(st.instance), Action: StepRestore})
			end(t, "", err)
		}
		for _, p := range prev {
			key := keyOf(p.obj)
			previous[key] = true
			if kindOf(p.obj) == kindClaim {
				continue
			}
			t := add(DeployStep{Service: p.service, Kind: kindOf(p.obj), Name: metaOf(p.obj).GetName(), Action: StepRestore})
			detail, err := c.restoreOne(ctx, st.ns, st.instance, p.obj)
			end(t, detail, err)
		}
	}
	for _, d := range done {
		key := objectKey(d.step.Kind, d.step.Name)
		if (d.step.Action != StepCreate && d.step.Action != StepUpdate) || previous[key] {
			continue
		}
		step := DeployStep{Service: d.step.Service, Kind: d.step.Kind, Name: d.step.Name, Action: StepRestore}
		switch {
		case d.step.Kind == kindClaim:
			step.Action = StepKeep
			t := add(step)
			r.set(t, StepSkipped, "", "retained: claims are never deleted by a restore")
		case d.step.Action == StepUpdate:
			t := add(step)
			r.set(t, StepSkipped, "", "left as updated: no recorded deploy to restore it from")
		default:
			t := add(step)
			err := c.deleteObject(ctx, st.ns, d.step.Kind, d.step.Name, "")
			if apierrors.IsNotFound(err) {
				err = nil
			}
			end(t, "deleted: this deploy created it", err)
		}
	}
}

// previousObjects renders the recorded request again.
func previousObjects(request []byte) ([]planned, error) {
	req, err := render.ParseRecord(request)
	if err != nil {
		return nil, &vocab.Refusal{Reason: vocab.ReasonInvalid, Detail: "the record cannot be restored from: " + err.Error()}
	}
	objs, err := renderObjects(req)
	if err != nil {
		return nil, &vocab.Refusal{Reason: vocab.ReasonInvalid, Detail: "the recorded request no longer renders: " + err.Error()}
	}
	return objs, nil
}

// restoreOne writes obj back: an update of the object as it is now when
// it is this instance's (writeOne: one retry on 409), a create when it is
// gone. One that is not this instance's any more is left alone (a
// name_taken refusal).
func (c Deployer) restoreOne(ctx context.Context, ns, instance string, obj runtime.Object) (string, error) {
	kind, name := kindOf(obj), metaOf(obj).GetName()
	t := &task{plan: obj, step: DeployStep{Kind: kind, Name: name, Action: StepCreate}}
	cur, err := c.getObject(ctx, ns, kind, name)
	switch {
	case apierrors.IsNotFound(err):
	case err != nil:
		return "", err
	default:
		if v := ownerVerdict(objectKey(kind, name), cur, instance); v.Outcome == vocab.OutcomeRefuse {
			return "", &vocab.Refusal{Reason: v.Reason, Detail: v.Sentence + ": not restored"}
		}
		t.existing, t.step.Action = cur, StepUpdate
	}
	detail, ref := c.writeOne(ctx, ns, instance, t)
	if ref != nil {
		return "", ref
	}
	return detail + " as the recorded deploy had it", nil
}
