package vocab

// The codes of kyyard's guards, their outcomes and the reasons a read or a
// write fails or is refused: one file, so a new guard or reason is one entry
// here (and, for a reason, its sentence in Reason.Sentence, reason.go).

// Guard names one check a write or an exec runs first.
type Guard string

// Guards.
const (
	// GuardReadOnly refuses every write when kyyard runs read-only.
	GuardReadOnly Guard = "read_only"
	// GuardAccess is a SelfSubjectAccessReview for the exact verb,
	// resource, subresource and namespace.
	GuardAccess Guard = "access"
	// GuardFresh compares the object read fresh with the UID and
	// resourceVersion the person saw.
	GuardFresh Guard = "fresh"
	// GuardBounds refuses a write that would touch what the read could not
	// show whole (Workload.Unsupported).
	GuardBounds Guard = "bounds"
	// GuardManaged looks for another tool's markers (Helm, Argo CD, Flux,
	// kyyard's own deploy form).
	GuardManaged Guard = "managed"
	// GuardPodSecurity reads the namespace's Pod Security enforce level.
	GuardPodSecurity Guard = "pod_security"
	// GuardClaims lists the PersistentVolumeClaims a scale-down or delete
	// would delete.
	GuardClaims Guard = "claims"
	// GuardSecretRef names Secrets the change makes the pods read that the
	// object did not reference before.
	GuardSecretRef Guard = "secret_ref"
	// GuardAutoscaler warns that a HorizontalPodAutoscaler will undo a
	// replicas change.
	GuardAutoscaler Guard = "autoscaler"
	// GuardAction checks an action's own rules against the object (Operate):
	// the kind has the action, replicas within 0..MaxReplicas, a paused
	// Deployment is neither restarted nor rolled back, an undo has a
	// previous revision, a pod delete's grace period and force agree.
	GuardAction Guard = "action"
)

// Guards of a delete of any kind (Operate's ActionDelete).
const (
	// GuardFinalizers names the finalizers that will hold the object after
	// its delete is accepted (it stays, marked for deletion, until each is
	// removed) and who removes each: the manager that added it (the
	// object's managedFields), or the Kubernetes controller a well-known
	// finalizer belongs to.
	GuardFinalizers Guard = "finalizers"
	// GuardDependents names what the delete takes with it (the objects
	// that name it in their ownerReferences, which the garbage collector
	// deletes with Background propagation) and the controller that owns
	// it and may make it again.
	GuardDependents Guard = "dependents"
)

// GuardRunning checks that the pod is Running and the container asked for
// has a running state (exec, debug containers).
const GuardRunning Guard = "running"

// Guards of a deploy besides access, read-only and Pod Security (their
// verdicts are in DeployPlan.Verdicts).
const (
	// GuardOwner reads each planned object by name: one that exists
	// without this instance's labels (app.kubernetes.io/managed-by:
	// kyyard and app.kubernetes.io/instance: <instance>) is refused
	// name_taken; the instance record Secret the same way.
	GuardOwner Guard = "owner"
	// GuardClaimSpec compares an existing PersistentVolumeClaim with the
	// planned one: another storageClassName, accessModes or volumeMode, or
	// another requested size, is refused claim_immutable (kyyard never
	// writes an existing claim; see claimChange).
	GuardClaimSpec Guard = "claim_spec"
	// GuardStorageClass lists the StorageClasses when a claim to be made
	// names none: without one annotated
	// storageclass.kubernetes.io/is-default-class: "true" (or the beta
	// annotation) the claim is never provisioned (the PV controller's
	// FailedBinding: "no persistent volumes available for this claim and
	// no storage class is set"), a claim_pending warning (guards.Checker.Warn: strict
	// refuses), unless a PersistentVolume without a class is free or
	// reserved for the claim. A list the account may not make is a pass
	// that says so.
	GuardStorageClass Guard = "storage_class"
)

// Outcome is one guard's answer.
type Outcome string

// Outcomes.
const (
	OutcomePass   Outcome = "pass"
	OutcomeWarn   Outcome = "warn"
	OutcomeRefuse Outcome = "refuse"
)

// Reason is a closed set of codes for why kyyard could not do or read
// something, each with a sentence a person can act on (Reason.Sentence).
type Reason string

