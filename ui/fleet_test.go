package ui_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// titleBar returns the title bar's text (under the two lines of facts).
func (h *harness) titleBar() string {
	return strings.TrimSpace(strings.Split(h.m.View(), "\n")[2])
}

// refreshUntil refreshes the top screen (ctrl+r) until its view shows
// want, failing after the deadline.
func (h *harness) refreshUntil(want string, deadline time.Time) {
	h.t.Helper()
	for !strings.Contains(h.m.View(), want) {
		if time.Now().After(deadline) {
			h.t.Fatalf("%q never showed:\n%s", want, h.m.View())
		}
		time.Sleep(20 * time.Millisecond)
		h.run(h.keys("ctrl+r"))
	}
}

// clientsKubeconfig is a kubeconfig of fake clusters whose clients are
// *kube.Client (every interface the screens look for).
type clientsKubeconfig struct {
	names   []string
	current string
	clients map[string]*kube.Client
}

func newClientsKubeconfig(t *testing.T, current string, names ...string) *clientsKubeconfig {
	k := &clientsKubeconfig{names: names, current: current, clients: map[string]*kube.Client{}}
	for _, name := range names {
		k.clients[name], _ = kubetest.FakeClient(t, objects()...)
		k.clients[name].SetNamespace("demo")
	}
	return k
}

func (k *clientsKubeconfig) Contexts() ([]string, string, error) { return k.names, k.current, nil }

func (k *clientsKubeconfig) Connect(name string) (views.Source, error) {
	if c, ok := k.clients[name]; ok {
		return c, nil
	}
	return nil, errors.New("context " + name + " has no cluster")
}

// fleetHarness starts kyyard on pods across contexts dev and prod (as
// --contexts dev,prod does, on prod), and refreshes until both clusters'
// rows show.
func fleetHarness(t *testing.T) (*harness, *clientsKubeconfig) {
	t.Helper()
	k := newClientsKubeconfig(t, "prod", "dev", "prod")
	h := startWith(t, k.clients["prod"], "demo", 120, 20, ui.WithKubeconfig(k), ui.WithFleet([]string{"dev", "prod"}))
	h.refreshUntil("clusters: dev 1 · prod 1", time.Now().Add(10*time.Second))
	return h, k
}

// Across a fleet, the pods screen shows each cluster's rows with its
// context; describe and delete on a row open that row's cluster's screens,
// which name it (the title bar, the confirmation); esc comes back to the
// fleet; :ctx leaves it.
func TestFleetScreensRouteToRowsCluster(t *testing.T) {
	h, _ := fleetHarness(t)
	view := h.m.View()
	if !strings.Contains(view, "pods(each context's namespace)[2] @2 contexts") || !strings.Contains(view, "CONTEXT") || !strings.Contains(view, "NAMESPACE") {
		t.Fatalf("no pods across the fleet:\n%s", view)
	}
	// Rows: demo/web-1@dev, demo/web-1@prod.
	h.runKey(h.keys("d"))
	if got := h.titleBar(); !strings.HasSuffix(got, "@dev") || !strings.Contains(got, "web-1") {
		t.Fatalf("describe of dev's row opened %q", got)
	}
	h.runKey(h.keys("esc"))
	h.keys("j")
	h.run(h.send(h.keys("ctrl+d")())) // the confirmation and its plan
	view = h.m.View()
	viewtest.Size(t, view, 120, 20)
	if got := h.titleBar(); !strings.HasSuffix(got, "@prod") || !strings.Contains(view, "pods/web-1 (demo) in context prod") {
		t.Fatalf("delete of prod's row asked %q:\n%s", got, view)
	}
	h.runKey(h.keys("n"))
	h.command("ctx dev")
	if got := h.titleBar(); strings.Contains(got, "@") || !strings.HasPrefix(got, "pods(") {
		t.Fatalf(":ctx dev left %q", got)
	}
	h.command("deploy")
	if view := h.m.View(); strings.Contains(view, "CONTEXT") {
		t.Fatalf("after :ctx, kinds still open across the fleet:\n%s", view)
	}
}

