package workload

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/lipgloss"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

func TestFormGolden(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, newFake(webWorkload()), size[0], size[1])
		h.golden(sizeName("form", size))
	}
}

func sizeName(name string, size [2]int) string {
	return fmt.Sprintf("%s_%dx%d", name, size[0], size[1])
}

func TestBigFormScrolls(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, newFake(bigWorkload()), size[0], size[1])
		h.golden(sizeName("big", size))
		h.press("shift+tab") // wraps to the last field
		v := h.view()
		if !strings.Contains(v, "c4") && !strings.Contains(v, "memory") {
			t.Fatalf("the last field is not in sight:\n%s", v)
		}
		h.golden(sizeName("big_end", size))
		h.press("tab") // wraps to the first
		h.press("pgdown", "pgdown")
		if line := h.m.form.fields[h.m.focus].line; line < 2*(size[1]-3)-2 {
			t.Fatalf("two pages down is line %d", line)
		}
		h.press("pgup", "pgup")
		if line := h.m.form.fields[h.m.focus].line; line > 1 {
			t.Fatalf("two pages up is line %d", line)
		}
	}
}

func TestValidationBesideField(t *testing.T) {
	h := open(t, newFake(webWorkload()), 80, 24)
	h.focusOn(fkMemLimit, 0, 0)
	h.replace("128Mi")
	h.goldens("invalid_limit")
	if !strings.Contains(h.view(), "✗ limit below request") || !strings.Contains(h.view(), "fix 1 field first") {
		t.Fatalf("the reason is not beside the field:\n%s", h.view())
	}
	h.press("ctrl+s")
	if len(h.ed.dry) != 0 {
		t.Fatal("ctrl+s with an invalid field called DryRun")
	}
	if h.m.mode != modeForm || !strings.Contains(h.m.note, "fix 1 field first") {
		t.Fatalf("mode %v note %q", h.m.mode, h.m.note)
	}
}

func TestC27C28RefusedBesideField(t *testing.T) {
	h := open(t, newFake(webWorkload()), 120, 30)
	h.focusOn(fkImage, 0, 0)
	h.replace("app@342538af0d5ee0f7d5cd9a0b53a84ee4f8a4ec9ee60aeb0a3e3a8ad6a2f2bb6c")
	if !strings.Contains(h.view(), "✗ a digest names its algorithm") {
		t.Fatalf("no digest reason:\n%s", h.view())
	}
	h.replace("localhost:5000/team/app:v2")
	h.focusOn(fkCPURequest, 0, 0)
	h.replace("12 Mi")
	if !strings.Contains(h.view(), "✗ no spaces") {
		t.Fatalf("no quantity reason:\n%s", h.view())
	}
	h.press("ctrl+s")
	if len(h.ed.dry) != 0 {
		t.Fatal("a bad quantity was sent")
	}
	h.replace("300m")
	h.press("ctrl+s")
	if len(h.ed.dry) != 1 {
		t.Fatal("no dry run once valid")
	}
	after := h.ed.dry[0].after.Containers[0]
	if after.Image != "localhost:5000/team/app:v2" || after.Resources.CPURequest != "300m" {
		t.Fatalf("after = %+v", after)
	}
}

// edit makes the changes the preview tests use: image, LOG_LEVEL, a new env C.
func edit(h *harness) {
	h.focusOn(fkImage, 0, 0)
	h.replace("registry.local:5000/shop/web:1.5.0")
	h.focusOn(fkEnvValue, 0, 0)
	h.replace("debug")
	h.press("ctrl+n")
	h.typ("C")
	h.press("tab")
	h.typ("3")
}

func TestEditsReachDryRunAndApply(t *testing.T) {
	ed := newFake(webWorkload())
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s")
	if len(ed.dry) != 1 {
		t.Fatalf("%d dry runs", len(ed.dry))
	}
	before, after := ed.dry[0].before, ed.dry[0].after
	if before.ResourceVersion != "48213" {
		t.Fatalf("before rv %s", before.ResourceVersion)
	}
	c := after.Containers[0]
	var names []string
	for _, e := range c.Env {
		names = append(names, e.Name)
	}
	// C25: the new entry comes after the others, in their order.
	if got := strings.Join(names, ","); got != "LOG_LEVEL,DB_PASS,POD_NAME,FLAGS,C" {
		t.Fatalf("env order %s", got)
	}
	// C23: references stay references, byte for byte.
	for i := 1; i <= 3; i++ {
		if c.Env[i] != numbered(webWorkload()).Containers[0].Env[i] {
			t.Fatalf("env %d changed: %+v", i, c.Env[i])
		}
	}
	if c.Env[0].Value != "debug" || c.Env[4] != (kube.EnvVar{Name: "C", Source: kube.EnvLiteral, Value: "3"}) {
		t.Fatalf("env %+v", c.Env)
	}
	if c.Image != "registry.local:5000/shop/web:1.5.0" || after.Replicas != 3 {
		t.Fatalf("after %+v", after)
	}
	// Untouched lists are the same slices (C22/C26: the identity on what was not touched).
	if !slices.Equal(c.Args, webWorkload().Containers[0].Args) || after.Containers[1].Image != "fluent/fluent-bit:3.1" {
		t.Fatal("untouched fields changed")
	}
	h.ed.preview = kube.Preview{}
	h.press("enter")
	if len(ed.applies) != 1 || ed.applies[0].after.Containers[0].Image != c.Image {
		t.Fatalf("applies %+v", ed.applies)
	}
}

