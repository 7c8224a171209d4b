package kube

// Rollout state (RolloutStatus, Inspect) lives in kube/internal/rollouts;
// the Client builds a rollouts.Reader from its clientset, kind resolver and
// plugin lookup and delegates to it. Inspection and MaxInspectPods are
// rollouts' own, re-exported.

import (
	"context"

	"github.com/kyyard/kyyard/kube/internal/rollouts"
)

// Inspection is rollouts.Inspection: one reading of a workload and the
// pods its selector selects (see Inspect).
type Inspection = rollouts.Inspection

// MaxInspectPods is rollouts.MaxInspectPods: how many pods Inspect reads
// at most.
const MaxInspectPods = rollouts.MaxInspectPods

// rolloutReader is the reader of rollout state over c's clientset, kinds and
// plugins.
func (c *Client) rolloutReader() rollouts.Reader {
	return rollouts.Reader{CS: c.cs, KindInfo: c.kindInfo, Lookup: c.Lookup}
}

// RolloutStatus reads where the rollout of a Deployment, StatefulSet or
// DaemonSet stands, once: a screen polls it (about once a second) after a
// write that raised the workload's generation.
//
// The phase follows `kubectl rollout status` (k8s.io/kubectl
// pkg/polymorphichelpers, DeploymentStatusViewer, StatefulSetStatusViewer
// and DaemonSetStatusViewer), with these additions kubectl does not make:
//   - new pods whose containers cannot start (CannotStart:
//     CrashLoopBackOff, ImagePullBackOff, ErrImagePull, ...) make the
//     rollout failed at once, naming the pod, container and reason (a person
//     learns of an unpullable image now, not after the Deployment's
//     10-minute progress deadline; the phase goes back to progressing if the
//     pod recovers, since each reading stands alone);
//   - a Deployment whose controller could not create its new ReplicaSet
//     (Progressing condition with reason ReplicaSetCreateError) is failed
//     with the condition's message, as for ProgressDeadlineExceeded;
//   - a Deployment's new ReplicaSet that cannot create its pods (a
//     ReplicaFailure condition, or a recent FailedCreate Warning event while
//     it has fewer pods than it wants, e.g. admission refused them) makes it
//     failed with the event's text;
//   - a paused Deployment is RolloutPaused (kubectl would wait forever), and
//     a StatefulSet or DaemonSet with updateStrategy OnDelete is
//     RolloutUnfollowed (kubectl refuses those).
//
// Revisions and pods: a Deployment's new ReplicaSet is found by the
// controller's own rule (rollouts.findNewReplicaSet) and names
// NewRevision, with its deployment.kubernetes.io/revision annotation in
// Revision; OldRevisions are its other ReplicaSets that still want or have
// pods, "web-5f6b8 (rev 6)", newest first. A StatefulSet's NewRevision is
// status.updateRevision and OldRevisions holds status.currentRevision
// while it differs. A DaemonSet's NewRevision is its newest
// ControllerRevision and OldRevisions those its old pods still run.
// Revision is the ControllerRevision's number for both. Pods are those the
// selector matches and the workload (or its ReplicaSets) controls, new
// ones first: new by the pod-template-hash label of the new ReplicaSet, by
// controller-revision-hash equal to the updateRevision, or by the
// DaemonSet controller's test (see rollouts.daemonSetRollout). READY and
// STATUS are the pods plugin's, as kubectl prints them.
//
// A reading costs three requests: a get of the workload, a list of its
// ReplicaSets (Deployment) or ControllerRevisions (StatefulSet, DaemonSet)
// by its selector, and a list of its pods by its selector; a Deployment's
// new ReplicaSet that lacks pods adds a list of its FailedCreate events.
//
// UID is the workload's metadata.uid, so that a watcher notices a workload
// deleted and created again under the same name. A workload that is gone
// (its get answers not found) is a reading with Missing set and no error.
//
// ref.Kind is a plugin id or alias of deployments, statefulsets or
// daemonsets. Errors: another kind (ReasonOf: invalid), the account may not
// read it (forbidden), or any other error of the API server, wrapped so
// that ReasonOf classifies it.
func (c *Client) RolloutStatus(ctx context.Context, ref WorkloadRef) (RolloutStatus, error) {
	return c.rolloutReader().Status(ctx, ref)
}

// Inspect reads the workload ref names and the pods its selector selects,
// within a budget of two requests: a get of the workload and a list of
// pods by the selector of the object just got (the selector is immutable,
// the labels it matches are not). A workload that is gone answers an
// Inspection with Missing set and no error; one recreated under the same
// name answers with its new UID.
//
// ref.Kind is a plugin id or alias of deployments, statefulsets or
// daemonsets. Errors: another kind (ReasonOf: invalid), more than
// MaxInspectPods pods (a *Refusal with ReasonUnavailable), the account may
// not read the workload or its pods (forbidden), or any other error of the
// API server, wrapped so that ReasonOf classifies it.
func (c *Client) Inspect(ctx context.Context, ref WorkloadRef) (Inspection, error) {
	return c.rolloutReader().Inspect(ctx, ref)
}

// workloadKind resolves a plugin id or alias ("deploy", "sts", "ds") to
// the id of a kind that has a rollout (rollouts.WorkloadKind: its plugin has
// CanRollout); other kinds are refused as invalid.
func (c *Client) workloadKind(kind Kind) (Kind, error) {
	return rollouts.WorkloadKind(c.kindInfo(kind))
}