// :fleet NAME chooses a fleet: the kinds opened next show its contexts'
// rows, the title naming the fleet.
func TestFleetCommandOpensKindsAcross(t *testing.T) {
	k := newKubeconfig(t, "prod")
	fk := fleetKubeconfig{k, map[string][]string{"both": {"prod", "dev"}, "live": {"prod"}}}
	h := startWith(t, k.sources["prod"], "demo", 120, 20, ui.WithKubeconfig(fk))
	h.command("fleet both")
	h.command("deploy")
	// Each context's own namespace: prod's demo holds web, dev's other
	// nothing.
	h.refreshUntil("clusters: prod 1 · dev 0", time.Now().Add(10*time.Second))
	if got := h.titleBar(); got != "deployments(each context's namespace)[1] @fleet both" {
		t.Fatalf(":fleet both, :deploy opened %q", got)
	}
	// A namespace named applies to every cluster.
	h.command("deploy demo")
	h.refreshUntil("clusters: prod 1 · dev 1", time.Now().Add(10*time.Second))
	if got := h.titleBar(); got != "deployments(demo)[2] @fleet both" {
		t.Fatalf(":deploy demo opened %q", got)
	}
	// Leaving the fleet: the context's own namespace again.
	h.command("ctx dev")
	h.command("deploy")
	if got := h.titleBar(); got != "deployments(other)[0]" {
		t.Fatalf(":ctx dev, :deploy opened %q", got)
	}
}

// A fleet started with -n (WithNamespaceChosen) reads that namespace in
// every context; entered later (:fleet NAME), each context's own again.
func TestFleetStartedWithANamespaceKeepsIt(t *testing.T) {
	k := newKubeconfig(t, "prod")
	fk := fleetKubeconfig{k, map[string][]string{"both": {"prod", "dev"}}}
	h := startWith(t, k.sources["prod"], "demo", 120, 20, ui.WithKubeconfig(fk), ui.WithFleet([]string{"prod", "dev"}), ui.WithNamespaceChosen())
	h.refreshUntil("clusters: prod 1 · dev 1", time.Now().Add(10*time.Second))
	if got := h.titleBar(); got != "pods(demo)[2] @2 contexts" {
		t.Fatalf("-n demo across two contexts opened %q", got)
	}
	h.command("fleet both")
	h.command("pods")
	h.refreshUntil("clusters: prod 1 · dev 1", time.Now().Add(10*time.Second))
	if got := h.titleBar(); got != "pods(each context's namespace)[2] @fleet both" {
		t.Fatalf(":fleet both, :pods opened %q", got)
	}
	// dev's own namespace is other: its pod there, with its namespace.
	if f := strings.Fields(lineOf(h.m.View(), "elsewhere")); !contains(f, "dev") || !contains(f, "other") {
		t.Fatalf("no row of dev's pod in its namespace:\n%s", h.m.View())
	}
}

// :ctx, tab on two contexts, enter: the kind shown opens across them.
func TestContextPickerMarksOpenFleet(t *testing.T) {
	k := newClientsKubeconfig(t, "prod", "dev", "prod")
	h := startWith(t, k.clients["prod"], "demo", 120, 20, ui.WithKubeconfig(k))
	h.command("deploy")
	h.command("ctx")
	h.keys("tab", "up", "tab") // prod (the current, under the cursor), then dev
	h.runKey(h.keys("enter"))
	h.refreshUntil("clusters: dev 1 · prod 1", time.Now().Add(10*time.Second))
	if got := h.titleBar(); got != "deployments(each context's namespace)[2] @2 contexts" {
		t.Fatalf("the marked contexts opened %q", got)
	}
}

