package yamledit_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
	"github.com/kyyard/kyyard/views/yamledit"
)

const width, height = 100, 24

const cmText = "apiVersion: v1\ndata:\n  color: blue\nkind: ConfigMap\nmetadata:\n  name: settings\n  namespace: demo\n  resourceVersion: \"7\"\n"

var ref = kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "settings", UID: "u1", ResourceVersion: "7"}

var pass = kube.Verdicts{
	{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
	{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch configmaps in demo"},
}

// fake answers the screen's requests: openErr and planErrs/applyErrs in
// turn (nil: success), recording the texts planned and the confirmations.
type fake struct {
	mu        sync.Mutex
	openErr   error
	planErrs  []error
	applyErrs []error
	verdicts  kube.Verdicts
	secret    bool
	planned   []string
	confirmed [][]kube.Reason
}

func (f *fake) OpenYAMLEdit(_ context.Context, kind kube.Kind, ns, name string) (*kube.YAMLEdit, error) {
	if f.openErr != nil {
		return nil, f.openErr
	}
	return &kube.YAMLEdit{Ref: ref, Text: cmText, Patch: "strategic merge patch", Secret: f.secret}, nil
}

func (f *fake) PlanYAMLEdit(_ context.Context, e *kube.YAMLEdit, text string) (*kube.YAMLEditPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, text)
	if len(f.planErrs) > 0 {
		err := f.planErrs[0]
		f.planErrs = f.planErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	if text == e.Text {
		return nil, kube.ErrNoChange
	}
	vs := pass
	if f.verdicts != nil {
		vs = f.verdicts
	}
	return &kube.YAMLEditPlan{Edit: e, Text: text, Verdicts: vs, PatchBody: `{"data":{"color":"teal"},"metadata":{"resourceVersion":"7"}}`,
		Diff: "--- live\n+++ applied\n@@ -1,3 +1,3 @@\n apiVersion: v1\n data:\n-  color: blue\n+  color: teal\n"}, nil
}

func (f *fake) ApplyYAMLEdit(_ context.Context, p *kube.YAMLEditPlan, confirmed []kube.Reason) (kube.OperateOutcome, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.confirmed = append(f.confirmed, confirmed)
	out := kube.OperateOutcome{Op: kube.Operation{Ref: p.Edit.Ref, Action: kube.ActionEditYAML}, Verdicts: p.Verdicts}
	if len(f.applyErrs) > 0 {
		err := f.applyErrs[0]
		f.applyErrs = f.applyErrs[1:]
		if err != nil {
			out.Reason, out.Detail = kube.ReasonOf(err), err.Error()
			return out, err
		}
	}
	out.Written, out.ResourceVersion = true, "8"
	out.Detail = "changed demo/configmaps/settings by a strategic merge patch (resourceVersion 7 -> 8)"
	return out, nil
}

// harness drives the screen (viewtest.Driver), the editor's hand-off
// done by edits in turn.
type harness struct {
	viewtest.Driver
	edits  []func(string) string // what each editor run does to the file
	files  []string              // each file as the editor saw it
	handed int
}

func newHarness(t *testing.T, f yamledit.Editor, edits ...func(string) string) *harness {
	h := &harness{Driver: viewtest.Driver{T: t}, edits: edits}
	vc := viewtest.Context(nil, width, height)
	hand := func(path string) tea.Cmd {
		return func() tea.Msg {
			st, err := os.Stat(path)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("the file to edit: %v, mode %v; want 0600", err, st.Mode().Perm())
			}
			b, _ := os.ReadFile(path)
			h.files = append(h.files, string(b))
			if h.handed >= len(h.edits) {
				t.Fatalf("the editor was opened %d times; the test planned %d", h.handed+1, len(h.edits))
			}
			edit := h.edits[h.handed]
			h.handed++
			if err := os.WriteFile(path, []byte(edit(string(b))), 0o600); err != nil {
				t.Fatal(err)
			}
			return yamledit.EditedMsg{}
		}
	}
	h.Screen = yamledit.New(vc, f, hand, views.OpenYAMLEditMsg{Kind: "configmaps", Namespace: "demo", Name: "settings"})
	h.Run(h.Screen.Init())
	return h
}

func (h *harness) view(name string) { h.T.Helper(); h.Golden(name, width, height) }

// saw reports whether the root was told something of type T matching ok.
func saw[T any](h *harness, ok func(T) bool) bool { return viewtest.Saw(&h.Driver, ok) }

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func keep(s string) string { return s }

func TestEditPreviewApply(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, replace("color: blue", "color: teal"))
	if len(h.files) != 1 || !strings.HasPrefix(h.files[0], "# Editing demo/configmaps/settings (resourceVersion 7) with kyyard") ||
		!strings.Contains(h.files[0], cmText) {
		t.Fatalf("the editor's file:\n%s", h.files)
	}
	if len(f.planned) != 1 || f.planned[0] != strings.Replace(cmText, "blue", "teal", 1) {
		t.Fatalf("planned %q: want the text without kyyard's header", f.planned)
	}
	if u := h.Screen.(views.Unsaved).Unsaved(); u == "" {
		t.Error("an edit waiting in the preview is not unsaved")
	}
	h.view("preview")
	h.Key("p")
	if !strings.Contains(h.Screen.View(), `{"data":{"color":"teal"}`) {
		t.Errorf("p does not show the patch:\n%s", h.Screen.View())
	}
	h.Key("y")
	if !saw(h, func(a views.AnswerMsg) bool { return len(a.Outcomes) == 1 && a.Outcomes[0].Written }) {
		t.Fatalf("the apply's outcome did not reach the root: %#v", h.Out)
	}
	if !saw(h, func(views.BackMsg) bool { return true }) ||
		!saw(h, func(s views.StatusMsg) bool { return strings.Contains(s.Text, "resourceVersion 7 -> 8") }) {
		t.Fatalf("after the apply: %#v", h.Out)
	}
}

