package workload

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// BenchmarkOpenForm measures a 5-container, 60-env workload from the
// ReadWorkload answer to the first View at 200x50 (budget: 50 ms).
func BenchmarkOpenForm(b *testing.B) {
	w := bigWorkload()
	vc := viewtest.Context(nil, 200, 50)
	ed := newFake(w)
	for b.Loop() {
		m := New(vc, ed, kindInfo(b, kube.KindDeployments), webRef)
		m.token = 1
		m.Update(readMsg{owner: m, token: 1, w: w})
		if m.View() == "" {
			b.Fatal("empty view")
		}
	}
}

// BenchmarkKeystroke measures one key typed into an env value of that
// workload (a rune, then a backspace, in turn) and the View that follows
// (budget: 5 ms).
func BenchmarkKeystroke(b *testing.B) {
	w := bigWorkload()
	vc := viewtest.Context(nil, 200, 50)
	m := New(vc, newFake(w), kindInfo(b, kube.KindDeployments), webRef)
	m.token = 1
	m.Update(readMsg{owner: m, token: 1, w: w})
	for j, fd := range m.form.fields {
		if fd.kind == fkEnvValue && fd.c == 2 && fd.i == 30 {
			m.moveFocus(j)
		}
	}
	keys := []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune{'x'}}, {Type: tea.KeyBackspace}}
	i := 0
	for b.Loop() {
		m.Update(keys[i%2])
		i++
		if m.View() == "" {
			b.Fatal("empty view")
		}
	}
}
