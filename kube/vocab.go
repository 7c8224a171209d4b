package kube

// The shared vocabulary lives in package kube/vocab (a leaf the kind
// plugins and the adapter's parts import); kube re-exports each of its
// names so the screens keep one import. Each name below is vocab's, the
// same type or value: see its documentation there.

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/kube/vocab"
)

// The vocabulary's types (aliases of kube/vocab's).
type (
	// Action is vocab.Action.
	Action = vocab.Action
	// Capability is vocab.Capability.
	Capability = vocab.Capability
	// Cell is vocab.Cell.
	Cell = vocab.Cell
	// Column is vocab.Column.
	Column = vocab.Column
	// ContainerResources is vocab.ContainerResources.
	ContainerResources = vocab.ContainerResources
	// Driller is vocab.Driller.
	Driller = vocab.Driller
	// Expander is vocab.Expander.
	Expander = vocab.Expander
	// Guard is vocab.Guard.
	Guard = vocab.Guard
	// Health is vocab.Health.
	Health = vocab.Health
	// HelmRelease is vocab.HelmRelease.
	HelmRelease = vocab.HelmRelease
	// HelmRollbackPlan is vocab.HelmRollbackPlan.
	HelmRollbackPlan = vocab.HelmRollbackPlan
	// Kind is vocab.Kind.
	Kind = vocab.Kind
	// KindInfo is vocab.KindInfo.
	KindInfo = vocab.KindInfo
	// ObjectRef is vocab.ObjectRef.
	ObjectRef = vocab.ObjectRef
	// Outcome is vocab.Outcome.
	Outcome = vocab.Outcome
	// Plugin is vocab.Plugin.
	Plugin = vocab.Plugin
	// Reason is vocab.Reason.
	Reason = vocab.Reason
	// Registry is vocab.Registry.
	Registry = vocab.Registry
	// Row is vocab.Row.
	Row = vocab.Row
	// RowResources is vocab.RowResources.
	RowResources = vocab.RowResources
	// RowWorkload is vocab.RowWorkload.
	RowWorkload = vocab.RowWorkload
	// Selector is vocab.Selector.
	Selector = vocab.Selector
	// Snapshot is vocab.Snapshot.
	Snapshot = vocab.Snapshot
	// SnapshotRequest is vocab.SnapshotRequest.
	SnapshotRequest = vocab.SnapshotRequest
	// Table is vocab.Table.
	Table = vocab.Table
	// NamespaceUnread is vocab.NamespaceUnread.
	NamespaceUnread = vocab.NamespaceUnread
	// Truncation is vocab.Truncation.
	Truncation = vocab.Truncation
	// Usage is vocab.Usage.
	Usage = vocab.Usage
	// Watcher is vocab.Watcher.
	Watcher = vocab.Watcher
	// WorkloadRef is vocab.WorkloadRef.
	WorkloadRef = vocab.WorkloadRef
)

