package ui

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestUnreachableServerKeepsFactsMarkedStale: when the server goes away the
// header keeps what it read and says it is stale, instead of turning the
// server's answers into unknowns or kubeconfig guesses.
func TestUnreachableServerKeepsFactsMarkedStale(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	good := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok linux/amd64", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}
	m.takeFacts(good)
	m.takeFacts(kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: "jane-kc (kubeconfig)"})
	header := m.header()
	if !strings.Contains(header, "user: jane") || strings.Contains(header, "kubeconfig") || !strings.Contains(header, "k8s: v1.37.2") {
		t.Fatalf("stale header lost the server's facts:\n%s", header)
	}
	if !strings.Contains(header, "server unreachable") {
		t.Fatalf("stale header does not say so:\n%s", header)
	}
	m.takeFacts(good)
	if strings.Contains(m.header(), "unreachable") {
		t.Fatalf("header still stale after a good read:\n%s", m.header())
	}
}
