package ui_test

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
)

// textSource is a fake cluster whose objects describe and marshal to fixed
// texts.
type textSource struct {
	*kube.Client
}

func (textSource) Describe(_ context.Context, kind kube.Kind, ns, name string) (string, error) {
	return "Name:  " + name + "\nKind:  " + string(kind) + "\nEvents:  <none>\n", nil
}

func (textSource) YAML(_ context.Context, _ kube.Kind, _, name string, opts kube.YAMLOptions) (string, error) {
	out := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: " + name + "\n"
	if opts.ManagedFields {
		out += "  managedFields: []\n"
	}
	return out, nil
}

// openObject sends msg to the root as a screen would, and runs the reads
// the new screen starts (the text, and a describe view's usage chart),
// once each: the refreshes they schedule are not run.
func (h *harness) openObject(msg views.OpenObjectMsg) {
	h.t.Helper()
	next := h.send(msg)
	if next == nil {
		h.t.Fatal("opening an object started no read")
	}
	read := next()
	if batch, ok := read.(tea.BatchMsg); ok {
		for _, c := range batch {
			if c != nil {
				h.send(c())
			}
		}
		return
	}
	h.send(read)
}

func TestOpenObjectPushesDetailAndEscGoesBack(t *testing.T) {
	h := start(t)
	h.openObject(views.OpenObjectMsg{View: views.DescribeView, Kind: "pods", Namespace: "demo", Name: "web-1"})
	if _, ok := h.m.Top().(*detail.Model); !ok {
		t.Fatalf("top screen is %T, want the detail screen", h.m.Top())
	}
	view := h.m.View()
	// The fake clientset has no REST config: the screen says why instead
	// of going blank.
	if !strings.Contains(view, "pods(demo)[1] › describe pods/demo/web-1") || !strings.Contains(view, "Cannot show describe pods/demo/web-1") {
		t.Fatalf("detail screen:\n%s", view)
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); got != "pods(demo)[1]" {
		t.Fatalf("esc did not go back: top %q", got)
	}
}

func TestDetailSearchCapturesGlobalKeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, textSource{client}, "demo", 120, 30)
	h.openObject(views.OpenObjectMsg{View: views.YAMLView, Kind: "deployments", Namespace: "demo", Name: "web"})
	if view := h.m.View(); !strings.Contains(view, "kind: Deployment") || !strings.Contains(view, "yaml deployments/demo/web") {
		t.Fatalf("YAML screen:\n%s", view)
	}
	// While the search prompt is open, q and esc belong to it.
	if cmd := h.keys("/", "q"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q typed into the search quit kyyard")
		}
	}
	h.keys("esc")
	if _, ok := h.m.Top().(*detail.Model); !ok {
		t.Fatal("esc in the search prompt closed the screen")
	}
	h.keys("/", "n", "a", "m", "e", "enter")
	if !strings.Contains(h.m.View(), "/name: match 1 of 1, line 4") {
		t.Fatalf("search through the root:\n%s", h.m.View())
	}
	h.send(h.keys("m")())
	if !strings.Contains(h.m.View(), "managedFields: []") {
		t.Fatalf("m through the root:\n%s", h.m.View())
	}
	h.keys("?")
	if view := h.m.View(); !strings.Contains(view, "next match") || !strings.Contains(view, "managedFields") {
		t.Fatalf("help lacks the detail keys:\n%s", view)
	}
}
