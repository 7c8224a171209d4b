package exec_test

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

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
		case views.BackMsg, views.StatusMsg, views.OutcomesMsg:
			sent = append(sent, msg)
			continue
		case views.AnswerMsg:
			// As the root: the outcomes recorded (and the status line,
			// the screen being shown), then the screen's message.
			if len(msg.Outcomes) > 0 || msg.Status.Text != "" {
				sent = append(sent, views.OutcomesMsg{Outcomes: msg.Outcomes, Status: msg.Status})
			}
			if msg.Msg == nil {
				continue
			}
			_, next := m.Update(msg.Msg)
			queue = append(queue, next)
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
	if !strings.HasPrefix(status, "shell refused: you may not create pods/exec") || !hasBack(sent) {
		t.Fatalf("sent %v: want back and the refusal, cause first", sent)
	}
	if o := outcomeOf(t, sent); o.Reason != kube.ReasonForbidden || o.Op.Action != kube.ActionShell || o.Op.Ref.Name != "web-x2k" {
		t.Fatalf("history outcome %+v: want the forbidden shell of web-x2k", o)
	}
}

// kwokNoExec is what the local cluster's API server answers for a pod
// kwok has no Exec for (the probe ends with it).
var kwokNoExec = &kube.ExecServerError{Cause: `no exec found for container "nginx" in pod "trial-kt/evil2"`,
	Context: "Internal error occurred: error executing command in container"}

// TestShellServerErrorStatus: an error the server sent while the shell
// was being chosen is told by its cause, first, in a status line that
// fits 80 columns; the whole text is in the history.
func TestShellServerErrorStatus(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	ex := &fakeExecer{plan: onePlan(false), openErr: fmt.Errorf("choosing a shell: %w", kwokNoExec)}
	m := exec.New(vc, ex, nil, target, nil)
	_, sent := drive(t, m, m.Init())
	status := statusOf(sent)
	if !strings.HasPrefix(status, `shell: no exec found for container "nginx"`) || ansi.StringWidth(status) > 80 ||
		!strings.HasSuffix(status, ":history") || strings.Contains(status, "connection lost") {
		t.Fatalf("status %q: want the cause first, cut to 80 columns, pointing to :history", status)
	}
	o := outcomeOf(t, sent)
	if !strings.Contains(o.Detail, "Internal error occurred: error executing command in container") || !strings.Contains(o.Detail, "no exec found") {
		t.Fatalf("history detail %q: want the whole text", o.Detail)
	}
}

// TestShellStrictRefusal: the strict policy's Pod Security refusal is led
// by its cause, says "shell refused", speaks of a shell (not of pods it
// creates) and fits 80 columns; the detail is in the history.
func TestShellStrictRefusal(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	sentence := "namespace demo enforces no Pod Security level: a shell here is not bounded by baseline (" + kube.PodSecurityStandards + ")"
	ex := &fakeExecer{plan: func(req kube.ExecRequest) (kube.ExecPlan, error) {
		return kube.ExecPlan{Verdicts: kube.Verdicts{{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeRefuse,
			Reason: kube.ReasonPodSecurity, Sentence: sentence}}}, nil
	}}
	m := exec.New(vc, ex, nil, target, nil)
	_, sent := drive(t, m, m.Init())
	status := statusOf(sent)
	if !strings.HasPrefix(status, "shell refused: namespace demo enforces no Pod Security level") || ansi.StringWidth(status) > 80 ||
		strings.Contains(status, "pods this creates") || strings.Contains(status, "no shell in") {
		t.Fatalf("status %q", status)
	}
	if o := outcomeOf(t, sent); o.Reason != kube.ReasonPodSecurity || !strings.Contains(o.Detail, kube.PodSecurityStandards) {
		t.Fatalf("history outcome %+v: want pod_security with the whole sentence", o)
	}
	// At 200 columns the whole sentence fits and is not cut.
	m = exec.New(viewtest.Context(nil, 200, 50), ex, nil, target, nil)
	_, sent = drive(t, m, m.Init())
	if status := statusOf(sent); status != "shell refused: "+sentence {
		t.Fatalf("status at 200 columns %q", status)
	}
}

