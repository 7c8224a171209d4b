package vocab

// The workload form's picture of a Deployment, StatefulSet or DaemonSet:
// what ReadWorkload reads, what the form edits and what ApplyWorkload
// writes back, as kyyard's own types (no client-go type leaves kube).

// Bounds of the form. What lies past them is shown read-only (containers) or
// named in Workload.Unsupported (env and argv entries), and never written.
const (
	// MaxFormContainers is how many containers (init containers, native
	// sidecars and containers together, in that order) the form edits.
	MaxFormContainers = 16
	// MaxFormEnv is how many env entries of one container the form edits.
	MaxFormEnv = 256
	// MaxFormArgv is how many command or args entries of one container the
	// form edits.
	MaxFormArgv = 128
	// MaxReplicas is the largest replicas value the form (and scale) sets.
	MaxReplicas = 10000
)

// ContainerRole says where a container sits in the pod template.
type ContainerRole string

// Container roles.
const (
	// RoleContainer is an entry of spec.containers.
	RoleContainer ContainerRole = "container"
	// RoleInit is an entry of spec.initContainers that runs to completion.
	RoleInit ContainerRole = "init"
	// RoleSidecar is a native sidecar: an entry of spec.initContainers with
	// restartPolicy: Always (Kubernetes 1.29+), which keeps running.
	RoleSidecar ContainerRole = "sidecar"
)

// EnvSource says where an env entry's value comes from.
type EnvSource string

// Env sources. Every source but EnvOther is editable: the form switches an
// entry between them, and an apply writes exactly one of `value` and
// `valueFrom` (the API server refuses both, casebook C23 keeps untouched
// ones as they are).
const (
	// EnvLiteral: `value` (possibly empty, possibly with $(VAR) references).
	EnvLiteral EnvSource = "value"
	// EnvSecret: `valueFrom.secretKeyRef`; the Secret is never read.
	EnvSecret EnvSource = "secret"
	// EnvConfigMap: `valueFrom.configMapKeyRef`.
	EnvConfigMap EnvSource = "configmap"
	// EnvField: `valueFrom.fieldRef` (EnvVar.FieldPath, EnvVar.APIVersion).
	EnvField EnvSource = "field"
	// EnvResource: `valueFrom.resourceFieldRef` (EnvVar.Resource,
	// EnvVar.ContainerName, EnvVar.Divisor).
	EnvResource EnvSource = "resource"
	// EnvOther: any other `valueFrom` (fileKeyRef, a source newer than
	// kyyard): Path describes it; it is never written, only kept as read,
	// removed, or replaced by another source.
	EnvOther EnvSource = "other"
)

// FieldRefAPIVersion is the apiVersion a fieldRef is written with when it
// names none: the API server defaults an empty one to "v1" (k8s.io/api
// core/v1 ObjectFieldSelector), and "v1" is the only version whose field
// paths it converts for a pod.
const FieldRefAPIVersion = "v1"

// EnvVar is one entry of a container's env list.
type EnvVar struct {
	// Name is the variable's name (C_IDENTIFIER-like, see ValidateEnvName).
	Name string
	// Source says which of the fields below hold the value.
	Source EnvSource
	// Value is the literal value (EnvLiteral).
	Value string
	// Ref and Key name the Secret or ConfigMap and its key (EnvSecret,
	// EnvConfigMap); Optional is their `optional: true`.
	Ref, Key string
	Optional bool
	// FieldPath and APIVersion are a fieldRef's (EnvField):
	// "metadata.labels['apps.kubernetes.io/pod-index']" and "v1" (""
	// stands for FieldRefAPIVersion, as the API server defaults it).
	FieldPath, APIVersion string
	// Resource, ContainerName and Divisor are a resourceFieldRef's
	// (EnvResource): "limits.memory", the container whose resource it is
	// ("" for the entry's own container) and the divisor as quantity text
	// ("1Mi"; "" when unset, which the kubelet reads as 1).
	Resource, ContainerName, Divisor string
	// Path describes an EnvOther source ("file cfg/app.env key K"), shown
	// only.
	Path string
	// Read is 1 + the entry's position in the env list as read, and 0 for
	// an entry the form added. It is how an apply tells a renamed entry
	// from a removed one and an added one, and tells apart entries that
	// share a name (casebook C20); the form copies it unchanged.
	Read int
}

