package kinds

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// StatefulSets serves statefulsets: NAME READY AGE, and with -o wide
// CONTAINERS IMAGES, as `kubectl get statefulsets` prints them
// (printStatefulSet in k8s.io/kubernetes pkg/printers/internalversion).
type StatefulSets struct{}

// Info describes statefulsets: their pod template can be edited, they
// scale, restart (`kubectl rollout restart`) and are deleted; opening one
// shows the pods its selector matches.
func (StatefulSets) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "statefulsets", Group: "apps", Version: "v1", Resource: "statefulsets", Namespaced: true,
		Aliases: []string{"statefulset", "sts"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "READY"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true},
		},
		Capabilities: vocab.CanLogs | vocab.CanEdit | vocab.CanRollout | vocab.CanRestart | vocab.CanScale | vocab.CanDelete | vocab.CanPortForward,
		DrillDown:    "pods",
	}
}

// List lists statefulsets in namespace ("" for all) as *appsv1.StatefulSet.
func (StatefulSets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.AppsV1().StatefulSets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *appsv1.StatefulSet into its row (StatefulSetRow).
func (StatefulSets) Row(obj any) (vocab.Row, bool) {
	s, ok := obj.(*appsv1.StatefulSet)
	if !ok {
		return vocab.Row{}, false
	}
	return StatefulSetRow(s), true
}

// DrillSelector selects the pods the StatefulSet's spec.selector matches.
func (StatefulSets) DrillSelector(obj any) (vocab.Selector, bool) {
	s, ok := obj.(*appsv1.StatefulSet)
	if !ok {
		return vocab.Selector{}, false
	}
	return labelSelector(s.Spec.Selector)
}

// StatefulSetRow turns a StatefulSet into its row: READY is
// status.readyReplicas/spec.replicas (printedReplicas: 0 when unset, as kubectl prints it). Its Status and Health
// follow replicaState, where a rollout is what `kubectl rollout status`
// waits for under the RollingUpdate strategy: fewer updated replicas than
// spec.replicas minus the partition, or, without a partition, a
// currentRevision that is not yet the updateRevision. Under OnDelete there
// is no rollout to wait for (kubectl refuses to report one). A Snapshot
// judges it by the Pods it owns too (Workload).
func StatefulSetRow(s *appsv1.StatefulSet) vocab.Row {
	desired := replicas(s.Spec.Replicas)
	st := s.Status
	rolling := false
	if s.Spec.UpdateStrategy.Type != appsv1.OnDeleteStatefulSetStrategyType {
		var partition int32
		if ru := s.Spec.UpdateStrategy.RollingUpdate; ru != nil && ru.Partition != nil {
			partition = *ru.Partition
		}
		rolling = st.UpdatedReplicas < desired-partition ||
			(partition == 0 && st.UpdateRevision != "" && st.CurrentRevision != st.UpdateRevision)
	}
	names, images := containerCells(s.Spec.Template.Spec.Containers)
	row := identity(&s.ObjectMeta)
	row.Status, row.Health = replicaState(desired, st.Replicas, st.ReadyReplicas, st.ObservedGeneration < s.Generation, rolling)
	row.Workload = &vocab.RowWorkload{Available: st.AvailableReplicas}
	row.Cells = []vocab.Cell{
		vocab.Text(s.Name),
		vocab.Text(fmt.Sprintf("%d/%d", st.ReadyReplicas, printedReplicas(s.Spec.Replicas))),
		vocab.Age(s.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images),
	}
	return row
}