// The vocabulary's constants (kube/vocab's): kinds, actions,
// capabilities, health, guard codes, outcomes and reasons.
const (
	ActionApply                   = vocab.ActionApply
	ActionServerSideApply         = vocab.ActionServerSideApply
	ActionEditYAML                = vocab.ActionEditYAML
	ActionCopy                    = vocab.ActionCopy
	ActionDebug                   = vocab.ActionDebug
	ActionDelete                  = vocab.ActionDelete
	ActionDeploy                  = vocab.ActionDeploy
	ActionEdit                    = vocab.ActionEdit
	ActionPause                   = vocab.ActionPause
	ActionPortForward             = vocab.ActionPortForward
	ActionRemove                  = vocab.ActionRemove
	ActionRestart                 = vocab.ActionRestart
	ActionResume                  = vocab.ActionResume
	ActionScale                   = vocab.ActionScale
	ActionShell                   = vocab.ActionShell
	ActionSuspend                 = vocab.ActionSuspend
	ActionTrigger                 = vocab.ActionTrigger
	ActionUndo                    = vocab.ActionUndo
	ActionUnsuspend               = vocab.ActionUnsuspend
	ActionCordon                  = vocab.ActionCordon
	ActionUncordon                = vocab.ActionUncordon
	ActionDrain                   = vocab.ActionDrain
	ActionHelmRollback            = vocab.ActionHelmRollback
	CanCordon                     = vocab.CanCordon
	CanDecode                     = vocab.CanDecode
	CanDelete                     = vocab.CanDelete
	CanEdit                       = vocab.CanEdit
	CanEditOwner                  = vocab.CanEditOwner
	CanExec                       = vocab.CanExec
	CanLogs                       = vocab.CanLogs
	CanPause                      = vocab.CanPause
	CanPortForward                = vocab.CanPortForward
	CanRestart                    = vocab.CanRestart
	CanRollout                    = vocab.CanRollout
	CanScale                      = vocab.CanScale
	CanSuspend                    = vocab.CanSuspend
	CanTrigger                    = vocab.CanTrigger
	CanUndo                       = vocab.CanUndo
	CanWatch                      = vocab.CanWatch
	GuardAccess                   = vocab.GuardAccess
	GuardAction                   = vocab.GuardAction
	GuardAutoscaler               = vocab.GuardAutoscaler
	GuardBounds                   = vocab.GuardBounds
	GuardClaimSpec                = vocab.GuardClaimSpec
	GuardClaims                   = vocab.GuardClaims
	GuardFinalizers               = vocab.GuardFinalizers
	GuardDependents               = vocab.GuardDependents
	GuardFresh                    = vocab.GuardFresh
	GuardManaged                  = vocab.GuardManaged
	GuardOwner                    = vocab.GuardOwner
	GuardPodSecurity              = vocab.GuardPodSecurity
	GuardReadOnly                 = vocab.GuardReadOnly
	GuardRunning                  = vocab.GuardRunning
	GuardSecretRef                = vocab.GuardSecretRef
	GuardStorageClass             = vocab.GuardStorageClass
	HealthFailed                  = vocab.HealthFailed
	HealthOK                      = vocab.HealthOK
	HealthProgressing             = vocab.HealthProgressing
	HealthWarning                 = vocab.HealthWarning
	KindApps                      = vocab.KindApps
	KindContainers                = vocab.KindContainers
	KindCronJobs                  = vocab.KindCronJobs
	KindDaemonSets                = vocab.KindDaemonSets
	KindDeployments               = vocab.KindDeployments
	KindJobs                      = vocab.KindJobs
	KindNodes                     = vocab.KindNodes
	KindNamespaces                = vocab.KindNamespaces
	KindCustomResourceDefinitions = vocab.KindCustomResourceDefinitions
	KindPods                      = vocab.KindPods
	KindHelmReleases              = vocab.KindHelmReleases
	KindReplicaSets               = vocab.KindReplicaSets
	KindStatefulSets              = vocab.KindStatefulSets
	NotSet                        = vocab.NotSet
	OutcomePass                   = vocab.OutcomePass
	OutcomeRefuse                 = vocab.OutcomeRefuse
	OutcomeWarn                   = vocab.OutcomeWarn
	ReasonAdmissionDenied         = vocab.ReasonAdmissionDenied
	ReasonApplicationManaged      = vocab.ReasonApplicationManaged
	ReasonAutoscaled              = vocab.ReasonAutoscaled
	ReasonClaimImmutable          = vocab.ReasonClaimImmutable
	ReasonClaimPending            = vocab.ReasonClaimPending
	ReasonConfigurationUnreported = vocab.ReasonConfigurationUnreported
	ReasonConflict                = vocab.ReasonConflict
	ReasonDisruptionBudget        = vocab.ReasonDisruptionBudget
	ReasonCancelled               = vocab.ReasonCancelled
	ReasonError                   = vocab.ReasonError
	ReasonForbidden               = vocab.ReasonForbidden
	ReasonFieldConflict           = vocab.ReasonFieldConflict
	ReasonInvalid                 = vocab.ReasonInvalid
	ReasonNameTaken               = vocab.ReasonNameTaken
	ReasonNotFound                = vocab.ReasonNotFound
	ReasonNotRunning              = vocab.ReasonNotRunning
	ReasonContentsDeleted         = vocab.ReasonContentsDeleted
	ReasonPVCRetention            = vocab.ReasonPVCRetention
	ReasonPaused                  = vocab.ReasonPaused
	ReasonPodSecurity             = vocab.ReasonPodSecurity
	ReasonReadOnly                = vocab.ReasonReadOnly
	ReasonRolloutTimeout          = vocab.ReasonRolloutTimeout
	ReasonSecretRefRefused        = vocab.ReasonSecretRefRefused
	ReasonTimeout                 = vocab.ReasonTimeout
	ReasonUnauthorized            = vocab.ReasonUnauthorized
	ReasonUnavailable             = vocab.ReasonUnavailable
	ReasonUnknownKind             = vocab.ReasonUnknownKind
)

// Text is vocab.Text: a plain cell.
func Text(s string) Cell { return vocab.Text(s) }

// Age is vocab.Age: a cell of the time since t, as kubectl prints ages.
func Age(t time.Time) Cell { return vocab.Age(t) }

// CannotStart is vocab.CannotStart: whether a container waiting with
// reason cannot start without a change.
func CannotStart(reason string) bool { return vocab.CannotStart(reason) }

// PodCannotStart is vocab.PodCannotStart: the first container of pod that
// waits with a reason CannotStart names.
func PodCannotStart(pod *corev1.Pod) (container, reason, message string, ok bool) {
	return vocab.PodCannotStart(pod)
}

// KindActions is vocab.KindActions: every action a kind may have, in the
// capability table's order.
func KindActions() []Action { return vocab.KindActions() }

// NewRegistry is vocab.NewRegistry: a registry of plugins; it fails when
// two plugins claim the same id or alias.
func NewRegistry(plugins ...Plugin) (*Registry, error) { return vocab.NewRegistry(plugins...) }

// SplitNamespaces is vocab.SplitNamespaces: the namespaces a
// SnapshotRequest.Namespace names, sorted, none for all namespaces.
func SplitNamespaces(ns string) []string { return vocab.SplitNamespaces(ns) }

// JoinNamespaces is vocab.JoinNamespaces: namespaces as one
// SnapshotRequest.Namespace ("a,b"), "" for none.
func JoinNamespaces(nss []string) string { return vocab.JoinNamespaces(nss) }

// SeveralNamespaces is vocab.SeveralNamespaces: whether a
// SnapshotRequest.Namespace names more than one namespace.
func SeveralNamespaces(ns string) bool { return vocab.SeveralNamespaces(ns) }
