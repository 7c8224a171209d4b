package filecopy_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/filecopy"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 80, 24

var pass = kube.Verdicts{
	{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
	{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may create pods/exec in demo"},
}

// fake plans with verdicts (or planErr, or a container choice when
// choices is set and no container is asked) and copies by calling copy.
type fake struct {
	mu       sync.Mutex
	verdicts kube.Verdicts
	planErr  error
	choices  []string
	planned  []string // the container of each plan
	reqs     []kube.CopyRequest
	copy     func(ctx context.Context, progress func(kube.CopyProgress)) (kube.CopyResult, error)
}

func (f *fake) PlanExec(_ context.Context, req kube.ExecRequest) (kube.ExecPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, req.Container)
	if f.planErr != nil {
		return kube.ExecPlan{}, f.planErr
	}
	if len(f.choices) > 0 && req.Container == "" {
		return kube.ExecPlan{}, &kube.ContainerChoiceError{Namespace: "demo", Pod: "web-1", Containers: f.choices, DefaultContainer: f.choices[1]}
	}
	vs := pass
	if f.verdicts != nil {
		vs = f.verdicts
	}
	c := req.Container
	if c == "" {
		c = "app"
	}
	return kube.ExecPlan{Verdicts: vs, Container: c}, nil
}

func (f *fake) CopyFile(ctx context.Context, req kube.CopyRequest, progress func(kube.CopyProgress)) (kube.CopyResult, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.copy != nil {
		return f.copy(ctx, progress)
	}
	progress(kube.CopyProgress{Done: 12, Total: 12, Final: true})
	return kube.CopyResult{Container: req.Container, Dest: "/tmp/x/" + req.Remote, Files: 1, Bytes: 12}, nil
}

func newHarness(t *testing.T, f *fake, container string) *viewtest.Driver {
	d := &viewtest.Driver{T: t, Screen: filecopy.New(viewtest.Context(nil, width, height), f,
		views.OpenCopyMsg{Namespace: "demo", Pod: "web-1", UID: "u1", Container: container})}
	d.Run(d.Screen.Init())
	return d
}

// clear empties the focused input.
func clear(d *viewtest.Driver) {
	for range 10 {
		d.Key("backspace")
	}
}

func TestCopyFromTheContainer(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, "")
	h.Golden("form", width, height)
	h.Key("enter")
	if len(f.reqs) != 0 || !strings.Contains(h.Screen.View(), "name the container's path") {
		t.Fatalf("an empty path: %+v\n%s", f.reqs, h.Screen.View())
	}
	h.Type("/var/log/app")
	h.Key("tab")
	clear(h)
	h.Type("./logs")
	h.Key("enter")
	if len(f.reqs) != 1 {
		t.Fatalf("copies %+v", f.reqs)
	}
	r := f.reqs[0]
	if r.Direction != kube.CopyFromContainer || r.Remote != "/var/log/app" || r.Local != "./logs" || r.Container != "app" || r.UID != "u1" {
		t.Errorf("request %+v", r)
	}
	outs := viewtest.Answered(h)
	if len(outs) != 1 || outs[0].Op.Action != kube.ActionCopy || outs[0].Reason != "" || !strings.Contains(outs[0].Detail, "copied 1 file (12 B) from container app") {
		t.Fatalf("outcome for :history %+v", outs)
	}
	h.Golden("done", width, height)
	h.Key("enter")
	if _, ok := h.Out[len(h.Out)-1].(views.BackMsg); !ok {
		t.Error("enter after the copy does not go back")
	}
}

func TestCopyToTheContainerWithAWarning(t *testing.T) {
	f := &fake{verdicts: append(kube.Verdicts{{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity,
		Sentence: "namespace demo enforces no Pod Security level"}}, pass...)}
	h := newHarness(t, f, "")
	h.Key("shift+tab") // the direction (no container choice)
	h.Key("right")
	h.Key("tab")
	clear(h)
	h.Type("/tmp/")
	h.Key("tab")
	h.Type("web.conf")
	h.Key("enter")
	if len(f.reqs) != 0 || !h.Screen.Capturing() {
		t.Fatalf("a warning was not asked before the copy: %+v", f.reqs)
	}
	h.Golden("warning", width, height)
	h.Type("y")
	h.Key("enter")
	if len(f.reqs) != 1 || f.reqs[0].Direction != kube.CopyToContainer || f.reqs[0].Local != "web.conf" ||
		len(f.reqs[0].Confirmed) != 1 || f.reqs[0].Confirmed[0] != kube.ReasonPodSecurity {
		t.Fatalf("requests %+v", f.reqs)
	}
}

