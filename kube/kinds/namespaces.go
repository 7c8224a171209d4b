package kinds

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube"
)

// Namespaces serves namespaces: NAME STATUS AGE, as `kubectl get namespaces`.
type Namespaces struct{}

// Info describes namespaces; opening one shows its pods.
func (Namespaces) Info() kube.KindInfo {
	return kube.KindInfo{
		ID: "namespaces", Version: "v1", Resource: "namespaces",
		Aliases:   []string{"namespace", "ns"},
		Columns:   []kube.Column{{Name: "NAME"}, {Name: "STATUS"}, {Name: "AGE"}},
		DrillDown: "pods",
	}
}

// List lists namespaces as *corev1.Namespace; namespace is ignored.
func (Namespaces) List(ctx context.Context, cs kubernetes.Interface, _ string, sel kube.Selector) ([]any, error) {
	list, err := cs.CoreV1().Namespaces().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Namespace into its row (NamespaceRow).
func (Namespaces) Row(obj any) (kube.Row, bool) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return kube.Row{}, false
	}
	return NamespaceRow(ns), true
}

// NamespaceRow turns a Namespace into its row: Active is ok, Terminating a warning.
func NamespaceRow(ns *corev1.Namespace) kube.Row {
	phase := string(ns.Status.Phase)
	health := kube.HealthOK
	if ns.Status.Phase == corev1.NamespaceTerminating {
		health = kube.HealthWarning
	}
	row := identity(&ns.ObjectMeta)
	row.Status, row.Health = phase, health
	row.Cells = []kube.Cell{kube.Text(ns.Name), kube.Text(phase), kube.Age(ns.CreationTimestamp.Time)}
	return row
}
