package kube

// The guards' verdicts, the workload form's picture and the reason an
// error is classified under moved to kube/vocab with the rest of the
// shared vocabulary; kube re-exports each name (see vocab.go).

import "github.com/kyyard/kyyard/kube/vocab"

type (
	// ApplyResult is vocab.ApplyResult.
	ApplyResult = vocab.ApplyResult
	// Change is vocab.Change.
	Change = vocab.Change
	// Container is vocab.Container.
	Container = vocab.Container
	// ContainerRole is vocab.ContainerRole.
	ContainerRole = vocab.ContainerRole
	// EnvSource is vocab.EnvSource.
	EnvSource = vocab.EnvSource
	// EnvVar is vocab.EnvVar.
	EnvVar = vocab.EnvVar
	// Policy is vocab.Policy.
	Policy = vocab.Policy
	// Preview is vocab.Preview.
	Preview = vocab.Preview
	// Refusal is vocab.Refusal.
	Refusal = vocab.Refusal
	// Resources is vocab.Resources.
	Resources = vocab.Resources
	// RolloutPhase is vocab.RolloutPhase.
	RolloutPhase = vocab.RolloutPhase
	// RolloutPod is vocab.RolloutPod.
	RolloutPod = vocab.RolloutPod
	// RolloutStatus is vocab.RolloutStatus.
	RolloutStatus = vocab.RolloutStatus
	// Unsupported is vocab.Unsupported.
	Unsupported = vocab.Unsupported
	// UnsupportedCode is vocab.UnsupportedCode.
	UnsupportedCode = vocab.UnsupportedCode
	// Verdict is vocab.Verdict.
	Verdict = vocab.Verdict
	// Verdicts is vocab.Verdicts.
	Verdicts = vocab.Verdicts
	// Workload is vocab.Workload.
	Workload = vocab.Workload
)

const (
	// EnvConfigMap is vocab.EnvConfigMap.
	EnvConfigMap = vocab.EnvConfigMap
	// EnvField is vocab.EnvField.
	EnvField = vocab.EnvField
	// EnvLiteral is vocab.EnvLiteral.
	EnvLiteral = vocab.EnvLiteral
	// EnvOther is vocab.EnvOther.
	EnvOther = vocab.EnvOther
	// EnvResource is vocab.EnvResource.
	EnvResource = vocab.EnvResource
	// EnvSecret is vocab.EnvSecret.
	EnvSecret = vocab.EnvSecret
	// FieldRefAPIVersion is vocab.FieldRefAPIVersion.
	FieldRefAPIVersion = vocab.FieldRefAPIVersion
	// MaxFormArgv is vocab.MaxFormArgv.
	MaxFormArgv = vocab.MaxFormArgv
	// MaxFormContainers is vocab.MaxFormContainers.
	MaxFormContainers = vocab.MaxFormContainers
	// MaxFormEnv is vocab.MaxFormEnv.
	MaxFormEnv = vocab.MaxFormEnv
	// MaxReplicas is vocab.MaxReplicas.
	MaxReplicas = vocab.MaxReplicas
	// PolicyInteractive is vocab.PolicyInteractive.
	PolicyInteractive = vocab.PolicyInteractive
	// PolicyStrict is vocab.PolicyStrict.
	PolicyStrict = vocab.PolicyStrict
	// RoleContainer is vocab.RoleContainer.
	RoleContainer = vocab.RoleContainer
	// RoleInit is vocab.RoleInit.
	RoleInit = vocab.RoleInit
	// RoleSidecar is vocab.RoleSidecar.
	RoleSidecar = vocab.RoleSidecar
	// RolloutComplete is vocab.RolloutComplete.
	RolloutComplete = vocab.RolloutComplete
	// RolloutFailed is vocab.RolloutFailed.
	RolloutFailed = vocab.RolloutFailed
	// RolloutPaused is vocab.RolloutPaused.
	RolloutPaused = vocab.RolloutPaused
	// RolloutProgressing is vocab.RolloutProgressing.
	RolloutProgressing = vocab.RolloutProgressing
	// RolloutUnfollowed is vocab.RolloutUnfollowed.
	RolloutUnfollowed = vocab.RolloutUnfollowed
	// UnsupportedArgvTruncated is vocab.UnsupportedArgvTruncated.
	UnsupportedArgvTruncated = vocab.UnsupportedArgvTruncated
	// UnsupportedContainersTruncated is vocab.UnsupportedContainersTruncated.
	UnsupportedContainersTruncated = vocab.UnsupportedContainersTruncated
	// UnsupportedEnvTruncated is vocab.UnsupportedEnvTruncated.
	UnsupportedEnvTruncated = vocab.UnsupportedEnvTruncated
)

var (
	// ErrInvalid is vocab.ErrInvalid.
	ErrInvalid = vocab.ErrInvalid
)

// ReasonOf is vocab.ReasonOf.
func ReasonOf(err error) Reason { return vocab.ReasonOf(err) }

// Noun is vocab.Noun: the English noun for n of a thing ("replica",
// "replicas").
func Noun(n int64, singular string) string { return vocab.Noun(n, singular) }

// Plural is vocab.Plural: n and the noun for n of a thing ("1 replica",
// "3 replicas").
func Plural[N int | int32 | int64](n N, singular string) string { return vocab.Plural(n, singular) }

// Bytes is vocab.Bytes: "512 B", "1.5 KiB", "3.2 MiB".
func Bytes(n int64) string { return vocab.Bytes(n) }
