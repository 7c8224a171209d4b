package ui

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestAnswersOfAnEarlierConnectionAreDropped: facts, their ticks and the
// prompt's names read through the connection before a context switch never
// reach the header or the prompt of the new one.
func TestAnswersOfAnEarlierConnectionAreDropped(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	m.epoch = 1 // one switch happened
	m.Update(factsMsg{epoch: 0, facts: kube.Facts{ServerVersion: "v1.0.0-old"}})
	if m.hasFacts {
		t.Fatalf("facts of the old connection were taken: %+v", m.facts)
	}
	if _, cmd := m.Update(factsTickMsg{epoch: 0}); cmd != nil {
		t.Fatal("a tick of the old connection started another read")
	}
	m.Update(namesMsg{epoch: 0, namespaces: []string{"old-ns"}})
	if len(m.nsNames) != 0 {
		t.Fatalf("names of the old connection were taken: %q", m.nsNames)
	}
	m.Update(factsMsg{epoch: 1, facts: kube.Facts{ServerVersion: "v1.37.2"}})
	if !m.hasFacts || m.facts.ServerVersion != "v1.37.2" {
		t.Fatalf("facts of the current connection were dropped: %+v", m.facts)
	}
}
