package deploy_test

import (
	"context"
	"errors"
	"sync"
	"testing"

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
	result   kube.DeployResult
	progress []kube.DeployStep // sent through opts.Progress before the result
	deployed []render.Request
	opts     []kube.DeployOptions
	record   kube.RecordedRequest
	recErr   error
	// gate, when set, holds Deploy until it is closed.
	gate chan struct{}
}

func (f *fakeDeployer) PlanDeploy(ctx context.Context, req render.Request) (kube.DeployPlan, error) {
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
			return kube.DeployResult{}, ctx.Err()
		}
	}
	return f.result, nil
}

func (f *fakeDeployer) AppRecord(ctx context.Context, namespace, instance string) (kube.RecordedRequest, error) {
	return f.record, f.recErr
}

// sizes are the goldens' sizes.
var sizes = [][2]int{{80, 24}, {200, 50}}

func sizeName(s [2]int) string {
	if s[0] == 80 {
		return "80x24"
	}
	return "200x50"
}

// drive sends msg to scr and runs the commands it returns (and theirs,
// batches included) until none is left, handing their messages back to
// scr; the messages meant for the root are returned. Spinner ticks are
// dropped (they would tick for ever). block lists message types whose
// commands are not run (a channel reader waiting on a gated deploy).
func drive(t *testing.T, scr views.Screen, msg tea.Msg) (views.Screen, []tea.Msg) {
	t.Helper()
	var root []tea.Msg
	queue := []tea.Msg{msg}
	for n := 0; len(queue) > 0; n++ {
		if n > 10000 {
			t.Fatal("too many messages")
		}
		m := queue[0]
		queue = queue[1:]
		var cmd tea.Cmd
		scr, cmd = scr.Update(m)
		queue = append(queue, run(cmd, &root)...)
	}
	return scr, root
}

// run runs cmd: messages for the screen are returned, the root's kept.
func run(cmd tea.Cmd, root *[]tea.Msg) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	switch msg := msg.(type) {
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, run(c, root)...)
		}
		return out
	case views.StatusMsg, views.BackMsg, views.OpenRolloutMsg, views.OpenKindMsg, views.OpenDeployMsg, views.OpenRemoveMsg:
		*root = append(*root, msg)
		return nil
	case nil:
		return nil
	}
	if isTick(msg) {
		return nil
	}
	return []tea.Msg{msg}
}

// typeText types s into scr, one key per rune.
func typeText(t *testing.T, scr views.Screen, s string) views.Screen {
	t.Helper()
	for _, r := range s {
		scr, _ = drive(t, scr, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return scr
}

// keys presses named keys (viewtest.Key names).
func keys(t *testing.T, scr views.Screen, names ...string) (views.Screen, []tea.Msg) {
	t.Helper()
	var root []tea.Msg
	for _, n := range names {
		var r []tea.Msg
		scr, r = drive(t, scr, viewtest.Key(n))
		root = append(root, r...)
	}
	return scr, root
}

var errBoom = errors.New("boom")