func TestCopyContainerChoice(t *testing.T) {
	f := &fake{choices: []string{"main", "sidecar", "init"}}
	h := newHarness(t, f, "")
	if v := h.Screen.View(); !strings.Contains(v, "‹ sidecar ›") {
		t.Fatalf("the default container is not chosen:\n%s", v)
	}
	h.Key("shift+tab")
	h.Key("right")
	if v := h.Screen.View(); !strings.Contains(v, "‹ init ›") || f.planned[len(f.planned)-1] != "init" {
		t.Fatalf("→ on the container field: planned %v\n%s", f.planned, v)
	}
	h.Key("tab")
	h.Type("/etc/hosts")
	h.Key("enter")
	if len(f.reqs) != 1 || f.reqs[0].Container != "init" {
		t.Fatalf("requests %+v", f.reqs)
	}
}

func TestCopyRefusedAndFailed(t *testing.T) {
	f := &fake{verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: "may not create pods/exec in demo"}}}
	h := newHarness(t, f, "")
	h.Key("enter")
	if len(f.reqs) != 0 {
		t.Fatal("a refused copy was sent")
	}
	h.Golden("refused", width, height)

	f = &fake{copy: func(context.Context, func(kube.CopyProgress)) (kube.CopyResult, error) {
		return kube.CopyResult{}, fmt.Errorf("/nope: %w in the container (tar: tar: /nope: No such file or directory\x1b]2;x\x07)", kube.ErrCopyNotFound)
	}}
	h = newHarness(t, f, "")
	h.Type("/nope")
	h.Key("enter")
	outs := viewtest.Answered(h)
	if len(outs) != 1 || outs[0].Reason != kube.ReasonNotFound {
		t.Fatalf("outcome %+v", outs)
	}
	if v := h.Screen.View(); !strings.Contains(v, "tar: /nope: No such") || strings.Contains(v, "\x1b]") {
		t.Fatalf("the failure:\n%q", v)
	}
	h.Key("r")
	if !strings.Contains(h.Screen.View(), "container path") {
		t.Fatal("r does not bring the form back")
	}
}

func TestCopyProgressAndCancel(t *testing.T) {
	started := make(chan struct{})
	f := &fake{copy: func(ctx context.Context, progress func(kube.CopyProgress)) (kube.CopyResult, error) {
		progress(kube.CopyProgress{Done: 3 << 20, Total: 8 << 20})
		close(started)
		<-ctx.Done()
		return kube.CopyResult{}, ctx.Err()
	}}
	h := newHarness(t, f, "")
	h.Key("shift+tab")
	h.Key("right")
	h.Key("tab")
	h.Type("/tmp")
	h.Key("tab")
	h.Type("big.bin")
	_, cmd := h.Screen.Update(viewtest.Key("enter"))
	<-started
	_, next := h.Screen.Update(cmd()) // the first progress report
	h.Golden("progress", width, height)
	if u := h.Screen.(views.Unsaved).Unsaved(); u == "" {
		t.Error("a running copy is not said before quitting")
	}
	h.Key("esc")
	h.Run(next)
	outs := viewtest.Answered(h)
	if len(outs) != 1 || outs[0].Reason != kube.ReasonError || !strings.Contains(outs[0].Detail, "cancelled") {
		t.Fatalf("outcome %+v", outs)
	}
	if v := h.Screen.View(); !strings.Contains(v, "stays there") {
		t.Errorf("a cancelled copy in does not say what is left:\n%s", v)
	}
}

func TestCopyPlanFails(t *testing.T) {
	h := newHarness(t, &fake{planErr: errors.New("pods \"web-1\" not found")}, "")
	if v := h.Screen.View(); !strings.Contains(v, "no copy can run: pods \"web-1\" not found") {
		t.Fatalf("%s", v)
	}
}

// TestCopyKeysRebound: with `copy: {start: ctrl+s, next-field: [tab]}`,
// enter copies nothing and ↓ stays in the path; ctrl+s copies, and the
// help line names it.
func TestCopyKeysRebound(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"copy": {"start": {"ctrl+s"}, "next-field": {"tab"}}}
	h := &viewtest.Driver{T: t, Screen: filecopy.New(vc, f, views.OpenCopyMsg{Namespace: "demo", Pod: "web-1", UID: "u1"})}
	h.Run(h.Screen.Init())
	h.Type("/var/log/app")
	h.Key("down")
	h.Key("enter")
	if len(f.reqs) != 0 || !strings.Contains(h.Screen.View(), "ctrl+s copy") {
		t.Fatalf("enter (start's old key) copied, or ctrl+s is not named: %+v\n%s", f.reqs, h.Screen.View())
	}
	h.Key("ctrl+s")
	if len(f.reqs) != 1 || f.reqs[0].Remote != "/var/log/app" || f.reqs[0].Local != "." {
		t.Fatalf("ctrl+s (start's new key): copies %+v", f.reqs)
	}
}
