package seed_test

import (
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/kyyard/kyyard/hack/cluster/internal/seed"
)

// fleetMember is what a test reads of one member's objects.
type fleetMember struct {
	deployments map[string]*appsv1.Deployment
	role        *rbacv1.Role
	namespaces  []string
}

func readFleet(t *testing.T, i int) fleetMember {
	t.Helper()
	m := fleetMember{deployments: map[string]*appsv1.Deployment{}}
	for _, o := range seed.FleetObjects(i) {
		switch v := o.(type) {
		case *appsv1.Deployment:
			m.deployments[v.Name] = v
		case *rbacv1.Role:
			m.role = v
		case *corev1.Namespace:
			m.namespaces = append(m.namespaces, v.Name)
		}
	}
	return m
}

func env(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}

func grantsPods(r *rbacv1.Role) bool {
	for _, rule := range r.Rules {
		if slices.Contains(rule.APIGroups, "") && slices.Contains(rule.Resources, "pods") && slices.Contains(rule.Verbs, "list") {
			return true
		}
	}
	return false
}

// TestFleetObjectsDiffer: the members' demos differ exactly as the fleet
// issue asks: web's image and its env GREETING between 1 and 2, no web
// but api in 3, and a
// read-only user that may not list pods in 3.
func TestFleetObjectsDiffer(t *testing.T) {
	for _, tc := range []struct {
		member          int
		deployment      string
		image, greet    string
		absent          string
		viewerReadsPods bool
	}{
		{1, "web", "nginx:1.27.3", "hello", "api", true},
		{2, "web", "nginx:1.27.4", "hallo", "api", true},
		{3, "api", seed.FleetAPIImage, "bonjour", "web", false},
		{4, "web", "nginx:1.27.3", "hello", "api", true},
	} {
		m := readFleet(t, tc.member)
		if !slices.Equal(m.namespaces, []string{seed.Namespace}) {
			t.Errorf("member %d: namespaces %v", tc.member, m.namespaces)
		}
		if len(m.deployments) != 1 || m.deployments[tc.absent] != nil {
			t.Errorf("member %d: deployments %v", tc.member, m.deployments)
		}
		d := m.deployments[tc.deployment]
		if d == nil {
			t.Errorf("member %d has no Deployment %s", tc.member, tc.deployment)
			continue
		}
		c := d.Spec.Template.Spec.Containers[0]
		if d.Namespace != seed.Namespace || *d.Spec.Replicas != seed.FleetReplicas || c.Image != tc.image || env(c, "GREETING") != tc.greet {
			t.Errorf("member %d: %s/%s replicas %d image %s GREETING=%s", tc.member, d.Namespace, d.Name, *d.Spec.Replicas, c.Image, env(c, "GREETING"))
		}
		spec := d.Spec.Template.Spec
		if spec.NodeSelector["type"] != "kwok" || len(spec.Tolerations) != 1 || spec.Tolerations[0].Key != "kwok.x-k8s.io/node" {
			t.Errorf("member %d: %s does not run on the fake nodes: %v %v", tc.member, d.Name, spec.NodeSelector, spec.Tolerations)
		}
		if m.role == nil || m.role.Name != "viewer" || grantsPods(m.role) != tc.viewerReadsPods {
			t.Errorf("member %d: viewer Role %+v", tc.member, m.role)
		}
	}
}

// TestFleetViewerRoleOtherwiseTheSame: on the member whose read-only user
// may not list pods, its Role still grants everything else the single
// cluster's viewer has (Deployments, logs, ...), and the single cluster's
// own Role is untouched.
func TestFleetViewerRoleOtherwiseTheSame(t *testing.T) {
	full, limited := readFleet(t, 1).role, readFleet(t, 3).role
	count := func(r *rbacv1.Role) (n int) {
		for _, rule := range r.Rules {
			n += len(rule.Resources)
		}
		return n
	}
	if count(limited) != count(full)-1 {
		t.Errorf("limited role has %d resources, full %d", count(limited), count(full))
	}
	var single *rbacv1.Role
	for _, o := range seed.Objects(t.TempDir()) {
		if r, ok := o.(*rbacv1.Role); ok && r.Name == "viewer" {
			single = r
		}
	}
	if single == nil || !grantsPods(single) || count(single) != count(full) {
		t.Errorf("single cluster's viewer Role %+v", single)
	}
}
