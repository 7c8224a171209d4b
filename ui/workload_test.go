package ui_test

import (
	"strings"
	"testing"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

func TestEOpensTheForm(t *testing.T) {
	h := start(t)
	h.command("deploy")
	cmd := h.keys("e")
	if cmd == nil {
		t.Fatal("e did nothing")
	}
	h.run(h.send(cmd()))
	if got := h.m.Top().Title(); got != "deployments/web (demo) · edit" {
		t.Fatalf("title %q", got)
	}
	if v := h.m.View(); !strings.Contains(v, "replicas [3") {
		t.Fatalf("the form did not read the Deployment:\n%s", v)
	}
	// Keys go to the form: q is typed, not quit; esc asks before the
	// edit is discarded, y goes back.
	h.keys("q")
	if v := h.m.View(); !strings.Contains(v, "replicas [3q") || !strings.Contains(v, "a whole number") {
		t.Fatalf("q did not reach the field:\n%s", v)
	}
	h.keys("esc")
	if v := h.m.View(); !strings.Contains(v, "discard your edits? y/n") {
		t.Fatalf("esc with an edit did not ask:\n%s", v)
	}
	h.runKey(h.keys("y"))
	if got := h.m.Top().Title(); got != "deployments(demo)[1]" {
		t.Fatalf("after y: title %q", got)
	}
}

// browseOnly is a source that cannot edit.
type browseOnly struct{ views.Source }

func TestOpenWorkloadWithoutEditor(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, browseOnly{client}, "demo", 80, 24)
	h.send(views.OpenWorkloadMsg{Kind: "deployments", Namespace: "demo", Name: "web"})
	if v := h.m.View(); !strings.Contains(v, "editing is not available") {
		t.Fatalf("no status:\n%s", v)
	}
	if strings.Contains(h.m.Top().Title(), "edit") {
		t.Fatal("a form was pushed")
	}
}

// TestCtrlCAsksBeforeLosingEdits: ctrl+c on a form with an edit asks
// first; another key keeps the form and its edit; ctrl+c twice quits.
func TestCtrlCAsksBeforeLosingEdits(t *testing.T) {
	h := start(t)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("backspace", "5")
	if cmd := h.keys("ctrl+c"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("ctrl+c quit with an unapplied edit")
		}
	}
	if v := h.m.View(); !strings.Contains(v, "quit and lose 1 unapplied edit to deployments/web?") {
		t.Fatalf("no question:\n%s", v)
	}
	h.keys("n")
	if v := h.m.View(); !strings.Contains(v, "replicas [5") || !strings.Contains(v, "not quitting") {
		t.Fatalf("the edit was not kept:\n%s", v)
	}
	h.keys("ctrl+c")
	cmd := h.keys("ctrl+c")
	if cmd == nil {
		t.Fatal("ctrl+c twice did not quit")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatalf("ctrl+c twice: %#v", cmd())
	}
}

// TestSwitchesKeepUnappliedEdits: with a form holding an edit below the
// top screen (a describe view pushed over it, which takes no text), the
// namespace picker and a `:` command would close the form: they say so
// and close nothing.
func TestSwitchesKeepUnappliedEdits(t *testing.T) {
	h := start(t)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("backspace", "5")
	h.run(h.send(views.OpenObjectMsg{View: views.DescribeView, Kind: "deployments", Namespace: "demo", Name: "web"}))
	top := h.m.Top().Title()
	h.keys("ctrl+n")
	if v := h.m.View(); !strings.Contains(v, "a namespace switch would close 1 unapplied edit to deployments/web") {
		t.Fatalf("ctrl+n:\n%s", v)
	}
	h.command("pods")
	if v := h.m.View(); !strings.Contains(v, ":pods would close 1 unapplied edit") {
		t.Fatalf(":pods:\n%s", v)
	}
	if got := h.m.Top().Title(); got != top {
		t.Fatalf("a screen was closed: title %q, was %q", got, top)
	}
	h.run(h.keys("esc"))
	if v := h.m.View(); !strings.Contains(v, "replicas [5") {
		t.Fatalf("the form lost its edit:\n%s", v)
	}
}

// TestFormBottomLineSaysItsKeys: the workload form takes ?, : and q as
// text, so the root's bottom line does not offer them there: it says the
// form's own keys, as the deploy form's does; back on the list it is the
// usual line again.
func TestFormBottomLineSaysItsKeys(t *testing.T) {
	h := start(t)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	lines := strings.Split(h.m.View(), "\n")
	bottom := lines[len(lines)-1]
	if strings.Contains(bottom, "? help") || strings.Contains(bottom, ": command") || strings.Contains(bottom, "q quit") ||
		!strings.Contains(bottom, "ctrl+s preview · esc back · ctrl+c quit") {
		t.Fatalf("the form's bottom line: %q", bottom)
	}
	h.runKey(h.keys("esc"))
	lines = strings.Split(h.m.View(), "\n")
	if bottom := lines[len(lines)-1]; !strings.Contains(bottom, "? help  : command") {
		t.Fatalf("the list's bottom line: %q", bottom)
	}
}

// TestRootOpensTheRolloutWithItsKindsCapabilities: the root hands the
// rollout screen the KindInfo of its workload's kind (the plugins'
// table): u is offered on a Deployment's rollout, whose plugin declares
// kube.CanUndo, and not on a StatefulSet's.
func TestRootOpensTheRolloutWithItsKindsCapabilities(t *testing.T) {
	for _, c := range []struct {
		kind kube.Kind
		undo bool
	}{{kube.KindDeployments, true}, {kube.KindStatefulSets, false}} {
		h := start(t)
		h.send(views.OpenRolloutMsg{Ref: kube.WorkloadRef{Kind: c.kind, Namespace: "demo", Name: "web"}, UID: "u-web"})
		top, ok := h.m.Top().(interface{ Bindings() []key.Binding })
		if !ok || !strings.HasPrefix(h.m.Top().Title(), "rollout "+string(c.kind)) {
			t.Fatalf("%s: no rollout screen: %s", c.kind, h.m.Top().Title())
		}
		undo := false
		for _, b := range top.Bindings() {
			undo = undo || b.Help().Key == "u"
		}
		if undo != c.undo {
			t.Fatalf("%s: u offered %v, want %v", c.kind, undo, c.undo)
		}
	}
}

// TestRootOpensOperateWithItsKindsCapabilities: the root hands the
// confirmation screen the KindInfo of its targets' kind, so a written
// restart of a Deployment (whose plugin declares kube.CanRollout) goes on
// to its rollout.
func TestRootOpensOperateWithItsKindsCapabilities(t *testing.T) {
	h := start(t)
	h.settle(h.send(views.OperateMsg{Action: kube.ActionRestart, Replicas: -1,
		Targets: []kube.ObjectRef{{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", UID: "u3"}}}))
	h.settle(h.send(viewtest.Key("y")))
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "rollout deployments/web(demo)") {
		t.Fatalf("after a restart: title %q\n%s", got, h.m.View())
	}
}
