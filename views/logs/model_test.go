package logs_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// scenarios are the states the goldens show, each at 80x24 and 200x50.
func scenarios() map[string]func(t *testing.T, w, h int) *harness {
	return map[string]func(t *testing.T, w, h int) *harness{
		"following": func(t *testing.T, w, h int) *harness {
			return open(t, &fake{block: false, batches: []kube.LogBatch{{Lines: numbered(200)}}}, podReq, w, h)
		},
		"search": func(t *testing.T, w, h int) *harness {
			lines := numbered(60)
			lines[40].Raw = []byte("GET /slow took 812ms (slow query)")
			lines[45].Raw = []byte("GET /fast took 2ms")
			hs := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, w, h)
			hs.keys("/")
			hs.typed("slow|line 5")
			hs.keys("enter")
			return hs
		},
		"json": func(t *testing.T, w, h int) *harness {
			lines := []kube.LogLine{
				line("web-x2k", "web", 0, `{"level":"info","msg":"listening","port":8080}`),
				line("web-x2k", "web", 1, `not json`),
				line("web-x2k", "web", 2, `{"level":"warn","msg":"slow query","ms":812,"ctx":{"user":"alice"}}`),
			}
			hs := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, w, h)
			hs.keys("J")
			return hs
		},
		"fields": func(t *testing.T, w, h int) *harness {
			lines := []kube.LogLine{
				line("web-x2k", "web", 0, `{"level":"info","msg":"listening","port":8080}`),
				line("web-x2k", "web", 1, `{"level":"warn","msg":"slow query","ms":812,"user":{"name":"alice","id":7}}`),
				line("web-x2k", "web", 2, `{"level":"info","msg":"done","user.name":"bob","items":[{"id":"a1"}]}`),
			}
			hs := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, w, h)
			hs.keys("f", "ctrl+u")
			hs.typed("level,msg,user.name,items.0.id")
			hs.keys("enter")
			return hs
		},
		"waiting": func(t *testing.T, w, h int) *harness {
			return open(t, &fake{block: true, batches: []kube.LogBatch{{Notes: []kube.PlacedLogNote{{Note: kube.LogNote{
				Kind: kube.LogNoteWaiting, Namespace: "demo", Pod: "web-x2k", Container: "web", Containers: []string{"web"},
				Text: "pod is Pending (Unschedulable: 0/3 nodes are available: 3 node(s) had untolerated taint(s).)"}}}}}}, podReq, w, h)
		},
		"failed-streams": func(t *testing.T, w, h int) *harness {
			return open(t, &fake{block: true, batches: []kube.LogBatch{failedStreams(12, 10)}}, workReq, w, h)
		},
		"narrow-header": func(t *testing.T, w, h int) *harness {
			req := podReq
			req.Name = "web-7887c59c5c-6vsmg"
			req.Container = "web"
			hs := open(t, &fake{block: true, batches: []kube.LogBatch{{Lines: numbered(41)}}}, req, w, h)
			hs.keys("5", "w", "t", "t")
			return hs
		},
		"workload": func(t *testing.T, w, h int) *harness {
			b := kube.LogBatch{Lines: []kube.LogLine{
				line("web-7c9d5-x2k", "web", 0, `{"level":"info","msg":"listening","port":8080}`),
				line("web-7c9d5-p9q", "web", 1, `{"level":"warn","msg":"slow query","ms":812}`),
				line("web-7c9d5-zz1", "web", 2, `{"level":"info","msg":"listening","port":8080}`),
			}, Notes: []kube.PlacedLogNote{
				{At: 0, Note: kube.LogNote{Kind: kube.LogNoteStarted, Namespace: "demo", Pod: "web-7c9d5-x2k", Container: "web"}},
				{At: 2, Note: kube.LogNote{Kind: kube.LogNoteResumed, Namespace: "demo", Pod: "web-7c9d5-zz1", Container: "web",
					Restarted: true, Time: t0.Add(2 * time.Second)}},
			}}
			hs := open(t, &fake{batches: []kube.LogBatch{b}}, workReq, w, h)
			hs.keys("t")
			return hs
		},
		"dropped": func(t *testing.T, w, h int) *harness {
			all := numbered(300)
			return open(t, &fake{batches: []kube.LogBatch{{Lines: all[:100]}, {Lines: all[100:]}}}, podReq, w, h, logsQueue(150))
		},
		"picker": func(t *testing.T, w, h int) *harness {
			f := &fake{errs: []error{&kube.ContainerChoiceError{Namespace: "demo", Pod: "web-x2k",
				Containers: []string{"init-db", "web", "log-shipper"}, DefaultContainer: "web"}}}
			return open(t, f, podReq, w, h)
		},
	}
}

