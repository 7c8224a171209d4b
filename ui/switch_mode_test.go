package ui_test

import (
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes/fake"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
)

// modeKubeconfig connects each context with its own client options, as
// the configuration file makes cmd/kyyard/app's kubeconfig do.
type modeKubeconfig struct {
	t     *testing.T
	modes map[string]kube.Options
}

func (k modeKubeconfig) Contexts() ([]string, string, error) {
	return []string{"dev", "prod", "staging"}, "prod", nil
}

func (k modeKubeconfig) Connect(name string) (views.Source, error) {
	cs := fake.NewClientset(objects()...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.AllowAccessReviews)
	o := k.modes[name]
	o.Registry = kinds.Builtin()
	c := kube.NewFromClientset(cs, o)
	c.SetNamespace("demo")
	k.t.Cleanup(c.Close)
	return c, nil
}

// TestHeaderModeFollowsTheContextSwitch: each context's client carries its
// own read-only and strict settings, and the header's mode and the action
// keys follow the switch.
func TestHeaderModeFollowsTheContextSwitch(t *testing.T) {
	k := modeKubeconfig{t: t, modes: map[string]kube.Options{
		"prod":    {ReadOnly: true},
		"staging": {Policy: kube.PolicyStrict},
	}}
	first, err := k.Connect("prod")
	if err != nil {
		t.Fatal(err)
	}
	h := startWith(t, first, "demo", 120, 14, ui.WithKubeconfig(k))
	header := func() string { return strings.Join(strings.SplitN(h.m.View(), "\n", 3)[:2], "\n") }
	if !strings.Contains(header(), "mode: read-only") {
		t.Fatalf("prod starts read-only:\n%s", h.m.View())
	}
	h.command("ctx dev")
	if v := h.m.View(); strings.Contains(v, "mode:") || !strings.Contains(v, "switched to context dev") {
		t.Fatalf("dev is interactive, writes allowed:\n%s", v)
	}
	h.command("ctx staging")
	if v := header(); !strings.Contains(v, "mode: strict") || strings.Contains(v, "read-only") {
		t.Fatalf("staging is strict:\n%s", h.m.View())
	}
	h.command("ctx prod")
	h.command("deploy")
	h.runKey(h.keys("r"))
	if v := h.m.View(); !strings.Contains(v, "mode: read-only") || !strings.Contains(v, "restart is disabled: kyyard runs read-only") {
		t.Fatalf("back in prod, r is disabled:\n%s", v)
	}
}