// A switch asked before the last one never lands after it: the last
// context asked for stays (a slow connection answering late is dropped).
func TestLateContextSwitchDropped(t *testing.T) {
	k := newClientsKubeconfig(t, "a", "a", "b", "c")
	h := startWith(t, k.clients["a"], "demo", 120, 20, ui.WithKubeconfig(k))
	slow := h.send(views.SwitchContextMsg{Context: "b"})
	if s := statusLine(h.m.View()); !strings.Contains(s, "connecting to context b…") {
		t.Fatalf("no word while connecting: %q", s)
	}
	h.run(h.send(h.send(views.SwitchContextMsg{Context: "c"})()))
	if s := statusLine(h.m.View()); !strings.Contains(s, "switched to context c") {
		t.Fatalf("the second switch: %q", s)
	}
	h.run(h.send(slow()))
	if s := statusLine(h.m.View()); !strings.Contains(s, "switched to context c") {
		t.Fatalf("the first switch landed after the second: %q", s)
	}
}

// = on a Deployment across the fleet opens its drift screen: read in
// every context, side by side, titled with the fleet; on a pod it says
// which kinds it compares; esc comes back.
func TestFleetDriftOpensAcrossTheContexts(t *testing.T) {
	h, _ := fleetHarness(t)
	h.run(h.keys("="))
	if s := statusLine(h.m.View()); !strings.Contains(s, "= compares a Deployment, StatefulSet or DaemonSet") {
		t.Fatalf("= on a pod: %q", s)
	}
	h.command("deploy")
	h.refreshUntil("clusters: dev 1 · prod 1", time.Now().Add(10*time.Second))
	h.runKey(h.keys("="))
	view := h.m.View()
	viewtest.Size(t, view, 120, 20)
	if got := h.titleBar(); !strings.HasSuffix(got, "drift deployments/web(demo) @2 contexts") {
		t.Fatalf("= opened %q:\n%s", got, view)
	}
	if f := strings.Fields(lineOf(view, "present")); !contains(f, "yes") || len(f) != 3 {
		t.Fatalf("no column per context:\n%s", view)
	}
	if !strings.Contains(view, "0 of") || strings.Contains(view, "≠") && !strings.Contains(view, "≠ differs") {
		t.Fatalf("two equal Deployments differ:\n%s", view)
	}
	h.runKey(h.keys("esc"))
	if got := h.titleBar(); !strings.HasPrefix(got, "deployments(") || strings.Contains(got, "drift") {
		t.Fatalf("esc came back to %q", got)
	}
}

// e on the drift screen opens the workload form as the first context has
// it (tagged with that context); its ctrl+s plans the change in every
// context where the workload is, in order, titled with the fleet,
// nothing written yet.
func TestFleetChangeAcrossPlansEveryContext(t *testing.T) {
	h, _ := fleetHarness(t)
	h.command("deploy")
	h.refreshUntil("clusters: dev 1 · prod 1", time.Now().Add(10*time.Second))
	h.runKey(h.keys("="))
	h.runKey(h.keys("e"))
	h.run(h.m.Top().Init()) // the form's read (its first field: replicas)
	if got := h.titleBar(); !strings.HasSuffix(got, "@dev") {
		t.Fatalf("e opened %q:\n%s", got, h.m.View())
	}
	h.keys("ctrl+u", "5") // replicas (the fake Deployment has no containers)
	h.run(h.keys("ctrl+s"))
	view := h.m.View()
	if got := h.titleBar(); !strings.HasSuffix(got, "change deployments/web(demo) @2 contexts") {
		t.Fatalf("ctrl+s opened %q:\n%s", got, view)
	}
	for _, want := range []string{"1 dev — planned: 1 change(s), dry run accepted", "2 prod — planned: 1 change(s)", "replicas: 3 → 5"} {
		if !strings.Contains(view, want) {
			t.Errorf("the plan lacks %q:\n%s", want, view)
		}
	}
	// (Nothing written is shown on the real fleet: client-go's fake
	// clientset applies a dry run's patch.)
}