// Reasons for a failed read. Write reasons join them as writes arrive.
const (
	// ReasonForbidden: RBAC denied the request (HTTP 403).
	ReasonForbidden Reason = "forbidden"
	// ReasonUnauthorized: the API server rejected the credentials (HTTP 401).
	ReasonUnauthorized Reason = "unauthorized"
	// ReasonUnavailable: the API server could not be reached or answered 5xx/429.
	ReasonUnavailable Reason = "unavailable"
	// ReasonTimeout: the request did not finish within its budget.
	ReasonTimeout Reason = "timeout"
	// ReasonNotFound: the object or the resource type does not exist (HTTP 404).
	ReasonNotFound Reason = "not_found"
	// ReasonUnknownKind: kyyard has no plugin for the kind asked for.
	ReasonUnknownKind Reason = "unknown_kind"
	// ReasonInvalid: the request itself is malformed (a bad selector, HTTP 400).
	ReasonInvalid Reason = "invalid"
	// ReasonError: any other error; its message says more.
	ReasonError Reason = "error"
)

// Reasons a write (an apply, a scale, a restart, a delete) is refused. The
// guards (kube/internal/guards) and the writes produce them; see Reason.Sentence.
const (
	// ReasonConflict: the object changed since it was read (its
	// resourceVersion moved, it was replaced, a named container is gone),
	// or the API server answered 409.
	ReasonConflict Reason = "conflict"
	// ReasonPodSecurity: the namespace enforces no Pod Security level
	// (baseline or restricted), so pods the write creates go unchecked.
	ReasonPodSecurity Reason = "pod_security"
	// ReasonApplicationManaged: another tool (Helm, Argo CD, Flux, or
	// kyyard's deploy form) manages the object and may undo the change.
	ReasonApplicationManaged Reason = "application_managed"
	// ReasonConfigurationUnreported: the read was not whole (a list past
	// the form's bounds); a write would drop what it did not show.
	ReasonConfigurationUnreported Reason = "configuration_unreported"
	// ReasonSecretRefRefused: the change makes the pods read a Secret the
	// object did not reference before.
	ReasonSecretRefRefused Reason = "secret_ref_refused"
	// ReasonPVCRetention: the change deletes PersistentVolumeClaims (a
	// StatefulSet scaled down or deleted with a Delete retention policy).
	ReasonPVCRetention Reason = "pvc_retention"
	// ReasonAutoscaled: a HorizontalPodAutoscaler targets the workload and
	// will set replicas back.
	ReasonAutoscaled Reason = "autoscaled"
	// ReasonRolloutTimeout: a rollout did not finish within its deadline.
	ReasonRolloutTimeout Reason = "rollout_timeout"
	// ReasonAdmissionDenied: an admission webhook or policy refused the write.
	ReasonAdmissionDenied Reason = "admission_denied"
	// ReasonReadOnly: kyyard runs read-only (--readonly); no write is sent.
	ReasonReadOnly Reason = "read_only"
	// ReasonNameTaken: an object of that name exists and is not this
	// app's (a deploy), or the Job a trigger would create exists already
	// (a CronJob triggered twice in one minute: TriggeredJobName).
	ReasonNameTaken Reason = "name_taken"
	// ReasonClaimImmutable: an existing claim differs where a claim cannot change.
	ReasonClaimImmutable Reason = "claim_immutable"
	// ReasonClaimPending: a claim to be made names no storage class and
	// the cluster has no default StorageClass, so nothing will provision
	// it: it stays Pending and so do the pods that mount it (a warning).
	ReasonClaimPending Reason = "claim_pending"
	// ReasonPaused: the Deployment's rollout is paused (spec.paused), so it
	// can be neither restarted nor rolled back until it is resumed
	// (kubectl refuses both the same way).
	ReasonPaused Reason = "paused"
	// ReasonNotRunning: the pod is not Running or the container has no
	// running state, so nothing can be executed in it.
	ReasonNotRunning Reason = "not_running"
	// ReasonContentsDeleted: the object holds others that its delete
	// deletes with it: every object in a Namespace (the namespace
	// controller), every custom resource of a CustomResourceDefinition (the
	// API server's CRD finalizer). A warning the person confirms by typing
	// its name; strict refuses.
	ReasonContentsDeleted Reason = "contents_deleted"
	// ReasonFieldConflict: a server-side apply sets fields another field
	// manager owns to other values (the API server's 409 with
	// FieldManagerConflict causes, one per field); the apply is sent only
	// with force, which takes the fields over, after the person confirms.
	ReasonFieldConflict Reason = "field_conflict"
	// ReasonDisruptionBudget: an eviction the API server refuses (429)
	// because a PodDisruptionBudget allows no disruption now (a drain
	// retries it until its timeout).
	ReasonDisruptionBudget Reason = "disruption_budget"
	// ReasonCancelled: the person stopped a long write (a drain) before it
	// ended; what was done stays done.
	ReasonCancelled Reason = "cancelled"
)
