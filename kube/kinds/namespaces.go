package kinds

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Namespaces serves namespaces: NAME STATUS AGE, as `kubectl get namespaces`.
type Namespaces struct{}

// Info describes namespaces; opening one shows its pods.
func (Namespaces) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "namespaces", Version: "v1", Resource: "namespaces",
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"namespace", "ns"},
		Columns:      []vocab.Column{{Name: "NAME"}, {Name: "STATUS"}, {Name: "AGE"}},
		DrillDown:    "pods",
	}
}

// List lists namespaces as *corev1.Namespace; namespace is ignored.
func (Namespaces) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Namespaces().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Namespace into its row (NamespaceRow).
func (Namespaces) Row(obj any) (vocab.Row, bool) {
	ns, ok := obj.(*corev1.Namespace)
	if !ok {
		return vocab.Row{}, false
	}
	return NamespaceRow(ns), true
}

// NamespaceRow turns a Namespace into its row: Active is ok, Terminating a warning.
func NamespaceRow(ns *corev1.Namespace) vocab.Row {
	phase := string(ns.Status.Phase)
	health := vocab.HealthOK
	if ns.Status.Phase == corev1.NamespaceTerminating {
		health = vocab.HealthWarning
	}
	row := identity(&ns.ObjectMeta)
	row.Status, row.Health = phase, health
	row.Cells = []vocab.Cell{vocab.Text(ns.Name), vocab.Text(phase), vocab.Age(ns.CreationTimestamp.Time)}
	return row
}
