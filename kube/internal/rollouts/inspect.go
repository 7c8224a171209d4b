package rollouts

import (
	"context"
	"fmt"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MaxInspectPods is how many pods Inspect reads at most. A workload whose
// selector selects more is refused as unavailable, never shown cut.
const MaxInspectPods = 5000

// Inspection is one reading of a workload and the pods its selector
// selects, as a rollout view shows them.
type Inspection struct {
	// Ref names the workload (its Kind resolved to a plugin id).
	Ref vocab.WorkloadRef
	// Missing is set when the workload is gone (its get answered not
	// found); the rest is then empty.
	Missing bool
	// UID is the workload's metadata.uid: a different UID under the same
	// name is a workload deleted and created again.
	UID string
	// ResourceVersion and Generation are the workload's metadata's as read;
	// ObservedGeneration its status.observedGeneration.
	ResourceVersion    string
	Generation         int64
	ObservedGeneration int64
	// Desired is spec.replicas (a DaemonSet: desiredNumberScheduled);
	// Ready, Updated and Available the status's counts (a DaemonSet:
	// numberReady, updatedNumberScheduled, numberAvailable).
	Desired, Ready, Updated, Available int32
	// Pods are the pods the workload's selector selects, with kubectl's
	// READY and STATUS, new ones first, each group by name. New is told
	// from the workload alone: a StatefulSet's pods of its updateRevision,
	// a DaemonSet's of its template generation; a Deployment's pods are
	// not told apart (that needs its ReplicaSets: see Reader.Status), so
	// none is New.
	Pods []vocab.RolloutPod
}

// Inspect reads the workload ref names and the pods its selector selects,
// within a budget of two requests: a get of the workload and a list of
// pods by the selector of the object just got (the selector is immutable,
// the labels it matches are not). A workload that is gone answers an
// Inspection with Missing set and no error; one recreated under the same
// name answers with its new UID.
//
// ref.Kind is a plugin id or alias of deployments, statefulsets or
// daemonsets. Errors: another kind (vocab.ReasonOf: invalid, see
// WorkloadKind), more than MaxInspectPods pods (a *vocab.Refusal with
// vocab.ReasonUnavailable), the account may not read the workload or its
// pods (forbidden), or any other error of the API server, wrapped so that
// vocab.ReasonOf classifies it.
func (r Reader) Inspect(ctx context.Context, ref vocab.WorkloadRef) (Inspection, error) {
	kind, err := WorkloadKind(r.KindInfo(ref.Kind))
	if err != nil {
		return Inspection{}, err
	}
	ref.Kind = kind
	in, sel, isNew, err := r.inspectWorkload(ctx, ref)
	if apierrors.IsNotFound(err) {
		return Inspection{Ref: ref, Missing: true}, nil
	}
	if err != nil {
		return Inspection{}, fmt.Errorf("inspect %s: %w", ref, err)
	}
	selector, err := objects.SelectorOf(sel)
	if err != nil {
		return Inspection{}, fmt.Errorf("inspect %s: %w", ref, err)
	}
	// One more than the maximum is asked for, so that too many shows.
	list, err := r.CS.CoreV1().Pods(ref.Namespace).List(ctx,
		metav1.ListOptions{LabelSelector: selector.String(), Limit: MaxInspectPods + 1})
	if err != nil {
		return Inspection{}, fmt.Errorf("inspect %s: pods: %w", ref, err)
	}
	if len(list.Items) > MaxInspectPods || list.Continue != "" {
		return Inspection{}, &vocab.Refusal{Reason: vocab.ReasonUnavailable,
			Detail:   fmt.Sprintf("%s selects more than %d pods", ref, MaxInspectPods),
			Sentence: "too many to show them all, and a part of them would mislead; use kubectl with a narrower selector"}
	}
	for i := range list.Items {
		pod := &list.Items[i]
		row := r.rolloutPod(pod)
		row.New = isNew(pod.Labels)
		in.Pods = append(in.Pods, row)
	}
	sortRolloutPods(in.Pods)
	return in, nil
}

// inspectWorkload gets the workload ref names (ref.Kind resolved;
// objects.Read) and returns its Inspection without pods, its selector, and
// the test of a pod's labels that says whether the pod is new.
func (r Reader) inspectWorkload(ctx context.Context, ref vocab.WorkloadRef) (Inspection, *metav1.LabelSelector, func(map[string]string) bool, error) {
	wo, err := objects.Read(ctx, r.CS, ref.Kind, ref.Namespace, ref.Name)
	if err != nil {
		return Inspection{}, nil, nil, err
	}
	m := wo.Meta
	in := Inspection{Ref: ref, UID: string(m.UID), ResourceVersion: m.ResourceVersion, Generation: m.Generation}
	isNew := func(map[string]string) bool { return false }
	switch o := wo.Object.(type) {
	case *appsv1.Deployment:
		in.ObservedGeneration = o.Status.ObservedGeneration
		in.Desired, in.Ready, in.Updated, in.Available = objects.ReplicasOf(o.Spec.Replicas),
			o.Status.ReadyReplicas, o.Status.UpdatedReplicas, o.Status.AvailableReplicas
	case *appsv1.StatefulSet:
		in.ObservedGeneration = o.Status.ObservedGeneration
		in.Desired, in.Ready, in.Updated, in.Available = objects.ReplicasOf(o.Spec.Replicas),
			o.Status.ReadyReplicas, o.Status.UpdatedReplicas, o.Status.AvailableReplicas
		update := o.Status.UpdateRevision
		isNew = func(l map[string]string) bool {
			return update != "" && l[appsv1.ControllerRevisionHashLabelKey] == update
		}
	case *appsv1.DaemonSet:
		in.ObservedGeneration = o.Status.ObservedGeneration
		in.Desired, in.Ready, in.Updated, in.Available = o.Status.DesiredNumberScheduled,
			o.Status.NumberReady, o.Status.UpdatedNumberScheduled, o.Status.NumberAvailable
		generation := o.Annotations[appsv1.DeprecatedTemplateGeneration]
		isNew = func(l map[string]string) bool {
			return generation != "" && l[templateGenerationLabel] == generation
		}
	}
	return in, wo.Selector, isNew, nil
}
