package kube

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/kyyard/kyyard/kube/internal/objects"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

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
// controller's own rule (findNewReplicaSet) and names NewRevision, with its
// deployment.kubernetes.io/revision annotation in Revision; OldRevisions
// are its other ReplicaSets that still want or have pods, "web-5f6b8 (rev
// 6)", newest first. A StatefulSet's NewRevision is status.updateRevision
// and OldRevisions holds status.currentRevision while it differs. A
// DaemonSet's NewRevision is its newest ControllerRevision and OldRevisions
// those its old pods still run. Revision is the ControllerRevision's number
// for both. Pods are those the selector matches and the workload (or its
// ReplicaSets) controls, new ones first: new by the pod-template-hash label
// of the new ReplicaSet, by controller-revision-hash equal to the
// updateRevision, or by the DaemonSet controller's test (see
// daemonSetRollout). READY and STATUS are the pods plugin's, as kubectl
// prints them.
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
	kind, err := c.workloadKind(ref.Kind)
	if err != nil {
		return RolloutStatus{}, err
	}
	ref.Kind = kind
	var st RolloutStatus
	wo, err := objects.Read(ctx, c.cs, kind, ref.Namespace, ref.Name)
	if err == nil {
		switch o := wo.Object.(type) {
		case *appsv1.Deployment:
			st, err = c.deploymentRollout(ctx, ref, o)
		case *appsv1.StatefulSet:
			st, err = c.statefulSetRollout(ctx, ref, o)
		case *appsv1.DaemonSet:
			st, err = c.daemonSetRollout(ctx, ref, o)
		}
	}
	if apierrors.IsNotFound(err) {
		return RolloutStatus{Ref: ref, Missing: true}, nil
	}
	if err != nil {
		return RolloutStatus{}, fmt.Errorf("rollout of %s: %w", ref, err)
	}
	return st, nil
}

// workloadKind resolves a plugin id or alias ("deploy", "sts", "ds") to
// the id of a kind that has a rollout (its plugin has CanRollout: the
// Deployments, StatefulSets and DaemonSets); other kinds are refused as
// invalid.
func (c *Client) workloadKind(kind Kind) (Kind, error) {
	info := c.kindInfo(kind)
	if !info.Capabilities.Has(CanRollout) {
		return "", fmt.Errorf("%w: %s", errInvalid, info.NotOffered("rollout"))
	}
	return info.ID, nil
}

