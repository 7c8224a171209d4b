package create_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/create"
	"github.com/kyyard/kyyard/views/viewtest"
	"github.com/kyyard/kyyard/views/yamledit"
)

const width, height = 80, 24

const template = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: example\n  namespace: demo\ndata:\n  key: value\n"

var newRef = kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "settings"}

var pass = kube.Verdicts{
	{Guard: kube.GuardReadOnly, Outcome: kube.OutcomePass, Sentence: "writes are allowed"},
	{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may create configmaps in demo"},
}

// fake answers the screen: openErr for the template, planErrs in turn
// (nil: a plan of one step made by step), recording what was planned and
// how each apply was sent.
type fake struct {
	mu       sync.Mutex
	openErr  error
	planErrs []error
	step     func(text string) kube.ApplyStep
	planned  []string
	applied  []bool // each apply's force
	kinds    []kube.Kind
}

func (f *fake) CreateTemplate(_ context.Context, kind kube.Kind, ns string) (string, error) {
	f.kinds = append(f.kinds, kind)
	if f.openErr != nil {
		return "", f.openErr
	}
	return template, nil
}

func (f *fake) PlanApply(_ context.Context, source string, data []byte) (*kube.ApplyPlan, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.planned = append(f.planned, string(data))
	if len(f.planErrs) > 0 {
		err := f.planErrs[0]
		f.planErrs = f.planErrs[1:]
		if err != nil {
			return nil, err
		}
	}
	s := kube.ApplyStep{Ref: newRef, Source: source + ", document 1", Verdicts: pass,
		Diff: "--- live\n+++ applied\n@@ -0,0 +1,3 @@\n+apiVersion: v1\n+kind: ConfigMap\n+data:\n"}
	if f.step != nil {
		s = f.step(string(data))
	}
	return &kube.ApplyPlan{Steps: []kube.ApplyStep{s}, Namespace: "demo"}, nil
}

func (f *fake) ApplyManifests(_ context.Context, p *kube.ApplyPlan, force bool) []kube.OperateOutcome {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.applied = append(f.applied, force)
	var outs []kube.OperateOutcome
	for _, s := range p.Steps {
		outs = append(outs, kube.OperateOutcome{Op: kube.Operation{Ref: s.Ref, Action: kube.ActionServerSideApply}, Written: true,
			Detail: fmt.Sprintf("created %s by server-side apply (field manager %s)", s.Ref, kube.FieldManager)})
	}
	return outs
}

// harness drives the screen (viewtest.Driver); the editor's hand-off
// runs edits in turn (none: the text area).
type harness struct {
	viewtest.Driver
	edits []func(string) string
	files []string
}

func newHarness(t *testing.T, f create.Creator, req create.Request, edits ...func(string) string) *harness {
	h := &harness{Driver: viewtest.Driver{T: t}, edits: edits}
	vc := viewtest.Context(nil, width, height)
	var hand yamledit.Handoff
	if edits != nil {
		hand = func(path string) tea.Cmd {
			return func() tea.Msg {
				if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
					t.Errorf("the file to edit: %v; want mode 0600", err)
				}
				b, _ := os.ReadFile(path)
				h.files = append(h.files, string(b))
				n := len(h.files) - 1
				if n >= len(h.edits) {
					t.Fatalf("the editor was opened %d times; the test planned %d", n+1, len(h.edits))
				}
				if err := os.WriteFile(path, []byte(h.edits[n](string(b))), 0o600); err != nil {
					t.Fatal(err)
				}
				return yamledit.EditedMsg{}
			}
		}
	}
	h.Screen = create.New(vc, f, hand, req)
	h.Run(h.Screen.Init())
	return h
}

func (h *harness) view(name string) { h.T.Helper(); h.Golden(name, width, height) }

func saw[T any](h *harness, ok func(T) bool) bool { return viewtest.Saw(&h.Driver, ok) }

func back(h *harness) bool { return viewtest.WentBack(&h.Driver) }

func replace(old, new string) func(string) string {
	return func(s string) string { return strings.Replace(s, old, new, 1) }
}

func keep(s string) string { return s }

