package workloadform

import (
	"context"
	"errors"
	"sync"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
)

// applyGuards runs the guards of an apply that turns before into after
// through the guard pipeline (guards.Checker.Run): the access review for `patch` on
// the workload's resource; the object read fresh against before's UID and
// resourceVersion (gone: not_found); then the form's bounds, another tool's
// markers, the namespace's Pod Security level, the claims a StatefulSet
// scale-down deletes and a HorizontalPodAutoscaler when replicas change,
// and new Secret references. fresh is the object read, zero when the guards
// stopped before reading it. Errors: the read failed for a reason other
// than the object being gone (which is a refusal: not_found).
func (f Form) applyGuards(ctx context.Context, before, after vocab.Workload, changes []vocab.Change) (vocab.Verdicts, objects.PodOwner, error) {
	ref := before.Ref
	resource, err := objects.EditableResource(ref.Kind)
	if err != nil {
		return nil, objects.PodOwner{}, err
	}
	var fresh objects.PodOwner
	vs, err := f.Guards.Run(ctx, guards.Write{
		Access: []guards.AccessCheck{{Verb: "patch", Group: "apps", Resource: resource, Namespace: ref.Namespace}},
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			wo, err := objects.ReadEditable(ctx, f.CS, ref)
			if apierrors.IsNotFound(err) {
				return vocab.Verdicts{guards.Gone(string(ref.Kind) + "/" + ref.Name + " no longer exists")}, nil
			}
			if err != nil {
				return nil, err
			}
			fresh = wo
			return vocab.Verdicts{guardFresh(before, after, fresh)}, nil
		},
		Risks: func(ctx context.Context) (vocab.Verdicts, error) {
			vs := vocab.Verdicts{guards.Bounds(before, changes),
				f.Guards.Managed(ref.Name, fresh.Meta.Labels, fresh.Meta.Annotations),
				f.Guards.PodSecurity(ctx, ref.Namespace)}
			if after.HasReplicas && after.Replicas != before.Replicas {
				vs = append(vs, f.Guards.Claims(ctx, fresh, before.Replicas, after.Replicas), f.Guards.Autoscaler(ctx, ref))
			}
			return append(vs, f.Guards.SecretRefs(fresh.Template, after)), nil
		},
	})
	if err != nil {
		return vs, objects.PodOwner{}, err
	}
	return vs, fresh, nil
}

// prepared is an apply made ready to send: the guards' verdicts and the
// checked patch (empty when a guard refused before it could be built).
type prepared struct {
	verdicts vocab.Verdicts
	body     []byte
}

// prepare runs the guards and builds the checked patch of before → after;
// it returns the fresh read too (zero when a guard refused before it).
func (f Form) prepare(ctx context.Context, before, after vocab.Workload, changes []vocab.Change) (prepared, objects.PodOwner, error) {
	vs, fresh, err := f.applyGuards(ctx, before, after, changes)
	if err != nil {
		return prepared{}, fresh, err
	}
	if vs.Refusal() != nil {
		// Refused already (a conflict among them): the patch is built for
		// display only; proving it against a read that moved would blame
		// the patch for what the guard said.
		body, _ := buildPatch(before, after, nil)
		return prepared{verdicts: vs, body: body}, fresh, nil
	}
	body, err := checkedPatch(atFresh(before, fresh), after, fresh)
	if errors.Is(err, errPatchUnsafe) {
		vs = append(vs, vocab.Verdict{Guard: vocab.GuardBounds, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonInvalid, Sentence: err.Error()})
		return prepared{verdicts: vs}, fresh, nil
	}
	if err != nil {
		return prepared{}, fresh, err
	}
	return prepared{verdicts: vs, body: body}, fresh, nil
}

// send runs prepare and, when no refusal stops it (refuse decides), sends
// the patch (as a dry run when dryRun is set). A 409 is tried again, up to
// objects.StatusRaceRetries times, after one fresh read: when only status moved,
// the fresh guard passes again and the patch carries the newer
// resourceVersion; when someone wrote the object, it refuses with conflict.
func (f Form) send(ctx context.Context, before, after vocab.Workload, changes []vocab.Change, dryRun bool,
	refuse func(vocab.Verdicts) *vocab.Refusal) (prepared, objects.PodOwner, []string, error) {
	p, fresh, err := f.prepare(ctx, before, after, changes)
	if err != nil {
		return p, objects.PodOwner{}, nil, err
	}
	if r := refuse(p.verdicts); r != nil {
		return p, objects.PodOwner{}, nil, r
	}
	wctx, warnings := collectWarnings(ctx)
	for attempt := 0; ; attempt++ {
		out, err := objects.Patch(wctx, f.CS, before.Ref, p.body, dryRun)
		if err == nil {
			return p, out, warnings.list(), nil
		}
		if !apierrors.IsConflict(err) || attempt == objects.StatusRaceRetries {
			return p, objects.PodOwner{}, warnings.list(), guards.WriteRefusal(err)
		}
		if fresh, err = objects.ReadEditable(ctx, f.CS, before.Ref); err != nil {
			return p, objects.PodOwner{}, warnings.list(), guards.WriteRefusal(err)
		}
		if v := guardFresh(before, after, fresh); v.Outcome == vocab.OutcomeRefuse {
			return p, objects.PodOwner{}, warnings.list(), &vocab.Refusal{Reason: v.Reason, Detail: v.Sentence}
		}
		if p.body, err = checkedPatch(atFresh(before, fresh), after, fresh); err != nil {
			return p, objects.PodOwner{}, warnings.list(), &vocab.Refusal{Reason: vocab.ReasonInvalid, Detail: err.Error()}
		}
	}
}