func helmPreview() kube.Preview {
	return kube.Preview{
		Changes: []kube.Change{
			{Container: "web", Field: "image", Before: "registry.local:5000/shop/web:1.4.2", After: "registry.local:5000/shop/web:1.5.0"},
			{Container: "web", Field: "env LOG_LEVEL", Before: "info", After: "debug"},
			{Container: "web", Field: "env C", After: "3"},
		},
		Patch:          `{"spec":{"template":{"spec":{"containers":[{"name":"web","image":"registry.local:5000/shop/web:1.5.0"}]}}}}`,
		DryRunWarnings: nil,
		Verdicts: kube.Verdicts{
			{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch deployments in demo"},
			{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged,
				Sentence: "managed by Helm (release shop): Helm may undo this on its next upgrade", Confirm: "web"},
			{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity,
				Sentence: "namespace demo enforces no Pod Security level"},
		},
	}
}

func TestPreviewConfirmations(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = helmPreview()
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s")
	h.goldens("preview_warn")
	if !h.m.Capturing() {
		t.Fatal("a confirmation is typed into, but the screen does not capture keys")
	}
	h.press("enter")
	if len(ed.applies) != 0 {
		t.Fatal("applied before the warnings were confirmed")
	}
	h.typ("we")
	h.press("enter")
	if len(ed.applies) != 0 {
		t.Fatal("applied with a half-typed name")
	}
	h.typ("b") // the name: the next warning takes a y
	h.typ("y")
	h.goldens("preview_confirmed")
	h.press("p")
	if !strings.Contains(h.view(), `"spec": {`) || !strings.Contains(strings.Join(h.m.previewLines(80), "\n"), `"image": "registry.local:5000/shop/web:1.5.0"`) {
		t.Fatalf("p does not show the patch:\n%s", h.view())
	}
	h.press("enter")
	if len(ed.applies) != 1 {
		t.Fatal("no apply")
	}
	if got := ed.applies[0].confirmed; !slices.Equal(got, []kube.Reason{kube.ReasonApplicationManaged, kube.ReasonPodSecurity}) {
		t.Fatalf("confirmed %v", got)
	}
}

func TestPreviewRefusalBlocks(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = helmPreview()
	ed.preview.Verdicts = append(ed.preview.Verdicts, kube.Verdict{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse,
		Reason: kube.ReasonForbidden, Sentence: "may not patch deployments in demo"})
	h := open(t, ed, 100, 24)
	edit(h)
	h.press("ctrl+s", "enter")
	if len(ed.applies) != 0 {
		t.Fatal("applied over a refusal")
	}
	if !strings.Contains(h.view(), "✗ may not patch deployments in demo (forbidden)") {
		t.Fatalf("no refusal shown:\n%s", h.view())
	}
}

func TestEscWithEditsAsks(t *testing.T) {
	h := open(t, newFake(webWorkload()), 80, 24)
	if !h.m.Capturing() || !h.m.CapturesBack() {
		t.Fatal("the form must capture keys and esc")
	}
	h.press("esc")
	if len(h.out) != 1 {
		t.Fatalf("esc without edits: %v", h.out)
	}
	h.out = nil
	h.focusOn(fkReplicas, -1, 0)
	h.replace("4")
	h.press("esc")
	if len(h.out) != 0 || !strings.Contains(h.view(), "discard your edits? y/n") {
		t.Fatalf("esc with edits did not ask:\n%s", h.view())
	}
	h.press("n")
	if h.m.asking || h.m.form.replicas != "4" {
		t.Fatal("n did not keep the edits")
	}
	h.press("esc", "y")
	if len(h.out) != 1 {
		t.Fatal("y did not leave")
	}
	if _, ok := h.out[0].(views.BackMsg); !ok {
		t.Fatalf("%T", h.out[0])
	}
}

func TestC34NothingChanged(t *testing.T) {
	ed := newFake(webWorkload())
	h := open(t, ed, 80, 24)
	h.focusOn(fkReplicas, -1, 0)
	h.replace("5")
	h.replace("3") // back to what was read
	h.press("ctrl+s")
	if len(ed.dry)+len(ed.applies) != 0 || !strings.Contains(h.m.note, "nothing changed") {
		t.Fatalf("dry %d applies %d note %q", len(ed.dry), len(ed.applies), h.m.note)
	}
}

func TestC33SecondApplyCarriesReturnedVersion(t *testing.T) {
	ed := newFake(webWorkload())
	ed.statuses = []kube.RolloutStatus{{Phase: kube.RolloutComplete, Desired: 3, Updated: 3, Ready: 3, Available: 3}}
	h := open(t, ed, 80, 24)
	h.focusOn(fkReplicas, -1, 0)
	h.replace("4")
	h.press("ctrl+s", "enter")
	if h.m.mode != modeRollout {
		t.Fatalf("mode %v after apply", h.m.mode)
	}
	h.press("e") // edit again
	h.focusOn(fkReplicas, -1, 0)
	h.replace("5")
	h.press("ctrl+s", "enter")
	if len(ed.applies) != 2 {
		t.Fatalf("%d applies", len(ed.applies))
	}
	if got := ed.applies[1].before.ResourceVersion; got != "48214" {
		t.Fatalf("second apply's before rv %s, want the first's result 48214", got)
	}
	if ed.applies[1].before.Replicas != 4 || ed.applies[1].after.Replicas != 5 {
		t.Fatalf("second apply %d -> %d", ed.applies[1].before.Replicas, ed.applies[1].after.Replicas)
	}
}

func TestC18C21ConflictThenReread(t *testing.T) {
	read := kube.Workload{Ref: webRef, ResourceVersion: "100", HasReplicas: true, Replicas: 3,
		Containers: []kube.Container{{Name: "app", Image: "app:1"}}}
	fresh := read
	fresh.ResourceVersion, fresh.Replicas = "101", 5
	ed := newFake(read, fresh)
	ed.applyErr = []error{&kube.Refusal{Reason: kube.ReasonConflict, Detail: "deployments/web changed: resourceVersion 100 is now 101"}}
	ed.preview = kube.Preview{Changes: []kube.Change{{Container: "app", Field: "image", Before: "app:1", After: "app:2"}},
		Verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch deployments in demo"}}}
	h := open(t, ed, 80, 24)
	h.focusOn(fkImage, 0, 0)
	h.replace("app:2")
	h.press("ctrl+s", "enter")
	h.goldens("conflict")
	if !strings.Contains(h.view(), "the object changed since you read it") {
		t.Fatal("no conflict sentence")
	}
	h.press("r")
	if h.m.mode != modeForm || h.m.form.base.ResourceVersion != "101" {
		t.Fatalf("mode %v base rv %s", h.m.mode, h.m.form.base.ResourceVersion)
	}
	h.press("ctrl+s")
	last := ed.dry[len(ed.dry)-1]
	if last.before.ResourceVersion != "101" || last.after.Replicas != 5 || last.after.Containers[0].Image != "app:2" {
		t.Fatalf("after re-read: before rv %s, after replicas %d image %s", last.before.ResourceVersion,
			last.after.Replicas, last.after.Containers[0].Image)
	}
}

func TestRereadUsesRebaseAndMarksClashes(t *testing.T) {
	saved := rebase
	defer func() { rebase = saved }()
	var got [3]kube.Workload
	rebase = func(base, edited, fresh kube.Workload) (kube.Workload, []kube.Change) {
		got = [3]kube.Workload{base, edited, fresh}
		merged := fresh
		merged.Containers = slices.Clone(fresh.Containers)
		merged.Containers[0].Image = edited.Containers[0].Image
		return merged, []kube.Change{{Container: "web", Field: "image"}}
	}
	fresh := webWorkload()
	fresh.ResourceVersion = "48220"
	fresh.Containers[0].Image = "registry.local:5000/shop/web:1.4.3"
	h := open(t, newFake(webWorkload(), fresh), 120, 30)
	h.focusOn(fkImage, 0, 0)
	h.replace("registry.local:5000/shop/web:9")
	h.press("ctrl+r")
	if got[0].ResourceVersion != "48213" || got[1].Containers[0].Image != "registry.local:5000/shop/web:9" || got[2].ResourceVersion != "48220" {
		t.Fatalf("rebase got %v", got)
	}
	if h.m.form.ctrs[0].image != "registry.local:5000/shop/web:9" {
		t.Fatal("the edit was lost")
	}
	if v := h.view(); !strings.Contains(v, "]!") || !strings.Contains(v, "changed on the server too") {
		t.Fatalf("clash not marked:\n%s", v)
	}
}

func TestC20RemoveSecondDuplicate(t *testing.T) {
	w := webWorkload()
	w.Containers[0].Env = []kube.EnvVar{
		{Name: "A", Source: kube.EnvLiteral, Value: "1"}, {Name: "N", Source: kube.EnvLiteral, Value: "x"},
		{Name: "T", Source: kube.EnvLiteral, Value: "t"}, {Name: "N", Source: kube.EnvLiteral, Value: "y"},
	}
	ed := newFake(w)
	h := open(t, ed, 120, 30)
	if h.m.form.errorCount() != 0 {
		t.Fatal("a duplicate the object had is refused")
	}
	h.focusOn(fkEnvName, 0, 3)
	h.press("ctrl+d", "ctrl+s")
	got := ed.dry[0].after.Containers[0].Env
	if len(got) != 3 || got[0].Name != "A" || got[1] != w.Containers[0].Env[1] || got[2].Name != "T" {
		t.Fatalf("env after removing the second N: %+v", got)
	}
	// A duplicate the person introduces is refused.
	h.press("esc")
	h.focusOn(fkEnvName, 0, 0)
	h.replace("T")
	if !strings.Contains(h.view(), "duplicate name T") {
		t.Fatalf("no duplicate reason:\n%s", h.view())
	}
}

func TestSwitchSourceAndArgs(t *testing.T) {
	ed := newFake(webWorkload())
	h := open(t, ed, 100, 30)
	h.focusOn(fkEnvValue, 0, 0)
	h.press("ctrl+t") // LOG_LEVEL: value -> secret
	h.typ("logs")
	h.press("tab")
	h.typ("level")
	h.focusOn(fkEnvRef, 0, 3) // FLAGS: configmap c1 -> c2 (C24)
	h.replace("c2")
	h.focusOn(fkArgs, 0, 0)
	h.press("ctrl+n")
	h.typ("--verbose")
	h.focusOn(fkCommand, 0, 0)
	h.press("ctrl+d")
	h.typ("/bin/app") // typing on the empty list starts it
	h.press("ctrl+s")
	c := ed.dry[0].after.Containers[0]
	if e := c.Env[0]; e.Source != kube.EnvSecret || e.Ref != "logs" || e.Key != "level" {
		t.Fatalf("LOG_LEVEL %+v", e)
	}
	if e := c.Env[3]; e.Ref != "c2" || e.Key != "k" || !e.Optional {
		t.Fatalf("FLAGS %+v", e)
	}
	if !slices.Equal(c.Args, []string{"--port=8080", "--verbose", "--log-format=json"}) || !slices.Equal(c.Command, []string{"/bin/app"}) {
		t.Fatalf("argv %q %q", c.Command, c.Args)
	}
}

func rolloutStatus(phase kube.RolloutPhase) kube.RolloutStatus {
	st := kube.RolloutStatus{Ref: webRef, Phase: phase, Desired: 3, Updated: 2, Ready: 2, Available: 2,
		NewRevision: "web-7c9d5", Revision: "7", OldRevisions: []string{"web-5f6b8"},
		Pods: []kube.RolloutPod{
			{Name: "web-7c9d5-x2k", Ready: "1/1", Status: "Running", New: true, PodReady: true},
			{Name: "web-7c9d5-p9q", Ready: "1/1", Status: "Running", New: true, PodReady: true},
			{Name: "web-7c9d5-zz1", Ready: "0/1", Status: "ContainerCreating", New: true},
			{Name: "web-5f6b8-aaa", Ready: "1/1", Status: "Terminating", Terminating: true},
		}}
	if phase == kube.RolloutFailed {
		st.Pods[2].Status = "ImagePullBackOff"
		st.Message = `pod web-7c9d5-zz1: Back-off pulling image "registry.local:5000/shop/web:1.5.0"`
	}
	return st
}

func TestRolloutAndUndo(t *testing.T) {
	ed := newFake(webWorkload())
	ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutProgressing), rolloutStatus(kube.RolloutFailed),
		rolloutStatus(kube.RolloutProgressing)}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s", "enter")
	h.clock = h.clock.Add(12 * time.Second)
	h.goldens("rollout_progressing")
	if h.polls != 1 {
		t.Fatalf("%d polls armed", h.polls)
	}
	h.press("u")
	if len(ed.applies) != 1 {
		t.Fatal("u undid a rollout that had not failed")
	}
	h.poll()
	h.goldens("rollout_failed")
	h.press("u")
	if len(ed.applies) != 2 {
		t.Fatal("no undo")
	}
	undo := ed.applies[1]
	if undo.before.ResourceVersion != "48214" {
		t.Fatalf("undo's before rv %s", undo.before.ResourceVersion)
	}
	if undo.after.Containers[0].Image != "registry.local:5000/shop/web:1.4.2" ||
		!slices.Equal(undo.after.Containers[0].Env, numbered(webWorkload()).Containers[0].Env) {
		t.Fatalf("undo after %+v", undo.after.Containers[0])
	}
	h.press("esc")
	if len(h.out) != 2 {
		t.Fatalf("esc: %v", h.out)
	}
}

