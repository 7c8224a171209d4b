package ui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
)

// modes is a client with a chosen write policy.
type modes struct {
	*kube.Client
	readOnly bool
	policy   kube.Policy
}

func (m modes) ReadOnly() bool      { return m.readOnly }
func (m modes) Policy() kube.Policy { return m.policy }

func TestHeaderShowsModeAndReadOnlyKeysSendNothing(t *testing.T) {
	client, cs := kubetest.FakeClient(t, objects()...)
	h := startWith(t, modes{Client: client, readOnly: true, policy: kube.PolicyStrict}, "demo", 120, 14)
	if v := h.m.View(); !strings.Contains(v, "mode: read-only, strict") {
		t.Fatalf("header lacks the mode:\n%s", v)
	}
	h.command("deploy")
	before := len(cs.Actions())
	h.runKey(h.keys("r"))
	if v := h.m.View(); !strings.Contains(v, "restart is disabled: kyyard runs read-only") {
		t.Fatalf("r in read-only mode:\n%s", v)
	}
	if n := len(cs.Actions()) - before; n != 0 {
		t.Fatalf("r in read-only mode sent %d requests", n)
	}
	strict := startWith(t, modes{Client: client, policy: kube.PolicyStrict}, "demo", 120, 14)
	if v := strict.m.View(); !strings.Contains(v, "mode: strict") || strings.Contains(v, "read-only") {
		t.Fatalf("strict header:\n%s", strict.m.View())
	}
	plain := startWith(t, client, "demo", 120, 14)
	if strings.Contains(plain.m.View(), "mode:") {
		t.Fatal("the interactive default names a mode")
	}
}

func TestOutcomesGoToHistory(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	// A folder where the file should be: it cannot be written.
	bad := filepath.Join(t.TempDir(), "history.log")
	if err := os.MkdirAll(bad, 0o700); err != nil {
		t.Fatal(err)
	}
	h := startWith(t, client, "demo", 160, 14, ui.WithHistoryFile(bad))
	out := kube.OperateOutcome{Op: kube.Operation{Ref: kube.ObjectRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", UID: "u3"},
		Action: kube.ActionScale, Replicas: 2}, Written: true, Detail: "scaled demo/deployments/web to 2 replicas"}
	h.send(views.StatusMsg{Text: "scaled demo/deployments/web to 2 replicas"})
	h.runKey(h.send(views.OutcomesMsg{Outcomes: []kube.OperateOutcome{out}}))
	if v := h.m.View(); !strings.Contains(v, "not written") || !strings.Contains(v, "scaled demo/deployments/web") {
		t.Fatalf("an unwritable history file is not said:\n%s", v)
	}
	h.command("history")
	if v := h.m.View(); !strings.Contains(v, "demo/deployments/web") || !strings.Contains(v, "scale") ||
		!strings.Contains(v, "kept for this session only") {
		t.Fatalf(":history:\n%s", v)
	}
}

// A read-only refusal of a write key reaches :history and the history
// file through the root, and its words reach the status line.
func TestReadOnlyRefusalGoesToHistoryFile(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	path := filepath.Join(t.TempDir(), "kyyard", "history.log")
	h := startWith(t, modes{Client: client, readOnly: true}, "demo", 160, 14, ui.WithHistoryFile(path))
	h.command("deploy")
	// The key's OutcomesMsg, then the root's write of the file.
	h.run(h.send(h.keys("r")()))
	if v := h.m.View(); !strings.Contains(v, "restart is disabled: kyyard runs read-only") {
		t.Fatalf("status line:\n%s", v)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if l := string(b); strings.Count(l, "\n") != 1 || !strings.Contains(l, "\trestart\tread_only\trestart is disabled") {
		t.Fatalf("history.log: %q", l)
	}
	h.command("history")
	if v := h.m.View(); !strings.Contains(v, "restart") || !strings.Contains(v, "read_only") {
		t.Fatalf(":history:\n%s", v)
	}
}