func TestGoldens(t *testing.T) {
	for name, build := range scenarios() {
		for _, size := range [][2]int{{80, 24}, {200, 50}} {
			t.Run(fmt.Sprintf("%s-%dx%d", name, size[0], size[1]), func(t *testing.T) {
				hs := build(t, size[0], size[1])
				viewtest.Golden(t, fmt.Sprintf("%s-%dx%d", name, size[0], size[1]), hs.view())
			})
		}
	}
}

// TestContainerChoice: a pod with several containers opens the picker on
// the default container; enter restarts the stream with it.
func TestContainerChoice(t *testing.T) {
	f := &fake{errs: []error{&kube.ContainerChoiceError{Namespace: "demo", Pod: "web-x2k",
		Containers: []string{"init-db", "web", "log-shipper"}, DefaultContainer: "web"}},
		batches: []kube.LogBatch{{Lines: numbered(3)}}}
	h := open(t, f, podReq, 80, 24)
	if !h.m.Capturing() {
		t.Fatal("picker not open")
	}
	h.has("> web  (default)")
	h.keys("enter")
	reqs := f.requests()
	if len(reqs) != 2 || reqs[1].Container != "web" || reqs[1].AllContainers {
		t.Fatalf("requests %+v", reqs)
	}
	h.has("line 3")
	// c again: all containers.
	h.keys("c", "down", "down")
	h.has("> all containers")
	h.keys("enter")
	if r := f.requests()[2]; !r.AllContainers || r.Container != "" {
		t.Fatalf("request %+v", r)
	}
	// esc closes the picker, not the viewer.
	h.keys("c", "esc")
	if h.m.Capturing() || len(h.out) != 0 {
		t.Fatalf("esc in the picker: capturing %v, out %v", h.m.Capturing(), h.out)
	}
}

func TestKeysRestartTheStream(t *testing.T) {
	f := &fake{batches: []kube.LogBatch{{Lines: numbered(5)}}}
	h := open(t, f, podReq, 80, 24)
	h.keys("p")
	h.keys("p")
	h.keys("0")
	h.keys("3")
	h.keys("5")
	reqs := f.requests()
	if len(reqs) != 6 {
		t.Fatalf("%d requests, want 6", len(reqs))
	}
	for i, want := range []kube.LogOptions{
		{Follow: true, TailLines: -1},
		{Previous: true, TailLines: -1},
		{Follow: true, TailLines: -1},
		{Follow: true, TailLines: 1000},
		{Follow: true, Since: 15 * time.Minute, TailLines: -1},
		{Follow: true, Since: time.Hour, TailLines: -1},
	} {
		if reqs[i].Options != want {
			t.Errorf("request %d options %+v, want %+v", i, reqs[i].Options, want)
		}
	}
	h.has("since 1h0m0s")
	h.has("5 lines") // the buffer starts afresh on each restart
}

// TestStreamCancelled: closing the viewer (esc, or the root's Close)
// cancels the stream; a restart cancels the old one.
func TestStreamCancelled(t *testing.T) {
	f := &fake{block: true}
	h := &harness{t: t, vc: viewtest.Context(nil, 80, 24), f: f}
	h.m = newViewer(h.vc, f)
	for _, c := range h.m.Init()().(tea.BatchMsg) {
		go c() // the stream's command blocks until cancelled
	}
	waitFor(t, func() bool { return len(f.requests()) == 1 })
	_, cmd := h.m.Update(viewtest.Key("esc"))
	if _, ok := cmd().(views.BackMsg); !ok {
		t.Fatal("esc did not go back")
	}
	waitFor(t, func() bool { f.mu.Lock(); defer f.mu.Unlock(); return f.cancelled == 1 })
}

func TestSearchKeys(t *testing.T) {
	lines := numbered(100)
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, 80, 12)
	h.keys("/")
	h.typed("line 1")
	h.keys("enter")
	// line 1, 10-19, 100: 12 matches; following, the last is current.
	h.has("12 of 12 matches")
	h.keys("n")
	h.has("1 of 12 matches")
	h.has("line 1\n")
	h.keys("N")
	h.has("12 of 12 matches")
	h.keys("&")
	h.has("only matching")
	h.keys("g")
	if v := h.view(); strings.Contains(v, "line 2\n") || !strings.Contains(v, "line 10\n") {
		t.Fatalf("only matching shows others:\n%s", v)
	}
	h.keys("!")
	h.has("matching hidden")
	h.lacks("line 10\n")
	h.keys("n")
	if h.m.Note() == "" {
		t.Fatal("n with matches hidden says nothing")
	}
	// esc ends the search first, then closes the viewer.
	if !h.m.CapturesBack() {
		t.Fatal("a search does not capture esc")
	}
	h.keys("esc")
	h.lacks("matches")
	if len(h.out) != 0 || h.m.CapturesBack() {
		t.Fatal("esc closed the viewer instead of ending the search")
	}
	h.keys("esc")
	if len(h.out) != 1 {
		t.Fatal("esc did not close the viewer")
	}
	// Upper case is case-sensitive; a malformed expression says so.
	h = open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(10)}}}, podReq, 80, 12)
	h.keys("/")
	h.typed("LINE")
	h.keys("enter")
	h.has("no match")
	h.keys("/")
	h.typed("(")
	h.keys("enter")
	h.has("not a regular expression")
}