func TestInvalidEditReopensWithTheServersError(t *testing.T) {
	invalid := &kube.Refusal{Reason: kube.ReasonInvalid, Detail: `ConfigMap "settings" is invalid: data[bad key]: Invalid value`}
	f := &fake{planErrs: []error{invalid}}
	h := newHarness(t, f, replace("color: blue", "bad key: x"), keep)
	if len(h.files) != 2 {
		t.Fatalf("the editor was opened %d times, want 2 (reopened on the error)", len(h.files))
	}
	second := h.files[1]
	if first, _, _ := strings.Cut(second, "\n"); !strings.HasPrefix(first, "# ERROR: ") || !strings.Contains(first, `ConfigMap "settings" is invalid: data[bad key]`) ||
		!strings.Contains(second, "\n  bad key: x\n") {
		t.Fatalf("reopened file:\n%s", second)
	}
	// Saved unchanged after the error: held, nothing planned again.
	if len(f.planned) != 1 {
		t.Fatalf("planned %d times", len(f.planned))
	}
	h.view("held")
	h.Key("esc")
	if saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatal("one esc discarded an unapplied edit")
	}
	h.Key("esc")
	if !saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatal("esc twice did not discard")
	}
}

func TestConflictReopensOnTheFreshObject(t *testing.T) {
	freshText := strings.Replace(strings.Replace(cmText, `"7"`, `"9"`, 1), "color: blue", "color: theirs\n  size: s", 1)
	fresh := &kube.YAMLEdit{Ref: kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "settings", ResourceVersion: "9"},
		Text: freshText, Patch: "strategic merge patch",
		Collisions: []kube.EditCollision{{Field: ".data.color", Mine: `"teal"`, Theirs: `"theirs"`}}}
	conflict := &kube.EditConflict{Fresh: fresh, Was: "7"}
	f := &fake{applyErrs: []error{conflict}}
	h := newHarness(t, f, replace("color: blue", "color: teal"), replace("color: theirs", "color: teal"))
	h.Key("y")
	if len(h.files) != 2 {
		t.Fatalf("the editor was opened %d times after the conflict", len(h.files))
	}
	second := h.files[1]
	for _, want := range []string{"# CONFLICT: demo/configmaps/settings changed since it was read (resourceVersion 7 is now 9)",
		`#   .data.color: yours "teal", the other writer's "theirs"`, "# Editing demo/configmaps/settings (resourceVersion 9)", "size: s"} {
		if !strings.Contains(second, want) {
			t.Errorf("reopened file lacks %q:\n%s", want, second)
		}
	}
	if !saw(h, func(a views.AnswerMsg) bool {
		return len(a.Outcomes) == 1 && a.Outcomes[0].Reason == kube.ReasonConflict
	}) {
		t.Errorf("the conflict's outcome did not reach the history: %#v", h.Out)
	}
	h.view("after-conflict")
}

func TestNoChangeCancels(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, keep)
	if !saw(h, func(s views.StatusMsg) bool {
		return s.Text == "edit of demo/configmaps/settings cancelled: no changes made"
	}) ||
		!saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatalf("no change: %#v", h.Out)
	}
	if h.Screen.(views.Unsaved).Unsaved() != "" {
		t.Error("a cancelled edit is unsaved")
	}
}

