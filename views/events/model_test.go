package events_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/events"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 100, 12

type fake struct {
	ev    kube.ObjectEvents
	err   error
	reads int
}

func (f *fake) Events(context.Context, kube.Kind, string, string) (kube.ObjectEvents, error) {
	f.reads++
	return f.ev, f.err
}

func row(i int, typ, reason, obj, msg string) kube.Row {
	e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: fmt.Sprintf("e%05d", i)}, Type: typ, Reason: reason,
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: obj}, Message: msg, Count: int32(1 + i%3),
		LastTimestamp: metav1.NewTime(viewtest.Now.Add(-time.Duration(i) * time.Minute))}
	return kinds.EventRow(e)
}

func sample(n int) kube.ObjectEvents {
	ev := kube.ObjectEvents{Columns: kinds.Events{}.Info().Columns, Objects: 3}
	for i := range n {
		typ, reason := "Normal", "Pulled"
		if i%2 == 1 {
			typ, reason = "Warning", "BackOff"
		}
		ev.Rows = append(ev.Rows, row(i, typ, reason, fmt.Sprintf("web-%d", i%3), "Back-off restarting failed container app\x1b]2;x\x07"))
	}
	return ev
}

func newDriver(t testing.TB, f *fake, w, h int) (*viewtest.Driver, *events.Model) {
	m := events.New(viewtest.Context(nil, w, h), f, views.OpenEventsMsg{Kind: "deployments", Namespace: "demo", Name: "web"})
	m.SetClock(func() time.Time { return viewtest.Now })
	d := &viewtest.Driver{T: nil, Screen: m}
	if tt, ok := t.(*testing.T); ok {
		d.T = tt
	}
	msg := m.Init()() // the first read (the tick it starts is not run)
	m.Update(msg)
	return d, m
}

// TestEventsScreen: newest first with their counts, a warning in the
// warning style, the filter by words of type, reason, object and message,
// esc clearing it then going back; a hostile message drawn inert.
func TestEventsScreen(t *testing.T) {
	f := &fake{ev: sample(5)}
	d, m := newDriver(t, f, width, height)
	d.Golden("events", width, height)
	if v := m.View(); strings.Contains(v, "\x1b]") {
		t.Fatal("an escape sequence reached the view")
	}
	d.Key("/")
	d.Type("warning web-1")
	d.Key("enter")
	v := m.View()
	if !strings.Contains(v, "1 event of") || !strings.Contains(v, "web-1") || strings.Contains(v, "web-2") {
		t.Fatalf("filtered:\n%s", v)
	}
	d.Key("esc")
	if strings.Contains(m.View(), "1 event of") || viewtest.WentBack(d) {
		t.Fatal("esc did not clear the filter first")
	}
	d.Key("esc")
	if !viewtest.WentBack(d) {
		t.Fatal("esc did not go back")
	}
}

func TestEventsScreenFailsAndEmpty(t *testing.T) {
	_, m := newDriver(t, &fake{err: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "events could not be read: forbidden"}}, width, height)
	if v := m.View(); !strings.Contains(v, "could not be read") {
		t.Fatalf("%s", v)
	}
	_, m = newDriver(t, &fake{ev: kube.ObjectEvents{Columns: kinds.Events{}.Info().Columns, Objects: 1}}, width, height)
	if v := m.View(); !strings.Contains(v, "no events") {
		t.Fatalf("%s", v)
	}
}

// BenchmarkEventsScreen: a frame and a filter keystroke at 10,000 events
// (the budgets: 2 ms and 20 ms).
func BenchmarkEventsScreen(b *testing.B) {
	f := &fake{ev: sample(10_000)}
	_, m := newDriver(b, f, 200, 50)
	b.Run("frame", func(b *testing.B) {
		for b.Loop() {
			_ = m.View()
		}
	})
	m.Update(viewtest.Key("/"))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("back")})
	b.Run("keystroke", func(b *testing.B) {
		for b.Loop() {
			m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{'o'}})
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
		}
	})
}

// TestEventsKeysRebound: with `events: {filter: f, refresh: R}`, / and r
// do nothing; f types the filter (where r is a letter), R reads again.
func TestEventsKeysRebound(t *testing.T) {
	f := &fake{ev: sample(5)}
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"events": {"filter": {"f"}, "refresh": {"R"}}}
	m := events.New(vc, f, views.OpenEventsMsg{Kind: "deployments", Namespace: "demo", Name: "web"})
	m.Update(m.Init()()) // the first read (the tick it starts is not run)
	d := &viewtest.Driver{T: t, Screen: m}
	d.Key("/")
	if _, cmd := m.Update(viewtest.Key("r")); m.Capturing() || cmd != nil {
		t.Fatalf("/ or r (old keys) acted: typing %v, reads %d", m.Capturing(), f.reads)
	}
	if v := m.View(); !strings.Contains(v, "f filter · j/k scroll · R read now · esc back") {
		t.Errorf("the help line does not name f and R:\n%s", v)
	}
	d.Key("f")
	d.Type("rwarning")
	d.Key("enter")
	if m.Capturing() || f.reads != 1 || !strings.Contains(m.View(), "/rwarning") {
		t.Fatalf("f did not type the filter, r read: reads %d\n%s", f.reads, m.View())
	}
	_, cmd := m.Update(viewtest.Key("R"))
	if cmd == nil {
		t.Fatal("R (refresh's new key) did not read")
	}
	cmd()
	if f.reads != 2 {
		t.Fatalf("reads %d after R", f.reads)
	}
}
