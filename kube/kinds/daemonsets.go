package kinds

import (
	"context"
	"strconv"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// DaemonSets serves daemonsets: NAME DESIRED CURRENT READY UP-TO-DATE
// AVAILABLE NODE SELECTOR AGE, and with -o wide CONTAINERS IMAGES SELECTOR,
// as `kubectl get daemonsets` prints them (printDaemonSet in
// k8s.io/kubernetes pkg/printers/internalversion).
type DaemonSets struct{}

// Info describes daemonsets: their pod template can be edited, they restart
// (`kubectl rollout restart`) and are deleted, but do not scale (one pod
// per eligible node); opening one shows the pods its selector matches.
func (DaemonSets) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "daemonsets", Group: "apps", Version: "v1", Resource: "daemonsets", Namespaced: true,
		Aliases: []string{"daemonset", "ds"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "DESIRED"}, {Name: "CURRENT"}, {Name: "READY"}, {Name: "UP-TO-DATE"},
			{Name: "AVAILABLE"}, {Name: "NODE SELECTOR"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanLogs | vocab.CanEdit | vocab.CanRollout | vocab.CanRestart | vocab.CanDelete | vocab.CanPortForward,
		DrillDown:    "pods",
	}
}

// List lists daemonsets in namespace ("" for all) as *appsv1.DaemonSet.
func (DaemonSets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.AppsV1().DaemonSets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *appsv1.DaemonSet into its row (DaemonSetRow).
func (DaemonSets) Row(obj any) (vocab.Row, bool) {
	d, ok := obj.(*appsv1.DaemonSet)
	if !ok {
		return vocab.Row{}, false
	}
	return DaemonSetRow(d), true
}

// DrillSelector selects the pods the DaemonSet's spec.selector matches.
func (DaemonSets) DrillSelector(obj any) (vocab.Selector, bool) {
	d, ok := obj.(*appsv1.DaemonSet)
	if !ok {
		return vocab.Selector{}, false
	}
	return labelSelector(d.Spec.Selector)
}

// DaemonSetRow turns a DaemonSet into its row: the counts are status's
// desiredNumberScheduled, currentNumberScheduled, numberReady,
// updatedNumberScheduled and numberAvailable; NODE SELECTOR is the pod
// template's nodeSelector ("<none>" when empty). Status and Health, after
// what `kubectl rollout status` waits for: a spec not yet observed is
// Progressing; no eligible node is NoNodes (ok: nothing to run); every
// desired pod updated, ready and available and none misscheduled is Ready
// (ok); none ready is Unavailable (failed); fewer updated than desired is
// Progressing; pods on nodes they should not run on is Misscheduled
// (warning); fewer ready or available is Degraded (warning). A Snapshot
// judges it by the Pods it owns too (Workload).
func DaemonSetRow(d *appsv1.DaemonSet) vocab.Row {
	st := d.Status
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	row := identity(&d.ObjectMeta)
	row.Status, row.Health = daemonSetState(d)
	row.Workload = &vocab.RowWorkload{Available: st.NumberAvailable}
	row.Cells = []vocab.Cell{
		vocab.Text(d.Name),
		vocab.Text(strconv.Itoa(int(st.DesiredNumberScheduled))),
		vocab.Text(strconv.Itoa(int(st.CurrentNumberScheduled))),
		vocab.Text(strconv.Itoa(int(st.NumberReady))),
		vocab.Text(strconv.Itoa(int(st.UpdatedNumberScheduled))),
		vocab.Text(strconv.Itoa(int(st.NumberAvailable))),
		vocab.Text(labels.FormatLabels(d.Spec.Template.Spec.NodeSelector)),
		vocab.Age(d.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images), vocab.Text(metav1.FormatLabelSelector(d.Spec.Selector)),
	}
	return row
}

func daemonSetState(d *appsv1.DaemonSet) (string, vocab.Health) {
	st := d.Status
	desired := st.DesiredNumberScheduled
	switch {
	case st.ObservedGeneration < d.Generation:
		return "Progressing", vocab.HealthProgressing
	case desired == 0 && st.CurrentNumberScheduled == 0:
		return "NoNodes", vocab.HealthOK
	case st.UpdatedNumberScheduled == desired && st.NumberReady == desired &&
		st.NumberAvailable == desired && st.CurrentNumberScheduled == desired && st.NumberMisscheduled == 0:
		return "Ready", vocab.HealthOK
	case st.NumberReady == 0:
		return "Unavailable", vocab.HealthFailed
	case st.UpdatedNumberScheduled < desired:
		return "Progressing", vocab.HealthProgressing
	case st.NumberMisscheduled > 0:
		return "Misscheduled", vocab.HealthWarning
	default:
		return "Degraded", vocab.HealthWarning
	}
}