func TestOpenRefusedIsReported(t *testing.T) {
	f := &fake{openErr: &kube.Refusal{Reason: kube.ReasonReadOnly, Detail: "kyyard runs read-only"}}
	h := newHarness(t, f)
	if !saw(h, func(o views.OutcomesMsg) bool {
		return len(o.Outcomes) == 1 && o.Outcomes[0].Reason == kube.ReasonReadOnly && o.Outcomes[0].Op.Action == kube.ActionEditYAML
	}) || !saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatalf("read-only open: %#v", h.Out)
	}
}

func TestManagedWarningWantsTheName(t *testing.T) {
	f := &fake{verdicts: append(append(kube.Verdicts{}, pass...), kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn,
		Reason: kube.ReasonApplicationManaged, Confirm: "settings", Sentence: "managed by Helm (release web): Helm may undo this on its next sync"})}
	h := newHarness(t, f, replace("color: blue", "color: teal"))
	h.Key("y")
	if len(f.confirmed) != 0 {
		t.Fatal("y applied without the name typed")
	}
	for _, r := range "settings" {
		h.Key(string(r))
	}
	h.view("confirm-managed")
	h.Key("enter")
	if len(f.confirmed) != 1 || len(f.confirmed[0]) != 1 || f.confirmed[0][0] != kube.ReasonApplicationManaged {
		t.Fatalf("confirmed %v", f.confirmed)
	}
}

func TestRefusedPlanShowsVerdicts(t *testing.T) {
	forbidden := kube.Verdicts{pass[0], {Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: "may not patch configmaps in demo"}}
	f := &fake{verdicts: forbidden}
	// The fake's plan returns the verdicts without an error; a refusal
	// comes with the plan and its error, as kube does.
	f.planErrs = nil
	h := newHarness(t, &refusing{fake: f}, replace("color: blue", "color: teal"))
	h.view("refused")
	h.Key("y")
	if len(f.confirmed) != 0 {
		t.Fatal("a refused plan was applied")
	}
}

// refusing plans as fake does, then returns the verdicts' refusal with the
// plan, as kube.Client.PlanYAMLEdit does when a guard refuses.
type refusing struct{ *fake }

func (r *refusing) PlanYAMLEdit(ctx context.Context, e *kube.YAMLEdit, text string) (*kube.YAMLEditPlan, error) {
	p, err := r.fake.PlanYAMLEdit(ctx, e, text)
	if err != nil {
		return p, err
	}
	if ref := p.Verdicts.Refusal(); ref != nil {
		return &kube.YAMLEditPlan{Edit: e, Text: text, Verdicts: p.Verdicts}, ref
	}
	return p, nil
}

func TestSecretHeaderSaysDecodedAndPrivate(t *testing.T) {
	f := &fake{secret: true}
	h := newHarness(t, f, keep)
	if !strings.Contains(h.files[0], "shown decoded under stringData") || !strings.Contains(h.files[0], "mode 0600") {
		t.Fatalf("secret header:\n%s", h.files[0])
	}
}

func TestTextAreaWithoutAnEditor(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, width, height)
	m := yamledit.New(vc, f, nil, views.OpenYAMLEditMsg{Kind: "configmaps", Namespace: "demo", Name: "settings"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	if !h.Screen.Capturing() {
		t.Fatal("the text area does not take the keys")
	}
	h.view("textarea")
	h.Key("x")
	h.Key("ctrl+s")
	if len(f.planned) != 1 || f.planned[0] != "x"+cmText {
		t.Fatalf("planned %q", f.planned)
	}
	if !strings.Contains(h.Screen.View(), "diff of the live object") {
		t.Fatalf("no preview after ctrl+s:\n%s", h.Screen.View())
	}
}

func TestEditorFailureKeepsTheText(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, width, height)
	var seen string
	hand := func(path string) tea.Cmd {
		return func() tea.Msg {
			b, _ := os.ReadFile(path)
			seen = path
			_ = os.WriteFile(path, []byte(strings.Replace(string(b), "blue", "teal", 1)), 0o600)
			return yamledit.EditedMsg{Err: errors.New(`the editor "vim" failed: exit status 1`)}
		}
	}
	m := yamledit.New(vc, f, hand, views.OpenYAMLEditMsg{Kind: "configmaps", Namespace: "demo", Name: "settings"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	if len(f.planned) != 0 {
		t.Fatal("a failed editor's text was planned")
	}
	if _, err := os.Stat(seen); !os.IsNotExist(err) {
		t.Errorf("the edited file was not removed: %v", err)
	}
	if !strings.Contains(h.Screen.View(), "exit status 1") || h.Screen.(views.Unsaved).Unsaved() == "" {
		t.Fatalf("editor failure:\n%s", h.Screen.View())
	}
}

func TestMalformedYAMLErrorCountsTheFilesLines(t *testing.T) {
	// The YAML parser counts the text's lines; the reopened file has the
	// header above it, and the error's line is counted from the top.
	malformed := &kube.Refusal{Reason: kube.ReasonInvalid, Detail: "error converting YAML to JSON: yaml: line 3: did not find expected key"}
	f := &fake{planErrs: []error{malformed}}
	h := newHarness(t, f, replace("color: blue", "color: [blue"), keep)
	lines := strings.Split(h.files[1], "\n")
	var at int
	for i, l := range lines {
		if !strings.HasPrefix(l, "#") {
			at = i
			break
		}
	}
	want := fmt.Sprintf("yaml: line %d:", at+3)
	if !strings.Contains(lines[0], want) || lines[at+2] != "  color: [blue" {
		t.Fatalf("want %q on the first line and line %d to be the bad one:\n%s", want, at+3, h.files[1])
	}
}

func TestEscInThePreviewAsksFirst(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, replace("color: blue", "color: teal"))
	if !h.Screen.(views.BackCapturer).CapturesBack() {
		t.Fatal("the root would close the preview on one esc: the edit would be lost")
	}
	h.Key("esc")
	if saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatal("one esc discarded the edit")
	}
	h.Key("esc")
	if !saw(h, func(views.BackMsg) bool { return true }) {
		t.Fatal("two escs did not discard")
	}
}

