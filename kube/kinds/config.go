package kinds

import (
	"context"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// ConfigMaps serves configmaps: NAME DATA AGE, as `kubectl get configmaps`
// prints them.
type ConfigMaps struct{}

// Info describes configmaps.
func (ConfigMaps) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "configmaps", Version: "v1", Resource: "configmaps", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"configmap", "cm"},
		Columns:      []vocab.Column{{Name: "NAME"}, {Name: "DATA"}, {Name: "AGE"}},
	}
}

// List lists configmaps in namespace ("" for all) as *corev1.ConfigMap.
func (ConfigMaps) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().ConfigMaps(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.ConfigMap into its row (ConfigMapRow).
func (ConfigMaps) Row(obj any) (vocab.Row, bool) {
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return vocab.Row{}, false
	}
	return ConfigMapRow(cm), true
}

// ConfigMapRow turns a ConfigMap into its row (kubectl's printConfigMap):
// DATA counts the keys of data and binaryData together. Health is always ok.
func ConfigMapRow(cm *corev1.ConfigMap) vocab.Row {
	row := identity(&cm.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(cm.Name), vocab.Text(strconv.Itoa(len(cm.Data) + len(cm.BinaryData))), vocab.Age(cm.CreationTimestamp.Time),
	}
	return row
}

// Secrets serves secrets: NAME TYPE DATA AGE, as `kubectl get secrets`
// prints them. The resource has no short name. Rows never hold a Secret's
// values, only how many keys it has.
type Secrets struct{}

// Info describes secrets.
func (Secrets) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "secrets", Version: "v1", Resource: "secrets", Namespaced: true,
		Capabilities: vocab.CanDelete | vocab.CanDecode,
		Aliases:      []string{"secret"},
		Columns:      []vocab.Column{{Name: "NAME"}, {Name: "TYPE"}, {Name: "DATA"}, {Name: "AGE"}},
	}
}

// List lists secrets in namespace ("" for all) as *corev1.Secret. The API
// has no way to list Secrets without their values; the Client's cache drops
// them, and Row never reads them.
func (Secrets) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Secrets(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Secret into its row (SecretRow).
func (Secrets) Row(obj any) (vocab.Row, bool) {
	s, ok := obj.(*corev1.Secret)
	if !ok {
		return vocab.Row{}, false
	}
	return SecretRow(s), true
}

// SecretRow turns a Secret into its row (kubectl's printSecret): TYPE is the
// secret's type, DATA the number of keys in data and stringData together
// (secretKeys). Only the keys are looked at, never the values, so the
// row is the same whether or not the values were stripped. Health is always ok.
func SecretRow(s *corev1.Secret) vocab.Row {
	row := identity(&s.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(s.Name), vocab.Text(string(s.Type)), vocab.Text(strconv.Itoa(secretKeys(s))), vocab.Age(s.CreationTimestamp.Time),
	}
	return row
}

// ServiceAccounts serves serviceaccounts: NAME AGE, as `kubectl get
// serviceaccounts` prints them.
type ServiceAccounts struct{}

// Info describes serviceaccounts.
func (ServiceAccounts) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "serviceaccounts", Version: "v1", Resource: "serviceaccounts", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"serviceaccount", "sa"},
		Columns:      []vocab.Column{{Name: "NAME"}, {Name: "AGE"}},
	}
}

// List lists serviceaccounts in namespace ("" for all) as *corev1.ServiceAccount.
func (ServiceAccounts) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().ServiceAccounts(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.ServiceAccount into its row (ServiceAccountRow).
func (ServiceAccounts) Row(obj any) (vocab.Row, bool) {
	sa, ok := obj.(*corev1.ServiceAccount)
	if !ok {
		return vocab.Row{}, false
	}
	return ServiceAccountRow(sa), true
}

// ServiceAccountRow turns a ServiceAccount into its row (kubectl's
// printServiceAccount). Health is always ok.
func ServiceAccountRow(sa *corev1.ServiceAccount) vocab.Row {
	row := identity(&sa.ObjectMeta)
	row.Cells = []vocab.Cell{vocab.Text(sa.Name), vocab.Age(sa.CreationTimestamp.Time)}
	return row
}

// secretKeys counts the distinct keys of data and stringData: the printer
// reads the internal Secret, whose conversion from v1 merges stringData into
// data. The API server merges them on write, so a stored secret has no
// stringData; an object built by hand may.
func secretKeys(s *corev1.Secret) int {
	n := len(s.Data)
	for k := range s.StringData {
		if _, dup := s.Data[k]; !dup {
			n++
		}
	}
	return n
}
