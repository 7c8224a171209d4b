package logs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// failedStreams is what Client.Logs writes for a workload of n pods read
// with at most max streams, none of whose logs can be read: the pods left
// out, each stream's failure, and the pods left out taking the freed
// places and failing too.
func failedStreams(n, max int) kube.LogBatch {
	var b kube.LogBatch
	note := func(n kube.LogNote) { b.Notes = append(b.Notes, kube.PlacedLogNote{Note: n}) }
	fail := func(pod string) {
		err := fmt.Errorf("no logs found for container %q in pod %q", "nginx", pod)
		note(kube.LogNote{Kind: kube.LogNoteEnded, Namespace: "demo", Pod: pod, Container: "nginx", Time: t0,
			Err: err, Text: "could not read the log"})
	}
	var left []string
	for i := max; i < n; i++ {
		left = append(left, fmt.Sprintf("web-%02d", i))
	}
	note(kube.LogNote{Kind: kube.LogNotePodsLeftOut, Namespace: "demo", Count: len(left), Names: left, Time: t0})
	for i := range max {
		fail(fmt.Sprintf("web-%02d", i))
	}
	for i, pod := range left {
		note(kube.LogNote{Kind: kube.LogNotePodAdmitted, Namespace: "demo", Pod: pod, Container: "nginx",
			Count: len(left) - i - 1, Names: []string{pod}, Time: t0})
		fail(pod)
	}
	return b
}

// TestFirstPickerEscClosesTheViewer: esc in the container picker the
// viewer opens because the pod has several containers (nothing streamed
// yet; the picker says "esc cancel") closes the viewer at once, rather
// than leaving an empty viewer with the refusal behind it.
func TestFirstPickerEscClosesTheViewer(t *testing.T) {
	f := &fake{errs: []error{&kube.ContainerChoiceError{Namespace: "demo", Pod: "multi",
		Containers: []string{"app", "metrics-exporter"}, DefaultContainer: "app"}}}
	h := open(t, f, podReq, 80, 24)
	if !h.m.Capturing() {
		t.Fatal("picker not open")
	}
	h.has("esc cancel")
	h.keys("esc")
	if len(h.out) != 1 {
		t.Fatalf("esc in the first picker: out %v, want the viewer closed", h.out)
	}
	if _, ok := h.out[0].(views.BackMsg); !ok {
		t.Fatalf("esc sent %T", h.out[0])
	}
	if len(f.requests()) != 1 {
		t.Fatalf("requests %d: esc must not stream", len(f.requests()))
	}
}

// TestPickerArrowKeys: in the container picker ↑/↓ move (j and k are the
// filter's text), as in the shell's container picker.
func TestPickerArrowKeys(t *testing.T) {
	f := &fake{errs: []error{&kube.ContainerChoiceError{Namespace: "demo", Pod: "web-x2k",
		Containers: []string{"log-shipper", "web", "jobs"}, DefaultContainer: "web"}}}
	h := open(t, f, podReq, 80, 24)
	h.has("> web  (default)")
	h.keys("down")
	h.has("> jobs")
	h.keys("up", "up")
	h.has("> log-shipper")
	h.typed("j")
	h.has("> jobs")
	h.keys("enter")
	if r := f.requests(); len(r) != 2 || r[1].Container != "jobs" {
		t.Fatalf("requests %+v", r)
	}
}

// TestWaitingState: a pod that cannot be read yet shows one state, in the
// header and the body, updated in place as the reason changes, with no
// marker line per note; lines end it.
func TestWaitingState(t *testing.T) {
	waiting := func(text string) kube.LogBatch {
		return kube.LogBatch{Notes: []kube.PlacedLogNote{{Note: kube.LogNote{Kind: kube.LogNoteWaiting, Namespace: "demo",
			Pod: "web-x2k", Container: "web", Containers: []string{"web"}, DefaultContainer: "web", Text: text}}}}
	}
	f := &fake{block: true, batches: []kube.LogBatch{waiting("pod is Pending (Unschedulable: 0/3 nodes are available)")}}
	h := open(t, f, podReq, 120, 12)
	h.has("waiting: pod is Pending (Unschedulable: 0/3 nodes are available)")
	h.lacks("following")
	h.lacks("──")
	h.f.mu.Lock()
	s := h.f.sink
	h.f.mu.Unlock()
	s.Write(waiting("container web: ContainerCreating"))
	h.run(h.m.Init())
	h.has("waiting: container web: ContainerCreating")
	h.lacks("Unschedulable")
	h.lacks("──")
	feed(h, numbered(2))
	h.has("following")
	h.lacks("waiting")
	h.has("line 2")
}

