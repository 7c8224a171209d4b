package kube

// Deploy and remove (kyyard's deploy form: plan, apply, record, hold,
// rollout follow, remove) and the deployed-apps list live in package
// kube/internal/release (which does not import kube); kube re-exports its
// types, constants and error under the same names for the screens, and the
// Client's PlanDeploy, Deploy, PlanRemove, Remove, Apps and AppRecord
// delegate to a release.Deployer built from the Client's clientset, guard
// pipeline, rollout reader (rolloutReader) and Pods cache. Each name below
// is release's, the same type or value: see its documentation there.

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/release"
	"github.com/kyyard/kyyard/render"
)

// The deploy types (aliases of kube/internal/release's).
type (
	// App is release.App.
	App = release.App
	// AppService is release.AppService.
	AppService = release.AppService
	// DeployOptions is release.DeployOptions.
	DeployOptions = release.DeployOptions
	// DeployPlan is release.DeployPlan.
	DeployPlan = release.DeployPlan
	// DeployResult is release.DeployResult.
	DeployResult = release.DeployResult
	// DeployStep is release.DeployStep.
	DeployStep = release.DeployStep
	// RecordedRequest is release.RecordedRequest.
	RecordedRequest = release.RecordedRequest
	// StepAction is release.StepAction.
	StepAction = release.StepAction
	// StepOutcome is release.StepOutcome.
	StepOutcome = release.StepOutcome
)

const (
	// DefaultDeployTimeout is release.DefaultDeployTimeout.
	DefaultDeployTimeout = release.DefaultDeployTimeout
	// DiffUnchanged is release.DiffUnchanged.
	DiffUnchanged = release.DiffUnchanged
	// FieldManager is release.FieldManager.
	FieldManager = release.FieldManager
	// RecordLabel is release.RecordLabel.
	RecordLabel = release.RecordLabel
	// RecordPrefix is release.RecordPrefix.
	RecordPrefix = release.RecordPrefix
	// RecordType is release.RecordType.
	RecordType = release.RecordType
	// StepCreate is release.StepCreate.
	StepCreate = release.StepCreate
	// StepDelete is release.StepDelete.
	StepDelete = release.StepDelete
	// StepDone is release.StepDone.
	StepDone = release.StepDone
	// StepFailed is release.StepFailed.
	StepFailed = release.StepFailed
	// StepKeep is release.StepKeep.
	StepKeep = release.StepKeep
	// StepPending is release.StepPending.
	StepPending = release.StepPending
	// StepPrune is release.StepPrune.
	StepPrune = release.StepPrune
	// StepRecord is release.StepRecord.
	StepRecord = release.StepRecord
	// StepRestore is release.StepRestore.
	StepRestore = release.StepRestore
	// StepRollout is release.StepRollout.
	StepRollout = release.StepRollout
	// StepRunning is release.StepRunning.
	StepRunning = release.StepRunning
	// StepSkipped is release.StepSkipped.
	StepSkipped = release.StepSkipped
	// StepUpdate is release.StepUpdate.
	StepUpdate = release.StepUpdate
)

var (
	// ErrNoRecord is release.ErrNoRecord.
	ErrNoRecord = release.ErrNoRecord
)

// deployer is the Deployer of c's clientset, guards and rollout reader;
// the deployed apps' stuck Pods come from c's caches (stuckDeployments).
func (c *Client) deployer() release.Deployer {
	return release.Deployer{CS: c.cs, Guards: c.guards, Rollouts: c.rolloutReader(), Stuck: c.stuckDeployments}
}

// stuckDeployments maps the UIDs of the Deployments in namespace whose
// Pods cannot start to the first such Pod's reason, from the Pods and
// ReplicaSets caches (stuckOwners, reasonsVia: no request); nil while
// they are not in.
func (c *Client) stuckDeployments(ctx context.Context, namespace string) map[string]string {
	return c.reasonsVia(ctx, KindReplicaSets, namespace, c.stuckOwners(ctx, namespace))
}

