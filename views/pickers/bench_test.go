package pickers_test

import (
	"fmt"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/pickers"
	"github.com/kyyard/kyyard/views/viewtest"
)

// BenchmarkNamespacePickerKeystroke is one filter keystroke and the frame
// after it among 1,200 namespaces (casebook C14's count): typing a letter
// then deleting it, so every iteration filters the whole list twice.
func BenchmarkNamespacePickerKeystroke(b *testing.B) {
	names := make([]string, 1200)
	for i := range names {
		names[i] = fmt.Sprintf("team-%04d-apps", i)
	}
	client, _ := kubetest.FakeClient(b, namespaces(names...)...)
	m := pickers.NewNamespaces(viewtest.Context(client, 120, 40), "pods", "")
	m.Update(m.Init()())
	if len(m.Choices()) != 1201 {
		b.Fatalf("%d choices", len(m.Choices()))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m.Update(viewtest.Key("7"))
		_ = m.View()
		m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		_ = m.View()
	}
}
