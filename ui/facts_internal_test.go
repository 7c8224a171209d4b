package ui

import (
	"strings"
	"testing"
	"time"

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

// TestUnreachableServerBannerBacksOffAndRecovers: unreachable facts raise
// a banner and read again after 1 s, 2 s, 4 s ... up to 30 s; when the
// server answers, the banner goes and the top screen refreshes at once.
func TestUnreachableServerBannerBacksOffAndRecovers(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	good := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}
	down := kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: kube.Unknown}
	if next, cmd := m.trackReachability(good, viewtest.Now); next != factsInterval || cmd != nil {
		t.Fatalf("a reachable server: next read in %s, refresh %v", next, cmd != nil)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		m.takeFacts(down)
		if next, _ := m.trackReachability(down, viewtest.Now.Add(time.Duration(i)*time.Second)); next != w {
			t.Fatalf("attempt %d: next read in %s, want %s", i, next, w)
		}
	}
	header := m.header()
	if !strings.Contains(header, "API server unreachable since "+viewtest.Now.Format("15:04:05")) || !strings.Contains(header, "keeps retrying") {
		t.Fatalf("no banner in the header:\n%s", header)
	}
	viewtest.Size(t, header, 120, 2)
	m.takeFacts(good)
	next, cmd := m.trackReachability(good, viewtest.Now.Add(time.Minute))
	if next != factsInterval || cmd == nil {
		t.Fatalf("recovery: next read in %s, refresh %v; want %s and a refresh", next, cmd != nil, factsInterval)
	}
	if strings.Contains(m.header(), "unreachable") || !strings.Contains(m.status.Text, "answers again") {
		t.Fatalf("after recovery: header\n%s\nstatus %q", m.header(), m.status.Text)
	}
}
