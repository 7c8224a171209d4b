package kube

import (
	"context"
	"errors"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

// applyGuards runs the guards of an apply that turns before into after,
// in order: read-only, the access review for `patch` on the workload's
// resource, the object read fresh against before's UID and
// resourceVersion, the form's bounds, another tool's markers, the
// namespace's Pod Security level, the claims a StatefulSet scale-down
// deletes, new Secret references, and a HorizontalPodAutoscaler when
// replicas change. It stops at the first refusal of read-only, access or
// the fresh read (nothing later is meaningful then). fresh is the object
// read, zero when the guards stopped before reading it. Errors: the read
// failed for a reason other than the object being gone (which is a
// refusal: not_found).
func (c *Client) applyGuards(ctx context.Context, before, after Workload, changes []Change) (Verdicts, workloadObject, error) {
	ref := before.Ref
	resource, err := workloadResource(ref.Kind)
	if err != nil {
		return nil, workloadObject{}, err
	}
	vs := Verdicts{c.guardReadOnly()}
	if vs.Refusal() != nil {
		return vs, workloadObject{}, nil
	}
	vs = append(vs, c.guardAccess(ctx, accessCheck{verb: "patch", group: "apps", resource: resource, namespace: ref.Namespace}))
	if vs.Refusal() != nil {
		return vs, workloadObject{}, nil
	}
	fresh, err := c.getWorkload(ctx, ref)
	if apierrors.IsNotFound(err) {
		return append(vs, Verdict{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonNotFound,
			Sentence: string(ref.Kind) + "/" + ref.Name + " no longer exists"}), workloadObject{}, nil
	}
	if err != nil {
		return vs, workloadObject{}, err
	}
	vs = append(vs, guardFresh(ref, before.UID, before.ResourceVersion, fresh.meta))
	if vs.Refusal() != nil {
		return vs, fresh, nil
	}
	vs = append(vs, guardBounds(before, changes),
		c.guardManaged(ref.Name, fresh.meta.Labels, fresh.meta.Annotations),
		c.guardPodSecurity(ctx, ref.Namespace))
	if after.HasReplicas && after.Replicas != before.Replicas {
		vs = append(vs, c.guardClaims(ctx, fresh, before.Replicas, after.Replicas), c.guardAutoscaler(ctx, ref))
	}
	vs = append(vs, c.guardSecretRefs(fresh.template, after))
	return vs, fresh, nil
}

// DryRun previews an apply that turns before (the form's read) into after
// (the form's values): the changes, the exact patch body, the guards'
// verdicts, and the API server's answer to that same patch sent with
// dryRun=All (admission and validation errors and warnings, before
// anything is written). A change of nothing sends no request at all
// (casebook C34). The dry run is not sent when a guard refuses (read-only
// mode sends no write verb of any kind). Errors: a kind the form does not
// edit, a failed read of the object, or a change the patch cannot express
// (a read-only field changed).
func (c *Client) DryRun(ctx context.Context, before, after Workload) (Preview, error) {
	p := Preview{Changes: Changes(before, after)}
	if len(p.Changes) == 0 {
		return p, nil
	}
	vs, fresh, err := c.applyGuards(ctx, before, after, p.Changes)
	if err != nil {
		return p, err
	}
	p.Verdicts = vs
	body, err := checkedPatch(before, after, fresh)
	if errors.Is(err, errPatchUnsafe) {
		p.Verdicts = append(p.Verdicts, Verdict{Guard: GuardBounds, Outcome: OutcomeRefuse, Reason: ReasonInvalid, Sentence: err.Error()})
		p.DryRunError, p.DryRunReason = "not sent: "+err.Error(), ReasonInvalid
		return p, nil
	}
	if err != nil {
		return p, err
	}
	p.Patch = string(body)
	if r := vs.Refusal(); r != nil {
		p.DryRunError, p.DryRunReason = "not sent: "+r.Detail, r.Reason
		return p, nil
	}
	wctx, warnings := collectWarnings(ctx)
	if _, err := c.patchWorkload(wctx, before.Ref, body, true); err != nil {
		r := writeRefusal(err)
		p.DryRunError, p.DryRunReason = r.Detail, r.Reason
	}
	p.DryRunWarnings = warnings.list()
	return p, nil
}

// ApplyWorkload writes what the person changed (before → after, as
// DryRun previewed it) as one strategic merge patch of only the changed
// paths, at before's resourceVersion (see buildPatch). It runs the guards
// first: any refusal, and any warning whose reason is not in confirmed,
// refuses the write with a *Refusal and nothing is sent. A change of
// nothing sends nothing and returns before (casebook C34). The API
// server's own refusals come back as a *Refusal too: 409 is conflict (the
// object changed between the read and the write), 403 forbidden, an
// admission webhook's or policy's denial admission_denied, a validation
// error invalid, each with the server's message as Detail. On success the
// result's Workload is the object as the server returned it, the base of a
// next apply (C33).
func (c *Client) ApplyWorkload(ctx context.Context, before, after Workload, confirmed []Reason) (ApplyResult, error) {
	changes := Changes(before, after)
	if len(changes) == 0 {
		return ApplyResult{Workload: before}, nil
	}
	vs, fresh, err := c.applyGuards(ctx, before, after, changes)
	if err != nil {
		return ApplyResult{}, err
	}
	if r := vs.Unconfirmed(confirmed); r != nil {
		return ApplyResult{}, r
	}
	body, err := checkedPatch(before, after, fresh)
	if errors.Is(err, errPatchUnsafe) {
		return ApplyResult{}, &Refusal{Reason: ReasonInvalid, Detail: err.Error()}
	}
	if err != nil {
		return ApplyResult{}, err
	}
	wctx, warnings := collectWarnings(ctx)
	out, err := c.patchWorkload(wctx, before.Ref, body, false)
	if err != nil {
		return ApplyResult{}, writeRefusal(err)
	}
	w := toWorkload(before.Ref, out)
	w.Autoscaler = before.Autoscaler
	return ApplyResult{Workload: w, Changes: changes, Warnings: warnings.list()}, nil
}

// writeRefusal classifies an error the API server answered a write with.
func writeRefusal(err error) *Refusal {
	var r *Refusal
	if errors.As(err, &r) {
		return r
	}
	msg := err.Error()
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Message != "" {
		msg = status.Status().Message
	}
	reason := ReasonOf(err)
	if strings.Contains(msg, "admission webhook") || strings.Contains(msg, "denied request") ||
		strings.Contains(msg, "denied the request") {
		reason = ReasonAdmissionDenied
	}
	return &Refusal{Reason: reason, Detail: msg}
}

// warningsKey keys a request's warning collector in its context.
type warningsKey struct{}

// warningCollector keeps the API server's warnings (the Warning header) of
// the requests made with its context.
type warningCollector struct {
	mu    sync.Mutex
	texts []string
}

// list returns the warnings collected, in order.
func (w *warningCollector) list() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.texts...)
}

// collectWarnings returns a context whose requests' warnings are kept in
// the collector returned.
func collectWarnings(ctx context.Context) (context.Context, *warningCollector) {
	w := &warningCollector{}
	return context.WithValue(ctx, warningsKey{}, w), w
}

// warningRouter is the rest.WarningHandlerWithContext of the Client's
// connection: a request made with collectWarnings' context has its
// warnings kept there; other warnings are dropped, as client-go's own
// diagnostics are (they would tear the screen).
type warningRouter struct{}

// HandleWarningHeaderWithContext keeps one warning.
func (warningRouter) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	if w, ok := ctx.Value(warningsKey{}).(*warningCollector); ok && code == 299 {
		w.mu.Lock()
		w.texts = append(w.texts, text)
		w.mu.Unlock()
	}
}

var _ rest.WarningHandlerWithContext = warningRouter{}
