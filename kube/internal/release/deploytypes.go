package release

import (
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// The types of Deploy and Remove (deploy*.go): an app described by a
// render.Request is applied service by service after every precondition
// passed, followed until it is available, pruned or restored, and
// recorded in an instance record Secret (conflict-safe).

// StepAction is what a deploy or remove step does to one object.
type StepAction string

// Step actions.
const (
	StepCreate  StepAction = "create"
	StepUpdate  StepAction = "update"
	StepPrune   StepAction = "prune"   // an object of the instance no longer in the plan
	StepRestore StepAction = "restore" // back to the record's objects after rollout_timeout
	StepDelete  StepAction = "delete"  // Remove
	StepKeep    StepAction = "keep"    // a claim Remove retains
	StepRollout StepAction = "rollout" // a Deployment's rollout followed
	StepRecord  StepAction = "record"  // the instance record written or deleted
)

// StepOutcome is how a step stands.
type StepOutcome string

// Step outcomes.
const (
	StepPending StepOutcome = "pending"
	StepRunning StepOutcome = "running"
	StepDone    StepOutcome = "done"
	StepFailed  StepOutcome = "failed"
	StepSkipped StepOutcome = "skipped"
)

// DeployStep is one step of a deploy or a remove.
type DeployStep struct {
	// Service is the service the object belongs to ("" for the record).
	Service string
	// Kind and Name name the object ("Deployment", "shop-web").
	Kind, Name string
	// Action is what the step does.
	Action StepAction
	// Outcome is how it stands; Reason the code of a failure (or of a
	// skip's cause); Detail what the server or the guard said
	// ("retained" for a kept claim).
	Outcome StepOutcome
	Reason  vocab.Reason
	Detail  string
}

// DeployPlan is what PlanDeploy found, nothing written: the rendered
// objects, what each would do, every guard's verdict, the server's dry run
// and the differences from what is deployed.
type DeployPlan struct {
	// Steps are the steps Deploy would run, in order, all pending.
	Steps []DeployStep
	// Verdicts are the guards' answers (access per verb, Pod Security,
	// name_taken, claim_immutable as refusals).
	Verdicts vocab.Verdicts
	// Diff is, per planned object keyed "Kind/name" (every one of them),
	// a unified diff of the object as deployed against the plan: as the
	// record's last successful deploy rendered it, or, with no record of
	// it, the live object cut to the fields the render sets (so server
	// defaults never show). "" when the object is new (created);
	// DiffUnchanged when it exists and nothing changes. Secret values
	// show as sizes.
	Diff map[string]string
	// DryRun is the server-side dry run's outcome per object ("" accepted,
	// else the API server's text).
	DryRun map[string]string
	// RecordVersion is the instance record's resourceVersion read ("" when
	// there is none); Deploy writes the record against it.
	RecordVersion string
	// RecordGeneration is the record's deploy generation read with
	// RecordVersion (the annotation kyyard.dev/generation; 0 when there is
	// no record): Deploy tells a later deploy from any other change of the
	// record by it.
	RecordGeneration int64
	// Prune and Keep name the objects of the instance that are no longer
	// in the plan: Prune ("Kind/name") are deleted after a successful
	// rollout; Keep are claims, retained.
	Prune, Keep []string
}

// DeployOptions tune a Deploy.
type DeployOptions struct {
	// Confirmed lists the warning reasons the person accepted.
	Confirmed []vocab.Reason
	// RecordVersion is DeployPlan.RecordVersion: the version the person
	// planned against ("" for a first deploy).
	RecordVersion string
	// RecordGeneration is DeployPlan.RecordGeneration. Left 0 with a
	// RecordVersion set, any deploy recorded since counts as later: a
	// record that moved is then always a conflict (the safe side).
	RecordGeneration int64
	// Timeout bounds the rollout of each service (default
	// DefaultDeployTimeout), after which the previous objects are
	// restored (rollout_timeout).
	Timeout time.Duration
	// Progress, when set, is called with every step as it changes (from
	// Deploy's goroutine; it must not block).
	Progress func(DeployStep)
}

// DefaultDeployTimeout is the default DeployOptions.Timeout.
const DefaultDeployTimeout = 3 * time.Minute

// DeployResult is the list of steps a Deploy or Remove ran, each with its
// outcome; Reason is the first failure's code ("" when every step is
// done or deliberately skipped, as a kept claim).
type DeployResult struct {
	Steps  []DeployStep
	Reason vocab.Reason
}

// App is one kyyard-managed instance as :apps lists it.
type App struct {
	// Namespace and Instance name it.
	Namespace, Instance string
	// Services are its services' names and their Deployments' status
	// ("3/3 available", "progressing", "missing").
	Services []AppService
	// Recorded is whether an instance record exists (an instance found by
	// label only has none); Deployed is when the record was written.
	Recorded bool
	Deployed time.Time
	// Retained are the instance's PersistentVolumeClaims ("shop-db-data"),
	// which Remove and prune keep: an instance with only claims left is
	// listed with no services.
	Retained []string
}

// AppService is one service of an App.
type AppService struct {
	Name   string
	Status string
	Health vocab.Health
}

// RecordedRequest is an instance record's request: what the last
// successful deploy applied, for the form's "edit this app".
type RecordedRequest struct {
	Request render.Request
	// Version is the record's resourceVersion.
	Version string
}

// ErrNoRecord is returned (wrapped; ReasonOf: not_found) by AppRecord when
// the instance has no record Secret, or its record holds no successful
// deploy yet.
var ErrNoRecord = &vocab.Refusal{Reason: vocab.ReasonNotFound, Detail: "the instance has no record of a successful deploy"}

// FieldManager is the field manager kyyard's deploy writes under:
// vocab.FieldManager.
const FieldManager = vocab.FieldManager

// The instance record Secret (deployrecord.go).
const (
	// RecordPrefix starts a record Secret's name: "kyyard-app-<instance>".
	RecordPrefix = "kyyard-app-"
	// RecordLabel marks a record Secret ("true").
	RecordLabel = "kyyard.dev/record"
	// RecordType is a record Secret's type.
	RecordType = "kyyard.dev/app-record"
)