func TestCreateFromTemplate(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, create.Request{Kind: "configmaps", Namespace: "demo"}, replace("name: example", "name: settings"))
	if len(f.kinds) != 1 || f.kinds[0] != "configmaps" {
		t.Fatalf("templates read: %v", f.kinds)
	}
	if len(h.files) != 1 || !strings.HasPrefix(h.files[0], "# Creating from the configmaps template with kyyard") || !strings.Contains(h.files[0], template) {
		t.Fatalf("the editor's file:\n%s", h.files)
	}
	if want := strings.Replace(template, "example", "settings", 1); len(f.planned) != 1 || f.planned[0] != want {
		t.Fatalf("planned %q, want the text without kyyard's header", f.planned)
	}
	if h.Screen.(views.Unsaved).Unsaved() == "" {
		t.Error("a text waiting in the preview is not unsaved")
	}
	h.view("preview")
	h.Key("y")
	if len(f.applied) != 1 || f.applied[0] {
		t.Fatalf("applies sent %v, want one without force", f.applied)
	}
	if !saw(h, func(a views.AnswerMsg) bool { return len(a.Outcomes) == 1 && a.Outcomes[0].Written }) {
		t.Fatalf("the outcome did not reach the root (:history): %#v", h.Out)
	}
	h.view("done")
	if h.Screen.(views.Unsaved).Unsaved() != "" {
		t.Error("an applied text is still unsaved")
	}
	h.Key("enter")
	if !back(h) {
		t.Error("enter on the outcomes does not go back")
	}
}

func TestCreateUnchangedTemplateCancels(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, create.Request{Kind: "configmaps"}, keep)
	if len(f.planned) != 0 || !back(h) ||
		!saw(h, func(s views.StatusMsg) bool { return strings.Contains(s.Text, "template was not changed") }) {
		t.Fatalf("planned %q, messages %#v: want cancelled, nothing planned", f.planned, h.Out)
	}
}

func TestCreateFromFileUnchangedIsPlanned(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, create.Request{Text: template, Source: "cm.yaml"}, keep)
	if len(f.kinds) != 0 {
		t.Errorf("a file's create read a template: %v", f.kinds)
	}
	if len(f.planned) != 1 || f.planned[0] != template {
		t.Fatalf("planned %q: a file's text is created as it is", f.planned)
	}
	if got := h.Screen.Title(); got != "create cm.yaml" {
		t.Errorf("title %q", got)
	}
}

func TestCreateRefusedBeforeTheEditor(t *testing.T) {
	for _, reason := range []kube.Reason{kube.ReasonReadOnly, kube.ReasonForbidden} {
		f := &fake{openErr: &kube.Refusal{Reason: reason, Detail: "may not create configmaps in demo"}}
		h := newHarness(t, f, create.Request{Kind: "configmaps", Namespace: "demo"}, keep)
		if len(h.files) != 0 {
			t.Errorf("%s: the editor was opened", reason)
		}
		if !back(h) || !saw(h, func(o views.OutcomesMsg) bool { return len(o.Outcomes) == 1 && o.Outcomes[0].Reason == reason }) {
			t.Errorf("%s: want a refused outcome for :history and back: %#v", reason, h.Out)
		}
	}
	f := &fake{openErr: errors.New("the server could not find the requested resource")}
	h := newHarness(t, f, create.Request{Kind: "widgets"}, keep)
	if !back(h) || !saw(h, func(s views.StatusMsg) bool { return s.Error && strings.Contains(s.Text, "cannot create widgets") }) {
		t.Errorf("an unknown kind: %#v", h.Out)
	}
}

func TestCreateInvalidReopensWithTheServersError(t *testing.T) {
	invalid := fmt.Errorf("%w: the edited text, document 1: no metadata.name", kube.ErrInvalid)
	f := &fake{planErrs: []error{invalid}}
	h := newHarness(t, f, create.Request{Kind: "configmaps"}, replace("  name: example\n", ""), replace("metadata:\n", "metadata:\n  name: fixed\n"))
	if len(h.files) != 2 {
		t.Fatalf("the editor was opened %d times, want 2 (reopened on the error)", len(h.files))
	}
	first, _, _ := strings.Cut(h.files[1], "\n")
	if !strings.HasPrefix(first, "# ERROR: ") || !strings.Contains(first, "no metadata.name") || strings.Contains(h.files[1], "name: example") {
		t.Fatalf("reopened file (the error on top, the person's text kept):\n%s", h.files[1])
	}
	if len(f.planned) != 2 || !strings.Contains(f.planned[1], "name: fixed") {
		t.Fatalf("planned %q", f.planned)
	}
	if !saw(h, func(o views.OutcomesMsg) bool {
		return len(o.Outcomes) == 1 && o.Outcomes[0].Reason == kube.ReasonInvalid
	}) {
		t.Errorf("the invalid text is not in :history: %#v", h.Out)
	}
}

