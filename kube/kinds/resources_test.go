package kinds_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// resourceKinds are the networking, configuration, storage, event and RBAC
// kinds, each with an object of its kind (in namespace demo when namespaced).
func resourceKinds() []struct {
	plugin kube.Plugin
	obj    runtime.Object
} {
	cluster := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, UID: k8stypes.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created)}
	}
	return []struct {
		plugin kube.Plugin
		obj    runtime.Object
	}{
		{kinds.Services{}, &corev1.Service{ObjectMeta: demoMeta("svc")}},
		{kinds.EndpointSlices{}, &discoveryv1.EndpointSlice{ObjectMeta: demoMeta("slice")}},
		{kinds.Ingresses{}, &networkingv1.Ingress{ObjectMeta: demoMeta("ing")}},
		{kinds.NetworkPolicies{}, &networkingv1.NetworkPolicy{ObjectMeta: demoMeta("netpol")}},
		{kinds.ConfigMaps{}, &corev1.ConfigMap{ObjectMeta: demoMeta("cm")}},
		{kinds.Secrets{}, &corev1.Secret{ObjectMeta: demoMeta("secret")}},
		{kinds.ServiceAccounts{}, &corev1.ServiceAccount{ObjectMeta: demoMeta("sa")}},
		{kinds.PersistentVolumeClaims{}, &corev1.PersistentVolumeClaim{ObjectMeta: demoMeta("pvc")}},
		{kinds.PersistentVolumes{}, &corev1.PersistentVolume{ObjectMeta: cluster("pv")}},
		{kinds.StorageClasses{}, &storagev1.StorageClass{ObjectMeta: cluster("sc")}},
		{kinds.Events{}, &corev1.Event{ObjectMeta: demoMeta("ev")}},
		{kinds.Roles{}, &rbacv1.Role{ObjectMeta: demoMeta("role")}},
		{kinds.RoleBindings{}, &rbacv1.RoleBinding{ObjectMeta: demoMeta("rb")}},
		{kinds.ClusterRoles{}, &rbacv1.ClusterRole{ObjectMeta: cluster("cr")}},
		{kinds.ClusterRoleBindings{}, &rbacv1.ClusterRoleBinding{ObjectMeta: cluster("crb")}},
	}
}

// TestResourceKindsInfo: every kind's names resolve (kubectl's short names,
// from the API server's discovery), its row has a cell per column for even
// an empty object, it refuses other kinds' objects, and only events cannot
// be deleted.
func TestResourceKindsInfo(t *testing.T) {
	r := kinds.Builtin()
	for alias, want := range map[string]kube.Kind{
		"svc": "services", "service": "services", "endpointslice": "endpointslices", "ing": "ingresses",
		"netpol": "networkpolicies", "cm": "configmaps", "secret": "secrets", "sa": "serviceaccounts",
		"pvc": "persistentvolumeclaims", "pv": "persistentvolumes", "sc": "storageclasses", "ev": "events",
		"event": "events", "role": "roles", "rolebinding": "rolebindings", "clusterrole": "clusterroles",
		"clusterrolebinding": "clusterrolebindings",
	} {
		if p, ok := r.Lookup(alias); !ok || p.Info().ID != want {
			t.Errorf("Lookup(%q) = %v, want %s", alias, p, want)
		}
	}
	for _, k := range resourceKinds() {
		info := k.plugin.Info()
		if info.ID != kube.Kind(info.Resource) || info.Version != "v1" {
			t.Errorf("%s: resource %s version %s", info.ID, info.Resource, info.Version)
		}
		row, ok := k.plugin.Row(k.obj)
		if !ok || len(row.Cells) != len(info.Columns) {
			t.Errorf("%s: ok %v, %d cells for %d columns", info.ID, ok, len(row.Cells), len(info.Columns))
		}
		if _, ok := k.plugin.Row(&corev1.Pod{}); ok {
			t.Errorf("%s accepted a Pod", info.ID)
		}
		if info.SortColumn != "" && !hasColumn(info.Columns, info.SortColumn) {
			t.Errorf("%s: sort column %q is not a column", info.ID, info.SortColumn)
		}
	}
}

func hasColumn(cols []kube.Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// TestResourceKindsReadThroughClient reads every kind through the Client,
// once from informers and once by direct lists (a user who may not watch):
// each table holds exactly its one object.
func TestResourceKindsReadThroughClient(t *testing.T) {
	for _, watch := range []bool{true, false} {
		var objs []runtime.Object
		var ids []kube.Kind
		for _, k := range resourceKinds() {
			objs = append(objs, k.obj.DeepCopyObject())
			ids = append(ids, k.plugin.Info().ID)
		}
		c, cs := kubetest.FakeClient(t, objs...)
		if !watch {
			cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
		}
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: ids, Namespace: "demo"})
		if len(snap.Truncated) > 0 {
			t.Fatalf("watch %v: truncated %+v", watch, snap.Truncated)
		}
		for i, k := range resourceKinds() {
			table, ok := snap.Table(ids[i])
			name := k.obj.(metav1.Object).GetName()
			if !ok || len(table.Rows) != 1 || table.Rows[0].Name != name || table.Cached != watch {
				t.Errorf("watch %v: %s: table %+v, want one row %s", watch, ids[i], table, name)
			}
		}
	}
}
