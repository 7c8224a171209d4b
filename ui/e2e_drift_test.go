package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
)

// TestE2EFleetDriftShowsThePlantedDifferences: on the local fleet, = on
// Deployment web across the three clusters shows what each API server
// holds (read here with a clientset per context, the oracle): its image
// and its env GREETING per cluster, marked ≠ where they differ (the fleet
// seed plants another image and another greeting in kyyard-fleet-2), and
// missing in kyyard-fleet-3, which has none.
func TestE2EFleetDriftShowsThePlantedDifferences(t *testing.T) {
	path := kubetest.LocalFleet(t)
	names := []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"}
	k := fleetFile{path: path}
	images, greetings := make([]string, len(names)), make([]string, len(names))
	for i, name := range names {
		d, err := k.clientset(t, name).AppsV1().Deployments(kubetest.DemoNamespace).Get(context.Background(), "web", metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			images[i], greetings[i] = "-", "-"
		case err != nil:
			t.Fatalf("%s: %v", name, err)
		default:
			c := d.Spec.Template.Spec.Containers[0]
			images[i], greetings[i] = c.Image, "-"
			for _, e := range c.Env {
				if e.Name == "GREETING" {
					greetings[i] = e.Value
				}
			}
		}
	}
	if images[0] == images[1] || greetings[0] == greetings[1] || images[2] != "-" {
		t.Fatalf("the fleet's demo lacks its planted drift (images %v, greetings %v): run hack/cluster fleet seed on a fresh fleet", images, greetings)
	}
	home, err := k.Connect(names[0])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(home.(*kube.Client).Close)
	h := startWith(t, home, kubetest.DemoNamespace, 160, 40, ui.WithKubeconfig(k), ui.WithFleet(names))
	h.command("deploy " + kubetest.DemoNamespace)
	h.refreshUntil("clusters: kyyard-fleet-1 1 · kyyard-fleet-2 1 · kyyard-fleet-3 1", time.Now().Add(60*time.Second))
	h.keys("j") // web@kyyard-fleet-1 (api@kyyard-fleet-3 sorts first)
	h.runKey(h.keys("="))
	view := h.m.View()
	if !strings.Contains(h.titleBar(), "drift deployments/web(demo)") {
		t.Fatalf("= opened %q:\n%s", h.titleBar(), view)
	}
	for _, c := range []struct {
		field string
		want  []string
	}{
		{"present", []string{"yes", "yes", "missing"}},
		{"image", images},
		{"GREETING", greetings},
	} {
		line := lineOf(view, c.field)
		f := strings.Fields(line)
		if len(f) < 3 || strings.Join(f[len(f)-3:], " ") != strings.Join(c.want, " ") || !strings.HasPrefix(strings.TrimSpace(line), "≠") {
			t.Errorf("%s: %q, want %v marked ≠", c.field, line, c.want)
		}
	}
	if strings.Contains(lineOf(view, "replicas"), "≠") {
		t.Errorf("replicas marked as differing:\n%s", view)
	}
}
