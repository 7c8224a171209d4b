package ui_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// benchPods is how many pods the frame benchmarks show.
const benchPods = 3000

// manyPods returns n running pods in demo.
func manyPods(n int) []runtime.Object {
	created := metav1.NewTime(viewtest.Now.Add(-time.Hour))
	out := make([]runtime.Object, n)
	for i := range out {
		out[i] = &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: fmt.Sprintf("web-%05d", i), UID: types.UID(fmt.Sprint("u", i)), CreationTimestamp: created},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}, NodeName: "kwok-node-0"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.0.0.1", ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}}
	}
	return out
}

// settle runs cmd as the harnesses do: its messages are sent, what
// follows a screen's opening is run, ticks are not.
func settle(update func(tea.Msg) tea.Cmd, cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			settle(update, c)
		}
		return
	}
	if next := update(msg); followsInPanes(msg) {
		settle(update, next)
	}
}

// loaded refreshes a pane (ctrl+r) until its top screen holds every pod:
// the first read of a kind streams its rows.
func loaded(b *testing.B, pane *ui.Model, update func(tea.Msg) tea.Cmd) {
	b.Helper()
	want := fmt.Sprintf("pods(demo)[%d]", benchPods)
	for deadline := time.Now().Add(time.Minute); pane.Top().Title() != want; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			b.Fatalf("the rows did not load: %q", pane.Top().Title())
		}
		settle(update, update(viewtest.Key("ctrl+r")))
	}
	if inv, ok := pane.Top().(*inventory.Model); ok {
		inv.SetClock(func() time.Time { return viewtest.Now })
	}
}

// BenchmarkSplitFrame measures one frame of 3,000 pods drawn by one pane
// at 200x50 and by two panes at 200x25 each (a split 200x50 terminal,
// both panes showing the pods), the budget being the first's: a split
// must not cost more per frame than one screen of the same size.
//   - one-200x50: one pane's frame, drawn whole.
//   - split-both-drawn: both panes' frames drawn whole (what a split costs
//     when a message reached both, a resize or the focus moved).
//   - key-one-200x50 and key-split: a key press (j, then k: the cursor
//     row moves) and the frame after it, as Bubble Tea draws one after
//     every message: in a split the focused pane is drawn again and the
//     other pane's frame reused (panesframe.go).
func BenchmarkSplitFrame(b *testing.B) {
	client, _ := kubetest.FakeClient(b, manyPods(benchPods)...)
	newPane := func() *ui.Model {
		m, err := ui.New(viewtest.Context(client, 0, 0), "pods", "demo")
		if err != nil {
			b.Fatal(err)
		}
		return m
	}
	one := func(b *testing.B) (*ui.Model, func(tea.Msg) tea.Cmd) {
		m := newPane()
		update := func(msg tea.Msg) tea.Cmd { _, cmd := m.Update(msg); return cmd }
		update(tea.WindowSizeMsg{Width: 200, Height: 50})
		settle(update, m.Init())
		loaded(b, m, update)
		if got := strings.Count(m.View(), "\n") + 1; got != 50 {
			b.Fatalf("%d lines", got)
		}
		return m, update
	}
	split := func(b *testing.B) (*ui.Panes, func(tea.Msg) tea.Cmd) {
		p := ui.NewPanes(newPane())
		update := func(msg tea.Msg) tea.Cmd { _, cmd := p.Update(msg); return cmd }
		update(tea.WindowSizeMsg{Width: 200, Height: 50})
		settle(update, p.Init())
		loaded(b, p.Pane(0), update)
		for _, k := range ":split" {
			update(viewtest.Key(string(k)))
		}
		settle(update, update(viewtest.Key("enter")))
		if p.Pane(1) == nil {
			b.Fatal(":split did not split")
		}
		loaded(b, p.Pane(1), update)
		view := p.View()
		if got := strings.Count(view, "\n") + 1; got != 50 || strings.Count(view, "web-0") < 30 {
			b.Fatalf("the panes do not both show pods:\n%s", view)
		}
		return p, update
	}
	b.Run("one-200x50", func(b *testing.B) {
		m, _ := one(b)
		b.ReportAllocs()
		for b.Loop() {
			_ = m.View()
		}
	})
	b.Run("split-both-drawn", func(b *testing.B) {
		p, _ := split(b)
		top, bottom := p.Pane(0), p.Pane(1)
		b.ReportAllocs()
		for b.Loop() {
			_ = top.View() + "\n" + bottom.View()
		}
	})
	keys := []tea.Msg{viewtest.Key("j"), viewtest.Key("k")}
	b.Run("key-one-200x50", func(b *testing.B) {
		m, update := one(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			update(keys[i%2])
			_ = m.View()
			i++
		}
	})
	b.Run("key-split", func(b *testing.B) {
		p, update := split(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			update(keys[i%2])
			_ = p.View()
			i++
		}
	})
}
