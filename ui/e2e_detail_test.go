package ui_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
)

// TestE2EOpenYAMLOfDemoDeployment drives the root model against the local
// cluster: the message the inventory's y key sends opens the YAML of
// Deployment web, read from the API server; m shows its managedFields; esc
// returns to the pods.
func TestE2EOpenYAMLOfDemoDeployment(t *testing.T) {
	client := kubetest.Client(t, kubetest.Local(t))
	h := startWith(t, client, kubetest.DemoNamespace, 120, 40)
	h.openObject(views.OpenObjectMsg{View: views.YAMLView, Kind: "deployments", Namespace: kubetest.DemoNamespace, Name: "web"})
	view := h.m.View()
	if !strings.Contains(view, "yaml deployments/demo/web") || !strings.Contains(view, "kind: Deployment") {
		t.Fatalf("YAML of Deployment web:\n%s", view)
	}
	if strings.Contains(view, "managedFields") {
		t.Fatalf("managedFields shown without m:\n%s", view)
	}
	h.send(h.keys("m")())
	h.keys("/", "m", "a", "n", "a", "g", "e", "d", "F", "enter")
	if view := h.m.View(); !strings.Contains(view, "managedFields shown") || !strings.Contains(view, "/managedF: match 1 of 1") {
		t.Fatalf("after m and a search for managedF:\n%s", view)
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "pods(demo)") {
		t.Fatalf("esc did not go back to the pods: %q", got)
	}
}

// TestE2EDescribeThroughRootAsReadOnlyUser opens kubectl's describe of
// Deployment crashy as the read-only user, then the YAML of a Secret, which
// that user may not read: explained rather than blank.
func TestE2EDescribeThroughRootAsReadOnlyUser(t *testing.T) {
	client := kubetest.Client(t, kubetest.LocalReadOnly(t))
	h := startWith(t, client, kubetest.DemoNamespace, 120, 40)
	h.openObject(views.OpenObjectMsg{View: views.DescribeView, Kind: "deployments", Namespace: kubetest.DemoNamespace, Name: "crashy"})
	if view := h.m.View(); !strings.Contains(view, "Name:                   crashy") || !strings.Contains(view, "Replicas:") {
		t.Fatalf("describe of Deployment crashy:\n%s", view)
	}
	h.run(h.keys("esc"))
	h.openObject(views.OpenObjectMsg{View: views.YAMLView, Kind: "secrets", Namespace: kubetest.DemoNamespace, Name: "web-credentials"})
	if view := h.m.View(); !strings.Contains(view, "Cannot show yaml secrets/demo/web-credentials: your account may not do this") {
		t.Fatalf("forbidden Secret:\n%s", view)
	}
}
