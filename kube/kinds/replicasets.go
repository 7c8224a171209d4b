package kinds

import (
	"context"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// ReplicaSets serves replicasets: NAME DESIRED CURRENT READY AGE, and with
// -o wide CONTAINERS IMAGES SELECTOR, as `kubectl get replicasets` prints
// them (printReplicaSet in k8s.io/kubernetes pkg/printers/internalversion).
type ReplicaSets struct{}

// Info describes replicasets: they scale (the scale subresource), their pods
// have logs, and opening one shows the pods its selector matches. Editing a
// ReplicaSet's template replaces no pod and `kubectl rollout restart` does
// not serve ReplicaSets, so neither is offered.
func (ReplicaSets) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "replicasets", Group: "apps", Version: "v1", Resource: "replicasets", Namespaced: true,
		Aliases: []string{"replicaset", "rs"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "DESIRED"}, {Name: "CURRENT"}, {Name: "READY"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanLogs | vocab.CanEditOwner | vocab.CanPortForward | vocab.CanDelete,
		DrillDown:    "pods",
	}
}

// List lists replicasets in namespace ("" for all) as *appsv1.ReplicaSet.
func (ReplicaSets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.AppsV1().ReplicaSets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *appsv1.ReplicaSet into its row (ReplicaSetRow).
func (ReplicaSets) Row(obj any) (vocab.Row, bool) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return vocab.Row{}, false
	}
	return ReplicaSetRow(rs), true
}

// DrillSelector selects the pods the ReplicaSet's spec.selector matches.
func (ReplicaSets) DrillSelector(obj any) (vocab.Selector, bool) {
	rs, ok := obj.(*appsv1.ReplicaSet)
	if !ok {
		return vocab.Selector{}, false
	}
	return labelSelector(rs.Spec.Selector)
}

// ReplicaSetRow turns a ReplicaSet into its row: DESIRED is spec.replicas
// (printedReplicas: 0 when unset, as kubectl prints it), CURRENT status.replicas, READY
// status.readyReplicas. Its Status and Health: see replicaSetState; a
// Snapshot judges it by the Pods it owns too (Workload).
func ReplicaSetRow(rs *appsv1.ReplicaSet) vocab.Row {
	desired := replicas(rs.Spec.Replicas)
	names, images := containerCells(rs.Spec.Template.Spec.Containers)
	row := identity(&rs.ObjectMeta)
	row.Status, row.Health = replicaSetState(rs, desired)
	row.Workload = &vocab.RowWorkload{Available: rs.Status.AvailableReplicas}
	row.Cells = []vocab.Cell{
		vocab.Text(rs.Name),
		vocab.Text(strconv.Itoa(int(printedReplicas(rs.Spec.Replicas)))),
		vocab.Text(strconv.Itoa(int(rs.Status.Replicas))),
		vocab.Text(strconv.Itoa(int(rs.Status.ReadyReplicas))),
		vocab.Age(rs.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images), vocab.Text(metav1.FormatLabelSelector(rs.Spec.Selector)),
	}
	return row
}

// replicaSetState judges a ReplicaSet the way the Deployment rules do
// (deploymentState): a ReplicaFailure condition that is True (the
// controller could not create pods: quota, admission) is failed and named
// by its reason; zero desired and zero present is ScaledToZero (the old
// ReplicaSets of a Deployment); a spec not yet observed is Progressing;
// every desired replica present and ready is Ready; none ready is
// Unavailable (failed); pods still being created or removed is Scaling
// (progressing); some ready is Degraded (warning).
func replicaSetState(rs *appsv1.ReplicaSet, desired int32) (string, vocab.Health) {
	st := rs.Status
	for _, c := range st.Conditions {
		if c.Type == appsv1.ReplicaSetReplicaFailure && c.Status == corev1.ConditionTrue {
			return orWord(c.Reason, "ReplicaFailure"), vocab.HealthFailed
		}
	}
	return replicaState(desired, st.Replicas, st.ReadyReplicas, st.ObservedGeneration < rs.Generation, false)
}

// replicaState is the judgement ReplicaSets and StatefulSets share: desired
// replicas against present and ready ones, given whether the controller has
// yet to observe the spec (stale) and whether a rollout is replacing pods.
// Zero desired and present is ScaledToZero (ok); a stale spec is
// Progressing; all present and ready with no rollout is Ready (ok); none
// ready is Unavailable (failed); a rollout is Progressing; a count still
// moving is Scaling (progressing); fewer ready than desired is Degraded
// (warning).
func replicaState(desired, present, ready int32, stale, rolling bool) (string, vocab.Health) {
	switch {
	case desired == 0 && present == 0:
		return "ScaledToZero", vocab.HealthOK
	case stale:
		return "Progressing", vocab.HealthProgressing
	case present == desired && ready == desired && !rolling:
		return "Ready", vocab.HealthOK
	case ready == 0:
		return "Unavailable", vocab.HealthFailed
	case rolling:
		return "Progressing", vocab.HealthProgressing
	case present != desired:
		return "Scaling", vocab.HealthProgressing
	default:
		return "Degraded", vocab.HealthWarning
	}
}

// replicas dereferences a spec.replicas field; unset means 1, the API
// server's default.
func replicas(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// printedReplicas is spec.replicas as kubectl prints it: the printer reads
// the internal type, whose conversion from v1 turns an unset pointer into 0.
// The API server always sets it (default 1), so this differs from replicas
// only for objects that never went through one; Status and Health keep
// judging by replicas, the count the controllers will act on.
func printedReplicas(p *int32) int32 {
	if p == nil {
		return 0
	}
	return *p
}

// orWord returns s, or word when s is empty.
func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}
