package exec_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fakeSession is a kube.ExecSession whose Run runs run.
type fakeSession struct {
	argv      []string
	container string
	note      string
	run       func(ctx context.Context, s kube.ExecStreams) (kube.ExecResult, error)
}

func (f *fakeSession) Argv() []string    { return f.argv }
func (f *fakeSession) Container() string { return f.container }
func (f *fakeSession) Note() string      { return f.note }
func (f *fakeSession) Run(ctx context.Context, s kube.ExecStreams, _ kube.ExecLimits) (kube.ExecResult, error) {
	if f.run == nil {
		return kube.ExecResult{Transport: "websocket"}, nil
	}
	return f.run(ctx, s)
}

// fakeExecer answers plans and opens from its fields and records requests.
type fakeExecer struct {
	plans   []kube.ExecRequest
	opens   []kube.ExecRequest
	plan    func(req kube.ExecRequest) (kube.ExecPlan, error)
	openErr error
}

func (f *fakeExecer) PlanExec(_ context.Context, req kube.ExecRequest) (kube.ExecPlan, error) {
	f.plans = append(f.plans, req)
	return f.plan(req)
}

func (f *fakeExecer) OpenExec(_ context.Context, req kube.ExecRequest) (kube.ExecSession, error) {
	f.opens = append(f.opens, req)
	if f.openErr != nil {
		return nil, f.openErr
	}
	return &fakeSession{argv: []string{"/bin/sh"}, container: req.Container, note: "bash not found, using sh"}, nil
}

// fakeDebugger starts a debug container after two progress texts.
type fakeDebugger struct {
	reqs []kube.DebugRequest
}

func (f *fakeDebugger) PlanDebug(_ context.Context, req kube.DebugRequest) (kube.Verdicts, error) {
	return kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass}}, nil
}

func (f *fakeDebugger) OpenDebug(_ context.Context, req kube.DebugRequest, progress func(string)) (kube.ExecSession, error) {
	f.reqs = append(f.reqs, req)
	progress("ContainerCreating")
	return &fakeSession{argv: []string{"sh"}, container: "debugger-abc"}, nil
}

var target = views.OpenShellMsg{Namespace: "demo", Pod: "web-x2k", UID: "u1"}

// drive runs cmd and feeds the messages it produces back into the screen
// until none is left, a tea.Exec hand-off is reached (returned), or the
// screen asks to go back (the messages it sent are returned).
func drive(t *testing.T, m *exec.Model, cmd tea.Cmd) (handOff tea.Msg, sent []tea.Msg) {
	t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		msg := c()
		switch msg := msg.(type) {
		case nil:
			continue
		case tea.BatchMsg:
			queue = append(queue, msg...)
			continue
		case views.BackMsg, views.StatusMsg:
			sent = append(sent, msg)
			continue
		}
		if strings.HasPrefix(fmt.Sprintf("%T", msg), "tea.execMsg") {
			return msg, sent
		}
		if rv := fmt.Sprintf("%T", msg); rv == "tea.sequenceMsg" {
			for _, sc := range msgAsCmds(msg) {
				queue = append(queue, sc)
			}
			continue
		}
		_, next := m.Update(msg)
		queue = append(queue, next)
	}
	return nil, sent
}

// msgAsCmds unpacks tea.Sequence's message (a []tea.Cmd underneath).
func msgAsCmds(msg tea.Msg) []tea.Cmd {
	v := reflect.ValueOf(msg)
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i], _ = v.Index(i).Interface().(tea.Cmd)
	}
	return out
}

func onePlan(warn bool) func(req kube.ExecRequest) (kube.ExecPlan, error) {
	return func(req kube.ExecRequest) (kube.ExecPlan, error) {
		vs := kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "you may create pods/exec in demo"}}
		if warn && !slices.Contains(req.Confirmed, kube.ReasonPodSecurity) {
			vs = append(vs, kube.Verdict{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity,
				Sentence: "namespace demo enforces no Pod Security level"})
		}
		return kube.ExecPlan{Verdicts: vs, Container: "web"}, nil
	}
}

func TestShellConfirmThenHandOff(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		vc := viewtest.Context(nil, size[0], size[1])
		ex := &fakeExecer{plan: onePlan(true)}
		m := exec.New(vc, ex, nil, target, nil)
		if h, _ := drive(t, m, m.Init()); h != nil {
			t.Fatal("handed off before the warning was confirmed")
		}
		viewtest.Size(t, m.View(), size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("confirm_%dx%d", size[0], size[1]), m.View())
		_, cmd := m.Update(viewtest.Key("y"))
		h, _ := drive(t, m, cmd)
		if h == nil {
			t.Fatal("no hand-off after y")
		}
		if len(ex.opens) != 1 || !slices.Contains(ex.opens[0].Confirmed, kube.ReasonPodSecurity) || !ex.opens[0].TTY {
			t.Fatalf("open requests %+v: want one TTY open with pod_security confirmed", ex.opens)
		}
	}
}

