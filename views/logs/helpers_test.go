package logs_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fake is a logs.Streamer: each call writes the batches, then returns
// err, or, with block, waits for the context to be cancelled.
type fake struct {
	mu      sync.Mutex
	reqs    []kube.LogRequest
	batches []kube.LogBatch
	err     error
	// errs, when set, are returned by the calls in turn (err after).
	errs  []error
	block bool
	// sink is the last call's sink, for feed.
	sink kube.LogSink
	// cancelled counts the calls whose context was cancelled.
	cancelled int
}

func (f *fake) Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error {
	f.mu.Lock()
	n := len(f.reqs)
	f.reqs = append(f.reqs, req)
	f.sink = sink
	batches, block := f.batches, f.block
	err := f.err
	if n < len(f.errs) {
		err = f.errs[n]
	}
	f.mu.Unlock()
	if err != nil && n < len(f.errs) {
		return err
	}
	for _, b := range batches {
		sink.Write(b)
	}
	if block {
		<-ctx.Done()
		f.mu.Lock()
		f.cancelled++
		f.mu.Unlock()
		return ctx.Err()
	}
	return err
}

func (f *fake) requests() []kube.LogRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]kube.LogRequest(nil), f.reqs...)
}

var (
	t0      = time.Date(2026, 1, 2, 6, 14, 0, 0, time.UTC)
	podReq  = kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-x2k", UID: "u1", Options: kube.LogOptions{Follow: true, TailLines: -1}}
	workReq = kube.LogRequest{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", Options: kube.LogOptions{Follow: true, TailLines: -1}}
)

// line is a log line of pod/container at t0 + i seconds.
func line(pod, container string, i int, text string) kube.LogLine {
	return kube.LogLine{Namespace: "demo", Pod: pod, Container: container, Time: t0.Add(time.Duration(i) * time.Second), Raw: []byte(text)}
}

// numbered returns n lines "line 1" ... of one pod.
func numbered(n int) []kube.LogLine {
	out := make([]kube.LogLine, n)
	for i := range out {
		out[i] = line("web-x2k", "web", i, fmt.Sprintf("line %d", i+1))
	}
	return out
}

// harness drives a viewer: commands run in turn, their messages fed back.
type harness struct {
	t   *testing.T
	vc  *views.Context
	m   *logs.Model
	f   *fake
	out []tea.Msg
}

func open(t *testing.T, f *fake, req kube.LogRequest, w, h int, opts ...logs.Option) *harness {
	t.Helper()
	vc := viewtest.Context(nil, w, h)
	opts = append([]logs.Option{logs.WithBatchGap(0), logs.WithClock(func() time.Time { return t0 }, time.FixedZone("CET", 3600)),
		logs.WithSaveDir(t.TempDir()), logs.WithClipboard(func(string) error { return nil })}, opts...)
	h2 := &harness{t: t, vc: vc, m: logs.New(vc, f, req, opts...), f: f}
	h2.run(h2.m.Init())
	return h2
}

// run runs cmd and every command it leads to, feeding messages to the
// viewer; messages meant for the root are kept in out.
func (h *harness) run(cmd tea.Cmd) {
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		// A command that does not answer soon is a stream's or a wait
		// for more lines: it is left running.
		got := make(chan tea.Msg, 1)
		go func() { got <- c() }()
		var msg tea.Msg
		select {
		case msg = <-got:
		case <-time.After(50 * time.Millisecond):
			continue
		}
		switch msg := msg.(type) {
		case nil:
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case views.BackMsg, views.StatusMsg:
			h.out = append(h.out, msg)
		default:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

func (h *harness) keys(names ...string) {
	for _, n := range names {
		_, cmd := h.m.Update(viewtest.Key(n))
		h.run(cmd)
	}
}

func (h *harness) typed(s string) {
	for _, r := range s {
		_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		h.run(cmd)
	}
}

func (h *harness) view() string {
	h.t.Helper()
	v := h.m.View()
	viewtest.Size(h.t, v, h.vc.Width, h.vc.Height)
	return v
}

func (h *harness) has(want string) {
	h.t.Helper()
	if v := h.m.View(); !strings.Contains(v, want) {
		h.t.Fatalf("view lacks %q:\n%s", want, v)
	}
}

func (h *harness) lacks(unwanted string) {
	h.t.Helper()
	if v := h.m.View(); strings.Contains(v, unwanted) {
		h.t.Fatalf("view has %q:\n%s", unwanted, v)
	}
}

var (
	logsQueue     = logs.WithQueue
	logsCapacity  = logs.WithCapacity
	logsClipboard = logs.WithClipboard
)

func newViewer(vc *views.Context, f *fake) *logs.Model {
	return logs.New(vc, f, podReq, logs.WithBatchGap(0))
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(time.Millisecond)
	}
}

// feed hands lines to the viewer as a following stream would: through
// its sink, then the message that wakes it.
func feed(h *harness, lines []kube.LogLine) {
	h.f.mu.Lock()
	s := h.f.sink
	h.f.mu.Unlock()
	s.Write(kube.LogBatch{Lines: lines})
	h.run(h.m.Init())
}