// TestRolloutOnDeleteIsNotFollowed: a StatefulSet or DaemonSet with
// updateStrategy OnDelete has no rollout to wait for: polling stops and
// the status line says why.
func TestRolloutOnDeleteIsNotFollowed(t *testing.T) {
	ed := newFake(webWorkload())
	st := rolloutStatus(kube.RolloutProgressing)
	st.Phase = kube.RolloutUnfollowed
	ed.statuses = []kube.RolloutStatus{st}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s", "enter")
	polls := h.polls
	h.poll()
	if !h.m.ro.f.Done || h.polls != polls {
		t.Fatal("an OnDelete rollout is still polled")
	}
	if s := h.m.rolloutSummary(); !strings.Contains(s, "OnDelete") {
		t.Fatalf("summary %q", s)
	}
}

func TestRolloutDeadline(t *testing.T) {
	ed := newFake(webWorkload())
	ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutProgressing)}
	h := open(t, ed, 80, 24)
	h.focusOn(fkReplicas, -1, 0)
	h.replace("4")
	h.press("ctrl+s", "enter")
	h.clock = h.clock.Add(DefaultRolloutDeadline)
	h.poll()
	if !h.m.ro.f.TimedOut || !strings.Contains(h.view(), "rollout_timeout") {
		t.Fatalf("no timeout:\n%s", h.view())
	}
	polls := h.polls
	h.poll()
	if h.polls != polls {
		t.Fatal("still polling after the deadline")
	}
}

func TestReadFailure(t *testing.T) {
	ed := newFake(webWorkload())
	ed.readErr = &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "may not get deployments in demo"}
	h := open(t, ed, 80, 24)
	if !strings.Contains(h.view(), "forbidden: your account may not") {
		t.Fatalf("%s", h.view())
	}
	ed.readErr = nil
	h.press("ctrl+r")
	if h.m.mode != modeForm {
		t.Fatal("ctrl+r did not read again")
	}
}

