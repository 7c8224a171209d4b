package workload

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/viewtest"
)

// call is one write or dry run the fake saw.
type call struct {
	before, after kube.Workload
	confirmed     []kube.Reason
}

// fake is an Editor serving canned answers and recording calls.
type fake struct {
	reads    []kube.Workload // answered in turn; the last one repeats; an apply's result is added
	readErr  error
	preview  kube.Preview
	dryErr   error
	applyErr []error // answered in turn; nil after
	statuses []kube.RolloutStatus
	readN    int
	dry      []call
	applies  []call
	statusN  int
}

func (f *fake) ReadWorkload(_ context.Context, ref kube.WorkloadRef) (kube.Workload, error) {
	if f.readErr != nil {
		return kube.Workload{}, f.readErr
	}
	w := f.reads[min(f.readN, len(f.reads)-1)]
	f.readN++
	return w, nil
}

// WorkloadOf makes the fake an Owners: every pod and ReplicaSet belongs
// to deployments/web, except "orphan".
func (f *fake) WorkloadOf(_ context.Context, kind kube.Kind, ns, name string) (kube.WorkloadRef, error) {
	if name == "orphan" {
		return kube.WorkloadRef{}, fmt.Errorf("pod %s/%s is %w", ns, name, kube.ErrNotManaged)
	}
	return webRef, nil
}

func (f *fake) DryRun(_ context.Context, before, after kube.Workload) (kube.Preview, error) {
	f.dry = append(f.dry, call{before: before, after: after})
	return f.preview, f.dryErr
}

func (f *fake) ApplyWorkload(_ context.Context, before, after kube.Workload, confirmed []kube.Reason) (kube.ApplyResult, error) {
	f.applies = append(f.applies, call{before: before, after: after, confirmed: confirmed})
	if len(f.applyErr) > 0 {
		err := f.applyErr[0]
		f.applyErr = f.applyErr[1:]
		if err != nil {
			return kube.ApplyResult{}, err
		}
	}
	res := after
	res.Containers = slices.Clone(after.Containers)
	for i := range res.Containers {
		res.Containers[i].Env = slices.Clone(res.Containers[i].Env)
	}
	numberEnv(res) // the API server's answer, read afresh
	rv := 0
	fmt.Sscan(before.ResourceVersion, &rv)
	res.ResourceVersion = fmt.Sprint(rv + 1)
	res.Generation = before.Generation + 1
	// A later read sees the write, as the API server's would.
	f.reads = append(f.reads, res)
	return kube.ApplyResult{Workload: res}, nil
}

func (f *fake) RolloutStatus(_ context.Context, ref kube.WorkloadRef) (kube.RolloutStatus, error) {
	if len(f.statuses) == 0 {
		return kube.RolloutStatus{}, errors.New("no status")
	}
	st := f.statuses[min(f.statusN, len(f.statuses)-1)]
	f.statusN++
	return st, nil
}

// harness drives one screen: it runs commands (not the rollout's poll
// ticks, which it counts) and records what the screen asked of the root.
type harness struct {
	t     *testing.T
	ed    *fake
	m     *Model
	clock time.Time
	polls int
	tick  tea.Msg   // the last poll tick the screen asked for
	out   []tea.Msg // views.BackMsg, views.StatusMsg
	// reported are the outcomes the screen reported to the history
	// (views.OutcomesMsg), in order.
	reported []kube.OperateOutcome
	// watchTick is the last tick of the form's re-reads (watch.go).
	watchTick tea.Msg
}

var webRef = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}

func open(t *testing.T, ed *fake, w, h int) *harness {
	t.Helper()
	return openAs(t, ed, ed, webRef, w, h)
}

// openAs opens the screen on ref through ed (ed may wrap f), with the
// KindInfo of ref.Kind's built-in plugin.
func openAs(t *testing.T, f *fake, ed Editor, ref kube.WorkloadRef, w, h int) *harness {
	t.Helper()
	return openKind(t, f, ed, kindInfo(t, ref.Kind), ref, w, h)
}

// kindInfo returns the KindInfo of kind's built-in plugin.
func kindInfo(t testing.TB, kind kube.Kind) kube.KindInfo {
	t.Helper()
	p, ok := kinds.Builtin().Lookup(string(kind))
	if !ok {
		t.Fatalf("no plugin %s", kind)
	}
	return p.Info()
}

