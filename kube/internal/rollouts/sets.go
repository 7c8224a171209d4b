package rollouts

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// templateGenerationLabel is the label the DaemonSet controller puts the
// template generation in on the pods it makes (k8s.io/kubernetes
// pkg/apis/extensions DaemonSetTemplateGenerationKey; apps/v1 has no
// constant for it).
const templateGenerationLabel = "pod-template-generation"

// onDeleteMessage explains RolloutUnfollowed.
const onDeleteMessage = "updateStrategy OnDelete: pods are replaced only when they are deleted, so the rollout is not followed"

// statefulSetRollout reads the ControllerRevisions and the pods of s, the
// StatefulSet ref names, just read. The phase is kubectl's
// StatefulSetStatusViewer's: the controller must have observed the generation, every replica must be ready, and at
// least replicas-partition pods must run the updateRevision; without a
// partition the controller must also have made the updateRevision current
// (it does so once every replica is updated and ready).
func (r Reader) statefulSetRollout(ctx context.Context, ref vocab.WorkloadRef, s *appsv1.StatefulSet) (vocab.RolloutStatus, error) {
	sel, err := objects.SelectorOf(s.Spec.Selector)
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	revs, err := r.ownedRevisions(ctx, ref.Namespace, sel, s)
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	st := vocab.RolloutStatus{
		Ref:                ref,
		UID:                string(s.UID),
		Desired:            objects.ReplicasOf(s.Spec.Replicas),
		Updated:            s.Status.UpdatedReplicas,
		Ready:              s.Status.ReadyReplicas,
		Available:          s.Status.AvailableReplicas,
		ObservedGeneration: s.Status.ObservedGeneration,
	}
	update, current := s.Status.UpdateRevision, s.Status.CurrentRevision
	st.NewRevision = update
	if n, ok := revisionNumber(revs, update); ok {
		st.Revision = strconv.FormatInt(n, 10)
	}
	if current != "" && current != update {
		n, _ := revisionNumber(revs, current)
		st.OldRevisions = []string{revisionName(current, n)}
	}
	pods, err := r.workloadPods(ctx, ref.Namespace, sel, map[string]bool{string(s.UID): true},
		func(l map[string]string, _ string) bool {
			return update != "" && l[appsv1.ControllerRevisionHashLabelKey] == update
		})
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	st.Pods = pods.rows

	var partition int32
	if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
		partition = *ru.Partition
	}
	// The controller observes the change first, also under OnDelete: until
	// it has, updateRevision and the counts are the old template's.
	switch {
	case s.Status.ObservedGeneration == 0 || s.Generation > s.Status.ObservedGeneration:
		st.Phase, st.Message = vocab.RolloutProgressing, "waiting for the controller to observe the change"
	case s.Spec.UpdateStrategy.Type == appsv1.OnDeleteStatefulSetStrategyType:
		st.Phase, st.Message = vocab.RolloutUnfollowed, onDeleteMessage
	case pods.failure != "":
		st.Phase, st.Message = vocab.RolloutFailed, pods.failure
	case s.Status.ReadyReplicas < st.Desired:
		st.Phase, st.Message = vocab.RolloutProgressing, fmt.Sprintf("waiting for %d pods to be ready", st.Desired-s.Status.ReadyReplicas)
	case partition > 0 && s.Status.UpdatedReplicas < st.Desired-partition:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("waiting for partitioned rollout to finish: %d out of %d new pods have been updated",
			s.Status.UpdatedReplicas, st.Desired-partition)
	case partition > 0:
		st.Phase = vocab.RolloutComplete
		st.Message = fmt.Sprintf("partitioned rollout complete: %d new pods have been updated (partition %d)", s.Status.UpdatedReplicas, partition)
	case s.Status.UpdatedReplicas < st.Desired:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("%d out of %d new pods have been updated", s.Status.UpdatedReplicas, st.Desired)
	case update != current:
		st.Phase = vocab.RolloutProgressing
		st.Message = fmt.Sprintf("waiting for the rolling update to complete: %d pods at revision %s", s.Status.UpdatedReplicas, update)
	default:
		st.Phase, st.Message = vocab.RolloutComplete, "rolling update complete: "+strconv.Itoa(int(s.Status.UpdatedReplicas))+" pods at revision "+update
	}
	return st, nil
}

