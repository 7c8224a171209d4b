package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
)

// scriptStreamer writes its batches, in order, then returns err; a
// ContainerChoiceError first when the request names no container and
// choose is set.
type scriptStreamer struct {
	batches []kube.LogBatch
	err     error
	choose  bool
	hold    chan struct{} // when set, waits for it before returning
	mu      sync.Mutex
	reqs    []kube.LogRequest
}

func (s *scriptStreamer) Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	if s.choose && req.Container == "" {
		return &kube.ContainerChoiceError{Namespace: req.Namespace, Pod: req.Name, Containers: []string{"app", "side"}, DefaultContainer: "app"}
	}
	for _, b := range s.batches {
		sink.Write(b)
	}
	if s.hold != nil {
		select {
		case <-s.hold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return s.err
}

// collect is a sink keeping every line and note.
type collect struct {
	lines []kube.LogLine
	notes []kube.LogNote
}

func (c *collect) Write(b kube.LogBatch) {
	c.lines = append(c.lines, b.Lines...)
	for _, n := range b.Notes {
		c.notes = append(c.notes, n.Note)
	}
}

func (c *collect) texts() []string {
	var out []string
	for _, l := range c.lines {
		out = append(out, l.Context+" "+string(l.Raw))
	}
	return out
}

var t0 = time.Date(2026, 12, 6, 4, 0, 0, 0, time.UTC)

// lines returns a batch of pod p's lines, line k at t0 + at[k] seconds.
func lines(p string, at ...int) kube.LogBatch {
	var b kube.LogBatch
	for _, s := range at {
		b.Lines = append(b.Lines, kube.LogLine{Namespace: "demo", Pod: p, Container: "app",
			Time: t0.Add(time.Duration(s) * time.Second), Raw: []byte(fmt.Sprintf("%s@%d", p, s))})
	}
	return b
}

// Two clusters' lines come out in timestamp order, each with its
// context; the viewer's options reach each part.
func TestLogsMergeInTimeOrder(t *testing.T) {
	a := &scriptStreamer{batches: []kube.LogBatch{lines("web-a", 1, 3), lines("web-a", 5)}}
	b := &scriptStreamer{batches: []kube.LogBatch{lines("web-b", 2, 4, 6)}}
	l := NewLogs([]LogPart{{Context: "eu", Streamer: a, Request: kube.LogRequest{Kind: "pods", Namespace: "demo", Name: "web-a"}},
		{Context: "us", Streamer: b, Request: kube.LogRequest{Kind: "pods", Namespace: "demo", Name: "web-b"}}})
	var c collect
	opts := kube.LogOptions{TailLines: 10}
	if err := l.Logs(context.Background(), kube.LogRequest{Options: opts, MaxStreams: 3}, &c); err != nil {
		t.Fatal(err)
	}
	want := []string{"eu web-a@1", "us web-b@2", "eu web-a@3", "us web-b@4", "eu web-a@5", "us web-b@6"}
	if got := c.texts(); !slices.Equal(got, want) {
		t.Fatalf("merged %q, want %q", got, want)
	}
	if a.reqs[0].Options != opts || a.reqs[0].MaxStreams != 3 || a.reqs[0].Name != "web-a" || b.reqs[0].Name != "web-b" {
		t.Fatalf("requests %+v, %+v", a.reqs, b.reqs)
	}
}

// A part that fails ends with a note naming its context; the others go
// on; Logs fails only when every part failed.
func TestLogsOnePartFails(t *testing.T) {
	forbidden := kube.ErrLogNoPods
	a := &scriptStreamer{err: fmt.Errorf("no pods: %w", forbidden)}
	b := &scriptStreamer{batches: []kube.LogBatch{lines("web-b", 1, 2)}}
	l := NewLogs([]LogPart{{Context: "eu", Streamer: a}, {Context: "us", Streamer: b}})
	var c collect
	if err := l.Logs(context.Background(), kube.LogRequest{}, &c); err != nil {
		t.Fatalf("one part failed: %v", err)
	}
	if got := c.texts(); !slices.Equal(got, []string{"us web-b@1", "us web-b@2"}) {
		t.Fatalf("lines %q", got)
	}
	if len(c.notes) != 1 || c.notes[0].Kind != kube.LogNoteEnded || c.notes[0].Context != "eu" || !errors.Is(c.notes[0].Err, forbidden) {
		t.Fatalf("notes %+v", c.notes)
	}
	b.batches, b.err = nil, errors.New("boom")
	if err := l.Logs(context.Background(), kube.LogRequest{}, &collect{}); err == nil || err.Error() != "context eu: no pods: "+forbidden.Error() {
		t.Fatalf("every part failed: %v", err)
	}
}

// A line is held while a part still streaming may send an earlier one,
// and written once that part sends a later line; a pod with several
// containers reads its default one.
func TestLogsHoldsForSlowPart(t *testing.T) {
	release := make(chan struct{})
	a := &scriptStreamer{batches: []kube.LogBatch{lines("web-a", 2)}, hold: release, choose: true}
	b := &scriptStreamer{batches: []kube.LogBatch{lines("web-b", 1)}}
	l := NewLogs([]LogPart{{Context: "eu", Streamer: a}, {Context: "us", Streamer: b}})
	l.window = time.Hour // only a later line (or the end) releases a held one
	var c collect
	done := make(chan error, 1)
	go func() { done <- l.Logs(context.Background(), kube.LogRequest{}, &c) }()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := c.texts(); !slices.Equal(got, []string{"us web-b@1", "eu web-a@2"}) {
		t.Fatalf("lines %q", got)
	}
	if len(a.reqs) != 2 || a.reqs[1].Container != "app" {
		t.Fatalf("the default container was not chosen: %+v", a.reqs)
	}
}

// Cancelling the context ends Logs and every part.
func TestLogsCancel(t *testing.T) {
	a := &scriptStreamer{hold: make(chan struct{})}
	l := NewLogs([]LogPart{{Context: "eu", Streamer: a}, {Context: "us", Streamer: &scriptStreamer{hold: make(chan struct{})}}})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Logs(ctx, kube.LogRequest{}, &collect{}) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled: %v", err)
	}
}

// The merge's order against a plain sort: random parts, each sorted.
func TestLogMergeOrder(t *testing.T) {
	m := newLogMerge(3, time.Hour)
	now := t0
	m.add(0, lines("a", 1, 4, 7), now)
	m.add(1, lines("b", 2, 5), now)
	m.add(2, lines("c", 3, 6, 9), now)
	out := m.release(now)
	// Part 1 has nothing after 5 queued and may still send 6: 6, 7, 9 wait.
	var got []string
	for _, l := range out.Lines {
		got = append(got, string(l.Raw))
	}
	if want := []string{"a@1", "b@2", "c@3", "a@4", "b@5"}; !slices.Equal(got, want) {
		t.Fatalf("released %q, want %q", got, want)
	}
	m.end(1, "b", nil, now)
	got = nil
	for _, l := range m.release(now).Lines {
		got = append(got, string(l.Raw))
	}
	// a may still send 8: c@9 waits for it.
	if want := []string{"c@6", "a@7"}; !slices.Equal(got, want) {
		t.Fatalf("after b ended: %q, want %q", got, want)
	}
	m.end(0, "a", nil, now)
	if out := m.release(now); len(out.Lines) != 1 || string(out.Lines[0].Raw) != "c@9" {
		t.Fatalf("after a ended: %+v", out.Lines)
	}
}