func TestShellPicker(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	ex := &fakeExecer{plan: func(req kube.ExecRequest) (kube.ExecPlan, error) {
		if req.Container == "" {
			return kube.ExecPlan{}, &kube.ContainerChoiceError{Namespace: "demo", Pod: "web-x2k", Containers: []string{"init-sidecar", "web", "log"}, DefaultContainer: "web"}
		}
		return onePlan(false)(req)
	}}
	m := exec.New(vc, ex, nil, target, nil)
	drive(t, m, m.Init())
	viewtest.Golden(t, "picker_80x24", m.View())
	_, _ = m.Update(viewtest.Key("down"))
	_, cmd := m.Update(viewtest.Key("enter"))
	if h, _ := drive(t, m, cmd); h == nil {
		t.Fatal("no hand-off after the pick")
	}
	if got := ex.plans[len(ex.plans)-1].Container; got != "log" {
		t.Fatalf("planned container %q; want log (the default web, then down)", got)
	}
}

func TestShellRefusalToStatusLine(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	ex := &fakeExecer{plan: func(req kube.ExecRequest) (kube.ExecPlan, error) {
		return kube.ExecPlan{Verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden,
			Sentence: "you may not create pods/exec in demo"}}}, nil
	}}
	m := exec.New(vc, ex, nil, target, nil)
	h, sent := drive(t, m, m.Init())
	if h != nil || len(ex.opens) != 0 {
		t.Fatal("a refused shell was opened")
	}
	status := statusOf(sent)
	if !strings.Contains(status, "forbidden") || !strings.Contains(status, "create pods/exec") || !hasBack(sent) {
		t.Fatalf("sent %v: want back and the refusal with its reason", sent)
	}
}

func TestShellNoShellWithoutDebugger(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	ex := &fakeExecer{plan: onePlan(false), openErr: fmt.Errorf("%w (exec: \"sh\": executable file not found in $PATH)", kube.ErrExecNoShell)}
	m := exec.New(vc, ex, nil, target, nil)
	drive(t, m, m.Init())
	if !strings.Contains(m.View(), "debug containers are not available with this client") || m.Capturing() {
		t.Fatalf("view:\n%s", m.View())
	}
	viewtest.Golden(t, "noshell_nodebugger_80x24", m.View())
}

func TestShellNoShellDebugContainer(t *testing.T) {
	vc := viewtest.Context(nil, 200, 50)
	ex := &fakeExecer{plan: onePlan(false), openErr: kube.ErrExecNoShell}
	dbg := &fakeDebugger{}
	mem := &exec.Memory{}
	m := exec.New(vc, ex, dbg, target, mem)
	drive(t, m, m.Init())
	if !m.Capturing() || !strings.Contains(m.View(), kube.DefaultDebugImage) {
		t.Fatalf("no debug offer with the default image:\n%s", m.View())
	}
	viewtest.Golden(t, "noshell_debug_200x50", m.View())
	for range kube.DefaultDebugImage {
		m.Update(viewtest.Key("backspace"))
	}
	m.Update(viewtest.Key("alpine:3"))
	_, cmd := m.Update(viewtest.Key("enter"))
	if h, _ := drive(t, m, cmd); h == nil {
		t.Fatal("no hand-off to the debug container")
	}
	if len(dbg.reqs) != 1 || dbg.reqs[0].Image != "alpine:3" || dbg.reqs[0].Target != "web" || mem.DebugImage != "alpine:3" {
		t.Fatalf("debug requests %+v, memory %+v", dbg.reqs, mem)
	}
	// The next opening offers the image chosen.
	m2 := exec.New(vc, ex, dbg, target, mem)
	drive(t, m2, m2.Init())
	if !strings.Contains(m2.View(), "[alpine:3") {
		t.Fatalf("the image chosen is not remembered:\n%s", m2.View())
	}
}

func TestBanner(t *testing.T) {
	s := &fakeSession{argv: []string{"/bin/sh"}, container: "web", note: "bash not found, using sh"}
	want := "shell: /bin/sh in demo/web-x2k (container web) · bash not found, using sh · exit or ctrl+d returns"
	if got := exec.Banner(s, "demo", "web-x2k"); got != want {
		t.Fatalf("banner %q\nwant   %q", got, want)
	}
}

func TestEndedText(t *testing.T) {
	cases := []struct {
		res  kube.ExecResult
		err  error
		want string
	}{
		{kube.ExecResult{}, nil, "shell ended: exit 0"},
		{kube.ExecResult{ExitCode: 5}, nil, "shell ended: exit 5"},
		{kube.ExecResult{}, fmt.Errorf("%w: connection lost (EOF)", kube.ErrExecClosed), "exit status unknown: connection lost (EOF)"},
		{kube.ExecResult{}, kube.ErrExecIdle, "shell ended: the session was idle too long"},
	}
	for _, tc := range cases {
		if got := exec.EndedText(tc.res, tc.err); got != tc.want {
			t.Errorf("EndedText(%+v, %v) = %q, want %q", tc.res, tc.err, got, tc.want)
		}
	}
}

func statusOf(sent []tea.Msg) string {
	for _, m := range sent {
		if s, ok := m.(views.StatusMsg); ok {
			return s.Text
		}
	}
	return ""
}

func hasBack(sent []tea.Msg) bool {
	for _, m := range sent {
		if _, ok := m.(views.BackMsg); ok {
			return true
		}
	}
	return false
}
