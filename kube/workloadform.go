package kube

// The workload form's read, comparison, patch and apply live in
// kube/internal/workloadform; the Client builds a workloadform.Form from
// its clientset, guard checker and kind resolver (workloadForm) and
// delegates ReadWorkload, DryRun, ApplyWorkload and WorkloadOf to it. The
// form's types are vocab's (vocabform.go); the names below are
// workloadform's, re-exported: see their documentation there.

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/workloadform"
)

// Conflict is workloadform.Conflict: what the server changed in a workload
// since the form read it, against what the person changed (ConflictOf).
type Conflict = workloadform.Conflict

// ErrNotManaged is workloadform.ErrNotManaged, wrapped by WorkloadOf's
// error for a Pod or ReplicaSet that no Deployment, StatefulSet or
// DaemonSet controls.
var ErrNotManaged = workloadform.ErrNotManaged

// warningRouter is the rest.WarningHandlerWithContext of the Client's
// connection (workloadform.WarningRouter): it keeps the API server's
// warnings of the form's dry runs and applies and drops the others.
type warningRouter = workloadform.WarningRouter

// Changes is workloadform.Changes: what differs between before and after,
// two pictures of one workload, in the order the preview lists them.
func Changes(before, after Workload) []Change { return workloadform.Changes(before, after) }

// ConflictOf is workloadform.ConflictOf: what the server changed in fresh
// since base was read, against the person's edits (edited).
func ConflictOf(base, edited, fresh Workload) Conflict {
	return workloadform.ConflictOf(base, edited, fresh)
}

// Rebase is workloadform.Rebase: the person's edits (base → edited) laid
// onto a fresh read, and the paths the server changed too (clashes).
func Rebase(base, edited, fresh Workload) (merged Workload, clashes []Change) {
	return workloadform.Rebase(base, edited, fresh)
}

// EnvText is workloadform.EnvText: an env entry's value as the preview and
// the form show it.
func EnvText(e EnvVar) string { return workloadform.EnvText(e) }

// EnvChangeText is workloadform.EnvChangeText: an env entry's value as a
// Change names it (an empty literal reads `""`).
func EnvChangeText(e EnvVar) string { return workloadform.EnvChangeText(e) }

// SameQuantity is workloadform.SameQuantity: whether two quantity texts
// are the same amount ("0.5" and "500m").
func SameQuantity(a, b string) bool { return workloadform.SameQuantity(a, b) }

// workloadForm is the workload form's adapter over c's clientset, guards
// and kinds.
func (c *Client) workloadForm() workloadform.Form {
	return workloadform.Form{CS: c.cs, Guards: c.guards, KindInfo: c.kindInfo}
}

// ReadWorkload reads the editable part of a Deployment, StatefulSet or
// DaemonSet in two requests: a get of the object and a list of the
// namespace's HorizontalPodAutoscalers (autoscaling/v2), to name one whose
// scaleTargetRef is the workload (a DaemonSet has no replicas, so no
// list). A list of autoscalers that is forbidden or fails leaves Autoscaler
// empty: the autoscaler guard reads it again before any replicas change and
// says what it could not read. Errors: a kind the form does not edit,
// and the get's error (classify with ReasonOf: not_found, forbidden, ...).
func (c *Client) ReadWorkload(ctx context.Context, ref WorkloadRef) (Workload, error) {
	return c.workloadForm().ReadWorkload(ctx, ref)
}

// DryRun previews an apply that turns before (the form's read) into after
// (the form's values): the changes, the exact patch body, the guards'
// verdicts, and the API server's answer to that same patch sent with
// dryRun=All (admission and validation errors and warnings, before
// anything is written). A change of nothing sends no request at all
// (casebook C34). The dry run is not sent when a guard refuses (read-only
// mode sends no write verb of any kind); DryRunError then says why.
// Errors: a kind the form does not edit, or a failed read of the object.
func (c *Client) DryRun(ctx context.Context, before, after Workload) (Preview, error) {
	return c.workloadForm().DryRun(ctx, before, after)
}

// ApplyWorkload writes what the person changed (before → after, as
// DryRun previewed it) as one strategic merge patch of only the changed
// paths, at the resourceVersion read (see workloadform's buildPatch and guardFresh). It
// runs the guards first: any refusal, and any warning whose reason is not
// in confirmed, refuses the write with a *Refusal and nothing is sent. A
// change of nothing sends nothing and returns before (casebook C34). The
// API server's own refusals come back as a *Refusal too: 409 is conflict
// (someone wrote the object between the read and the write), 403
// forbidden, an admission webhook's or policy's denial admission_denied, a
// validation error invalid, each with the server's message as Detail. On
// success the result's Workload is the object as the server returned it,
// the base of a next apply (C33).
func (c *Client) ApplyWorkload(ctx context.Context, before, after Workload, confirmed []Reason) (ApplyResult, error) {
	return c.workloadForm().ApplyWorkload(ctx, before, after, confirmed)
}

// CarryEdits is workloadform.Carry: the person's edits of one cluster's
// workload (base → edited) laid onto the same workload read in another
// cluster (target), for one change applied cluster by cluster; differed
// lists the paths where target held another value than base, refused the
// edits that cannot be carried there.
func CarryEdits(base, edited, target Workload) (merged Workload, differed, refused []Change) {
	return workloadform.Carry(base, edited, target)
}

// WorkloadOf returns the workload a row of kind (a plugin id or alias)
// stands for, as its plugin's Capabilities say: a kind the form edits
// (CanEdit: a Deployment, StatefulSet or DaemonSet) is itself (not read);
// a ReplicaSet is read fresh and stands for the Deployment that controls it
// (its ownerReference with controller: true); a Pod is read fresh and
// stands for its controller: a StatefulSet, a DaemonSet, or, through its
// ReplicaSet (read fresh too), a Deployment. Errors: the object is gone
// (ReasonOf: not_found) or cannot be read (forbidden, ...); it has no such
// controller (wraps ErrNotManaged, naming the controller it has); another
// kind (invalid: its plugin has neither CanEdit nor CanEditOwner).
func (c *Client) WorkloadOf(ctx context.Context, kind Kind, namespace, name string) (WorkloadRef, error) {
	return c.workloadForm().WorkloadOf(ctx, kind, namespace, name)
}