func TestCreateDryRunDeniedReopens(t *testing.T) {
	denied := &kube.Refusal{Reason: kube.ReasonAdmissionDenied, Detail: `pods "web" is forbidden: violates PodSecurity "restricted:latest"`}
	f := &fake{step: func(text string) kube.ApplyStep {
		s := kube.ApplyStep{Ref: newRef, Source: "the pods template, document 1", Verdicts: pass}
		if !strings.Contains(text, "fixed") {
			s.Err = denied
		}
		return s
	}}
	h := newHarness(t, f, create.Request{Kind: "pods"}, replace("name: example", "name: web"), replace("name: web", "name: fixed"))
	if len(h.files) != 2 || !strings.Contains(h.files[1], "violates PodSecurity") {
		t.Fatalf("the denied text was not reopened with the server's words: %q", h.files)
	}
}

func TestCreateRefusedStepBlocks(t *testing.T) {
	forbidden := &kube.Refusal{Reason: kube.ReasonForbidden, Detail: `may not create configmaps in "demo"`}
	f := &fake{step: func(string) kube.ApplyStep {
		return kube.ApplyStep{Ref: newRef, Source: "the configmaps template, document 1",
			Verdicts: kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: `may not create configmaps in "demo"`}}, Err: forbidden}
	}}
	h := newHarness(t, f, create.Request{Kind: "configmaps"}, replace("example", "settings"))
	h.Key("y")
	if len(f.applied) != 0 {
		t.Fatal("a refused step was sent")
	}
	h.view("refused")
}

func TestCreateConflictAsksForce(t *testing.T) {
	f := &fake{step: func(string) kube.ApplyStep {
		return kube.ApplyStep{Ref: kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "settings", ResourceVersion: "41"}, Exists: true,
			Source: "the configmaps template, document 1", Verdicts: pass,
			Conflicts: []kube.FieldConflict{{Field: ".data.key", Manager: "kubectl-edit", Detail: `conflict with "kubectl-edit" using v1`}},
			Diff:      "--- live\n+++ applied\n@@ -1,2 +1,2 @@\n data:\n-  key: theirs\n+  key: value\n"}
	}}
	h := newHarness(t, f, create.Request{Kind: "configmaps"}, replace("example", "settings"))
	h.view("conflict")
	h.Key("y")
	if len(f.applied) != 0 {
		t.Fatal("y sent a conflicted apply without force typed")
	}
	h.Type("forse")
	h.Key("enter")
	if len(f.applied) != 0 || !strings.Contains(h.Screen.View(), `that is not "force"`) {
		t.Fatalf("a wrong word: applied %v\n%s", f.applied, h.Screen.View())
	}
	h.Key("esc")
	if h.Screen.Capturing() {
		t.Fatal("esc did not stop the typing")
	}
	h.Key("y")
	h.Type("force")
	h.Key("enter")
	if len(f.applied) != 1 || !f.applied[0] {
		t.Fatalf("applies %v, want one with force", f.applied)
	}
}

func TestCreateWarningConfirmed(t *testing.T) {
	f := &fake{step: func(string) kube.ApplyStep {
		return kube.ApplyStep{Ref: newRef, Source: "the configmaps template, document 1",
			Verdicts: append(kube.Verdicts{{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged, Confirm: "settings",
				Sentence: "settings is managed by Helm"}}, pass...)}
	}}
	h := newHarness(t, f, create.Request{Kind: "configmaps"}, replace("example", "settings"))
	h.Key("y")
	if len(f.applied) != 0 || !h.Screen.Capturing() {
		t.Fatalf("a warning was not asked before the apply: applied %v", f.applied)
	}
	h.Type("settings")
	h.Key("enter")
	if len(f.applied) != 1 || f.applied[0] {
		t.Fatalf("applies %v after the warning was confirmed", f.applied)
	}
}

