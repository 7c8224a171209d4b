package ui_test

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
)

// lineOf returns the view line that shows the object name as a whole word.
func lineOf(view, name string) string {
	for _, l := range strings.Split(view, "\n") {
		for _, f := range strings.Fields(l) {
			if f == name {
				return l
			}
		}
	}
	return ""
}

// TestE2ERootShowsDemoPodsAsServerTable drives kyyard's root model against
// the local cluster and checks that every demo pod's line shows the READY
// and STATUS the API server's own Table answer gives for it.
func TestE2ERootShowsDemoPodsAsServerTable(t *testing.T) {
	cfg := kubetest.Local(t)
	client := kubetest.Client(t, cfg)
	var problems []string
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		cols, rows := kubetest.ServerTable(t, cfg, "", "pods", kubetest.DemoNamespace)
		if len(rows) == 0 {
			t.Fatal("the demo namespace has no pods: was the cluster seeded?")
		}
		// Wide and tall enough for every pod, whatever else a person has
		// added to demo (names are at most 253 characters).
		h := startWith(t, client, kubetest.DemoNamespace, 400, len(rows)+20)
		view := h.m.View()
		// The view was read between two answers of the server: a pod whose
		// status moves meanwhile (the real node's crash-looper restarts
		// every few seconds) agrees with one of them.
		_, after := kubetest.ServerTable(t, cfg, "", "pods", kubetest.DemoNamespace)
		ready, status := indexOf(cols, "Ready"), indexOf(cols, "Status")
		problems = nil
		for name, cells := range rows {
			l := lineOf(view, name)
			fields := strings.Fields(l)
			agrees := func(cells []string) bool {
				return cells != nil && contains(fields, cells[ready]) && contains(fields, cells[status])
			}
			if l == "" || !agrees(cells) && !agrees(after[name]) {
				problems = append(problems, name+": server says "+cells[ready]+" "+cells[status]+", kyyard shows "+strings.TrimSpace(l))
			}
		}
		if len(problems) == 0 {
			if !strings.Contains(view, "k8s: v1.37.2") || !strings.Contains(view, "platform: kwok") {
				t.Fatalf("header lacks the server's facts:\n%s", view)
			}
			return
		}
	}
	t.Fatalf("kyyard's view differs from the API server's Table:\n%s", strings.Join(problems, "\n"))
}

// TestE2EReadOnlyUserSeesPodsAndExplanations: the ServiceAccount that may
// only get and list in demo sees demo's pods refreshing, and :ns explains
// that namespaces cannot be listed instead of showing an empty table.
func TestE2EReadOnlyUserSeesPodsAndExplanations(t *testing.T) {
	cfg := kubetest.LocalReadOnly(t)
	client := kubetest.Client(t, cfg)
	h := startWith(t, client, kubetest.DemoNamespace, 120, tallEnough(t, cfg))
	view := h.m.View()
	if lineOf(view, "sidecar-demo") == "" {
		t.Fatalf("the read-only user does not see demo's pods:\n%s", view)
	}
	if !strings.Contains(view, "user: system:serviceaccount:demo:viewer") || !strings.Contains(view, "nodes: unknown") {
		t.Fatalf("header facts for the read-only user:\n%s", view)
	}
	h.command("ns")
	view = h.m.View()
	if !strings.Contains(view, "Cannot show namespaces") || !strings.Contains(view, "forbidden") {
		t.Fatalf(":ns for a user who may not list namespaces:\n%s", view)
	}
}

// tallEnough returns a terminal height that shows every pod of demo, however
// many the DaemonSet's pods on the cluster's (fake) nodes make them.
func tallEnough(t *testing.T, cfg *rest.Config) int {
	_, rows := kubetest.ServerTable(t, cfg, "", "pods", kubetest.DemoNamespace)
	return len(rows) + 20
}

func indexOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}

func contains(fields []string, s string) bool {
	for _, f := range fields {
		if f == s {
			return true
		}
	}
	return false
}

// TestE2EC13ReadOnlyUserPicksNamespaceByName is casebook C13 on the local
// cluster: the ServiceAccount that may list pods in demo but not
// namespaces, started in demo, sees demo's pods; the namespace picker says
// that namespaces cannot be listed and why, and takes "demo" typed.
func TestE2EC13ReadOnlyUserPicksNamespaceByName(t *testing.T) {
	cfg := kubetest.LocalReadOnly(t)
	client := kubetest.Client(t, cfg)
	h := startWith(t, client, kubetest.DemoNamespace, 120, tallEnough(t, cfg))
	if lineOf(h.m.View(), "sidecar-demo") == "" {
		t.Fatalf("the read-only user does not see demo's pods:\n%s", h.m.View())
	}
	h.runKey(h.send(pickKey))
	view := h.m.View()
	flat := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(flat, "Namespaces cannot be listed") || !strings.Contains(flat, "RBAC forbids it") {
		t.Fatalf("the picker does not explain why namespaces are missing:\n%s", view)
	}
	h.typeText("Demo")
	h.runKey(h.keys("enter"))
	if h.m.Overlay() == nil || !strings.Contains(h.m.View(), "not a valid namespace name") {
		t.Fatalf("an invalid name was not refused:\n%s", h.m.View())
	}
	for range "Demo" {
		h.send(tea.KeyMsg{Type: tea.KeyBackspace})
	}
	h.typeText("demo")
	h.runKey(h.keys("enter"))
	view = h.m.View()
	if h.m.Overlay() != nil || !strings.HasPrefix(h.title(), "pods(demo)") || lineOf(view, "sidecar-demo") == "" {
		t.Fatalf("picking demo by name: title %q\n%s", h.title(), view)
	}
}