// deploymentRollout reads the ReplicaSets and the pods of d, the
// Deployment ref names, just read.
func (c *Client) deploymentRollout(ctx context.Context, ref WorkloadRef, d *appsv1.Deployment) (RolloutStatus, error) {
	sel, err := objects.SelectorOf(d.Spec.Selector)
	if err != nil {
		return RolloutStatus{}, err
	}
	rsList, err := c.cs.AppsV1().ReplicaSets(ref.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return RolloutStatus{}, err
	}
	var owned []*appsv1.ReplicaSet
	for i := range rsList.Items {
		if metav1.IsControlledBy(&rsList.Items[i], d) {
			owned = append(owned, &rsList.Items[i])
		}
	}
	newRS := findNewReplicaSet(d, owned)

	st := RolloutStatus{
		Ref:                ref,
		UID:                string(d.UID),
		Desired:            objects.ReplicasOf(d.Spec.Replicas),
		Updated:            d.Status.UpdatedReplicas,
		Ready:              d.Status.ReadyReplicas,
		Available:          d.Status.AvailableReplicas,
		ObservedGeneration: d.Status.ObservedGeneration,
	}
	owners := map[string]bool{}
	for _, rs := range owned {
		owners[string(rs.UID)] = true
	}
	newHash := ""
	if newRS != nil {
		st.NewRevision = newRS.Name
		st.Revision = newRS.Annotations[objects.RevisionAnnotation]
		newHash = newRS.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	}
	st.OldRevisions = oldReplicaSets(owned, newRS)

	pods, err := c.workloadPods(ctx, ref.Namespace, sel, owners, func(labels map[string]string, owner string) bool {
		if newRS == nil {
			return false
		}
		if newHash != "" {
			return labels[appsv1.DefaultDeploymentUniqueLabelKey] == newHash
		}
		return owner == string(newRS.UID)
	})
	if err != nil {
		return RolloutStatus{}, err
	}
	st.Pods = pods.rows

	// kubectl's DeploymentStatusViewer, in its order, with the failures
	// it does not look for inserted before the wait messages.
	if d.Generation > d.Status.ObservedGeneration {
		st.Phase, st.Message = RolloutProgressing, "waiting for the controller to observe the change"
		return st, nil
	}
	// The Deployment controller's Progressing condition says it gave up:
	// the progress deadline passed (kubectl's one failure), or it could not
	// create the new ReplicaSet (ReplicaSetCreateError).
	if cond := objects.DeploymentCondition(d, appsv1.DeploymentProgressing); cond != nil &&
		cond.Status == corev1.ConditionFalse && (cond.Reason == "ProgressDeadlineExceeded" || cond.Reason == "ReplicaSetCreateError") {
		st.Phase, st.Message = RolloutFailed, cond.Message
		if st.Message == "" {
			st.Message = fmt.Sprintf("deployment %q: %s", d.Name, cond.Reason)
		}
		return st, nil
	}
	if msg := pods.failure; msg != "" {
		st.Phase, st.Message = RolloutFailed, msg
		return st, nil
	}
	if newRS != nil {
		msg, err := c.replicaSetFailure(ctx, newRS)
		if err != nil {
			return RolloutStatus{}, err
		}
		if msg != "" {
			st.Phase, st.Message = RolloutFailed, msg
			return st, nil
		}
	}
	switch {
	case d.Spec.Paused:
		st.Phase, st.Message = RolloutPaused, "paused: the rollout is not waited for; resume it"
	case d.Status.UpdatedReplicas < st.Desired:
		st.Phase = RolloutProgressing
		st.Message = fmt.Sprintf("%d out of %d new replicas have been updated", d.Status.UpdatedReplicas, st.Desired)
	case d.Status.Replicas > d.Status.UpdatedReplicas:
		st.Phase = RolloutProgressing
		st.Message = fmt.Sprintf("%d old replicas are pending termination", d.Status.Replicas-d.Status.UpdatedReplicas)
	case d.Status.AvailableReplicas < d.Status.UpdatedReplicas:
		st.Phase = RolloutProgressing
		st.Message = fmt.Sprintf("%d of %d updated replicas are available", d.Status.AvailableReplicas, d.Status.UpdatedReplicas)
	default:
		st.Phase, st.Message = RolloutComplete, "successfully rolled out"
	}
	return st, nil
}

// findNewReplicaSet is the Deployment controller's and kubectl's rule
// (k8s.io/kubectl pkg/util/deployment findNewReplicaSet): of the
// ReplicaSets the Deployment controls, the oldest whose pod template equals
// the Deployment's, ignoring the pod-template-hash label. It compares
// templates rather than revisions, so it stays right after a rollback
// (which gives an old ReplicaSet the newest revision) and while the
// controller has not yet numbered a new one. nil when there is none yet.
func findNewReplicaSet(d *appsv1.Deployment, owned []*appsv1.ReplicaSet) *appsv1.ReplicaSet {
	sorted := append([]*appsv1.ReplicaSet(nil), owned...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.Name < b.Name
		}
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	})
	want := d.Spec.Template.DeepCopy()
	delete(want.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	for _, rs := range sorted {
		got := rs.Spec.Template.DeepCopy()
		delete(got.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
		if apiequality.Semantic.DeepEqual(want, got) {
			return rs
		}
	}
	return nil
}

// oldReplicaSets names the owned ReplicaSets other than newRS that still
// want or have pods, "web-5f6b8 (rev 6)", newest revision first.
func oldReplicaSets(owned []*appsv1.ReplicaSet, newRS *appsv1.ReplicaSet) []string {
	type old struct {
		name string
		rev  int64
	}
	var olds []old
	for _, rs := range owned {
		if newRS != nil && rs.UID == newRS.UID {
			continue
		}
		if objects.ReplicasOf(rs.Spec.Replicas) == 0 && rs.Status.Replicas == 0 {
			continue
		}
		rev, _ := strconv.ParseInt(rs.Annotations[objects.RevisionAnnotation], 10, 64)
		olds = append(olds, old{rs.Name, rev})
	}
	sort.Slice(olds, func(i, j int) bool {
		if olds[i].rev != olds[j].rev {
			return olds[i].rev > olds[j].rev
		}
		return olds[i].name < olds[j].name
	})
	out := make([]string, 0, len(olds))
	for _, o := range olds {
		out = append(out, revisionName(o.name, o.rev))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// revisionName is "name (rev N)", or the name alone when N is unknown (0).
func revisionName(name string, rev int64) string {
	if rev <= 0 {
		return name
	}
	return fmt.Sprintf("%s (rev %d)", name, rev)
}