func TestCreateTextArea(t *testing.T) {
	f := &fake{}
	h := newHarness(t, f, create.Request{Kind: "configmaps", Namespace: "demo"})
	if !h.Screen.Capturing() {
		t.Fatal("the text area does not take the keys")
	}
	h.view("textarea")
	h.Key("esc")
	if !back(h) {
		t.Fatal("esc on the unchanged template does not go back at once")
	}
	h = newHarness(t, f, create.Request{Kind: "configmaps", Namespace: "demo"})
	h.Type("# mine\n")
	h.Key("esc")
	if back(h) {
		t.Fatal("one esc discarded an edited text")
	}
	h.Key("ctrl+s")
	if len(f.planned) != 1 || !strings.HasPrefix(f.planned[0], "# mine") {
		t.Fatalf("planned %q", f.planned)
	}
	h.Key("e")
	h.Key("esc")
	h.Key("esc")
	if !back(h) {
		t.Fatal("esc twice did not discard")
	}
}

func TestCreateTextAreaTooLarge(t *testing.T) {
	big := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  k: " + strings.Repeat("x", 300<<10) + "\n"
	h := newHarness(t, &fake{}, create.Request{Text: big, Source: "big.yaml"})
	if v := h.Screen.View(); !strings.Contains(v, "too large for kyyard's text area") || h.Screen.Capturing() {
		t.Fatalf("a 300 KiB text in the text area:\n%s", v)
	}
}

func TestCreateEditorFails(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, width, height)
	m := create.New(vc, f, func(string) tea.Cmd {
		return func() tea.Msg { return yamledit.EditedMsg{Err: errors.New("vi: exit status 1")} }
	}, create.Request{Kind: "configmaps"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	if v := h.Screen.View(); !strings.Contains(v, "vi: exit status 1: nothing sent") || len(f.planned) != 0 {
		t.Fatalf("a failed editor:\n%s", v)
	}
}

func TestCreateHostileTextIsSanitized(t *testing.T) {
	f := &fake{step: func(string) kube.ApplyStep {
		return kube.ApplyStep{Ref: kube.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "x\x1b]2;pwned\x07"}, Source: "evil.yaml, document 1", Verdicts: pass,
			Diff: "+data:\n+  k: \x1b[2J\x1b]52;c;ZXZpbA==\x07\n"}
	}}
	h := newHarness(t, f, create.Request{Text: "kind: ConfigMap\n", Source: "evil\x1b[31m.yaml"}, keep)
	v := h.Screen.View() + h.Screen.Title()
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\x07"} {
		if strings.Contains(v, bad) {
			t.Fatalf("the screen carries %q from the text", bad)
		}
	}
}

func TestCreateBigViewFits(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, 200, 50)
	m := create.New(vc, f, nil, create.Request{Kind: "deployments", Namespace: "demo"})
	h := &harness{Driver: viewtest.Driver{T: t, Screen: m}}
	h.Run(m.Init())
	h.Golden("textarea-200x50", 200, 50)
}

// TestCreateKeysRebound: with `create: {apply: [A, enter], edit: E}`, y
// applies nothing and e edits nothing on the preview; A applies; once
// done, enter (apply's last key) goes back, as the help line says.
func TestCreateKeysRebound(t *testing.T) {
	f := &fake{}
	h := &harness{Driver: viewtest.Driver{T: t}}
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"create": {"apply": {"A", "enter"}, "edit": {"E"}}}
	kept := func(string) tea.Cmd { return func() tea.Msg { return yamledit.EditedMsg{} } }
	h.Screen = create.New(vc, f, kept, create.Request{Text: template, Source: "cm.yaml"})
	h.Run(h.Screen.Init())
	if v := h.Screen.View(); !strings.Contains(v, "apply? A/enter") || !strings.Contains(v, "A/enter apply · E edit again") {
		t.Fatalf("the preview does not name A and E:\n%s", v)
	}
	h.Key("e")
	h.Key("y")
	if len(f.applied) != 0 || len(f.planned) != 1 {
		t.Fatalf("y or e (old keys) acted: applied %v, planned %d times", f.applied, len(f.planned))
	}
	h.Key("A")
	if len(f.applied) != 1 {
		t.Fatalf("A (apply's new key) applied %v", f.applied)
	}
	if v := h.Screen.View(); !strings.Contains(v, "esc/enter back") {
		t.Errorf("the outcome's help line:\n%s", v)
	}
	h.Key("enter")
	if !back(h) {
		t.Error("enter on the outcomes does not go back")
	}
}