// PlanDeploy runs a deploy's preconditions without writing (see release's
// prepareDeploy: read-only, access reviews of get/list/create/update of
// each kind and delete of the kinds pruned, Pod Security, name_taken,
// claim_immutable) and answers the steps Deploy would run (all pending),
// every verdict, the record's version and generation (to give back in
// DeployOptions), the diff of each planned object (release's planDiffs: "" new,
// DiffUnchanged, or what kyyard last applied, else the live object cut to
// the rendered fields, against the plan; Secret values as sizes) and,
// when no guard
// refuses, the API server's dry run of each write (DryRun: "" accepted,
// else the server's text; claims that exist are not written and not
// dry-run). Errors: an invalid request (ReasonOf: invalid) or a read that
// failed.
func (c *Client) PlanDeploy(ctx context.Context, req render.Request) (DeployPlan, error) {
	return c.deployer().PlanDeploy(ctx, req)
}

// Deploy applies req: the preconditions of PlanDeploy run again, and any
// refusal, or any warning whose reason is not in opts.Confirmed, stops it
// before anything is written (every step skipped, the result's Reason the
// refusal's). Then, in order (each step reported through opts.Progress as
// it starts and ends):
//
//  1. the instance record is claimed (release/deployrecord.go: written as
//     "deploying" against opts.RecordVersion/RecordGeneration; a later
//     deploy's claim, or another instance's record, is conflict and
//     nothing is written);
//  2. per service, in the request's order: its objects in render's order
//     (Service, claims, ConfigMap, Secret, Deployment) created, or
//     updated with a PUT at the resourceVersion the preconditions read
//     (release's forUpdate: what kyyard renders replaced, the rest kept), a claim
//     that exists kept as it is; a 409 is read again and retried once
//     when the object is still this instance's. A write the API server
//     refuses is forbidden when the verb is not granted (asked again) and
//     admission_denied when it is, with the server's text; then its
//     Deployment's rollout is followed (release/deployrollout.go) until
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
func (c *Client) Deploy(ctx context.Context, req render.Request, opts DeployOptions) (DeployResult, error) {
	return c.deployer().Deploy(ctx, req, opts)
}

// PlanRemove lists the steps Remove would run, all pending (claims as keep
// steps with detail "retained"), nothing written. Errors: a list failed
// (forbidden, unavailable, ...).
func (c *Client) PlanRemove(ctx context.Context, namespace, instance string) (DeployResult, error) {
	return c.deployer().PlanRemove(ctx, namespace, instance)
}

// Remove deletes an instance (release's removeTasks), its guards run by the guard
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
func (c *Client) Remove(ctx context.Context, namespace, instance string, progress func(DeployStep)) (DeployResult, error) {
	return c.deployer().Remove(ctx, namespace, instance, progress)
}

// Apps lists the kyyard-managed instances in namespace ("" = all
// namespaces), sorted by namespace and instance: those found by label
// (Deployments with app.kubernetes.io/managed-by: kyyard, grouped by
// app.kubernetes.io/instance), those found by their record Secret and
// those found by their PersistentVolumeClaims (same labels): an instance
// with only claims left (after a failed first deploy or a Remove) is
// listed with no services. Retained names every instance's claims,
// sorted.
// Services are the recorded deploy's services (its Deployments) and those
// found by label, by name; each with its Deployment's status
// (release's deploymentStatus), "missing" (HealthFailed) when the record names a
// Deployment that does not exist. Recorded and Deployed come from the
// record. Errors: a list failed (forbidden, unavailable, ...).
func (c *Client) Apps(ctx context.Context, namespace string) ([]App, error) {
	return c.deployer().Apps(ctx, namespace)
}

// AppRecord reads an instance's record and returns the request its last
// successful deploy applied, and the record's resourceVersion. Errors:
// ErrNoRecord (errors.Is; ReasonOf: not_found) when there is no record, the
// Secret of its name is not the instance's record, or no deploy succeeded
// yet; a record that cannot be read (render.ErrRecord, wrapped; ReasonOf:
// invalid); a failed read.
func (c *Client) AppRecord(ctx context.Context, namespace, instance string) (RecordedRequest, error) {
	return c.deployer().AppRecord(ctx, namespace, instance)
}