func TestOtherShapesGolden(t *testing.T) {
	w := kube.Workload{
		Ref: kube.WorkloadRef{Kind: kube.KindStatefulSets, Namespace: "demo", Name: "db"}, ResourceVersion: "900",
		HasReplicas: true, Replicas: 3, Autoscaler: "db-hpa",
		Annotations: map[string]string{"argocd.argoproj.io/tracking-id": "shop:apps/StatefulSet:demo/db"},
		Containers: []kube.Container{
			{Name: "migrate", Role: kube.RoleInit, Image: "db-migrate:2", Args: []string{"--sql", "SELECT 1;\nSELECT 2;"}},
			{Name: "db", Role: kube.RoleContainer, Image: "postgres:17",
				Env: []kube.EnvVar{
					{Name: "PEM", Source: kube.EnvLiteral, Value: "-----BEGIN-----\nabc\n-----END-----"},
					{Name: "INDEX", Source: kube.EnvField, FieldPath: "metadata.labels['apps.kubernetes.io/pod-index']"},
					{Name: "MEM_MB", Source: kube.EnvResource, Resource: "limits.memory", Divisor: "1Mi"},
				},
				OtherResources: []string{"limits nvidia.com/gpu=1"}},
			{Name: "extra", Role: kube.RoleContainer, ReadOnly: true, Image: "busybox"},
		},
		Unsupported: []kube.Unsupported{
			{Code: kube.UnsupportedContainersTruncated, Detail: "17 containers; the form edits the first 16"},
			{Code: kube.UnsupportedEnvTruncated, Container: "db", Detail: "env has 300 entries; the form shows 256"},
		},
	}
	ed := newFake(w)
	h := open(t, ed, 100, 30)
	h.golden("shapes_100x30")
	// The entries that cannot be edited are kept as they were.
	h.focusOn(fkImage, 1, 0)
	h.replace("postgres:18")
	h.press("ctrl+s")
	after := ed.dry[0].after
	if !slices.Equal(after.Containers[0].Args, w.Containers[0].Args) || !slices.Equal(after.Containers[1].Env, w.Containers[1].Env) {
		t.Fatalf("read-only entries changed: %+v", after.Containers[:2])
	}
}

func numbered(w kube.Workload) kube.Workload {
	numberEnv(w)
	return w
}

func TestConflictClashKeepsYours(t *testing.T) {
	read := kube.Workload{Ref: webRef, ResourceVersion: "100", HasReplicas: true, Replicas: 3,
		Containers: []kube.Container{{Name: "app", Image: "app:1", Env: []kube.EnvVar{{Name: "A", Source: kube.EnvLiteral, Value: "1"}}}}}
	fresh := read
	fresh.ResourceVersion = "101"
	fresh.Containers = []kube.Container{{Name: "app", Image: "app:3", Env: []kube.EnvVar{{Name: "A", Source: kube.EnvLiteral, Value: "1"}}}}
	ed := newFake(read, fresh)
	ed.applyErr = []error{&kube.Refusal{Reason: kube.ReasonConflict}}
	h := open(t, ed, 120, 16)
	h.focusOn(fkImage, 0, 0)
	h.replace("app:2")
	h.focusOn(fkEnvValue, 0, 0)
	h.replace("2")
	h.press("ctrl+s", "enter", "r")
	h.golden("clash_120x16")
	if v := h.view(); !strings.Contains(v, "]!") || !strings.Contains(v, "! server changed it to app:3; yours kept") {
		t.Fatalf("clash not shown:\n%s", v)
	}
	h.press("ctrl+s")
	last := ed.dry[len(ed.dry)-1]
	if last.before.ResourceVersion != "101" || last.after.Containers[0].Image != "app:2" || last.after.Containers[0].Env[0].Value != "2" {
		t.Fatalf("after the re-read: %+v", last)
	}
}

// *kube.Client is an Editor that finds owners.
var (
	_ Editor = (*kube.Client)(nil)
	_ Owners = (*kube.Client)(nil)
)

// editorOnly hides the fake's WorkloadOf.
type editorOnly struct{ Editor }

func TestPodOpensItsOwner(t *testing.T) {
	pod := kube.WorkloadRef{Kind: "pods", Namespace: "demo", Name: "web-7d9f-abcde"}
	ed := newFake(webWorkload())
	h := openAs(t, ed, ed, pod, 80, 24)
	if got := h.m.Title(); got != "deployments/web (demo) · edit" {
		t.Fatalf("title %q", got)
	}
	h = openAs(t, ed, ed, kube.WorkloadRef{Kind: "pods", Namespace: "demo", Name: "orphan"}, 100, 24)
	if v := h.view(); !strings.Contains(v, "cannot edit pods/orphan: it is not managed by a Deployment, StatefulSet or DaemonSet") || strings.Contains(v, "cannot read") {
		t.Fatalf("no reason:\n%s", v)
	}
	h = openAs(t, ed, editorOnly{ed}, pod, 120, 24)
	if v := h.view(); !strings.Contains(v, "cannot edit pods/web-7d9f-abcde:") || !strings.Contains(v, "pods are edited through the Deployment, StatefulSet or DaemonSet that owns them") {
		t.Fatalf("no reason:\n%s", v)
	}
}

// TestEditIsTheKindsCapability: the form edits the object itself when its
// kind's plugin declares kube.CanEdit (ActionEdit), whatever the kind's
// name, and otherwise asks for its owner: without an Owners it says the
// kind is edited through its owner and reads nothing.
func TestEditIsTheKindsCapability(t *testing.T) {
	for _, c := range []struct {
		kind kube.KindInfo
		edit bool
	}{
		{kindInfo(t, kube.KindDeployments), true},
		{kindInfo(t, kube.KindDaemonSets), true},
		{kindInfo(t, kube.KindPods), false},
		{kube.KindInfo{ID: "rollouts", Capabilities: kube.CanEdit}, true},
		{kube.KindInfo{ID: kube.KindStatefulSets, Capabilities: kube.CanScale}, false},
	} {
		t.Run(string(c.kind.ID)+"/"+c.kind.Capabilities.String(), func(t *testing.T) {
			ed := newFake(webWorkload())
			ref := kube.WorkloadRef{Kind: c.kind.ID, Namespace: "demo", Name: "web"}
			h := openKind(t, ed, editorOnly{ed}, c.kind, ref, 120, 24)
			v := h.view()
			refused := strings.Contains(v, string(c.kind.ID)+" are edited through the Deployment, StatefulSet or DaemonSet that owns them")
			if read := ed.readN > 0; read != c.edit || refused == c.edit || h.m.mode == modeForm != c.edit {
				t.Fatalf("read %v, refused %v, form open %v; want the form to edit it: %v\n%s", read, refused, h.m.mode == modeForm, c.edit, v)
			}
		})
	}
}