// openKind opens the screen on ref, described by kind, through ed.
func openKind(t *testing.T, f *fake, ed Editor, kind kube.KindInfo, ref kube.WorkloadRef, w, h int) *harness {
	t.Helper()
	vc := viewtest.Context(nil, w, h)
	hs := &harness{t: t, ed: f, clock: viewtest.Now}
	hs.m = New(vc, ed, kind, ref)
	hs.m.now = func() time.Time { return hs.clock }
	hs.m.poll = 0
	hs.m.watch.every = -1 // the re-reads' ticks are delivered by the test (reread)
	hs.run(hs.m.Init())
	return hs
}

// run executes cmd and hands its messages to the screen, then the
// commands those return, until none is left.
func (h *harness) run(cmd tea.Cmd) {
	h.t.Helper()
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case rollout.PollMsg:
			h.polls++
			h.tick = msg
		case watchTickMsg:
			h.watchTick = msg
		case views.BackMsg, views.StatusMsg:
			h.out = append(h.out, msg)
		case views.OutcomesMsg:
			h.reported = append(h.reported, msg.Outcomes...)
		case views.AnswerMsg:
			// As the root: the answer's outcomes recorded, then its message.
			h.reported = append(h.reported, msg.Outcomes...)
			_, next := h.m.Update(msg.Msg)
			queue = append(queue, next)
		case readMsg, dryRunMsg, applyMsg, rollout.StatusMsg, permitMsg, watchMsg:
			_, next := h.m.Update(msg)
			queue = append(queue, next)
		}
	}
}

// reread delivers the next tick of the form's re-reads of the object.
func (h *harness) reread() {
	h.t.Helper()
	if h.watchTick == nil {
		h.t.Fatal("the form asked for no re-read")
	}
	tick := h.watchTick
	h.watchTick = nil
	_, cmd := h.m.Update(tick)
	h.run(cmd)
}

// poll delivers the rollout's next poll tick.
func (h *harness) poll() {
	h.t.Helper()
	_, cmd := h.m.Update(h.tick)
	h.run(cmd)
}

var keyTypes = map[string]tea.KeyType{
	"enter": tea.KeyEnter, "esc": tea.KeyEsc, "tab": tea.KeyTab, "shift+tab": tea.KeyShiftTab,
	"up": tea.KeyUp, "down": tea.KeyDown, "backspace": tea.KeyBackspace, "pgdown": tea.KeyPgDown, "pgup": tea.KeyPgUp, "left": tea.KeyLeft, "right": tea.KeyRight,
	"ctrl+s": tea.KeyCtrlS, "ctrl+n": tea.KeyCtrlN, "ctrl+d": tea.KeyCtrlD, "ctrl+t": tea.KeyCtrlT,
	"ctrl+r": tea.KeyCtrlR, "ctrl+u": tea.KeyCtrlU, "ctrl+p": tea.KeyCtrlP, "space": tea.KeySpace,
}

// press sends named keys ("tab", "ctrl+s") or, for other names, the runes.
func (h *harness) press(names ...string) {
	h.t.Helper()
	for _, n := range names {
		var msg tea.KeyMsg
		if t, ok := keyTypes[n]; ok {
			msg = tea.KeyMsg{Type: t}
			if n == "space" {
				msg.Runes = []rune{' '}
			}
		} else {
			msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(n)}
		}
		_, cmd := h.m.Update(msg)
		h.run(cmd)
	}
}

// typ types text one rune at a time.
func (h *harness) typ(text string) {
	h.t.Helper()
	for _, r := range text {
		h.press(string(r))
	}
}

// paste pastes text as one key message, as a terminal's bracketed paste
// arrives.
func (h *harness) paste(text string) {
	h.t.Helper()
	_, cmd := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(text), Paste: true})
	h.run(cmd)
}

// focusOn moves the cursor to the field of kind k in container c, entry i.
func (h *harness) focusOn(k fieldKind, c, i int) {
	h.t.Helper()
	for j, fd := range h.m.form.fields {
		if fd.kind == k && fd.c == c && fd.i == i {
			h.run(h.m.moveFocus(j))
			return
		}
	}
	h.t.Fatalf("no field %d in container %d entry %d", k, c, i)
}

