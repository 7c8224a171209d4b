package inventory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// arrivingSource serves its client's rows as a first list still arriving
// would (kube.Table.Reading): the first n rows, until done.
type arrivingSource struct {
	views.Source
	n    int
	done bool
}

func (s *arrivingSource) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	snap := s.Source.Snapshot(ctx, req)
	snap.Generation *= 1 << 20 // room for the rows so far
	if s.done {
		return snap
	}
	snap.Generation += 1 + uint64(s.n)
	for i := range snap.Tables {
		t := &snap.Tables[i]
		t.Rows, t.Reading = t.Rows[:min(s.n, len(t.Rows))], true
	}
	return snap
}

// TestReadingShowsTheRowsSoFar is issue 14's "first rows at once": while a
// kind's first list is still arriving the screen shows the rows so far,
// the title's count ends in "…" and the notice says "reading… N so far";
// the unhealthy filter works on what has arrived and again on all once the
// rest is in. With no row yet it says it is loading, not that there is
// none.
func TestReadingShowsTheRowsSoFar(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	for _, size := range []struct{ w, h int }{{80, 24}, {200, 50}} {
		src := &arrivingSource{Source: client, n: 2}
		m, _ := load(t, src, "pods", "demo", size.w, size.h)
		if got := m.Title(); got != "pods(demo)[2…]" {
			t.Fatalf("title %q", got)
		}
		view := m.View()
		if !strings.Contains(view, "reading… 2 so far") || !strings.Contains(view, "badimage") || strings.Contains(view, "web-7d9f") {
			t.Fatalf("rows so far:\n%s", view)
		}
		viewtest.Golden(t, "pods-reading-"+sizeName(size.w, size.h), view)
		keys(m, "U")
		if got := m.Title(); !strings.HasPrefix(got, "pods(demo)[2/2…]") {
			t.Fatalf("unhealthy while reading: title %q", got)
		}
		src.done = true
		refresh(t, m, m.Init())
		if got := m.Title(); !strings.HasPrefix(got, "pods(demo)[2/3]") {
			t.Fatalf("unhealthy once read: title %q", got)
		}
		if view := m.View(); strings.Contains(view, "reading") {
			t.Fatalf("still reading once read:\n%s", view)
		}
	}
	src := &arrivingSource{Source: client, n: 0}
	m, _ := load(t, src, "pods", "demo", 80, 24)
	if view := m.View(); !strings.Contains(view, "Loading pods in namespace demo…") || strings.Contains(view, "No pods") {
		t.Fatalf("nothing arrived yet:\n%s", view)
	}
}

func sizeName(w, h int) string {
	if w == 80 {
		return "80x24"
	}
	return "200x50"
}

// TestRowsStillArrivingArePaced: rows still arriving are prepared again
// (indexed, measured, sorted) only once readingShare times the last
// preparing has passed, the screen keeping the rows it shows until then;
// the complete rows are taken in at once.
func TestRowsStillArrivingArePaced(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	src := &arrivingSource{Source: client, n: 1}
	m, _ := load(t, src, "pods", "demo", 80, 24)
	if got := m.Title(); got != "pods(demo)[1…]" {
		t.Fatalf("title %q", got)
	}
	src.n = 2
	refresh(t, m, m.Init())
	if got := m.Title(); got != "pods(demo)[1…]" {
		t.Fatalf("rows so far prepared again at once: title %q", got)
	}
	m.SetClock(func() time.Time { return viewtest.Now.Add(time.Minute) })
	refresh(t, m, m.Init())
	if got := m.Title(); got != "pods(demo)[2…]" {
		t.Fatalf("rows so far not prepared again later: title %q", got)
	}
	src.done = true
	refresh(t, m, m.Init())
	if got := m.Title(); got != "pods(demo)[3]" {
		t.Fatalf("complete rows held back: title %q", got)
	}
}