// ReadOnly reports whether the entry's value is shown only (EnvOther: a
// source kyyard does not write); such an entry can still be removed or
// replaced by another source.
func (e EnvVar) ReadOnly() bool {
	switch e.Source {
	case EnvLiteral, EnvSecret, EnvConfigMap, EnvField, EnvResource:
		return false
	}
	return true
}

// Reference returns "<name>/<key>" for a Secret or ConfigMap reference, the
// form the screens show; "" for other sources.
func (e EnvVar) Reference() string {
	if e.Source != EnvSecret && e.Source != EnvConfigMap {
		return ""
	}
	return e.Ref + "/" + e.Key
}

// Resources are a container's cpu and memory requests and limits, each the
// quantity text as the object holds it ("500m", "1Gi", "524288e3"); ""
// means unset.
type Resources struct {
	CPURequest, CPULimit, MemoryRequest, MemoryLimit string
}

// Container is the editable part of one container of the pod template.
type Container struct {
	// Name is the container's name, its merge key.
	Name string
	// Role says whether it is a container, an init container or a native sidecar.
	Role ContainerRole
	// ReadOnly is set for containers past MaxFormContainers: shown, never written.
	ReadOnly bool
	// Image is the image reference.
	Image string
	// Command and Args are the argv lists, one element per entry (never a
	// shell string); nil when unset.
	Command, Args []string
	// Env is the env list in the object's order.
	Env []EnvVar
	// Resources are the cpu and memory requests and limits.
	Resources Resources
	// EnvFrom describes each envFrom entry, read-only ("configmap app-env",
	// "secret creds prefix DB_", "optional" appended when set).
	EnvFrom []string
	// OtherResources describes requests and limits of resources other than
	// cpu and memory, read-only ("limits nvidia.com/gpu=1").
	OtherResources []string
}

// UnsupportedCode names why the form's picture of a field is incomplete.
type UnsupportedCode string

// Unsupported codes.
const (
	// UnsupportedEnvTruncated: the container has more than MaxFormEnv env
	// entries; the form shows the first MaxFormEnv.
	UnsupportedEnvTruncated UnsupportedCode = "env_truncated"
	// UnsupportedArgvTruncated: command or args has more than MaxFormArgv entries.
	UnsupportedArgvTruncated UnsupportedCode = "argv_truncated"
	// UnsupportedContainersTruncated: more than MaxFormContainers containers;
	// the rest are read-only.
	UnsupportedContainersTruncated UnsupportedCode = "containers_truncated"
)

// Unsupported names one thing an apply could not carry faithfully. An apply
// that would touch such a field is refused with ReasonConfigurationUnreported.
type Unsupported struct {
	// Code says what kind of thing it is.
	Code UnsupportedCode
	// Container is the container it concerns ("" for the whole workload).
	Container string
	// Detail is a sentence for people ("env has 300 entries; the form shows 256").
	Detail string
}

// Workload is the editable part of a workload, as read at one resourceVersion.
type Workload struct {
	// Ref names the workload.
	Ref WorkloadRef
	// UID and ResourceVersion are the object's as read; an apply carries
	// ResourceVersion as its precondition.
	UID, ResourceVersion string
	// Generation is metadata.generation as read.
	Generation int64
	// Containers are the init containers and native sidecars, then the
	// containers, in the pod template's order.
	Containers []Container
	// HasReplicas is false for a DaemonSet; Replicas is spec.replicas (1
	// when the object leaves it unset, as the API server defaults it).
	HasReplicas bool
	Replicas    int32
	// HasPaused is true for a Deployment; Paused is spec.paused.
	HasPaused bool
	Paused    bool
	// Autoscaler names the HorizontalPodAutoscaler whose scaleTargetRef is
	// this workload ("" when none); it will undo a replicas change.
	Autoscaler string
	// Labels and Annotations are the object's own (managed-by markers are
	// read from them); the form never changes them.
	Labels, Annotations map[string]string
	// Unsupported lists what the form cannot show whole.
	Unsupported []Unsupported
}

// Container returns the container named name, and whether there is one.
func (w Workload) Container(name string) (Container, bool) {
	for _, c := range w.Containers {
		if c.Name == name {
			return c, true
		}
	}
	return Container{}, false
}

