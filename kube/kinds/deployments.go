package kinds

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Deployments serves deployments: NAME READY UP-TO-DATE AVAILABLE AGE, and
// with -o wide CONTAINERS IMAGES SELECTOR, as `kubectl get deployments`.
type Deployments struct{}

// Info describes deployments.
func (Deployments) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "deployments", Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true,
		Aliases: []string{"deployment", "deploy"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "READY"}, {Name: "UP-TO-DATE"}, {Name: "AVAILABLE"}, {Name: "AGE"},
			{Name: "CONTAINERS", Wide: true}, {Name: "IMAGES", Wide: true}, {Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanLogs | vocab.CanEdit | vocab.CanRollout | vocab.CanRestart | vocab.CanScale | vocab.CanPause | vocab.CanUndo | vocab.CanDelete | vocab.CanPortForward,
		DrillDown:    "pods",
	}
}

// List lists deployments in namespace ("" for all) as *appsv1.Deployment.
func (Deployments) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.AppsV1().Deployments(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *appsv1.Deployment into its row (DeploymentRow).
func (Deployments) Row(obj any) (vocab.Row, bool) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return vocab.Row{}, false
	}
	return DeploymentRow(d), true
}

// DeploymentRow turns a Deployment into its row (kubectl's printDeployment).
// Its Status and Health come from the rollout: see deploymentState; a
// Snapshot judges it by its Pods too (Workload: through its ReplicaSets),
// so that one whose Pods cannot start is not shown as progressing for the
// 10 minutes of its progress deadline.
func DeploymentRow(d *appsv1.Deployment) vocab.Row {
	desired := int32(1) // the API server defaults spec.replicas to 1
	if d.Spec.Replicas != nil {
		desired = *d.Spec.Replicas
	}
	selector := "<invalid>"
	if sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
		selector = sel.String()
	}
	names, images := containerCells(d.Spec.Template.Spec.Containers)
	status, health := deploymentState(d, desired)
	row := identity(&d.ObjectMeta)
	row.Status, row.Health = status, health
	row.Workload = &vocab.RowWorkload{Via: vocab.KindReplicaSets, Available: d.Status.AvailableReplicas}
	row.Cells = []vocab.Cell{
		vocab.Text(d.Name),
		vocab.Text(fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, printedReplicas(d.Spec.Replicas))),
		vocab.Text(strconv.Itoa(int(d.Status.UpdatedReplicas))),
		vocab.Text(strconv.Itoa(int(d.Status.AvailableReplicas))),
		vocab.Age(d.CreationTimestamp.Time),
		vocab.Text(names), vocab.Text(images), vocab.Text(selector),
	}
	return row
}

// DrillSelector selects the pods the Deployment's spec.selector matches
// (what `kubectl get pods -l` with that selector lists).
func (Deployments) DrillSelector(obj any) (vocab.Selector, bool) {
	d, ok := obj.(*appsv1.Deployment)
	if !ok {
		return vocab.Selector{}, false
	}
	return labelSelector(d.Spec.Selector)
}

// deploymentState names a Deployment's rollout state the way `kubectl
// rollout status` reasons about it: ProgressDeadlineExceeded is failed; all
// replicas updated, ready and available is ok; a rollout still replacing
// pods (observedGeneration behind, or fewer updated than desired) is
// progressing, and so is one whose new pods are not available yet while the
// Progressing condition says the rollout is still within its deadline (any
// reason but NewReplicaSetAvailable, the controller's "rollout complete");
// after a completed rollout, no available replica is failed and fewer is a
// warning.
func deploymentState(d *appsv1.Deployment, desired int32) (string, vocab.Health) {
	st := d.Status
	for _, c := range st.Conditions {
		if c.Type == appsv1.DeploymentProgressing && c.Status == corev1.ConditionFalse && c.Reason == "ProgressDeadlineExceeded" {
			return "ProgressDeadlineExceeded", vocab.HealthFailed
		}
	}
	switch {
	case d.Spec.Paused:
		return "Paused", vocab.HealthWarning
	case desired == 0 && st.Replicas == 0:
		return "ScaledToZero", vocab.HealthOK
	case st.ObservedGeneration >= d.Generation && st.UpdatedReplicas == desired &&
		st.ReadyReplicas == desired && st.AvailableReplicas == desired && st.Replicas == desired:
		return "Available", vocab.HealthOK
	case st.ObservedGeneration < d.Generation || st.UpdatedReplicas < desired || st.Replicas > desired,
		rolloutUnderway(st):
		return "Progressing", vocab.HealthProgressing
	case st.AvailableReplicas == 0:
		return "Unavailable", vocab.HealthFailed
	default:
		return "Degraded", vocab.HealthWarning
	}
}

// containerCells joins container names and images with commas, as kubectl's
// layoutContainerCells does.
func containerCells(containers []corev1.Container) (names, images string) {
	n := make([]string, len(containers))
	im := make([]string, len(containers))
	for i, c := range containers {
		n[i], im[i] = c.Name, c.Image
	}
	return strings.Join(n, ","), strings.Join(im, ",")
}

// rolloutUnderway reports a Progressing condition that is True for any
// reason but NewReplicaSetAvailable: the controller is still waiting for
// the new pods within spec.progressDeadlineSeconds.
func rolloutUnderway(st appsv1.DeploymentStatus) bool {
	for _, c := range st.Conditions {
		if c.Type == appsv1.DeploymentProgressing {
			return c.Status == corev1.ConditionTrue && c.Reason != "NewReplicaSetAvailable"
		}
	}
	return false
}
