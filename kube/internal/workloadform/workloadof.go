package workloadform

import (
	"context"
	"errors"
	"fmt"

	"github.com/kyyard/kyyard/kube/vocab"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// ErrNotManaged is wrapped by WorkloadOf's error for a Pod or ReplicaSet
// that no Deployment, StatefulSet or DaemonSet controls (a bare pod, a
// Job's pod, a ReplicaSet made by hand): it has no rollout. Its text
// completes a sentence: "pod demo/x is not managed by a Deployment,
// StatefulSet or DaemonSet".
var ErrNotManaged = errors.New("not managed by a Deployment, StatefulSet or DaemonSet")

// WorkloadOf returns the workload a row of kind (a plugin id or alias)
// stands for, as its plugin's Capabilities say: a kind the form edits
// (CanEdit: a Deployment, StatefulSet or DaemonSet) is itself (not read);
// a ReplicaSet is read fresh and stands for the Deployment that controls it
// (its ownerReference with controller: true); a Pod is read fresh and
// stands for its controller: a StatefulSet, a DaemonSet, or, through its
// ReplicaSet (read fresh too), a Deployment. Errors: the object is gone
// (vocab.ReasonOf: not_found) or cannot be read (forbidden, ...); it has no such
// controller (wraps ErrNotManaged, naming the controller it has); another
// kind (invalid: its plugin has neither CanEdit nor CanEditOwner).
func (f Form) WorkloadOf(ctx context.Context, kind vocab.Kind, namespace, name string) (vocab.WorkloadRef, error) {
	info := f.KindInfo(kind)
	id := info.ID
	switch {
	case info.Capabilities.Has(vocab.CanEdit):
		return vocab.WorkloadRef{Kind: id, Namespace: namespace, Name: name}, nil
	case !info.Capabilities.Has(vocab.CanEditOwner):
		return vocab.WorkloadRef{}, fmt.Errorf("%w: %s have no rollout (only deployments, statefulsets, daemonsets, their replicasets and pods do)", vocab.ErrInvalid, kind)
	case id == vocab.KindReplicaSets:
		return f.deploymentOf(ctx, namespace, name, "", "replicaset "+namespace+"/"+name)
	case id != vocab.KindPods:
		return vocab.WorkloadRef{}, fmt.Errorf("%w: %s: no way to find the workload that controls them", vocab.ErrInvalid, kind)
	}
	pod, err := f.CS.CoreV1().Pods(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return vocab.WorkloadRef{}, fmt.Errorf("pod %s/%s: %w", namespace, name, err)
	}
	what := "pod " + namespace + "/" + name
	ref := metav1.GetControllerOf(pod)
	if ref == nil {
		return vocab.WorkloadRef{}, fmt.Errorf("%s is %w", what, ErrNotManaged)
	}
	if appsGroup(ref) {
		switch ref.Kind {
		case "ReplicaSet":
			return f.deploymentOf(ctx, namespace, ref.Name, ref.UID, what)
		case "StatefulSet":
			return vocab.WorkloadRef{Kind: vocab.KindStatefulSets, Namespace: namespace, Name: ref.Name}, nil
		case "DaemonSet":
			return vocab.WorkloadRef{Kind: vocab.KindDaemonSets, Namespace: namespace, Name: ref.Name}, nil
		}
	}
	return vocab.WorkloadRef{}, fmt.Errorf("%s is %w (its controller is %s %s)", what, ErrNotManaged, ref.Kind, ref.Name)
}

// deploymentOf reads the ReplicaSet name (whose UID must be uid, when
// given: the pod's owner, not a namesake made since) and returns the
// Deployment that controls it; what names the row asked about in errors.
func (f Form) deploymentOf(ctx context.Context, namespace, name string, uid types.UID, what string) (vocab.WorkloadRef, error) {
	rs, err := f.CS.AppsV1().ReplicaSets(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return vocab.WorkloadRef{}, fmt.Errorf("%s: replicaset %s: %w", what, name, err)
	}
	if uid != "" && rs.UID != uid {
		return vocab.WorkloadRef{}, fmt.Errorf("%s: its replicaset %s was replaced since it was made", what, name)
	}
	ref := metav1.GetControllerOf(rs)
	switch {
	case ref == nil:
		return vocab.WorkloadRef{}, fmt.Errorf("%s is %w (replicaset %s has no controller)", what, ErrNotManaged, name)
	case !appsGroup(ref) || ref.Kind != "Deployment":
		return vocab.WorkloadRef{}, fmt.Errorf("%s is %w (replicaset %s is controlled by %s %s)", what, ErrNotManaged, name, ref.Kind, ref.Name)
	}
	return vocab.WorkloadRef{Kind: vocab.KindDeployments, Namespace: namespace, Name: ref.Name}, nil
}

// appsGroup reports whether an ownerReference names a kind of the apps API group.
func appsGroup(ref *metav1.OwnerReference) bool {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	return err == nil && gv.Group == "apps"
}