// TestWaitingInAWorkload: a waiting pod among others is a marker (one per
// reason) and a count in the header.
func TestWaitingInAWorkload(t *testing.T) {
	b := kube.LogBatch{Lines: []kube.LogLine{line("web-a", "web", 0, "hello")}, Notes: []kube.PlacedLogNote{
		{At: 0, Note: kube.LogNote{Kind: kube.LogNoteStarted, Namespace: "demo", Pod: "web-a", Container: "web"}},
		{At: 1, Note: kube.LogNote{Kind: kube.LogNoteWaiting, Namespace: "demo", Pod: "web-b", Container: "web",
			Text: "container web: ImagePullBackOff (Back-off pulling image)"}},
	}}
	h := open(t, &fake{block: true, batches: []kube.LogBatch{b}}, workReq, 120, 12)
	h.has("2 pods · following · 1 waiting")
	h.has("── web-b/web waiting: container web: ImagePullBackOff (Back-off pulling image) ──")
}

// TestFailuresSayTheirOwnSentence: kyyard's own errors (no previous
// instance, a container to choose) are shown as they are, not as "the
// request failed (...)".
func TestFailuresSayTheirOwnSentence(t *testing.T) {
	h := open(t, &fake{err: errors.New("no previous instance of container web (it has not restarted)")}, podReq, 100, 12)
	h.has("! no previous instance of container web (it has not restarted)")
	h.lacks("request")
}

// TestWorkloadFailedStreams: a 12-pod Deployment read with 10 streams,
// all failing: the header counts the pods tried and failed (not "0
// pods"), the left-out count goes to 0 as they take freed places, and
// each error shows once.
func TestWorkloadFailedStreams(t *testing.T) {
	h := open(t, &fake{block: true, batches: []kube.LogBatch{failedStreams(12, 10)}}, workReq, 200, 50)
	h.has("12 pods (12 failed) · following")
	h.lacks("not streamed ·")
	v := h.view()
	want := `could not read the log: no logs found for container "nginx" in pod "web-03"`
	if strings.Count(v, want) != 1 || strings.Count(v, `in pod "web-03"`) != 1 {
		t.Fatalf("the error is not shown exactly once:\n%s", v)
	}
	h.has("2 pods not streamed (at most 10 streams")
	h.has("web-11 streamed now, in place of a stream that ended (0 not streamed)")
	// Before the left out take their places, the header says so.
	b := failedStreams(12, 10)
	b.Notes = b.Notes[:11]
	h = open(t, &fake{block: true, batches: []kube.LogBatch{b}}, workReq, 200, 50)
	h.has("10 pods (10 failed) +2 not streamed · following")
}

// TestMaxStreamsFromConfig: --max-log-requests (views.Config) reaches the
// request; a request's own bound stays.
func TestMaxStreamsFromConfig(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, 80, 24)
	vc.Config.MaxLogStreams = 3
	m := logs.New(vc, f, workReq, logs.WithBatchGap(0))
	if got := m.Request().MaxStreams; got != 3 {
		t.Fatalf("MaxStreams %d, want 3", got)
	}
	req := workReq
	req.MaxStreams = 7
	if got := logs.New(vc, f, req).Request().MaxStreams; got != 7 {
		t.Fatalf("MaxStreams %d, want the request's 7", got)
	}
}

// TestHeaderKeepsItsState: at 80 columns a long pod name, since, wrap,
// local time and the counts: the state and settings stay, the counts
// shorten, the name gives way; "1 line" is singular.
func TestHeaderKeepsItsState(t *testing.T) {
	req := podReq
	req.Name = "web-7887c59c5c-6vsmg"
	req.Container = "web"
	h := open(t, &fake{block: true, batches: []kube.LogBatch{{Lines: numbered(41)}}}, req, 80, 24)
	h.keys("5", "w", "t", "t")
	head := strings.SplitN(h.view(), "\n", 2)[0]
	for _, want := range []string{"following", "since 1h0m0s", "wrap", "local", "41 lines"} {
		if !strings.Contains(head, want) {
			t.Errorf("header %q lacks %q", head, want)
		}
	}
	h = open(t, &fake{block: true, batches: []kube.LogBatch{{Lines: numbered(1)}}}, podReq, 80, 24)
	h.has("· 1 line ·")
	h.lacks("1 lines")
	h.keys("y")
	h.has("copied 1 line ")
}