// TestSearchWhileStreaming: lines that arrive later are searched as they
// come; evicted matches leave the count.
func TestSearchWhileStreaming(t *testing.T) {
	all := numbered(30)
	f := &fake{block: true, batches: []kube.LogBatch{{Lines: all[:10]}}}
	h := open(t, f, podReq, 200, 12, logsCapacity(20))
	h.keys("/")
	h.typed("line")
	h.keys("enter")
	h.has("10 of 10 matches")
	feed(h, all[10:30])
	h.has("of 20 matches")
	h.has("10 older evicted")
}

func TestScrollKeys(t *testing.T) {
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(100)}}}, podReq, 80, 12)
	h.has("line 100")
	h.keys("up")
	h.has("paused")
	h.lacks("line 100")
	h.keys("down")
	h.has("line 100")
	h.keys("pgup")
	h.lacks("line 92\n")
	h.has("line 82\n")
	h.keys("pgdown", "pgdown")
	h.has("line 100")
	h.keys("g")
	h.has("line 1\n")
	h.has("paused at 1 of 100")
	h.keys("G")
	h.has("line 100")
	h.has("ended")
	h.keys("s")
	h.has("paused")
	h.keys("s")
	h.lacks("paused")
	h.keys("end")
	h.has("line 100")
}

func TestDisplayKeys(t *testing.T) {
	long := strings.Repeat("abcdefghij", 20)
	lines := []kube.LogLine{line("web-x2k", "web", 0, long), line("web-x2k", "web", 1, "\x1b[31mred\x1b[0m")}
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: lines}}}, podReq, 80, 12)
	h.has("abcdefghi…")
	h.keys("w")
	h.has("wrap")
	h.lacks("ghi…")
	h.keys("w", "t")
	h.has("2026-01-02T06:14:00.000Z " + long[:20])
	h.keys("t")
	h.has("2026-01-02T07:14:00.000+01:00")
	h.has("local time")
	h.keys("t")
	h.lacks("2026-01-02")
	h.keys("a")
	h.has("colours stripped")
	if strings.Contains(h.view(), "\x1b[31m") {
		t.Fatal("colours kept after a")
	}
	h.keys("J")
	h.has("JSON")
}

func TestSaveAndCopy(t *testing.T) {
	var copied string
	h := open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(100)}}}, podReq, 80, 12,
		logsClipboard(func(s string) error { copied = s; return nil }))
	h.keys("y")
	if !strings.HasPrefix(copied, "line 91\n") || !strings.HasSuffix(copied, "line 100\n") {
		t.Fatalf("copied %q", copied)
	}
	h.has("copied 10 lines")
	h.keys("ctrl+s")
	path := savedPath(t, h)
	if !strings.Contains(path, "web-x2k-web-20260102-061400.log") {
		t.Fatalf("saved to %q", path)
	}
	h.has("saved 100 lines to")
	h = open(t, &fake{batches: []kube.LogBatch{{Lines: numbered(1)}}}, podReq, 80, 12,
		logsClipboard(func(string) error { return errors.New("no terminal") }))
	h.keys("y")
	h.has("not copied: no terminal")
}

// TestPartialLines: a Partial line shows; a Continued one extends it.
func TestPartialLines(t *testing.T) {
	p := line("web-x2k", "web", 0, "progress: 50%")
	p.Partial = true
	h := open(t, &fake{block: true, batches: []kube.LogBatch{{Lines: []kube.LogLine{p}}}}, podReq, 80, 12)
	h.has("progress: 50%")
	c := kube.LogLine{Namespace: "demo", Pod: "web-x2k", Container: "web", Raw: []byte(" done"), Continued: true}
	feed(h, []kube.LogLine{c})
	h.has("progress: 50% done")
	if got := h.m.Lines(); len(got) != 1 {
		t.Fatalf("lines %q", got)
	}
}

func TestFailure(t *testing.T) {
	h := open(t, &fake{err: errors.New("pods \"web-x2k\" is forbidden")}, podReq, 80, 12)
	h.has("forbidden")
	h.has("stopped")
}

func TestBindingsHaveHelp(t *testing.T) {
	h := open(t, &fake{}, podReq, 80, 12)
	for _, b := range h.m.Bindings() {
		if b.Help().Key == "" || b.Help().Desc == "" || len(b.Help().Desc) > 26 {
			t.Errorf("binding %v: help %+v", b.Keys(), b.Help())
		}
	}
	if h.m.Title() != "logs pods/web-x2k" {
		t.Fatalf("title %q", h.m.Title())
	}
}
