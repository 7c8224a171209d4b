package kinds_test

import (
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func TestRoleRows(t *testing.T) {
	local := time.Date(2026, 11, 30, 11, 0, 5, 0, time.FixedZone("CET", 3600))
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "viewer", Namespace: "demo", CreationTimestamp: metav1.NewTime(local)}}
	cr := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "view", CreationTimestamp: metav1.NewTime(local)}}
	for _, tt := range []struct {
		p   kube.Plugin
		obj any
		ns  string
	}{{kinds.Roles{}, role, "demo"}, {kinds.ClusterRoles{}, cr, ""}} {
		row, ok := tt.p.Row(tt.obj)
		if !ok {
			t.Fatalf("%s rejected its object", tt.p.Info().ID)
		}
		equal(t, texts(row)[1:], []string{"2026-11-30T10:00:05Z"})
		if row.Namespace != tt.ns || row.Cells[1].Since != (time.Time{}) {
			t.Errorf("%s: namespace %q; CREATED AT must be a fixed text, not an age", tt.p.Info().ID, row.Namespace)
		}
	}
}

func TestBindingRows(t *testing.T) {
	subjects := []rbacv1.Subject{
		{Kind: rbacv1.ServiceAccountKind, Namespace: "demo", Name: "viewer"},
		{Kind: rbacv1.UserKind, Name: "alice"},
		{Kind: rbacv1.GroupKind, Name: "system:authenticated"},
		{Kind: rbacv1.UserKind, Name: "bob"},
		{Kind: rbacv1.ServiceAccountKind, Name: "no-namespace"},
		{Kind: "Robot", Name: "r2"},
	}
	tests := []struct {
		name  string
		obj   any
		p     kube.Plugin
		cells []string
	}{
		{"rolebinding to a role", &rbacv1.RoleBinding{ObjectMeta: demoMeta("viewer"), RoleRef: rbacv1.RoleRef{Kind: "Role", Name: "viewer"}, Subjects: subjects},
			kinds.RoleBindings{}, []string{"viewer", "Role/viewer", "90m", "alice, bob", "system:authenticated", "demo/viewer, /no-namespace"}},
		{"rolebinding to a cluster role, no subjects", &rbacv1.RoleBinding{ObjectMeta: demoMeta("edit"), RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "edit"}},
			kinds.RoleBindings{}, []string{"edit", "ClusterRole/edit", "90m", "", "", ""}},
		{"clusterrolebinding", &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "admins", CreationTimestamp: metav1.NewTime(created)},
			RoleRef: rbacv1.RoleRef{Kind: "ClusterRole", Name: "cluster-admin"}, Subjects: subjects[2:3]},
			kinds.ClusterRoleBindings{}, []string{"admins", "ClusterRole/cluster-admin", "90m", "", "system:authenticated", ""}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := tt.p.Row(tt.obj)
			if !ok {
				t.Fatal("plugin rejected its object")
			}
			equal(t, texts(row), tt.cells)
		})
	}
}
