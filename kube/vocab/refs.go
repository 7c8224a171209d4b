package vocab

// KindPods is the plugin id of core/v1 Pods, the one kind besides the
// workloads that Operate acts on (delete only).
const KindPods Kind = "pods"

// KindNodes is the nodes plugin's id, a MetricsRequest's other kind.
const KindNodes Kind = "nodes"

// Kinds whose delete deletes what they hold (guards.Checker.ContentsDeleted).
const (
	// KindNamespaces is the namespaces plugin's id.
	KindNamespaces Kind = "namespaces"
	// KindCustomResourceDefinitions is the id discovery gives
	// apiextensions.k8s.io/v1 CustomResourceDefinitions.
	KindCustomResourceDefinitions Kind = "customresourcedefinitions"
)

// WorkloadRef names one workload: Kind is "deployments", "statefulsets" or
// "daemonsets" (the plugin ids of the apps/v1 kinds the form edits).
type WorkloadRef struct {
	Kind      Kind
	Namespace string
	Name      string
}

// String returns "<namespace>/<kind>/<name>", the form references take in
// messages ("demo/deployments/web").
func (r WorkloadRef) String() string { return r.Namespace + "/" + string(r.Kind) + "/" + r.Name }

// Editable workload kinds.
const (
	KindDeployments  Kind = "deployments"
	KindStatefulSets Kind = "statefulsets"
	KindDaemonSets   Kind = "daemonsets"
)

// Kinds logs are read from besides pods and the workloads (KindPods,
// KindDeployments, KindStatefulSets, KindDaemonSets).
const (
	// KindContainers is the containers of one pod (a drill-down of pods).
	KindContainers Kind = "containers"
	// KindReplicaSets is apps/v1 ReplicaSets.
	KindReplicaSets Kind = "replicasets"
	// KindJobs is batch/v1 Jobs.
	KindJobs Kind = "jobs"
	// KindCronJobs is batch/v1 CronJobs: triggered, suspended and
	// unsuspended by Operate (ActionTrigger, ActionSuspend,
	// ActionUnsuspend).
	KindCronJobs Kind = "cronjobs"
)

// KindApps names an app instance (the deploy form's, :apps' rows) in the
// ObjectRef of a history entry: <namespace>/apps/<instance>. It is not a
// Kubernetes kind and no plugin serves it.
const KindApps Kind = "apps"

// Action names one operation.
type Action string

// Actions.
const (
	// ActionRestart stamps the pod template's
	// kubectl.kubernetes.io/restartedAt annotation with the current time
	// (RFC 3339), as `kubectl rollout restart` does
	// (k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go), so the
	// controller replaces every pod. Deployments, StatefulSets and
	// DaemonSets; a paused Deployment is refused (ReasonPaused) with
	// kubectl's own text.
	ActionRestart Action = "restart"
	// ActionScale sets spec.replicas to Operation.Replicas (0..MaxReplicas)
	// through the scale subresource (`deployments/scale`,
	// `statefulsets/scale`), at the resourceVersion read. A DaemonSet has
	// no replicas and is refused (invalid).
	ActionScale Action = "scale"
	// ActionDelete deletes the object read just before with Background
	// propagation and a UID precondition (a workload's resourceVersion
	// too). A pod may be given a grace period or be forced.
	ActionDelete Action = "delete"
	// ActionPause sets a Deployment's spec.paused (`kubectl rollout
	// pause`); an already paused Deployment is left alone (no request).
	ActionPause Action = "pause"
	// ActionResume clears a Deployment's spec.paused (`kubectl rollout
	// resume`); a Deployment that is not paused is left alone.
	ActionResume Action = "resume"
	// ActionUndo rolls a Deployment back to its previous revision exactly
	// as `kubectl rollout undo` does
	// (k8s.io/kubectl/pkg/polymorphichelpers/rollback.go): the template of
	// the ReplicaSet with the second-highest deployment.kubernetes.io/revision,
	// without its pod-template-hash label, and that ReplicaSet's
	// annotations; refused for a paused Deployment and when there is no
	// previous revision.
	ActionUndo Action = "undo"
	// ActionEdit is the workload form's apply (ApplyWorkload): a strategic
	// merge patch of a Deployment, StatefulSet or DaemonSet, the access
	// review of restart, pause, resume and undo. It is not an Operate
	// action (Operate refuses it): Permissions reports it so that the e
	// key and the form can say up front that applying is forbidden.
	ActionEdit Action = "edit"
	// ActionTrigger runs a CronJob now: it creates a Job from the
	// CronJob's spec.jobTemplate built as `kubectl create job NAME
	// --from=cronjob/X` builds it (k8s.io/kubectl/pkg/cmd/create/
	// create_job.go, createJobFromCronJob), named by kyyard (see
	// TriggeredJobName). The Job creates pods: the namespace's Pod
	// Security level is checked.
	ActionTrigger Action = "trigger"
	// ActionSuspend sets a CronJob's spec.suspend to true, so its
	// controller starts no further Job (Jobs running go on); an already
	// suspended CronJob is left alone (no request). kubectl has no
	// command for it (`kubectl patch cronjob X -p
	// '{"spec":{"suspend":true}}'`); k9s's ctrl+s does the same.
	ActionSuspend Action = "suspend"
	// ActionUnsuspend clears a CronJob's spec.suspend (sets it false),
	// so its schedule runs again: what the Kubernetes documentation calls
	// resuming a CronJob. It is not ActionResume, which is a Deployment's
	// `kubectl rollout resume` (another field, another request, and a
	// rollout to follow); a CronJob that is not suspended is left alone.
	ActionUnsuspend Action = "unsuspend"
	// ActionCordon marks a Node unschedulable (spec.unschedulable: true),
	// as `kubectl cordon` does (k8s.io/kubectl/pkg/drain, cordon.go: a
	// strategic merge patch of spec.unschedulable): the scheduler puts no
	// new pod on it; the pods running there stay. A Node already cordoned
	// is left alone (no request), as kubectl says "already cordoned".
	ActionCordon Action = "cordon"
	// ActionUncordon clears a Node's spec.unschedulable, as `kubectl
	// uncordon` does: pods may be scheduled on it again.
	ActionUncordon Action = "uncordon"
	// ActionDrain cordons a Node and evicts its pods through the Eviction
	// API (PodDisruptionBudgets honoured), as `kubectl drain
	// --ignore-daemonsets` does, leaving the pods kubectl drain leaves
	// without its force flags (DaemonSet and mirror pods, pods with
	// emptyDir data, pods no controller manages). Not an Operate action:
	// PlanDrain and Drain (its own screen, with progress per pod).
	ActionDrain Action = "drain"
)

