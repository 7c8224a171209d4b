package logs_test

import (
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestSinceKeysRebound: with `logs: {since: [f1, f2, f3, f4, f5]}`, 3
// restarts nothing; f3, Since's third key, restarts the stream 15 minutes
// back, f5 an hour back (each key by its place, not its name).
func TestSinceKeysRebound(t *testing.T) {
	f := &fake{batches: []kube.LogBatch{{Lines: numbered(5)}}}
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"logs": {"since": {"f1", "f2", "f3", "f4", "f5"}}}
	h := &harness{t: t, vc: vc, f: f, m: logs.New(vc, f, podReq, logs.WithBatchGap(0), logs.WithClock(func() time.Time { return t0 }, time.UTC))}
	h.run(h.m.Init())
	h.keys("3")
	for _, k := range []tea.KeyType{tea.KeyF3, tea.KeyF5} {
		_, cmd := h.m.Update(tea.KeyMsg{Type: k})
		h.run(cmd)
	}
	reqs := f.requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (3, the old key, restarts nothing)", len(reqs))
	}
	for i, want := range []time.Duration{15 * time.Minute, time.Hour} {
		if got := reqs[i+1].Options; got.Since != want || got.TailLines != -1 {
			t.Errorf("request %d options %+v, want since %v", i+1, got, want)
		}
	}
}
