package kinds

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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

// List lists namespaces and returns their rows; namespace is ignored.
func (Namespaces) List(ctx context.Context, cs kubernetes.Interface, _ string) ([]kube.Row, error) {
	list, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	rows := make([]kube.Row, len(list.Items))
	for i := range list.Items {
		rows[i] = NamespaceRow(&list.Items[i])
	}
	return rows, nil
}

// NamespaceRow turns a Namespace into its row: Active is ok, Terminating a warning.
func NamespaceRow(ns *corev1.Namespace) kube.Row {
	phase := string(ns.Status.Phase)
	health := kube.HealthOK
	if ns.Status.Phase == corev1.NamespaceTerminating {
		health = kube.HealthWarning
	}
	return kube.Row{
		Name: ns.Name, UID: string(ns.UID), Status: phase, Health: health, Created: ns.CreationTimestamp.Time,
		Cells: []kube.Cell{kube.Text(ns.Name), kube.Text(phase), kube.Age(ns.CreationTimestamp.Time)},
	}
}