// ObjectRef names the object an action is for, and what the person saw of
// it. Kind is a plugin id ("deployments", "pods", "configmaps", a
// discovered kind's resource); Namespace is empty for a cluster-scoped
// kind's object.
type ObjectRef struct {
	Kind      Kind
	Namespace string
	Name      string
	// UID is the metadata.uid the person saw (an inventory Row's UID).
	// Required: the object read fresh must still have it, or the action
	// is refused as a conflict (the object was deleted and made again
	// under the same name).
	UID string
	// ResourceVersion is the metadata.resourceVersion the person saw, ""
	// when unknown (an inventory Row carries none): the action then reads
	// the object first and the UID is the only precondition the person
	// saw. When set and the object's resourceVersion moved since, the
	// action is refused as a conflict unless Generation is set and
	// unchanged (only status moved: the controller reporting progress).
	ResourceVersion string
	// Generation is the metadata.generation the person saw, 0 when unknown.
	Generation int64
}

// String returns "<namespace>/<kind>/<name>", or "<kind>/<name>" for a
// cluster-scoped object (no namespace: a Node, a Namespace).
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return string(r.Kind) + "/" + r.Name
	}
	return r.Namespace + "/" + string(r.Kind) + "/" + r.Name
}

// Workload returns the WorkloadRef of a workload's ObjectRef (its kind,
// namespace and name).
func (r ObjectRef) Workload() WorkloadRef {
	return WorkloadRef{Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}
}

// Actions that name a session's outcome in the session's history (the
// root's :history): not Operate actions (PlanOperation refuses them).
const (
	// ActionShell is a shell in a container (views/exec): refused, or
	// ended with its exit code or why it ended without one.
	ActionShell Action = "shell"
	// ActionDebug is an ephemeral debug container's session.
	ActionDebug Action = "debug"
	// ActionCopy is a file copy to or from a container (CopyFile:
	// `kubectl cp`'s tar stream over pods/exec): refused, failed, or what
	// it carried and where it landed.
	ActionCopy Action = "copy"
	// ActionPortForward is a port-forward (create pods/portforward). It is
	// not written to the history (a forward changes nothing in the
	// cluster); Permissions reports it so that shift+f can say up front
	// that it is forbidden.
	ActionPortForward Action = "port-forward"
	// ActionApply is a workload form's apply (ApplyWorkload) on a
	// Deployment, StatefulSet or DaemonSet; the form's undo after a
	// failed rollout is recorded as ActionUndo.
	ActionApply Action = "apply"
	// ActionServerSideApply is a server-side apply of objects of any kind
	// from YAML (ApplyManifests: `kubectl apply --server-side`'s write,
	// field manager kyyard), one outcome per object.
	ActionServerSideApply Action = "server-side apply"
	// ActionEditYAML is an edit of one object of any kind as YAML
	// (ApplyYAMLEdit: `kubectl edit`'s write, a strategic merge patch for
	// built-in kinds and a merge patch for the others, sent with the
	// resourceVersion read as its precondition).
	ActionEditYAML Action = "edit yaml"
	// ActionDeploy is a deploy of an app instance (Deploy), recorded on
	// the ObjectRef <namespace>/apps/<instance> (KindApps).
	ActionDeploy Action = "deploy"
	// ActionRemove is the remove of an app instance (Remove), recorded as
	// ActionDeploy is.
	ActionRemove Action = "remove"
)

// FieldManager is the field manager kyyard writes under
// (metadata.managedFields' manager, the fieldManager parameter of every
// create, update and apply it sends), so `kubectl get -o yaml
// --show-managed-fields` tells kyyard's fields from others', and a
// server-side apply's fields stay kyyard's until another manager takes
// them.
const FieldManager = "kyyard"