func TestSourceSwitchSendsOnlyItsFields(t *testing.T) {
	ed := newFake(webWorkload())
	h := open(t, ed, 100, 30)
	h.focusOn(fkEnvValue, 0, 0)
	h.press("ctrl+t") // value -> secret: the value is not sent
	h.typ("s")
	h.press("tab")
	h.typ("k")
	h.press("ctrl+s")
	if e := ed.dry[0].after.Containers[0].Env[0]; e.Value != "" || e.Ref != "s" || e.Key != "k" {
		t.Fatalf("secret entry %+v", e)
	}
	h.press("esc")
	h.focusOn(fkEnvRef, 0, 0)
	h.press("ctrl+t", "ctrl+t", "ctrl+t", "ctrl+t") // -> configmap -> field -> resource -> value again: back to what was read
	if n := h.m.form.changeCount(); n != 0 {
		t.Fatalf("%d changes after switching back", n)
	}
	h.press("ctrl+s")
	if len(ed.dry) != 1 || !strings.Contains(h.m.note, "nothing changed") {
		t.Fatalf("switching back is a change: %d dry runs, note %q", len(ed.dry), h.m.note)
	}
}

func TestLongPreviewScrolls(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = helmPreview()
	ed.preview.Verdicts = ed.preview.Verdicts[:1]
	for i := range 30 {
		ed.preview.DryRunWarnings = append(ed.preview.DryRunWarnings, fmt.Sprintf("warning %d", i))
	}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s")
	if v := h.view(); !strings.Contains(v, "more lines (↓/pgdn)") || strings.Contains(v, "warning 29") {
		t.Fatalf("no scroll hint:\n%s", v)
	}
	h.press("pgdown", "pgdown")
	if v := h.view(); !strings.Contains(v, "warning 29") || !strings.Contains(v, "may patch deployments") {
		t.Fatalf("pgdown does not reach the end:\n%s", v)
	}
}

func TestDaemonSetHasNoScaleLine(t *testing.T) {
	w := kube.Workload{Ref: kube.WorkloadRef{Kind: kube.KindDaemonSets, Namespace: "demo", Name: "agent"}, ResourceVersion: "5",
		Containers: []kube.Container{{Name: "agent", Image: "agent:1"}}}
	ed := newFake(w)
	h := openAs(t, ed, ed, w.Ref, 80, 12)
	v := h.view()
	if strings.Contains(v, "replicas") || strings.Contains(v, "paused") || !strings.Contains(v, ">image") {
		t.Fatalf("a DaemonSet's form:\n%s", v)
	}
	h.replace("agent:2")
	h.press("ctrl+s")
	if a := ed.dry[0].after; a.HasReplicas || a.Replicas != 0 || a.Containers[0].Image != "agent:2" {
		t.Fatalf("after %+v", a)
	}
}

// TestConflictEnvClashKeepsYours: after a conflict, r keeps the env value
// the person typed, like the image, and shows the server's value beside it
// whole, however long (the form report's item 2).
func TestConflictEnvClashKeepsYours(t *testing.T) {
	env := func(v string) []kube.EnvVar { return []kube.EnvVar{{Name: "MODE", Source: kube.EnvLiteral, Value: v}} }
	read := kube.Workload{Ref: webRef, ResourceVersion: "100", HasReplicas: true, Replicas: 3,
		Containers: []kube.Container{{Name: "app", Image: "app:1", Env: env("k1")}}}
	long := "k2-" + strings.Repeat("server", 30) + "-END"
	fresh := read
	fresh.ResourceVersion = "101"
	fresh.Containers = []kube.Container{{Name: "app", Image: "k2", Env: env(long)}}
	ed := newFake(read, fresh)
	ed.applyErr = []error{&kube.Refusal{Reason: kube.ReasonConflict}}
	h := open(t, ed, 120, 24)
	h.focusOn(fkImage, 0, 0)
	h.replace("app:v3")
	h.focusOn(fkEnvValue, 0, 0)
	h.replace("formvalue")
	h.press("ctrl+s", "enter", "r")
	if got := h.m.form.ctrs[0].env[0].Value; got != "formvalue" {
		t.Fatalf("the typed env value was replaced by %q", got)
	}
	v := h.view()
	if !strings.Contains(v, "[formvalue") || !strings.Contains(strings.Join(strings.Fields(v), ""), "serverchangedittok2-"+strings.Repeat("server", 30)+"-END;yourskept") {
		t.Fatalf("the env clash is not shown whole:\n%s", v)
	}
	if !strings.Contains(v, "server changed it to k2; yours kept") {
		t.Fatalf("the image clash is not shown:\n%s", v)
	}
	h.press("ctrl+s")
	last := ed.dry[len(ed.dry)-1]
	if last.before.ResourceVersion != "101" || last.after.Containers[0].Image != "app:v3" || last.after.Containers[0].Env[0].Value != "formvalue" {
		t.Fatalf("after the re-read: %+v", last.after.Containers[0])
	}
}

// TestScrollsPastLastField: the read-only lines below the last field (the
// containers past the form's bound, the notices) can be scrolled into
// view with down and pgdn (the form report's item 3).
func TestScrollsPastLastField(t *testing.T) {
	w := kube.Workload{Ref: webRef, ResourceVersion: "1", HasReplicas: true, Replicas: 1}
	for i := range 20 {
		w.Containers = append(w.Containers, kube.Container{Name: fmt.Sprintf("c%d", i), Image: fmt.Sprintf("img%d:1", i), ReadOnly: i >= kube.MaxFormContainers})
	}
	w.Unsupported = []kube.Unsupported{{Code: kube.UnsupportedContainersTruncated, Detail: "20 containers; the form edits the first 16"}}
	h := open(t, newFake(w), 80, 24)
	h.press("shift+tab")
	for range 3 {
		h.press("pgdown")
	}
	v := h.view()
	if !strings.Contains(v, "img19:1") || !strings.Contains(v, "20 containers; the form edits the first 16") {
		t.Fatalf("the end of the form is not in sight:\n%s", v)
	}
	h.press("up")
	if v := h.view(); !strings.Contains(v, ">") {
		t.Fatalf("up does not bring the cursor back:\n%s", v)
	}
}

