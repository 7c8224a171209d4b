package ui_test

// Every write or exec kyyard sent reaches :history whatever screen the
// person leaves, and when: these tests send a request, leave the screen
// (esc, a `:` command) before its answer, then let the answer arrive.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// shellClient is a client whose pods have no shell and whose debug
// containers are added (the patch "sent") and then never start, as on
// kwok: OpenDebug waits until its ctx ends or release is closed.
type shellClient struct {
	views.Source
	patched chan struct{} // closed once the debug container was added
	release chan struct{} // closed by the test: the wait ends by itself
}

func (c *shellClient) PlanExec(_ context.Context, req kube.ExecRequest) (kube.ExecPlan, error) {
	return kube.ExecPlan{Container: "web", Verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass}}}, nil
}

func (c *shellClient) OpenExec(context.Context, kube.ExecRequest) (kube.ExecSession, error) {
	return nil, fmt.Errorf("%w: none of bash, sh found", kube.ErrExecNoShell)
}

func (c *shellClient) PlanDebug(context.Context, kube.DebugRequest) (kube.Verdicts, error) {
	return kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass}}, nil
}

func (c *shellClient) OpenDebug(ctx context.Context, req kube.DebugRequest, progress func(string)) (kube.ExecSession, error) {
	progress("adding debug container debugger-abcde (" + req.Image + ") to demo/web-1")
	close(c.patched)
	var err error
	select {
	case <-ctx.Done():
		err = ctx.Err()
	case <-c.release:
		err = fmt.Errorf("%w within 2m0s: debugger-abcde no status reported yet", kube.ErrDebugNotStarted)
	}
	return nil, &kube.DebugAddedError{Namespace: req.Namespace, Pod: req.Pod, Container: "debugger-abcde", Image: req.Image, Err: err}
}

// settle runs cmd and what the root answers the messages it gives, as
// Bubble Tea would, except ticks and the facts' reads (which sleep or
// start the root's own chains): until nothing is left.
func (h *harness) settle(cmd tea.Cmd) {
	h.t.Helper()
	if cmd == nil {
		return
	}
	msg := cmd()
	switch msg := msg.(type) {
	case nil:
		return
	case tea.BatchMsg:
		for _, c := range msg {
			h.settle(c)
		}
		return
	}
	if fmt.Sprintf("%T", msg) == "tea.sequenceMsg" {
		v := reflect.ValueOf(msg)
		for i := 0; i < v.Len(); i++ {
			c, _ := v.Index(i).Interface().(tea.Cmd)
			h.settle(c)
		}
		return
	}
	next := h.send(msg)
	switch msg.(type) {
	case views.AnswerMsg, views.BackMsg, views.OpenShellMsg, views.OutcomesMsg:
		h.settle(next)
		return
	}
	if strings.HasPrefix(fmt.Sprintf("%T", msg), "exec.") {
		h.settle(next)
	}
}

// historyLines is the history file's lines.
func historyLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// A container without a shell is an outcome of `s` (casebook C16); a
// debug container added and then left with esc before it started (kwok
// never starts one) is recorded as written, with its name; so is one
// left by a `:` command.
func TestDebugContainerLeftBeforeItStartedGoesToHistory(t *testing.T) {
	for _, leave := range []string{"esc", ":pods"} {
		t.Run(leave, func(t *testing.T) {
			fake, _ := kubetest.FakeClient(t, objects()...)
			client := &shellClient{Source: fake, patched: make(chan struct{}), release: make(chan struct{})}
			path := filepath.Join(t.TempDir(), "history.log")
			h := startWith(t, client, "demo", 160, 14, ui.WithHistoryFile(path))
			h.settle(h.send(views.OpenShellMsg{Namespace: "demo", Pod: "web-1", UID: "u1"}))
			if v := h.m.View(); !strings.Contains(v, "has no shell") {
				t.Fatalf("no debug offer:\n%s", v)
			}
			if l := historyLines(t, path); len(l) != 1 || !strings.Contains(l[0], "demo/pods/web-1\tshell\terror\tshell in demo/web-1: the container has no shell") {
				t.Fatalf("history after no shell: %q", l)
			}
			// enter: the guards, then the debug container is added; its
			// wait is not run yet.
			plan := h.send(viewtest.Key("enter"))()
			waiting := h.send(plan)
			<-client.patched
			if leave == "esc" {
				h.settle(h.send(viewtest.Key("esc")))
			} else {
				h.command("pods")
			}
			// The wait ends (at once once the screen is closed; later
			// otherwise, as kube's bounded wait does).
			close(client.release)
			h.settle(waiting)
			if strings.HasPrefix(h.m.Top().Title(), "shell") {
				t.Fatalf("still on %s", h.m.Top().Title())
			}
			l := historyLines(t, path)
			if len(l) != 2 || !strings.Contains(l[1], "demo/pods/web-1\tdebug\t") || !strings.Contains(l[1], "debugger-abcde") ||
				!strings.Contains(l[1], "stays in the pod until the pod ends") {
				t.Fatalf("history after leaving a debug container added: %q", l)
			}
		})
	}
}

// A restart confirmed with y and left with esc before the API server's
// answer came: the answer, when it comes, is recorded.
func TestWriteAnsweredAfterTheScreenWasLeftGoesToHistory(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	path := filepath.Join(t.TempDir(), "history.log")
	h := startWith(t, client, "demo", 160, 14, ui.WithHistoryFile(path))
	h.settle(h.send(views.OperateMsg{Action: kube.ActionRestart, Replicas: -1,
		Targets: []kube.ObjectRef{{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", UID: "u3"}}}))
	sent := h.send(viewtest.Key("y"))
	h.settle(h.send(viewtest.Key("esc")))
	h.settle(sent)
	if l := historyLines(t, path); len(l) != 1 || !strings.Contains(l[0], "demo/deployments/web\trestart\tok\t") {
		t.Fatalf("history: %q", l)
	}
}