// daemonSetRollout reads the ControllerRevisions and the pods of ds, the
// DaemonSet ref names, just read.
// The phase is kubectl's DaemonSetStatusViewer's: the controller must have
// observed the generation, and updatedNumberScheduled and numberAvailable
// must reach desiredNumberScheduled. A pod is new by the DaemonSet
// controller's own test (pkg/controller/daemon/util IsPodUpdated): its
// controller-revision-hash label is the newest owned ControllerRevision's,
// or its pod-template-generation label is the DaemonSet's template
// generation (the deprecated.daemonset.template.generation annotation).
func (r Reader) daemonSetRollout(ctx context.Context, ref vocab.WorkloadRef, ds *appsv1.DaemonSet) (vocab.RolloutStatus, error) {
	sel, err := objects.SelectorOf(ds.Spec.Selector)
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	revs, err := r.ownedRevisions(ctx, ref.Namespace, sel, ds)
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	st := vocab.RolloutStatus{
		Ref:                ref,
		UID:                string(ds.UID),
		Desired:            ds.Status.DesiredNumberScheduled,
		Updated:            ds.Status.UpdatedNumberScheduled,
		Ready:              ds.Status.NumberReady,
		Available:          ds.Status.NumberAvailable,
		ObservedGeneration: ds.Status.ObservedGeneration,
	}
	var newest *appsv1.ControllerRevision
	for _, cr := range revs {
		if newest == nil || cr.Revision > newest.Revision {
			newest = cr
		}
	}
	hash := ""
	if newest != nil {
		st.NewRevision, st.Revision = newest.Name, strconv.FormatInt(newest.Revision, 10)
		hash = revisionHash(newest, ds.Name)
	}
	generation := ds.Annotations[appsv1.DeprecatedTemplateGeneration]
	oldHashes := map[string]bool{}
	pods, err := r.workloadPods(ctx, ref.Namespace, sel, map[string]bool{string(ds.UID): true},
		func(l map[string]string, _ string) bool {
			isNew := (hash != "" && l[appsv1.DefaultDaemonSetUniqueLabelKey] == hash) ||
				(generation != "" && l[templateGenerationLabel] == generation)
			if !isNew {
				oldHashes[l[appsv1.DefaultDaemonSetUniqueLabelKey]] = true
			}
			return isNew
		})
	if err != nil {
		return vocab.RolloutStatus{}, err
	}
	st.Pods = pods.rows
	st.OldRevisions = oldRevisions(revs, newest, oldHashes, ds.Name)

	// As for a StatefulSet, the change is observed first, also under OnDelete.
	switch {
	case ds.Generation > ds.Status.ObservedGeneration:
		st.Phase, st.Message = vocab.RolloutProgressing, "waiting for the controller to observe the change"
	case ds.Spec.UpdateStrategy.Type == appsv1.OnDeleteDaemonSetStrategyType:
		st.Phase, st.Message = vocab.RolloutUnfollowed, onDeleteMessage
	case pods.failure != "":
		st.Phase, st.Message = vocab.RolloutFailed, pods.failure
	case st.Updated < st.Desired:
		st.Phase, st.Message = vocab.RolloutProgressing, fmt.Sprintf("%d out of %d new pods have been updated", st.Updated, st.Desired)
	case st.Available < st.Desired:
		st.Phase, st.Message = vocab.RolloutProgressing, fmt.Sprintf("%d of %d updated pods are available", st.Available, st.Desired)
	default:
		st.Phase, st.Message = vocab.RolloutComplete, "successfully rolled out"
	}
	return st, nil
}

// ownedRevisions lists the ControllerRevisions sel matches in namespace and
// keeps those owner controls (the StatefulSet and DaemonSet controllers
// label them with the pod template's labels).
func (r Reader) ownedRevisions(ctx context.Context, namespace string, sel labels.Selector, owner metav1.Object) ([]*appsv1.ControllerRevision, error) {
	list, err := r.CS.AppsV1().ControllerRevisions(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var out []*appsv1.ControllerRevision
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], owner) {
			out = append(out, &list.Items[i])
		}
	}
	return out, nil
}

// revisionNumber is the revision number of the ControllerRevision named name.
func revisionNumber(revs []*appsv1.ControllerRevision, name string) (int64, bool) {
	for _, r := range revs {
		if r.Name == name {
			return r.Revision, true
		}
	}
	return 0, false
}

// revisionHash is the controller-revision-hash a DaemonSet's pods of
// revision r carry: r's own label of that name, else its name less the
// DaemonSet's name and a dash (the controller names it so).
func revisionHash(r *appsv1.ControllerRevision, owner string) string {
	if h := r.Labels[appsv1.DefaultDaemonSetUniqueLabelKey]; h != "" {
		return h
	}
	return strings.TrimPrefix(r.Name, owner+"-")
}

// oldRevisions names the revisions other than newest that old pods still
// run ("ds-5f6b8 (rev 2)"), newest first.
func oldRevisions(revs []*appsv1.ControllerRevision, newest *appsv1.ControllerRevision, hashes map[string]bool, owner string) []string {
	var olds []*appsv1.ControllerRevision
	for _, r := range revs {
		if r != newest && hashes[revisionHash(r, owner)] {
			olds = append(olds, r)
		}
	}
	sort.Slice(olds, func(i, j int) bool { return olds[i].Revision > olds[j].Revision })
	var out []string
	for _, r := range olds {
		out = append(out, revisionName(r.Name, r.Revision))
	}
	return out
}