// TestBoundedListsReadOnly: a container whose env (env_truncated) or argv
// (argv_truncated) is longer than the form shows has those lists shown
// read-only, the reason beside them; kube would refuse an edit to them
// (configuration_unreported), so the form does not invite one (the form
// report's item 4).
func TestBoundedListsReadOnly(t *testing.T) {
	w := kube.Workload{Ref: webRef, ResourceVersion: "1", HasReplicas: true, Replicas: 1,
		Containers: []kube.Container{{Name: "app", Image: "app:1", Args: []string{"--a", "--b"}}},
		Unsupported: []kube.Unsupported{
			{Code: kube.UnsupportedEnvTruncated, Container: "app", Detail: "env has 303 entries; the form shows the first 256 and will not change env"},
			{Code: kube.UnsupportedArgvTruncated, Container: "app", Detail: "args has 300 entries; the form shows the first 256 and will not change args"},
		}}
	for i := range 5 {
		w.Containers[0].Env = append(w.Containers[0].Env, kube.EnvVar{Name: fmt.Sprintf("V%d", i), Source: kube.EnvLiteral, Value: "x"})
	}
	ed := newFake(w)
	h := open(t, ed, 120, 30)
	for _, fd := range h.m.form.fields {
		switch fd.kind {
		case fkEnvName, fkEnvValue, fkEnvRef, fkEnvKey, fkEnvOptional, fkNoEnv, fkArgs, fkNoArgs, fkCommand, fkNoCommand:
			t.Fatalf("field %d of a bounded list is editable", fd.kind)
		}
	}
	v := h.view()
	lines := strings.Split(v, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "VALUE / SOURCE") })
	if at < 0 || !strings.Contains(lines[at+1], "read-only: env has 303 entries; the form shows the first 256 and will not change env") ||
		!strings.Contains(lines[at+2], "V0") || !strings.Contains(v, "read-only: args has 300 entries") || !strings.Contains(v, "--b") {
		t.Fatalf("the bounded lists and their reason:\n%s", v)
	}
	h.focusOn(fkImage, 0, 0)
	h.press("ctrl+n", "ctrl+d")
	if len(h.m.form.ctrs[0].env) != 5 || len(h.m.form.ctrs[0].args) != 2 {
		t.Fatal("ctrl+n or ctrl+d changed a bounded list")
	}
	h.replace("app:2")
	h.press("ctrl+s")
	if a := ed.dry[0].after.Containers[0]; !slices.Equal(a.Env, w.Containers[0].Env) || !slices.Equal(a.Args, w.Containers[0].Args) || a.Image != "app:2" {
		t.Fatalf("after %+v", a)
	}
}

// TestPatchBodyExact: the patch body is shown indented by encoding/json's
// Indent and never broken inside a line: a line wider than the screen is
// cut with … and ←/→ scroll it; a long change value is broken at the
// width with nothing added (the form report's item 5).
func TestPatchBodyExact(t *testing.T) {
	long := strings.Repeat("abcdefghij", 30)
	ed := newFake(webWorkload())
	ed.preview = kube.Preview{
		Changes: []kube.Change{{Container: "web", Field: "env MODE2 (was MODE)", Before: "k2", After: long}},
		Patch:   `{"spec":{"template":{"spec":{"containers":[{"name":"web","command":["/bin/app"],"env":[{"name":"MODE2","value":"` + long + `"},{"$patch":"delete","name":"MODE"}]}]}}}}`,
	}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s", "p")
	var want bytes.Buffer
	if err := json.Indent(&want, []byte(ed.preview.Patch), "", "  "); err != nil {
		t.Fatal(err)
	}
	body := strings.Join(h.m.previewLines(80), "\n")
	for _, l := range strings.Split(want.String(), "\n") {
		shown := "   " + l
		if len(shown) > 80 {
			shown = shown[:79] + "…"
		}
		if !strings.Contains(body, shown+"\n") && !strings.HasSuffix(body, shown) {
			t.Fatalf("patch line %q is not shown as it is:\n%s", shown, body)
		}
	}
	// The long value of the change is broken at the width, nothing added.
	lines := strings.Split(body, "\n")
	at := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "   → ") })
	var got string
	for _, l := range lines[at:] {
		if !strings.HasPrefix(l, "     ") && !strings.HasPrefix(l, "   → ") {
			break
		}
		got += l[len("     "):]
		if strings.HasPrefix(l, "   → ") {
			got = l[len("   → "):]
		}
	}
	if got != long {
		t.Fatalf("the change's value reads %q", got)
	}
	h.press("right")
	body = strings.Join(h.m.previewLines(80), "\n")
	var valueLine string
	for _, l := range strings.Split(want.String(), "\n") {
		if strings.Contains(l, long) {
			valueLine = l
		}
	}
	if !strings.Contains(body, "   …"+valueLine[20:][:75]+"…") {
		t.Fatalf("→ does not scroll the patch:\n%s", body)
	}
}

// TestFullReasonShown: the focused field's reason is shown whole on lines
// of its own, however narrow the screen, and a refused ctrl+s names the
// first invalid field and its reason (the form report's item 7).
func TestFullReasonShown(t *testing.T) {
	bad := "app@342538af0d5ee0f7d5cd9a0b53a84ee4f8a4ec9ee60aeb0a3e3a8ad6a2f2bb6c"
	reason := kube.ValidateImage(bad).Error()
	if len(reason) < 40 {
		t.Fatalf("reason %q is too short to prove anything", reason)
	}
	h := open(t, newFake(webWorkload()), 80, 24)
	h.focusOn(fkImage, 0, 0)
	h.replace(bad)
	flat := func(v string) string { return strings.Join(strings.Fields(v), " ") }
	if v := h.view(); !strings.Contains(flat(v), flat("✗ container web image: "+reason)) {
		t.Fatalf("the reason %q is not shown whole:\n%s", reason, v)
	}
	h.focusOn(fkReplicas, -1, 0)
	h.press("ctrl+s")
	if v := h.view(); !strings.Contains(flat(v), flat("fix 1 field first: nothing is sent; container web image: "+reason)) {
		t.Fatalf("ctrl+s does not name the invalid field:\n%s", v)
	}
}

// TestUndoDoesNotPause: u after a failed rollout writes back the template
// fields and replicas the apply changed, but never pauses the Deployment
// again (it would not roll the undo out), and says so (the form report's
// item 8).
func TestUndoDoesNotPause(t *testing.T) {
	w := webWorkload()
	w.Paused = true
	ed := newFake(w)
	ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutFailed)}
	h := open(t, ed, 120, 30)
	h.focusOn(fkPaused, -1, 0)
	h.press("space")
	h.focusOn(fkReplicas, -1, 0)
	h.replace("5")
	h.focusOn(fkImage, 0, 0)
	h.replace("unpullable.invalid/web:2")
	h.press("ctrl+s", "enter")
	if h.m.ro == nil || !h.m.ro.failed() {
		t.Fatalf("the rollout did not fail: mode %v note %q", h.m.mode, h.m.note)
	}
	if v := h.view(); !strings.Contains(strings.Join(strings.Fields(v), " "), "paused is left as it is") {
		t.Fatalf("the page does not say what u writes back:\n%s", v)
	}
	h.press("u")
	if len(ed.applies) != 2 {
		t.Fatal("no undo")
	}
	undo := ed.applies[1]
	if undo.after.Paused || undo.after.Replicas != 3 || undo.after.Containers[0].Image != w.Containers[0].Image {
		t.Fatalf("undo writes paused %v replicas %d image %s", undo.after.Paused, undo.after.Replicas, undo.after.Containers[0].Image)
	}
}