// replace clears the focused field and types text.
func (h *harness) replace(text string) {
	h.t.Helper()
	h.press("ctrl+u")
	h.typ(text)
}

func (h *harness) view() string {
	h.t.Helper()
	v := h.m.View()
	viewtest.Size(h.t, v, h.m.vc.Width, h.m.vc.Height)
	return v
}

func (h *harness) golden(name string) {
	h.t.Helper()
	viewtest.Golden(h.t, name, h.view())
}

// goldens checks the view at 80x24 and at 200x50 (name_80x24,
// name_200x50), and returns to the size it had.
func (h *harness) goldens(name string) {
	h.t.Helper()
	w, ht := h.m.vc.Width, h.m.vc.Height
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h.resize(size[0], size[1])
		h.golden(fmt.Sprintf("%s_%dx%d", name, size[0], size[1]))
	}
	h.resize(w, ht)
}

func (h *harness) resize(w, ht int) {
	h.m.vc.Width, h.m.vc.Height = w, ht
	_, cmd := h.m.Update(tea.WindowSizeMsg{Width: w, Height: ht})
	h.run(cmd)
}

// webWorkload is deployments/web: a Helm-managed Deployment with a
// container and a native sidecar.
func webWorkload() kube.Workload {
	return kube.Workload{
		Ref: webRef, UID: "u-1", ResourceVersion: "48213", Generation: 6,
		HasReplicas: true, Replicas: 3, HasPaused: true,
		Labels:      map[string]string{"app.kubernetes.io/managed-by": "Helm"},
		Annotations: map[string]string{"meta.helm.sh/release-name": "shop"},
		Containers: []kube.Container{{
			Name: "web", Role: kube.RoleContainer, Image: "registry.local:5000/shop/web:1.4.2",
			Command: []string{"/app/server"}, Args: []string{"--port=8080", "--log-format=json"},
			Env: []kube.EnvVar{
				{Name: "LOG_LEVEL", Source: kube.EnvLiteral, Value: "info"},
				{Name: "DB_PASS", Source: kube.EnvSecret, Ref: "db", Key: "password"},
				{Name: "POD_NAME", Source: kube.EnvField, FieldPath: "metadata.name"},
				{Name: "FLAGS", Source: kube.EnvConfigMap, Ref: "c1", Key: "k", Optional: true},
			},
			Resources: kube.Resources{CPURequest: "250m", CPULimit: "1", MemoryRequest: "256Mi", MemoryLimit: "512Mi"},
			EnvFrom:   []string{"configmap app-env"},
		}, {
			Name: "log-shipper", Role: kube.RoleSidecar, Image: "fluent/fluent-bit:3.1",
		}},
	}
}

// bigWorkload has 5 containers of 60 env entries each.
func bigWorkload() kube.Workload {
	w := kube.Workload{Ref: webRef, ResourceVersion: "7", HasReplicas: true, Replicas: 2, HasPaused: true}
	for c := range 5 {
		ct := kube.Container{Name: fmt.Sprintf("c%d", c), Role: kube.RoleContainer, Image: fmt.Sprintf("app%d:1", c),
			Resources: kube.Resources{CPURequest: "100m", MemoryLimit: "1Gi"}}
		for e := range 60 {
			ct.Env = append(ct.Env, kube.EnvVar{Name: fmt.Sprintf("VAR_%02d", e), Source: kube.EnvLiteral, Value: strings.Repeat("v", e%7+1)})
		}
		w.Containers = append(w.Containers, ct)
	}
	return w
}

// newFake serves the workloads in turn, their env entries numbered as
// kube's ReadWorkload numbers them (EnvVar.Read).
func newFake(ws ...kube.Workload) *fake {
	for _, w := range ws {
		numberEnv(w)
	}
	return &fake{reads: ws}
}

// numberEnv sets EnvVar.Read as a read does: 1 + the position.
func numberEnv(w kube.Workload) {
	for _, c := range w.Containers {
		for i := range c.Env {
			c.Env[i].Read = i + 1
		}
	}
}
