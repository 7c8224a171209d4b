package ui_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
)

// streaming is a source that streams logs: two lines, then it follows
// until its context is cancelled.
type streaming struct {
	views.Source
	mu        sync.Mutex
	reqs      []kube.LogRequest
	cancelled chan struct{}
}

func (s *streaming) Logs(ctx context.Context, req kube.LogRequest, sink kube.LogSink) error {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	sink.Write(kube.LogBatch{Lines: []kube.LogLine{
		{Namespace: "demo", Pod: "web-1", Container: "app", Raw: []byte("hello from web-1")},
		{Namespace: "demo", Pod: "web-1", Container: "app", Raw: []byte("\x1b]0;title\x07second line")},
	}})
	<-ctx.Done()
	close(s.cancelled)
	return ctx.Err()
}

var _ logs.Streamer = (*streaming)(nil)

func TestOpenLogs(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	src := &streaming{Source: client, cancelled: make(chan struct{})}
	h := startWith(t, src, "demo", 80, 24)
	req := kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1", UID: "u1", Options: kube.LogOptions{Follow: true, TailLines: -1}}
	cmd := h.send(views.OpenLogsMsg{Request: req})
	if got := h.m.Top().Title(); got != "logs pods/web-1" {
		t.Fatalf("top screen %q, want the log viewer", got)
	}
	// Run the viewer's start: the stream (which follows) in the
	// background, the wait for its first lines here.
	for _, c := range cmd().(tea.BatchMsg) {
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			h.send(msg)
		case <-time.After(time.Second):
		}
	}
	v := h.m.View()
	for _, want := range []string{"hello from web-1", "␛]0;title␇second line", "following", "2 lines"} {
		if !strings.Contains(v, want) {
			t.Fatalf("view lacks %q:\n%s", want, v)
		}
	}
	h.keys("esc")
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "pods") {
		t.Fatalf("esc left %q on top", got)
	}
	<-src.cancelled // the stream was cancelled when the viewer closed
}

func TestOpenLogsWithoutStreamer(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, browseOnly{client}, "demo", 80, 24)
	h.send(views.OpenLogsMsg{Request: kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1"}})
	if v := h.m.View(); !strings.Contains(v, "logs are not available with this client") {
		t.Fatalf("no status:\n%s", v)
	}
	if strings.HasPrefix(h.m.Top().Title(), "logs") {
		t.Fatal("a viewer was pushed")
	}
}

// TestLogsHelp: every key of the viewer is in the help overlay at 80x14,
// shown at once or by scrolling.
func TestLogsHelp(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	src := &streaming{Source: client, cancelled: make(chan struct{})}
	h := startWith(t, src, "demo", width, height)
	h.send(views.OpenLogsMsg{Request: kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1"}})
	h.keys("?")
	seen := h.m.View()
	for range 20 {
		h.keys("pgdown")
		seen += h.m.View()
	}
	for _, b := range h.m.Top().Bindings() {
		if d := b.Help().Desc; !strings.Contains(seen, d) {
			t.Errorf("help never shows %q (%s)", d, b.Help().Key)
		}
	}
}

// choosing is a source whose pods have several containers: Logs refuses
// a request that names none.
type choosing struct {
	views.Source
}

func (choosing) Logs(_ context.Context, req kube.LogRequest, _ kube.LogSink) error {
	if req.Container == "" && !req.AllContainers {
		return &kube.ContainerChoiceError{Namespace: req.Namespace, Pod: req.Name, Containers: []string{"app", "metrics-exporter"},
			DefaultContainer: "app"}
	}
	return nil
}

// TestLogsFirstPickerEscBackToTheRow: `l` on a pod with several
// containers opens the picker; esc there closes the viewer, and the table
// is back as it was, on the same row, taking the next key itself.
func TestLogsFirstPickerEscBackToTheRow(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, choosing{client}, "demo", 80, 24)
	h.keys("down")
	before := h.m.View()
	cmd := h.send(views.OpenLogsMsg{Request: kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1",
		Options: kube.LogOptions{Follow: true, TailLines: -1}}})
	for _, c := range cmd().(tea.BatchMsg) {
		done := make(chan tea.Msg, 1)
		go func() { done <- c() }()
		select {
		case msg := <-done:
			h.send(msg)
		case <-time.After(time.Second):
		}
	}
	if v := h.m.View(); !strings.Contains(v, "choose one") {
		t.Fatalf("no container picker:\n%s", v)
	}
	h.runKey(h.keys("esc"))
	if got := h.m.Top().Title(); strings.HasPrefix(got, "logs") {
		t.Fatalf("esc left %q on top", got)
	}
	if after := h.m.View(); after != before {
		t.Fatalf("the table changed:\nbefore\n%s\nafter\n%s", before, after)
	}
}

// TestLogsHelpHasNoTableLines: the viewer's help lists its keys (j/k
// scroll, J JSON) and not the tables' (row markers, the namespace
// picker).
func TestLogsHelpHasNoTableLines(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	src := &streaming{Source: client, cancelled: make(chan struct{})}
	h := startWith(t, src, "demo", 200, 50)
	h.send(views.OpenLogsMsg{Request: kube.LogRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1"}})
	h.keys("?")
	v := h.m.View()
	for _, unwanted := range []string{"Row markers", "pick namespace", "ctrl+n"} {
		if strings.Contains(v, unwanted) {
			t.Errorf("the log viewer's help shows %q:\n%s", unwanted, v)
		}
	}
	for _, want := range []string{"↑/k", "↓/j", "J", "JSON pretty", "Commands:"} {
		if !strings.Contains(v, want) {
			t.Errorf("the log viewer's help lacks %q:\n%s", want, v)
		}
	}
}
