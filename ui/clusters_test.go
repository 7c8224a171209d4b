package ui_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/ui"
)

// fleetKubeconfig is a kubeconfig that knows fleets, as cmd's does.
type fleetKubeconfig struct {
	*fakeKubeconfig
	fleets map[string][]string
}

func (k fleetKubeconfig) Fleets() []string { return []string{"both", "live"} }

func (k fleetKubeconfig) Fleet(name string) ([]string, error) {
	if f, ok := k.fleets[name]; ok {
		return f, nil
	}
	return nil, errors.New(`unknown fleet "` + name + `" (the configuration file has fleets both, live)`)
}

// :clusters shows every context, :fleet NAME a fleet's (and keeps it for
// the next :clusters), an unknown fleet says so and opens nothing, and
// :fleet completes the fleets' names.
func TestFleetCommand(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	k := fleetKubeconfig{newKubeconfig(t, "prod"), map[string][]string{"live": {"prod"}, "both": {"prod", "dev"}}}
	h := startWith(t, client, "demo", 160, 20, ui.WithKubeconfig(k))
	h.command("clusters")
	if got := h.title(); got != "clusters[2]" {
		t.Fatalf(":clusters opened %q", got)
	}
	h.command("fleet live")
	if got := h.title(); got != "clusters[1]" {
		t.Fatalf(":fleet live opened %q", got)
	}
	h.command("pods")
	h.command("clusters")
	if got := h.title(); got != "clusters[1]" {
		t.Fatalf(":clusters after :fleet live opened %q", got)
	}
	h.command("fleet staging")
	if s := statusLine(h.m.View()); !strings.Contains(s, `unknown fleet "staging"`) || h.title() != "clusters[1]" {
		t.Fatalf(":fleet staging: %q, %q", s, h.title())
	}
	h.keys(":")
	h.typeText("fleet l")
	h.keys("tab")
	if got := h.promptLine(); got != ":fleet live" {
		t.Fatalf(":fleet l tab: %q", got)
	}
}
