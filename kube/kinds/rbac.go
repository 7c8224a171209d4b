package kinds

import (
	"context"
	"strings"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// RBAC kinds (rbac.authorization.k8s.io/v1). None has a short name.
//
// Roles and ClusterRoles have no printer in kubectl's printers: the API
// server renders them with its default Table (k8s.io/apiserver
// pkg/registry/rest/table.go), NAME and CREATED AT, the creation time in
// UTC as RFC 3339 ("2026-11-30T10:00:00Z"). RoleBindings and
// ClusterRoleBindings follow printRoleBinding and printClusterRoleBinding.

var (
	roleColumns    = []vocab.Column{{Name: "NAME"}, {Name: "CREATED AT"}}
	bindingColumns = []vocab.Column{
		{Name: "NAME"}, {Name: "ROLE"}, {Name: "AGE"},
		{Name: "USERS", Wide: true}, {Name: "GROUPS", Wide: true}, {Name: "SERVICEACCOUNTS", Wide: true},
	}
)

// Roles serves roles: NAME CREATED AT, as `kubectl get roles` prints them.
type Roles struct{}

// Info describes roles.
func (Roles) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "roles", Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "roles", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"role"}, Columns: roleColumns,
	}
}

// List lists roles in namespace ("" for all) as *rbacv1.Role.
func (Roles) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.RbacV1().Roles(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *rbacv1.Role into its row (RoleRow).
func (Roles) Row(obj any) (vocab.Row, bool) {
	r, ok := obj.(*rbacv1.Role)
	if !ok {
		return vocab.Row{}, false
	}
	return RoleRow(&r.ObjectMeta), true
}

// ClusterRoles serves clusterroles (cluster-scoped): NAME CREATED AT, as
// `kubectl get clusterroles` prints them.
type ClusterRoles struct{}

// Info describes clusterroles.
func (ClusterRoles) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "clusterroles", Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterroles",
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"clusterrole"}, Columns: roleColumns,
	}
}

// List lists clusterroles as *rbacv1.ClusterRole; namespace is ignored.
func (ClusterRoles) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.RbacV1().ClusterRoles().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *rbacv1.ClusterRole into its row (RoleRow).
func (ClusterRoles) Row(obj any) (vocab.Row, bool) {
	r, ok := obj.(*rbacv1.ClusterRole)
	if !ok {
		return vocab.Row{}, false
	}
	return RoleRow(&r.ObjectMeta), true
}

// RoleRow is the row of a Role or ClusterRole, given its metadata: NAME and
// CREATED AT, the creation time in UTC as RFC 3339, a fixed text as the API
// server's default Table prints it (not an age). Health is always ok.
func RoleRow(m *metav1.ObjectMeta) vocab.Row {
	row := identity(m)
	row.Cells = []vocab.Cell{vocab.Text(m.Name), vocab.Text(m.CreationTimestamp.UTC().Format(time.RFC3339))}
	return row
}

// RoleBindings serves rolebindings: NAME ROLE AGE, and with -o wide USERS
// GROUPS SERVICEACCOUNTS, as `kubectl get rolebindings` prints them.
type RoleBindings struct{}

// Info describes rolebindings.
func (RoleBindings) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "rolebindings", Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "rolebindings", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"rolebinding"}, Columns: bindingColumns,
	}
}

// List lists rolebindings in namespace ("" for all) as *rbacv1.RoleBinding.
func (RoleBindings) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.RbacV1().RoleBindings(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *rbacv1.RoleBinding into its row (BindingRow).
func (RoleBindings) Row(obj any) (vocab.Row, bool) {
	b, ok := obj.(*rbacv1.RoleBinding)
	if !ok {
		return vocab.Row{}, false
	}
	return BindingRow(&b.ObjectMeta, b.RoleRef, b.Subjects), true
}

// ClusterRoleBindings serves clusterrolebindings (cluster-scoped): NAME ROLE
// AGE, and with -o wide USERS GROUPS SERVICEACCOUNTS, as `kubectl get
// clusterrolebindings` prints them.
type ClusterRoleBindings struct{}

// Info describes clusterrolebindings.
func (ClusterRoleBindings) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "clusterrolebindings", Group: "rbac.authorization.k8s.io", Version: "v1", Resource: "clusterrolebindings",
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"clusterrolebinding"}, Columns: bindingColumns,
	}
}

// List lists clusterrolebindings as *rbacv1.ClusterRoleBinding; namespace is ignored.
func (ClusterRoleBindings) List(ctx context.Context, cs kubernetes.Interface, _ string, sel vocab.Selector) ([]any, error) {
	list, err := cs.RbacV1().ClusterRoleBindings().List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *rbacv1.ClusterRoleBinding into its row (BindingRow).
func (ClusterRoleBindings) Row(obj any) (vocab.Row, bool) {
	b, ok := obj.(*rbacv1.ClusterRoleBinding)
	if !ok {
		return vocab.Row{}, false
	}
	return BindingRow(&b.ObjectMeta, b.RoleRef, b.Subjects), true
}

// BindingRow is the row of a RoleBinding or ClusterRoleBinding given its
// metadata, roleRef and subjects (kubectl's printRoleBinding): ROLE is
// "<roleRef.kind>/<roleRef.name>" ("ClusterRole/view"); USERS and GROUPS
// list the names of the User and Group subjects, SERVICEACCOUNTS the
// ServiceAccount subjects as namespace/name, each joined by ", " in the
// subjects' order and empty when there is none (subjects of other kinds are
// not shown, as in kubectl). Health is always ok.
func BindingRow(m *metav1.ObjectMeta, ref rbacv1.RoleRef, subjects []rbacv1.Subject) vocab.Row {
	var users, groups, sas []string
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users = append(users, s.Name)
		case rbacv1.GroupKind:
			groups = append(groups, s.Name)
		case rbacv1.ServiceAccountKind:
			sas = append(sas, s.Namespace+"/"+s.Name)
		}
	}
	row := identity(m)
	row.Cells = []vocab.Cell{
		vocab.Text(m.Name), vocab.Text(ref.Kind + "/" + ref.Name), vocab.Age(m.CreationTimestamp.Time),
		vocab.Text(strings.Join(users, ", ")), vocab.Text(strings.Join(groups, ", ")), vocab.Text(strings.Join(sas, ", ")),
	}
	return row
}