func TestTooLargeForTheTextArea(t *testing.T) {
	f := &big{fake: &fake{}}
	vc := viewtest.Context(nil, width, height)
	m := yamledit.New(vc, f, nil, views.OpenYAMLEditMsg{Kind: "configmaps", Namespace: "demo", Name: "settings"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	if v := h.Screen.View(); !strings.Contains(v, "too large for kyyard's text area") || h.Screen.Capturing() {
		t.Fatalf("a 300 KiB object in the text area:\n%s", v)
	}
}

// big opens an object of 300 KiB.
type big struct{ *fake }

func (b *big) OpenYAMLEdit(ctx context.Context, kind kube.Kind, ns, name string) (*kube.YAMLEdit, error) {
	e, err := b.fake.OpenYAMLEdit(ctx, kind, ns, name)
	if err == nil {
		e.Text += "  big: " + strings.Repeat("x", 300<<10) + "\n"
	}
	return e, err
}

func TestSweepStaleRemovesOnlyOldEditFiles(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	write := func(name string, age time.Duration) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-age), now.Add(-age)); err != nil {
			t.Fatal(err)
		}
		return p
	}
	old := write("kyyard-edit-secrets-db-1.yaml", 48*time.Hour)
	fresh := write("kyyard-edit-configmaps-web-2.yaml", time.Hour)
	other := write("notes-kyyard-edit.yaml", 48*time.Hour)
	target := write("target.txt", 48*time.Hour)
	link := filepath.Join(dir, "kyyard-edit-link-3.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if n := yamledit.SweepStale(dir, now); n != 1 {
		t.Fatalf("removed %d, want 1", n)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Error("a 2-day-old edit file is still there")
	}
	for _, p := range []string{fresh, other, target, link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}

// TestYAMLEditKeysRebound: with `yaml-edit: {preview: f5, apply: A}`, the
// text area previews on f5, not ctrl+s, and says so; on the preview y
// applies nothing, A applies.
func TestYAMLEditKeysRebound(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"yaml-edit": {"preview": {"f5"}, "apply": {"A"}}}
	m := yamledit.New(vc, f, nil, views.OpenYAMLEditMsg{Kind: "configmaps", Namespace: "demo", Name: "settings"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	h.Key("x")
	h.Key("ctrl+s")
	if v := h.Screen.View(); len(f.planned) != 0 || !strings.Contains(v, "f5 preview (dry run) · esc discard") || !strings.Contains(v, "f5 previews it") {
		t.Fatalf("ctrl+s (preview's old key) planned %q, or f5 is not named:\n%s", f.planned, v)
	}
	h.Send(tea.KeyMsg{Type: tea.KeyF5})
	if len(f.planned) != 1 || f.planned[0] != "x"+cmText {
		t.Fatalf("f5 (preview's new key) planned %q", f.planned)
	}
	if v := h.Screen.View(); !strings.Contains(v, "apply this edit to demo/configmaps/settings? A") || !strings.Contains(v, "A apply · e edit again") {
		t.Errorf("the preview does not name A:\n%s", v)
	}
	h.Key("y")
	if saw(h, func(a views.AnswerMsg) bool { return true }) {
		t.Fatal("y (apply's old key) applied")
	}
	h.Key("A")
	if !saw(h, func(a views.AnswerMsg) bool { return len(a.Outcomes) == 1 && a.Outcomes[0].Written }) {
		t.Fatalf("A (apply's new key) did not apply: %#v", h.Out)
	}
}