// TestShellEndedRecorded: a session's end goes to the status line (kwok's
// exit status read from its error, marked so) and to the history.
func TestShellEndedRecorded(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	m := exec.New(vc, &fakeExecer{plan: onePlan(false)}, nil, target, nil)
	_, cmd := exec.EndSession(m, kube.ExecResult{ExitCode: 3, Transport: "websocket",
		ExitReportedAsError: "the server ended the session: exit status 3 (Internal error occurred: error executing command in container: cmd wait: /bin/sh)"}, nil)
	_, sent := drive(t, m, cmd)
	if status := statusOf(sent); status != "shell ended: exit 3 (reported by the server as an error)" {
		t.Fatalf("status %q", status)
	}
	if o := outcomeOf(t, sent); o.Reason != "" || !strings.Contains(o.Detail, "exit 3, reported by the server as an error") || o.Op.Action != kube.ActionShell {
		t.Fatalf("history outcome %+v", o)
	}
}

func outcomeOf(t *testing.T, sent []tea.Msg) kube.OperateOutcome {
	t.Helper()
	for _, m := range sent {
		if o, ok := m.(views.OutcomesMsg); ok && len(o.Outcomes) == 1 {
			return o.Outcomes[0]
		}
	}
	t.Fatalf("no outcome for the history in %v", sent)
	return kube.OperateOutcome{}
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
		{kube.ExecResult{ExitCode: 3, ExitReportedAsError: "the server ended the session: exit status 3"}, nil,
			"shell ended: exit 3 (reported by the server as an error)"},
		{kube.ExecResult{}, kwokNoExec, `shell ended: no exec found for container "nginx" in pod "trial-kt/evil2" (the server's error)`},
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
		if o, ok := m.(views.OutcomesMsg); ok && o.Status.Text != "" {
			return o.Status.Text
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

// TestShellEndIsOneReport: a session's end reaches the history and the
// status line as one views.Report (one OutcomesMsg carrying both), never
// as a bare StatusMsg that could disagree with the history.
func TestShellEndIsOneReport(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	m := exec.New(vc, &fakeExecer{plan: onePlan(false)}, nil, target, nil)
	_, cmd := exec.EndSession(m, kube.ExecResult{}, fmt.Errorf("%w: connection lost", kube.ErrExecClosed))
	_, sent := drive(t, m, cmd)
	var reports int
	for _, s := range sent {
		switch s := s.(type) {
		case views.StatusMsg:
			t.Fatalf("a bare status line %q beside the history", s.Text)
		case views.OutcomesMsg:
			reports++
			if s.Status.Text != "exit status unknown: connection lost" || len(s.Outcomes) != 1 || !s.Status.Error {
				t.Fatalf("report %+v", s)
			}
		}
	}
	if reports != 1 || !hasBack(sent) {
		t.Fatalf("sent %v: want one report and back", sent)
	}
}

// TestShellNoShellGoesToHistory: a container without a shell (casebook
// C16) is an outcome of s, recorded when it is found, offer or not.
func TestShellNoShellGoesToHistory(t *testing.T) {
	for _, dbg := range []exec.Debugger{nil, &fakeDebugger{}} {
		ex := &fakeExecer{plan: onePlan(false), openErr: fmt.Errorf("%w: none of bash, sh found", kube.ErrExecNoShell)}
		m := exec.New(viewtest.Context(nil, 80, 24), ex, dbg, target, nil)
		_, sent := drive(t, m, m.Init())
		if o := outcomeOf(t, sent); o.Op.Action != kube.ActionShell || o.Reason != kube.ReasonError || o.Written ||
			!strings.Contains(o.Detail, "the container has no shell: none of bash, sh found") {
			t.Fatalf("history outcome %+v", o)
		}
	}
}

// TestShellKeysRebound: with `shell: {confirm: G}`, y and Y do not go on
// despite the warnings; G does, and the help line names it.
func TestShellKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"shell": {"confirm": {"G"}}}
	ex := &fakeExecer{plan: onePlan(true)}
	m := exec.New(vc, ex, nil, target, nil)
	drive(t, m, m.Init())
	if v := m.View(); !strings.Contains(v, "G go on · esc cancel") {
		t.Errorf("the help line does not name G:\n%s", v)
	}
	for _, k := range []string{"y", "Y"} {
		if _, cmd := m.Update(viewtest.Key(k)); cmd != nil || len(ex.opens) != 0 {
			t.Fatalf("%s (confirm's old key) went on", k)
		}
	}
	_, cmd := m.Update(viewtest.Key("G"))
	if h, _ := drive(t, m, cmd); h == nil || len(ex.opens) != 1 {
		t.Fatalf("G (confirm's new key) did not open the shell: %+v", ex.opens)
	}
}