// TestJKScroll: j and k scroll as in k9s and less; J is JSON.
func TestJKScroll(t *testing.T) {
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(100)}}}, podReq, 80, 12)
	h.keys("k")
	h.has("paused")
	h.lacks("line 100\n")
	h.keys("j")
	h.has("line 100")
	head := func() string { return strings.SplitN(h.view(), "\n", 2)[0] }
	if strings.Contains(head(), "JSON") {
		t.Fatalf("j turned JSON on: %q", head())
	}
	h.keys("J")
	if !strings.Contains(head(), "JSON") {
		t.Fatalf("J did not turn JSON on: %q", head())
	}
	for _, b := range h.m.Bindings() {
		if b.Help().Desc == "JSON pretty" && b.Help().Key != "J" {
			t.Errorf("JSON is on %q", b.Help().Key)
		}
	}
}

// TestFieldsNested: dotted paths reach nested objects and arrays (a key
// with dots is taken first); a header row names the columns.
func TestFieldsNested(t *testing.T) {
	lines := []kube.LogLine{
		line("web-x2k", "web", 0, `{"level":"warn","user":{"name":"alice"},"items":[{"id":"a1"}]}`),
		line("web-x2k", "web", 1, `{"level":"info","user.name":"bob"}`),
		line("web-x2k", "web", 2, `{"level":"info","user":"carol"}`),
	}
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, 80, 12)
	h.keys("f")
	if !strings.Contains(h.view(), "user.name") {
		t.Errorf("the prompt's suggestions lack the nested path:\n%s", h.view())
	}
	h.keys("ctrl+u")
	h.typed("level,user.name,items.0.id")
	h.keys("enter")
	v := h.view()
	rows := strings.Split(v, "\n")
	if !strings.HasPrefix(rows[1], "LEVEL  USER.NAME  ITEMS.0.ID") {
		t.Errorf("header row %q", rows[1])
	}
	for i, want := range []string{"warn   alice      a1", "info   bob        -", "info   -          -"} {
		if got := strings.TrimRight(rows[2+i], " "); got != want {
			t.Errorf("row %d %q, want %q", i, got, want)
		}
	}
}

// TestGapMarker: lines the kubelet may no longer serve (kube's
// LogNoteGap, after a log rotation the kubelet's follower missed) show as
// a marker at their place, in the failure style, saying the span; the
// resume before it says why the stream was reconnected.
func TestGapMarker(t *testing.T) {
	b := kube.LogBatch{Lines: []kube.LogLine{line("web-x2k", "web", 0, "before"), line("web-x2k", "web", 10, "after")},
		Notes: []kube.PlacedLogNote{
			{At: 1, Note: kube.LogNote{Kind: kube.LogNoteResumed, Namespace: "demo", Pod: "web-x2k", Container: "web", Time: t0,
				Text: "the kubelet stopped serving the log after a rotation of its file"}},
			{At: 1, Note: kube.LogNote{Kind: kube.LogNoteGap, Namespace: "demo", Pod: "web-x2k", Container: "web", Time: t0,
				Text: "lines written between 06:14:00.000 and 06:14:10.000 UTC may be missing: the kubelet rotated the log file and serves only the current one"}},
		}}
	h := open(t, &fake{batches: []kube.LogBatch{b}}, podReq, 200, 10)
	v := ansi.Strip(h.view())
	rows := strings.Split(v, "\n")
	var got []string
	for _, r := range rows[1:5] {
		got = append(got, strings.TrimSpace(r))
	}
	want := []string{"before",
		"── web-x2k stream reconnected · resumed at 06:14:00 · the kubelet stopped serving the log after a rotation of its file ──",
		"── web-x2k lines written between 06:14:00.000 and 06:14:10.000 UTC may be missing: the kubelet rotated the log file and serves only the current one ──",
		"after"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("rows:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