// TestEditAgainReadsFresh: e on the rollout page opens the form on the
// workload read again, not on what the apply returned (the HPA deleted
// since is gone; the form report's item 9).
func TestEditAgainReadsFresh(t *testing.T) {
	w := webWorkload()
	w.Autoscaler = "web"
	fresh := webWorkload()
	fresh.ResourceVersion = "48300"
	ed := newFake(w, fresh)
	ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutComplete)}
	h := open(t, ed, 120, 30)
	h.focusOn(fkImage, 0, 0)
	h.replace("web:2")
	h.press("ctrl+s", "enter")
	if h.m.mode != modeRollout {
		t.Fatalf("mode %v", h.m.mode)
	}
	h.press("e")
	if h.m.mode != modeForm || ed.readN != 2 {
		t.Fatalf("mode %v after %d reads", h.m.mode, ed.readN)
	}
	if v := h.view(); !strings.Contains(v, "rv 48300 · HPA: none") || strings.Contains(v, "the HPA web sets replicas") {
		t.Fatalf("the form is not the fresh read:\n%s", v)
	}
}

// TestFocusedCheckboxHighlighted: a focused checkbox is drawn in the
// selection style, an unfocused one is not (the form report's item 11).
func TestFocusedCheckboxHighlighted(t *testing.T) {
	h := open(t, newFake(webWorkload()), 120, 30)
	h.m.vc.Styles.Selected = lipgloss.NewStyle().Transform(func(s string) string { return "<" + s + ">" })
	h.focusOn(fkPaused, -1, 0)
	if v := h.view(); !strings.Contains(v, "paused <[ ]>") || strings.Contains(v, "<[x]>") {
		t.Fatalf("the focused paused box is not highlighted alone:\n%s", v)
	}
	h.focusOn(fkEnvOptional, 0, 3)
	if v := h.view(); !strings.Contains(v, "opt <[x]>") || strings.Contains(v, "paused <[") {
		t.Fatalf("the focused opt box is not highlighted alone:\n%s", v)
	}
}

// TestDryRunNotSentWording: when kyyard itself refused (read-only, strict,
// the access review), the dry run was never sent: the preview says "not
// sent: <reason>", not that the API server refused it (the form report's
// item 13).
func TestDryRunNotSentWording(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = kube.Preview{
		Changes:      []kube.Change{{Field: "replicas", Before: "3", After: "4"}},
		DryRunError:  "not sent: " + kube.ReasonReadOnly.Sentence(),
		DryRunReason: kube.ReasonReadOnly,
		Verdicts: kube.Verdicts{{Guard: kube.GuardReadOnly, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonReadOnly,
			Sentence: kube.ReasonReadOnly.Sentence()}},
	}
	h := open(t, ed, 120, 24)
	h.focusOn(fkReplicas, -1, 0)
	h.replace("4")
	h.press("ctrl+s", "enter")
	v := h.view()
	if !strings.Contains(v, "server dry run  not sent: kyyard runs read-only") || strings.Contains(v, "✗ refused (read_only)") ||
		strings.Contains(v, "the API server refused") {
		t.Fatalf("a local refusal is worded as the server's:\n%s", v)
	}
	if len(ed.applies) != 0 {
		t.Fatal("applied over a refusal")
	}
}

// TestPatchKeys: p and ctrl+p both show the patch body; while a
// confirmation is typed into, p is a letter and ctrl+p still works, as
// the footer and README say (the form report's item 12).
func TestPatchKeys(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = helmPreview()
	h := open(t, ed, 120, 40)
	edit(h)
	h.press("ctrl+s")
	if !h.m.pv.typing() || !strings.Contains(h.view(), "ctrl+p patch body") {
		t.Fatalf("footer:\n%s", h.view())
	}
	h.press("p")
	if h.m.pv.patch || h.m.pv.confirm.Typed(h.m.pv.confirm.Focus()) != "p" {
		t.Fatal("p does not type into the confirmation")
	}
	h.press("ctrl+p")
	if !h.m.pv.patch {
		t.Fatal("ctrl+p does not show the patch while confirming")
	}
	h.press("ctrl+p", "backspace")
	h.typ("web")
	h.typ("y")
	h.press("p")
	if !h.m.pv.patch || !strings.Contains(h.view(), "p patch body") {
		t.Fatalf("p does not show the patch once confirmed:\n%s", h.view())
	}
	h.press("ctrl+p")
	if h.m.pv.patch {
		t.Fatal("ctrl+p does not hide the patch")
	}
}

// TestRolloutOfARecreatedWorkload: the form's rollout follows the workload
// written (its UID): a reading of another UID, or a Missing one, ends it
// with what happened, in the error style, and u offers no undo.
func TestRolloutOfARecreatedWorkload(t *testing.T) {
	for _, tc := range []struct {
		name string
		st   kube.RolloutStatus
		want string
	}{
		{"recreated", func() kube.RolloutStatus {
			st := rolloutStatus(kube.RolloutFailed)
			st.UID = "u-2"
			return st
		}(), "deployments/web was deleted and created again (new UID); the rollout followed is gone"},
		{"deleted", kube.RolloutStatus{Ref: webRef, Missing: true}, "deployments/web was deleted"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ed := newFake(webWorkload())
			ed.statuses = []kube.RolloutStatus{tc.st}
			h := open(t, ed, 120, 30)
			h.focusOn(fkReplicas, -1, 0)
			h.replace("5")
			h.press("ctrl+s", "enter")
			if h.m.ro == nil || !h.m.ro.f.Done || !h.m.ro.f.Gone() {
				t.Fatalf("the rollout did not end: mode %v note %q", h.m.mode, h.m.note)
			}
			if v := h.view(); strings.Contains(v, "u undo") {
				t.Fatalf("undo offered for a workload that is gone:\n%s", v)
			}
			h.press("u")
			if len(ed.applies) != 1 {
				t.Fatal("u wrote to a workload that is gone")
			}
			h.press("esc")
			var got *views.StatusMsg
			for _, m := range h.out {
				if m, ok := m.(views.StatusMsg); ok {
					got = &m
				}
			}
			if got == nil || got.Text != tc.want || !got.Error {
				t.Fatalf("status line %+v, want the error %q", got, tc.want)
			}
		})
	}
}