// DryRun previews an apply that turns before (the form's read) into after
// (the form's values): the changes, the exact patch body, the guards'
// verdicts, and the API server's answer to that same patch sent with
// dryRun=All (admission and validation errors and warnings, before
// anything is written). A change of nothing sends no request at all
// (casebook C34). The dry run is not sent when a guard refuses (read-only
// mode sends no write verb of any kind); DryRunError then says why.
// Errors: a kind the form does not edit, or a failed read of the object.
func (f Form) DryRun(ctx context.Context, before, after vocab.Workload) (vocab.Preview, error) {
	pv := vocab.Preview{Changes: Changes(before, after)}
	if len(pv.Changes) == 0 {
		return pv, nil
	}
	p, _, warnings, err := f.send(ctx, before, after, pv.Changes, true, vocab.Verdicts.Refusal)
	pv.Verdicts, pv.Patch, pv.DryRunWarnings = p.verdicts, string(p.body), warnings
	var r *vocab.Refusal
	if !errors.As(err, &r) {
		return pv, err
	}
	pv.DryRunError, pv.DryRunReason = r.Detail, r.Reason
	if p.verdicts.Refusal() != nil {
		pv.DryRunError = "not sent: " + r.Detail
	}
	return pv, nil
}

// ApplyWorkload writes what the person changed (before → after, as
// DryRun previewed it) as one strategic merge patch of only the changed
// paths, at the resourceVersion read (see buildPatch and guardFresh). It
// runs the guards first: any refusal, and any warning whose reason is not
// in confirmed, refuses the write with a *Refusal and nothing is sent. A
// change of nothing sends nothing and returns before (casebook C34). The
// API server's own refusals come back as a *Refusal too: 409 is conflict
// (someone wrote the object between the read and the write), 403
// forbidden, an admission webhook's or policy's denial admission_denied, a
// validation error invalid, each with the server's message as Detail. On
// success the result's Workload is the object as the server returned it,
// the base of a next apply (C33).
func (f Form) ApplyWorkload(ctx context.Context, before, after vocab.Workload, confirmed []vocab.Reason) (vocab.ApplyResult, error) {
	changes := Changes(before, after)
	if len(changes) == 0 {
		return vocab.ApplyResult{Workload: before}, nil
	}
	refuse := func(vs vocab.Verdicts) *vocab.Refusal { return vs.Unconfirmed(confirmed) }
	_, out, warnings, err := f.send(ctx, before, after, changes, false, refuse)
	if err != nil {
		return vocab.ApplyResult{}, err
	}
	w := toWorkload(before.Ref, out)
	w.Autoscaler = before.Autoscaler
	return vocab.ApplyResult{Workload: w, Changes: changes, Warnings: warnings}, nil
}

// atFresh returns before with the fresh read's resourceVersion, the
// precondition of the patch: the fresh guard passed, so what moved since
// before is status alone. Without a fresh read, before is kept.
func atFresh(before vocab.Workload, fresh objects.PodOwner) vocab.Workload {
	if fresh.Meta != nil {
		before.ResourceVersion = fresh.Meta.ResourceVersion
	}
	return before
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

// WarningRouter is the rest.WarningHandlerWithContext package kube's
// Client sets on its connection (rest.Config.WarningHandlerWithContext):
// a request made with collectWarnings' context (the form's dry run and
// apply) has its warnings (HTTP Warning headers of code 299) kept there,
// for Preview.DryRunWarnings and ApplyResult.Warnings; other warnings are
// dropped, as client-go's own diagnostics are (they would tear the
// screen).
type WarningRouter struct{}

// HandleWarningHeaderWithContext keeps one warning.
func (WarningRouter) HandleWarningHeaderWithContext(ctx context.Context, code int, _ string, text string) {
	if w, ok := ctx.Value(warningsKey{}).(*warningCollector); ok && code == 299 {
		w.mu.Lock()
		w.texts = append(w.texts, text)
		w.mu.Unlock()
	}
}

var _ rest.WarningHandlerWithContext = WarningRouter{}
