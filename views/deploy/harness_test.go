package deploy_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fakeDeployer answers the plan, the deploy and the record as told and
// records what it was asked.
type fakeDeployer struct {
	mu       sync.Mutex
	plan     kube.DeployPlan
	planErr  error
	planned  []render.Request
	result   kube.DeployResult
	progress []kube.DeployStep // sent through opts.Progress before the result
	deployed []render.Request
	opts     []kube.DeployOptions
	record   kube.RecordedRequest
	recErr   error
	// gate, when set, holds Deploy (after its progress) until closed.
	gate chan struct{}
}

func (f *fakeDeployer) PlanDeploy(ctx context.Context, req render.Request) (kube.DeployPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, req)
	return f.plan, f.planErr
}

func (f *fakeDeployer) Deploy(ctx context.Context, req render.Request, opts kube.DeployOptions) (kube.DeployResult, error) {
	f.mu.Lock()
	f.deployed = append(f.deployed, req)
	f.opts = append(f.opts, opts)
	f.mu.Unlock()
	for _, s := range f.progress {
		opts.Progress(s)
	}
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			// As kube.Deploy: the steps so far, and why it stopped.
			return kube.DeployResult{Steps: f.progress}, ctx.Err()
		}
	}
	return f.result, nil
}

func (f *fakeDeployer) AppRecord(ctx context.Context, namespace, instance string) (kube.RecordedRequest, error) {
	return f.record, f.recErr
}

// harness runs a screen as the program would: every command in a
// goroutine, its message handed back to the screen; what the root gets
// is kept.
type harness struct {
	t    *testing.T
	scr  views.Screen
	msgs chan tea.Msg
	mu   sync.Mutex
	root []tea.Msg
	w, h int
	// gone is set once the screen left the stack (Close): its messages
	// reach nobody, and the root records an answer's Left.
	gone bool
}

func newHarness(t *testing.T, scr views.Screen, w, h int) *harness {
	hs := &harness{t: t, scr: scr, msgs: make(chan tea.Msg, 1024), w: w, h: h}
	hs.spawn(scr.Init())
	return hs
}

func (h *harness) spawn(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() { h.msgs <- cmd() }()
}

func (h *harness) handle(msg tea.Msg) {
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, c := range msg {
			h.spawn(c)
		}
	case views.StatusMsg, views.BackMsg, views.OpenRolloutMsg, views.OpenKindMsg, views.OpenDeployMsg, views.OpenRemoveMsg:
		h.root = append(h.root, msg)
	case views.OutcomesMsg:
		// The root keeps the outcomes and shows their status line.
		h.root = append(h.root, msg)
		if msg.Status.Text != "" {
			h.root = append(h.root, msg.Status)
		}
	case views.AnswerMsg:
		// The root: the answer's outcomes kept (and what it left, the
		// screen gone), then its message handed on.
		outs := msg.Outcomes
		if h.gone {
			outs = append(outs, msg.Left...)
		}
		if len(outs) > 0 {
			h.handle(views.OutcomesMsg{Outcomes: outs, Status: msg.Status})
		}
		if !h.gone {
			h.handle(msg.Msg)
		}
	default:
		if isTick(msg) || h.gone {
			return // the spinner would tick for ever; a screen gone takes nothing
		}
		var cmd tea.Cmd
		h.scr, cmd = h.scr.Update(msg)
		h.spawn(cmd)
	}
}

// until handles messages until cond holds (a safety bound, not a timing
// assertion, fails a test that hangs).
func (h *harness) until(what string, cond func() bool) {
	h.t.Helper()
	deadline := time.After(20 * time.Second)
	for !cond() {
		select {
		case m := <-h.msgs:
			h.handle(m)
		case <-deadline:
			h.t.Fatalf("never: %s; the view:\n%s", what, h.scr.View())
		}
	}
}

// settle handles what is pending now and what follows within a moment.
func (h *harness) settle() {
	for {
		select {
		case m := <-h.msgs:
			h.handle(m)
		case <-time.After(50 * time.Millisecond):
			return
		}
	}
}

// press presses named keys (viewtest.Key names), each settled.
func (h *harness) press(names ...string) {
	for _, n := range names {
		var cmd tea.Cmd
		h.scr, cmd = h.scr.Update(viewtest.Key(n))
		h.spawn(cmd)
		h.settle()
	}
}

// typ types s, a key per rune, each key's commands settled before the
// next (as a person types: the status of an earlier key must not be
// recorded after a later one's).
func (h *harness) typ(s string) {
	for _, r := range s {
		var cmd tea.Cmd
		h.scr, cmd = h.scr.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
		h.spawn(cmd)
		h.settle()
	}
}

func (h *harness) view() string { return h.scr.View() }

func (h *harness) has(s string) bool { return strings.Contains(h.view(), s) }

// golden checks the view's size and its golden file.
func (h *harness) golden(name string) {
	h.t.Helper()
	v := h.view()
	viewtest.Size(h.t, v, h.w, h.h)
	viewtest.Golden(h.t, name+"-"+sizeName(h.w), v)
}

// rootMsgs returns the messages of type T the root got.
func rootMsgs[T any](h *harness) []T {
	var out []T
	for _, m := range h.root {
		if v, ok := m.(T); ok {
			out = append(out, v)
		}
	}
	return out
}

// sizes are the goldens' sizes.
var sizes = [][2]int{{80, 24}, {200, 50}}

func sizeName(w int) string {
	if w == 80 {
		return "80x24"
	}
	return "200x50"
}