// TestUndoAfterConflictReadsAgain: an undo refused because another writer
// changed the workload since the apply (the tester's trial: kubectl set env
// and scale in between) is not sent again as it was: u reads the workload
// again and lays the undo onto it, keeping the other writer's env and
// replicas. When the other writer changed a field the undo writes back
// (the image), nothing is sent and the page names the field.
func TestUndoAfterConflictReadsAgain(t *testing.T) {
	for _, tc := range []struct {
		name       string
		otherImage string
	}{{"other fields", ""}, {"the same field", "web:hotfix"}} {
		t.Run(tc.name, func(t *testing.T) {
			w := webWorkload()
			ed := newFake(w)
			ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutFailed)}
			conflict := &kube.Refusal{Reason: kube.ReasonConflict, Detail: "the object changed since it was read"}
			ed.applyErr = []error{nil, conflict}
			h := open(t, ed, 160, 40)
			h.focusOn(fkImage, 0, 0)
			h.replace("unpullable.invalid/web:2")
			h.press("ctrl+s", "enter")
			if h.m.ro == nil || !h.m.ro.failed() {
				t.Fatalf("the rollout did not fail: mode %v note %q", h.m.mode, h.m.note)
			}
			// Another writer, after the apply: env and replicas (and maybe the image).
			other := ed.reads[len(ed.reads)-1]
			other.Containers = slices.Clone(other.Containers)
			other.Containers[0].Env = slices.Clone(other.Containers[0].Env)
			other.Containers[0].Env[0].Value = "warn"
			if tc.otherImage != "" {
				other.Containers[0].Image = tc.otherImage
			}
			other.Replicas, other.ResourceVersion = 6, "50000"
			ed.reads = append(slices.Clone(ed.reads[:ed.readN]), other) // the next read's answer
			h.press("u")
			if len(ed.applies) != 2 || !strings.Contains(h.view(), "undo refused") || !strings.Contains(h.view(), "u reads it again") {
				t.Fatalf("after the refused undo (%d writes):\n%s", len(ed.applies), h.view())
			}
			reads := ed.readN
			h.press("u")
			if ed.readN != reads+1 {
				t.Fatalf("u after the conflict did not read again (%d reads)", ed.readN)
			}
			if tc.otherImage != "" {
				if len(ed.applies) != 2 || !strings.Contains(strings.Join(strings.Fields(h.view()), " "), "web image changed on the server too") {
					t.Fatalf("a clash on the image was sent (%d writes) or not named:\n%s", len(ed.applies), h.view())
				}
				last := h.reported[len(h.reported)-1]
				if last.Op.Action != kube.ActionUndo || last.Reason != kube.ReasonConflict || !strings.Contains(last.Detail, "not sent") {
					t.Fatalf("the refusal's history entry: %+v", last)
				}
				return
			}
			if len(ed.applies) != 3 {
				t.Fatalf("no undo after reading again (%d writes):\n%s", len(ed.applies), h.view())
			}
			undo := ed.applies[2]
			c := undo.after.Containers[0]
			if undo.before.ResourceVersion != "50000" || c.Image != w.Containers[0].Image || c.Env[0].Value != "warn" || undo.after.Replicas != 6 {
				t.Fatalf("the undo laid onto the fresh read: rv %s image %s LOG_LEVEL %s replicas %d",
					undo.before.ResourceVersion, c.Image, c.Env[0].Value, undo.after.Replicas)
			}
		})
	}
}

// TestHintOnlyWhileCapturing: the root's bottom line is replaced
// (views.Hinter) exactly while the screen takes ?, : and q as text: on
// the form and while a confirmation is typed in the preview.
func TestHintOnlyWhileCapturing(t *testing.T) {
	ed := newFake(webWorkload())
	ed.preview = helmPreview()
	h := open(t, ed, 80, 24)
	var hinter views.Hinter = h.m
	if hint := hinter.Hint(); !h.m.Capturing() || hint != "ctrl+s preview · esc back · ctrl+c quit" {
		t.Fatalf("form: capturing %v, hint %q", h.m.Capturing(), hint)
	}
	edit(h)
	h.press("ctrl+s")
	if !h.m.Capturing() || !strings.Contains(h.m.Hint(), "esc back to the form · ctrl+c quit") || strings.Contains(h.m.Hint(), "?") {
		t.Fatalf("preview while confirming: capturing %v, hint %q", h.m.Capturing(), h.m.Hint())
	}
}

// TestPastedTextChangesAreSaid: a paste with a right-to-left override, ESC
// and BEL and a line break (the tester's trial) does not reach the field
// as it came, and the form says what it changed; the override is dropped,
// so the terminal never receives it.
func TestPastedTextChangesAreSaid(t *testing.T) {
	h := open(t, newFake(webWorkload()), 120, 30)
	h.focusOn(fkImage, 0, 0)
	h.replace("")
	h.paste("web\u202e:2\nx\x1b]52;c\a")
	v := h.m.form.fields[h.m.focus].in.Value()
	if strings.ContainsRune(v, '\u202e') || strings.ContainsRune(v, '\x1b') || strings.ContainsRune(v, '\a') || strings.ContainsRune(v, '\n') {
		t.Fatalf("the field holds %q", v)
	}
	for _, want := range []string{"1 bidirectional control character dropped", "2 control characters dropped", "line breaks and tabs made spaces"} {
		if !strings.Contains(h.m.note, want) {
			t.Fatalf("note %q lacks %q", h.m.note, want)
		}
	}
	h.typ("ok")
	if strings.Contains(h.m.note, "bidirectional") {
		t.Fatalf("note %q after plain typing: it stays until the next key", h.m.note)
	}
}

// TestBidiValueFromTheServerIsShownNotEdited: an env value the server
// holds with a right-to-left override is shown read-only, not sent to the
// terminal, as a
// value with a line break is: a text field would send the override to the
// terminal raw while focused, and would drop it when typed into.
func TestBidiValueFromTheServerIsShownNotEdited(t *testing.T) {
	w := webWorkload()
	w.Containers[0].Env[0].Value = "\u202eRTL"
	h := open(t, newFake(w), 120, 30)
	for _, fd := range h.m.form.fields {
		if fd.kind == fkEnvValue && fd.c == 0 && fd.i == 0 {
			t.Fatal("LOG_LEVEL's value is an editable field")
		}
	}
	if v := h.view(); strings.ContainsRune(v, '\u202e') || !strings.Contains(v, "LOG_LEVEL           value with line breaks or control characters  (read-only here)") {
		t.Fatalf("the value is not shown read-only:\n%s", v)
	}
}

// TestHelpLineKeysFollowTheField: the form's help line offers ctrl+n,
// ctrl+d and ctrl+t only where they do something (the tester's trial:
// they were offered on replicas and image, where they only printed a
// hint), and says esc back, as the bottom line does.
func TestHelpLineKeysFollowTheField(t *testing.T) {
	h := open(t, newFake(webWorkload()), 200, 30)
	for _, tc := range []struct {
		k       fieldKind
		i       int
		want    []string
		wantNot []string
	}{
		{fkReplicas, 0, []string{"esc back"}, []string{"ctrl+n", "ctrl+d", "ctrl+t", "esc discard"}},
		{fkImage, 0, nil, []string{"ctrl+n", "ctrl+d", "ctrl+t"}},
		{fkCommand, 0, []string{"ctrl+n add line", "ctrl+d remove line"}, []string{"ctrl+t"}},
		{fkEnvName, 0, []string{"ctrl+n add env", "ctrl+d remove env", "ctrl+t value/secret/configmap"}, nil},
	} {
		c := 0
		if tc.k == fkReplicas {
			c = -1
		}
		h.focusOn(tc.k, c, tc.i)
		help := h.m.formHelp()
		for _, w := range tc.want {
			if !strings.Contains(help, w) {
				t.Errorf("field %v: help %q lacks %q", tc.k, help, w)
			}
		}
		for _, w := range tc.wantNot {
			if strings.Contains(help, w) {
				t.Errorf("field %v: help %q offers %q", tc.k, help, w)
			}
		}
	}
}
