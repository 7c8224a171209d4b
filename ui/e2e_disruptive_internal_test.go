package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// drive runs cmd and hands its messages to the model, without following
// up the commands they return (those are ticks that would sleep).
func drive(m *Model, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			drive(m, c)
		}
		return
	}
	m.Update(msg)
}

// TestE2EDisruptiveRootSurvivesAPIServerRestart stops the local API server
// under a running root model: the header shows the banner and the screen
// keeps its rows with a notice; when the server is back, both recover
// without a new model or client.
func TestE2EDisruptiveRootSurvivesAPIServerRestart(t *testing.T) {
	tool := kubetest.Disruptive(t)
	client := kubetest.Client(t, kubetest.Local(t))
	m, err := New(viewtest.Context(client, 0, 0), "pods", kubetest.DemoNamespace)
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 40})
	drive(m, m.Init())
	if !strings.Contains(m.View(), "k8s: v1.37.2") || !strings.Contains(m.View(), "Running") {
		t.Fatalf("before the outage:\n%s", m.View())
	}
	refresh := func() {
		drive(m, m.readFacts())
		drive(m, m.key(viewtest.Key("ctrl+r")))
	}
	restart := kubetest.ClusterCommand(tool, "restart-apiserver", "--down", "8s")
	done := make(chan error, 1)
	var output []byte
	go func() {
		var err error
		output, err = restart.CombinedOutput()
		done <- err
	}()
	until := func(what string, cond func(string) bool) {
		t.Helper()
		deadline := time.Now().Add(40 * time.Second)
		for {
			refresh()
			if view := m.View(); cond(view) {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not seen; last view:\n%s", what, m.View())
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
	until("the outage banner and the kept rows", func(v string) bool {
		return strings.Contains(v, "API server unreachable since") && strings.Contains(v, "refresh failed") && strings.Contains(v, "Running")
	})
	if err := <-done; err != nil {
		t.Fatalf("restart-apiserver: %v\n%s", err, output)
	}
	until("recovery", func(v string) bool {
		return !strings.Contains(v, "unreachable") && !strings.Contains(v, "refresh failed") && strings.Contains(v, "Running")
	})
}