// Change is one field the person changed, as the preview lists it.
type Change struct {
	// Container is the container's name ("" for replicas and paused).
	Container string
	// Field names the field: "image", "command", "args", "env NAME",
	// "cpu request", "cpu limit", "memory request", "memory limit",
	// "replicas", "paused".
	Field string
	// Before and After are the values as text ("" for unset or absent; a
	// reference reads "secret db/password").
	Before, After string
}

// Preview is what the form shows before it applies: the changes, the exact
// patch body, the server's dry run of it and every guard's verdict.
type Preview struct {
	// Changes lists the changed fields; empty when nothing changed (then
	// nothing was sent, not even the dry run: casebook C34).
	Changes []Change
	// Patch is the strategic merge patch body ApplyWorkload would send (JSON).
	Patch string
	// DryRunError is the API server's refusal of the dry run (admission,
	// validation), "" when it accepted it; DryRunReason classifies it.
	DryRunError  string
	DryRunReason Reason
	// DryRunWarnings are the warnings the API server answered with.
	DryRunWarnings []string
	// Verdicts are the guards' answers.
	Verdicts Verdicts
}

// ApplyResult is what a successful apply returns.
type ApplyResult struct {
	// Workload is the object as the API server returned it after the patch:
	// the base of the next apply (its ResourceVersion is the next
	// precondition, casebook C33).
	Workload Workload
	// Changes are the fields written.
	Changes []Change
	// Warnings are the API server's warnings.
	Warnings []string
}

// RolloutPhase is where a rollout stands.
type RolloutPhase string

// Rollout phases.
const (
	// RolloutProgressing: pods are being replaced.
	RolloutProgressing RolloutPhase = "progressing"
	// RolloutComplete: every replica runs the new template and is available.
	RolloutComplete RolloutPhase = "complete"
	// RolloutFailed: the cluster reports a failure (ProgressDeadlineExceeded,
	// new pods crash-looping or failing to pull, pods not created).
	RolloutFailed RolloutPhase = "failed"
	// RolloutPaused: a paused Deployment; its rollout is not waited for.
	RolloutPaused RolloutPhase = "paused"
	// RolloutUnfollowed: a StatefulSet or DaemonSet with updateStrategy
	// OnDelete, whose controller replaces a pod only when it is deleted:
	// there is no rollout to wait for (`kubectl rollout status` refuses
	// such objects). The counts and pods are still read.
	RolloutUnfollowed RolloutPhase = "unfollowed"
)

// RolloutPod is one pod of a rollout.
type RolloutPod struct {
	// Name is the pod's name.
	Name string
	// Ready is kubectl's READY column ("1/1"); Status its STATUS column.
	Ready, Status string
	// New is true for pods of the new template revision.
	New bool
	// PodReady is true when the pod's Ready condition is True (it counts
	// in status.readyReplicas and receives a Service's traffic), and it
	// is not being deleted.
	PodReady bool
	// Terminating is true when the pod is being deleted
	// (metadata.deletionTimestamp set): it is draining.
	Terminating bool
}

// RolloutStatus is one reading of a workload's rollout after a write that
// raised its generation.
type RolloutStatus struct {
	// Ref names the workload.
	Ref WorkloadRef
	// Phase is where the rollout stands; Message says why it failed or what
	// it waits for (the ReplicaSet's FailedCreate event text, a pod's
	// waiting reason, the ProgressDeadlineExceeded condition's message).
	Phase   RolloutPhase
	Message string
	// Desired, Updated, Ready and Available count replicas (a DaemonSet:
	// desiredNumberScheduled, updatedNumberScheduled, numberReady,
	// numberAvailable).
	Desired, Updated, Ready, Available int32
	// NewRevision names the new ReplicaSet ("web-7c9d5", revision in
	// Revision) or the StatefulSet's updateRevision or the DaemonSet's
	// newest ControllerRevision; OldRevisions the ones draining, each
	// "name (rev N)" (the name alone when its number is unknown), newest
	// first. Revision is "" until the controller has numbered the new one.
	NewRevision  string
	Revision     string
	OldRevisions []string
	// Pods are the workload's pods, new ones first.
	Pods []RolloutPod
	// ObservedGeneration is the controller's status.observedGeneration.
	ObservedGeneration int64
	// UID is the workload's metadata.uid as read. A watcher compares it
	// between readings: a different UID under the same name is a workload
	// deleted and created again, whose rollout is not the one followed.
	UID string
	// Missing is set when the workload is gone (its get answered not
	// found); the reading then holds only Ref and Missing, and no error is
	// returned.
	Missing bool
}
