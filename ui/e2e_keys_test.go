package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views"
)

// TestE2EReboundKeysAct is issue 27's "a rebound key acts and the old one
// does not", against the local cluster's API server: with describe on i
// and restart behind a chord (ctrl+x, then r), d and r do nothing, i
// describes the Deployment as the server has it, and ctrl+x r restarts
// it (its pod template's restartedAt written).
func TestE2EReboundKeysAct(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kyyard-ui-keys")
	createDeployment(t, cs, ns, "web")
	h := startKeyedOn(t, kubetest.Client(t, cfg), "deploy", ns, views.KeyMap{"table": {"describe": {"i"}, "restart": {"ctrl+x r"}}})
	deadline := time.Now().Add(90 * time.Second)
	h.showDeployments(deadline, "web")
	h.drive(h.keys("d"), deadline)
	h.drive(h.keys("r"), deadline)
	if got := h.title(); !strings.HasPrefix(got, "deployments("+ns+")") {
		t.Fatalf("d or r (the old keys) opened %q:\n%s", got, h.m.View())
	}
	h.drive(h.keys("i"), deadline)
	if v := h.m.View(); !strings.Contains(h.title(), "describe") || !strings.Contains(v, "Name:") || !strings.Contains(v, "web") {
		t.Fatalf("i (describe's new key) did not describe web:\n%s", v)
	}
	h.run(h.keys("esc"))
	h.drive(h.send(tea.KeyMsg{Type: tea.KeyCtrlX}), deadline)
	h.drive(h.keys("r"), deadline)
	if v := h.m.View(); !strings.Contains(v, "restart") || !strings.Contains(v, "y/n") {
		t.Fatalf("ctrl+x r opened no restart confirmation:\n%s", v)
	}
	h.drive(h.keys("y"), deadline)
	if v := h.m.View(); !strings.Contains(v, "restarted "+ns+"/deployments/web") || !strings.Contains(v, "rollout") {
		t.Fatalf("no restart outcome:\n%s", v)
	}
	d, err := cs.AppsV1().Deployments(ns).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.Template.Annotations["kubectl.kubernetes.io/restartedAt"] == "" {
		t.Fatalf("the Deployment was not restarted: template annotations %v", d.Spec.Template.Annotations)
	}
}
