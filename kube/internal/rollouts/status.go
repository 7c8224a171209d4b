package rollouts

import (
	"context"
	"fmt"
	"sort"
	"strconv"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Reader reads rollout state through a clientset. The zero value is not
// usable: CS, KindInfo and Lookup must be set (package kube builds one per
// call from its Client).
type Reader struct {
	// CS is the clientset every read goes through.
	CS kubernetes.Interface
	// KindInfo resolves a plugin id or alias ("deploy", "sts", "ds") to
	// what its kind serves; an unknown name answers a KindInfo with only
	// ID set (and so no capabilities).
	KindInfo func(vocab.Kind) vocab.KindInfo
	// Lookup finds a kind's plugin by id or alias; the pods plugin's row
	// gives a pod's READY and STATUS as kubectl prints them. false when
	// there is none (STATUS is then the pod's phase, READY empty).
	Lookup func(name string) (vocab.Plugin, bool)
}

// Status is one reading of where the rollout of the Deployment,
// StatefulSet or DaemonSet ref names stands: kube.Client.RolloutStatus,
// whose documentation is the contract (phases, revisions, pods, the three
// or four requests a reading costs). The phase follows `kubectl rollout
// status` (k8s.io/kubectl pkg/polymorphichelpers, DeploymentStatusViewer,
// StatefulSetStatusViewer and DaemonSetStatusViewer) with kyyard's
// additions; deploymentRollout, statefulSetRollout and daemonSetRollout
// each say their rule. A workload that is gone (its get answers not found)
// is a reading with Missing set and no error.
//
// ref.Kind is a plugin id or alias of deployments, statefulsets or
// daemonsets. Errors: another kind (vocab.ReasonOf: invalid, see
// WorkloadKind), the account may not read it (forbidden), or any other
// error of the API server, wrapped so that vocab.ReasonOf classifies it.
func (r Reader) Status(ctx context.Context, ref vocab.WorkloadRef) (vocab.RolloutStatus, error) {
	kind, err := WorkloadKind(r.KindInfo(ref.Kind))
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	ref.Kind = kind
	var st vocab.RolloutStatus
	wo, err := objects.Read(ctx, r.CS, kind, ref.Namespace, ref.Name)
	if err == nil {
		switch o := wo.Object.(type) {
		case *appsv1.Deployment:
			st, err = r.deploymentRollout(ctx, ref, o)
		case *appsv1.StatefulSet:
			st, err = r.statefulSetRollout(ctx, ref, o)
		case *appsv1.DaemonSet:
			st, err = r.daemonSetRollout(ctx, ref, o)
		}
	}
	if apierrors.IsNotFound(err) {
		return vocab.RolloutStatus{Ref: ref, Missing: true}, nil
	}
	if err != nil {
		return vocab.RolloutStatus{}, fmt.Errorf("rollout of %s: %w", ref, err)
	}
	return st, nil
}

// WorkloadKind is the id of the kind info describes when that kind has a
// rollout (its plugin has CanRollout: the Deployments, StatefulSets and
// DaemonSets). Another kind is refused with an error wrapping
// vocab.ErrInvalid that says the kind does not offer a rollout.
func WorkloadKind(info vocab.KindInfo) (vocab.Kind, error) {
	if !info.Capabilities.Has(vocab.CanRollout) {
		return "", fmt.Errorf("%w: %s", vocab.ErrInvalid, info.NotOffered("rollout"))
	}
	return info.ID, nil
}

// deploymentRollout reads the ReplicaSets and the pods of d, the
// Deployment ref names, just read.
func (r Reader) deploymentRollout(ctx context.Context, ref vocab.WorkloadRef, d *appsv1.Deployment) (vocab.RolloutStatus, error) {
	sel, err := objects.SelectorOf(d.Spec.Selector)
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	rsList, err := r.CS.AppsV1().ReplicaSets(ref.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	var owned []*appsv1.ReplicaSet
	for i := range rsList.Items {
		if metav1.IsControlledBy(&rsList.Items[i], d) {
			owned = append(owned, &rsList.Items[i])
		}
	}
	newRS := findNewReplicaSet(d, owned)

	st := vocab.RolloutStatus{
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

	pods, err := r.workloadPods(ctx, ref.Namespace, sel, owners, func(labels map[string]string, owner string) bool {
		if newRS == nil {
			return false
		}
		if newHash != "" {
			return labels[appsv1.DefaultDeploymentUniqueLabelKey] == newHash
		}
		return owner == string(newRS.UID)
	})
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	st.Pods = pods.rows

	// kubectl's DeploymentStatusViewer, in its order, with the failures
	// it does not look for inserted before the wait messages.
	if d.Generation > d.Status.ObservedGeneration {
		st.Phase, st.Message = vocab.RolloutProgressing, "waiting for the controller to observe the change"
		return st, nil
	}
	// The Deployment controller's Progressing condition says it gave up:
	// the progress deadline passed (kubectl's one failure), or it could not
	// create the new ReplicaSet (ReplicaSetCreateError).
	if cond := objects.DeploymentCondition(d, appsv1.DeploymentProgressing); cond != nil &&
		cond.Status == corev1.ConditionFalse && (cond.Reason == "ProgressDeadlineExceeded" || cond.Reason == "ReplicaSetCreateError") {
		st.Phase, st.Message = vocab.RolloutFailed, cond.Message
		if st.Message == "" {
			st.Message = fmt.Sprintf("deployment %q: %s", d.Name, cond.Reason)
		}
		return st, nil
	}
	if msg := pods.failure; msg != "" {
		st.Phase, st.Message = vocab.RolloutFailed, msg
		return st, nil
	}
	if newRS != nil {
		msg, err := r.replicaSetFailure(ctx, newRS)
		if err != nil {
			return vocab.RolloutStatus{}, err
		}
		if msg != "" {
			st.Phase, st.Message = vocab.RolloutFailed, msg
			return st, nil
		}
	}
	switch {
	case d.Spec.Paused:
		st.Phase, st.Message = vocab.RolloutPaused, "paused: the rollout is not waited for; resume it"
	case d.Status.UpdatedReplicas < st.Desired:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("%d out of %d new replicas have been updated", d.Status.UpdatedReplicas, st.Desired)
	case d.Status.Replicas > d.Status.UpdatedReplicas:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("%d old replicas are pending termination", d.Status.Replicas-d.Status.UpdatedReplicas)
	case d.Status.AvailableReplicas < d.Status.UpdatedReplicas:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("%d of %d updated replicas are available", d.Status.AvailableReplicas, d.Status.UpdatedReplicas)
	default:
		st.Phase, st.Message = vocab.RolloutComplete, "successfully rolled out"
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
