package ui_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"
	k8stesting "k8s.io/client-go/testing"

	authorizationv1 "k8s.io/api/authorization/v1"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// pickKey is the key that opens the namespace picker.
var pickKey = tea.KeyMsg{Type: tea.KeyCtrlN}

func (h *harness) title() string { return h.m.Top().Title() }

// typeText types text into whatever has the keys (the prompt, a picker).
func (h *harness) typeText(text string) {
	for _, r := range text {
		h.keys(string(r))
	}
}

func TestNsCommandSwitchesTheScreensNamespace(t *testing.T) {
	h := start(t)
	h.command("ns other")
	if got := h.title(); got != "pods(other)[1]" {
		t.Fatalf(":ns other: title %q", got)
	}
	if !strings.Contains(h.m.View(), "pods(other)[1]") || lineOf(h.m.View(), "elsewhere") == "" {
		t.Fatalf(":ns other does not show other's pods:\n%s", h.m.View())
	}
	// The namespace is remembered for the next kind.
	h.command("deploy")
	if got := h.title(); got != "deployments(other)[0]" {
		t.Fatalf(":deploy after :ns other: title %q", got)
	}
	// :ns keeps the kind shown.
	h.command("ns demo")
	if got := h.title(); got != "deployments(demo)[1]" {
		t.Fatalf(":ns demo on deployments: title %q", got)
	}
	for _, all := range []string{"ns all", "ns -A"} {
		h.command("po")
		h.command(all)
		if got := h.title(); got != "pods(all)[2]" {
			t.Fatalf(":%s: title %q", all, got)
		}
	}
	// :ns alone is still the namespaces inventory, as in k9s.
	h.command("ns")
	if got := h.title(); got != "namespaces[2]" {
		t.Fatalf(":ns: title %q", got)
	}
}

func TestNsCommandRefusesInvalidNames(t *testing.T) {
	h := start(t)
	for _, cmd := range []string{"ns Demo", "ns my_ns", "pods -bad"} {
		h.command(cmd)
		if got := h.title(); got != "pods(demo)[1]" {
			t.Fatalf(":%s changed the screen to %q", cmd, got)
		}
		if !strings.Contains(h.m.View(), "not a valid namespace name") {
			t.Fatalf(":%s: no refusal in:\n%s", cmd, h.m.View())
		}
	}
}

func TestNamespacePickerKey(t *testing.T) {
	h := start(t)
	h.runKey(h.send(pickKey))
	if h.m.Overlay() == nil {
		t.Fatal("ctrl+n opened no picker")
	}
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "root-namespace-picker", view)
	// q and : are filter text while the picker is open.
	h.typeText("q:")
	if h.m.Overlay() == nil || !strings.Contains(h.m.View(), "namespace: q:") {
		t.Fatalf("q and : were not typed into the picker:\n%s", h.m.View())
	}
	h.keys("esc")
	if h.m.Overlay() == nil {
		// esc is the picker's: it answers BackMsg, which the root takes.
		t.Fatal("the picker closed before its BackMsg arrived")
	}
	h.run(h.keys("esc"))
	if h.m.Overlay() != nil || h.title() != "pods(demo)[1]" {
		t.Fatalf("esc: overlay %v, title %q", h.m.Overlay(), h.title())
	}

	h.runKey(h.send(pickKey))
	h.typeText("oth")
	h.runKey(h.keys("enter"))
	if h.m.Overlay() != nil || h.title() != "pods(other)[1]" {
		t.Fatalf("picking other: overlay %v, title %q", h.m.Overlay(), h.title())
	}
	// The picked namespace is remembered even from a cluster-scoped kind.
	h.command("nodes")
	h.runKey(h.send(pickKey))
	h.typeText("demo")
	h.runKey(h.keys("enter"))
	h.command("pods")
	if got := h.title(); got != "pods(demo)[1]" {
		t.Fatalf("namespace picked on nodes not remembered: title %q", got)
	}
}

// TestPickerKeepsTheScreenBelowRefreshing: the screen under a picker still
// takes its refreshes; the picker takes only its own.
func TestPickerKeepsTheScreenBelowRefreshing(t *testing.T) {
	client, cs := kubetest.FakeClient(t, objects()...)
	h := startWith(t, client, "demo", width, height)
	h.runKey(h.send(pickKey))
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-2", UID: "u9", CreationTimestamp: metav1.NewTime(viewtest.Now)}}
	if err := cs.Tracker().Add(pod); err != nil {
		t.Fatal(err)
	}
	var title string
	for i := 0; i < 100; i++ { // the informer delivers the add shortly
		h.run(h.m.Top().Init())
		if title = h.title(); title == "pods(demo)[2]" {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if title != "pods(demo)[2]" || h.m.Overlay() == nil {
		t.Fatalf("under the picker: title %q, overlay %v", title, h.m.Overlay())
	}
}

func TestPromptCompletesNamespacesAndContexts(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	k := newKubeconfig(t, "prod")
	h := startWith(t, client, "demo", width, height, ui.WithKubeconfig(k))
	h.keys(":")
	h.typeText("po ot")
	h.keys("tab")
	if !strings.Contains(h.m.View(), ":po other") {
		t.Fatalf("tab after :po ot did not complete other:\n%s", h.m.View())
	}
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(other)[1]" {
		t.Fatalf(":po other: title %q", got)
	}
	// enter takes the completion shown, as for kinds.
	h.command("ns de")
	if got := h.title(); got != "pods(demo)[1]" {
		t.Fatalf(":ns de + enter: title %q", got)
	}
	h.command("deploy al")
	if got := h.title(); got != "deployments(all)[1]" {
		t.Fatalf(":deploy al + enter: title %q", got)
	}
	h.keys(":")
	h.typeText("ctx d")
	h.keys("tab")
	if !strings.Contains(h.m.View(), ":ctx dev") {
		t.Fatalf("tab after :ctx d did not complete dev:\n%s", h.m.View())
	}
	h.keys("esc")
}

// fakeKubeconfig is a kubeconfig with contexts whose connections are fake
// clients, each reporting its own server version and closing visibly.
type fakeKubeconfig struct {
	t         *testing.T
	current   string
	names     []string
	sources   map[string]*closingSource
	connected []string
}

type closingSource struct {
	views.Source
	closed bool
}

func (s *closingSource) Close() { s.closed = true }

func newKubeconfig(t *testing.T, current string) *fakeKubeconfig {
	k := &fakeKubeconfig{t: t, current: current, names: []string{"dev", "prod"}, sources: map[string]*closingSource{}}
	for _, name := range k.names {
		client, cs := kubetest.FakeClient(t, objects()...)
		client.SetNamespace(map[string]string{"dev": "other", "prod": "demo"}[name])
		cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2-" + name}
		k.sources[name] = &closingSource{Source: client}
	}
	return k
}

func (k *fakeKubeconfig) Contexts() ([]string, string, error) { return k.names, k.current, nil }

func (k *fakeKubeconfig) Connect(name string) (views.Source, error) {
	k.connected = append(k.connected, name)
	s, ok := k.sources[name]
	if !ok {
		return nil, errors.New("context " + name + " has no cluster")
	}
	return s, nil
}

func TestContextPickerSwitches(t *testing.T) {
	k := newKubeconfig(t, "prod")
	first := k.sources["prod"]
	h := startWith(t, first, "demo", width, height, ui.WithKubeconfig(k))
	h.command("ns")
	h.runKey(h.keys("enter")) // namespace demo's pods, over the namespaces
	if got := h.m.View(); !strings.Contains(got, "namespaces[2] › pods(demo)[1]") {
		t.Fatalf("no drill-down to switch from:\n%s", got)
	}
	h.command("ctx")
	if h.m.Overlay() == nil {
		t.Fatalf(":ctx opened no picker:\n%s", h.m.View())
	}
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "root-context-picker", view)
	if !strings.Contains(view, "prod  (current)") {
		t.Fatalf("the context in use is not marked:\n%s", view)
	}
	h.typeText("dev")
	h.runKey(h.keys("enter"))
	if h.m.Overlay() != nil {
		t.Fatal("the picker stayed open after the switch")
	}
	// The same kind, in the new context's namespace, alone on the stack.
	if got, n := h.title(), len(strings.Split(h.m.View(), "›")); got != "pods(other)[1]" || n != 1 {
		t.Fatalf("after switching to dev: title %q (%d crumbs)", got, n)
	}
	if !first.closed {
		t.Fatal("the old connection was not closed")
	}
	if !strings.Contains(h.m.View(), "k8s: v1.37.2-dev") {
		t.Fatalf("the header's facts were not read again:\n%s", h.m.View())
	}
	// And back with :ctx <name>, marked as the one in use meanwhile.
	h.command("ctx")
	if !strings.Contains(h.m.View(), "dev  (current)") {
		t.Fatalf("after the switch dev is not marked current:\n%s", h.m.View())
	}
	h.run(h.keys("esc"))
	h.command("ctx prod")
	if got := h.title(); got != "pods(demo)[1]" || !k.sources["dev"].closed {
		t.Fatalf(":ctx prod: title %q, dev closed %v", got, k.sources["dev"].closed)
	}
}

func TestContextSwitchErrorsChangeNothing(t *testing.T) {
	k := newKubeconfig(t, "prod")
	k.names = append(k.names, "broken") // listed, but Connect fails
	first := k.sources["prod"]
	h := startWith(t, first, "demo", width, height, ui.WithKubeconfig(k))
	h.command("ctx nope")
	if !strings.Contains(h.m.View(), `unknown context "nope"`) || len(k.connected) != 0 {
		t.Fatalf(":ctx nope: connected %q, view:\n%s", k.connected, h.m.View())
	}
	h.command("ctx broken")
	if !strings.Contains(h.m.View(), "cannot switch to context broken") {
		t.Fatalf(":ctx broken: no error in:\n%s", h.m.View())
	}
	if got := h.title(); got != "pods(demo)[1]" || first.closed {
		t.Fatalf("a failed switch changed things: title %q, old closed %v", got, first.closed)
	}

	// Without a kubeconfig there is nothing to switch.
	h = start(t)
	for _, cmd := range []string{"ctx", "ctx prod"} {
		h.command(cmd)
		if !strings.Contains(h.m.View(), "not started from a kubeconfig") {
			t.Fatalf(":%s without a kubeconfig:\n%s", cmd, h.m.View())
		}
	}
}

// restrictedClient is a user bound to namespace demo (casebook C13): listing
// namespaces answers 403, and no SelfSubjectAccessReview allows watching
// them.
func restrictedClient(t *testing.T, objs ...runtime.Object) views.Source {
	client, cs := kubetest.FakeClient(t, objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(action k8stesting.Action) (bool, runtime.Object, error) {
		review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		if review.Spec.ResourceAttributes.Resource == "namespaces" {
			return kubetest.DenyAccessReviews(action)
		}
		return kubetest.AllowAccessReviews(action)
	})
	cs.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "",
			errors.New(`User "jane" cannot list resource "namespaces" in API group "" at the cluster scope`))
	})
	return client
}

// TestC13RestrictedUserPicksNamespaceByName: a user who may not list
// namespaces, started in demo, sees demo's pods; the picker says why it
// has no list, takes a typed name and switches; the prompt completes no
// namespace and does not fail.
func TestC13RestrictedUserPicksNamespaceByName(t *testing.T) {
	h := startWith(t, restrictedClient(t, objects()...), "demo", width, height)
	if got := h.title(); got != "pods(demo)[1]" || lineOf(h.m.View(), "web-1") == "" {
		t.Fatalf("the restricted user does not see demo's pods: title %q\n%s", got, h.m.View())
	}
	h.runKey(h.send(pickKey))
	view := h.m.View()
	flat := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(flat, "Namespaces cannot be listed") || !strings.Contains(flat, "RBAC forbids it") {
		t.Fatalf("the picker does not say that namespaces cannot be listed:\n%s", view)
	}
	h.typeText("other")
	viewtest.Golden(t, "root-c13-picker", h.m.View())
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(other)[1]" || h.m.Overlay() != nil {
		t.Fatalf("typed namespace other: title %q", got)
	}
	h.keys(":")
	h.typeText("ns ")
	h.keys("tab")
	if !strings.Contains(h.m.View(), "\n:ns ") || strings.Contains(h.m.View(), ":ns all") {
		t.Fatalf(":ns + tab completed something with no names to complete:\n%s", h.m.View())
	}
	h.runKey(h.keys("enter"))
	if got := h.title(); !strings.HasPrefix(got, "namespaces") {
		t.Fatalf(":ns (with a trailing space) opened %q, not the namespaces inventory", got)
	}
}

// TestC13RestrictedUserTypesAll: in the picker without a list, "all" is
// all namespaces (as `:pods all`), not a namespace named "all", and the
// status line says what typing does there.
func TestC13RestrictedUserTypesAll(t *testing.T) {
	h := startWith(t, restrictedClient(t, objects()...), "demo", width, height)
	h.runKey(h.send(pickKey))
	status := h.promptLine()
	if !strings.Contains(status, "type a namespace name") || strings.Contains(status, "filter") {
		t.Fatalf("status line in the picker without a list: %q", status)
	}
	h.typeText("all")
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(all)[2]" || lineOf(h.m.View(), "elsewhere") == "" {
		t.Fatalf("all typed in the picker: title %q, want every namespace's pods\n%s", got, h.m.View())
	}
}

// TestDrillDownUnderAPickerLeavesItOpen: a drill-down that was under way
// when the picker opened lands below it; only a pick (a replacement)
// closes the picker.
func TestDrillDownUnderAPickerLeavesItOpen(t *testing.T) {
	h := start(t)
	h.runKey(h.send(pickKey))
	h.run(func() tea.Msg { return views.OpenKindMsg{Kind: "pods", Namespace: "other", Parent: "namespaces/other"} })
	if h.m.Overlay() == nil {
		t.Fatal("a drill-down closed the picker")
	}
	if !strings.Contains(h.m.View(), "pods(demo)[1] › ") {
		t.Fatalf("the drill-down did not land below the picker:\n%s", h.m.View())
	}
	h.command("deploy") // typed into the picker's filter, not run
	if h.m.Overlay() == nil || !strings.Contains(h.m.View(), "namespace: :deploy") {
		t.Fatalf("the prompt opened over the picker:\n%s", h.m.View())
	}
}

// namedContext reports the context it was connected with in its facts, as
// a kube.Client made from a kubeconfig does.
type namedContext struct {
	views.Source
	name string
}

func (s namedContext) Facts(ctx context.Context) kube.Facts {
	f := s.Source.Facts(ctx)
	f.Context = s.name
	return f
}

// TestSwitchToTheContextInUseKeepsTheScreens: picking the context already
// in use does not reconnect, so the screens and their namespace stay.
func TestSwitchToTheContextInUseKeepsTheScreens(t *testing.T) {
	k := newKubeconfig(t, "prod")
	h := startWith(t, namedContext{k.sources["prod"], "prod"}, "demo", width, height, ui.WithKubeconfig(k))
	h.command("ns other")
	h.command("ctx prod")
	if got := h.title(); got != "pods(other)[1]" || len(k.connected) != 0 || !strings.Contains(h.m.View(), "already in context prod") {
		t.Fatalf(":ctx prod while in prod: title %q, connected %q\n%s", got, k.connected, h.m.View())
	}
}

// TestPromptHintIsSanitized: a kubeconfig context whose name holds an
// escape sequence is offered as a completion after ":ctx "; the hint shows
// it cleaned, so the screen is never cleared (a fresh-user trial found
// "\x1b[2J" in a context name blanking the screen).
func TestPromptHintIsSanitized(t *testing.T) {
	k := newKubeconfig(t, "prod")
	k.names = append(k.names, "evil\x1b[2Jctx")
	h := startWith(t, k.sources["prod"], "demo", width, height, ui.WithKubeconfig(k))
	h.keys(":")
	h.typeText("ctx e")
	view := h.m.View()
	if strings.Contains(view, "\x1b[2J") || strings.Contains(view, "\x1b]") {
		t.Fatalf("the prompt draws the context name raw: %q", view)
	}
	if !strings.Contains(view, ":ctx evil") || !strings.Contains(view, "[2Jctx") {
		t.Fatalf("the hint does not show the cleaned context name:\n%s", view)
	}
	viewtest.Size(t, view, width, height)
	h.keys("esc")
}

// TestCommandTakesGroupQualifiedKinds: as kubectl, `:deployments.apps`
// names the built-in deployments.
func TestCommandTakesGroupQualifiedKinds(t *testing.T) {
	h := start(t)
	for _, name := range []string{"deployments.apps", "Deployment.v1.apps"} {
		h.command(name + " demo")
		if got := h.title(); got != "deployments(demo)[1]" {
			t.Fatalf(":%s demo: title %q", name, got)
		}
	}
}

// statusLine returns the last line of the view: the root's status line.
func statusLine(view string) string {
	lines := strings.Split(view, "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// TestNamespaceOnAClusterScopedKindSaysSo: ctrl+n, `:ns <name>` and
// `:<kind> <name>` on a cluster-scoped kind say that the namespace does not
// apply to it; `:ns` and the picker still remember it for namespaced kinds.
func TestNamespaceOnAClusterScopedKindSaysSo(t *testing.T) {
	h := start(t)
	h.command("nodes")
	h.runKey(h.send(pickKey))
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "root-namespace-picker-cluster-scoped", view)
	h.typeText("other")
	h.runKey(h.keys("enter"))
	if got := statusLine(h.m.View()); got != "nodes are cluster-scoped: the choice of namespace other is for namespaced kinds" {
		t.Fatalf("picking a namespace on nodes: status %q", got)
	}
	h.command("ns demo")
	if got := statusLine(h.m.View()); got != "nodes are cluster-scoped: the choice of namespace demo is for namespaced kinds" || h.title() != "nodes[1]" {
		t.Fatalf(":ns demo on nodes: title %q, status %q", h.title(), got)
	}
	h.command("nodes other")
	if got := statusLine(h.m.View()); got != "nodes are cluster-scoped: namespace other does not apply to them" || h.title() != "nodes[1]" {
		t.Fatalf(":nodes other: title %q, status %q", h.title(), got)
	}
	h.command("pods")
	if got := h.title(); got != "pods(demo)[1]" {
		t.Fatalf(":pods after :ns demo on nodes: title %q", got)
	}
	if got := statusLine(h.m.View()); strings.Contains(got, "cluster-scoped") {
		t.Fatalf(":pods: status %q", got)
	}
}

// TestLongContextNameKeepsClusterAndUser: a long kubeconfig context name
// is cut so that the cluster and the user stay on the header line (a
// fresh-user trial saw only "ctx: longlong…").
func TestLongContextNameKeepsClusterAndUser(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	long := "arn:aws:eks:eu-west-1:123456789012:cluster/a-very-long-production-cluster-name"
	h := startWith(t, namedContext{Source: client, name: long}, "demo", 80, height)
	view := h.m.View()
	viewtest.Size(t, view, 80, height)
	first := strings.Split(view, "\n")[0]
	if !strings.Contains(first, "ctx: arn:aws") || !strings.Contains(first, "cluster: ") || !strings.Contains(first, "user: ") {
		t.Fatalf("header line: %q", first)
	}
	viewtest.Golden(t, "root-long-context", view)
}

// TestSeveralNamespacesByCommandAndPicker is issue 27's "several
// namespaces at once" in the root: `:pods other,demo` opens both
// (pods(demo,other), the NAMESPACE column), `:pods demo,,other` is refused
// on the status line, and marks in the namespace picker open the marked
// namespaces; a restricted user types two names there.
func TestSeveralNamespacesByCommandAndPicker(t *testing.T) {
	h := start(t)
	h.command("pods other,demo")
	if got := h.title(); got != "pods(demo,other)[2]" || lineOf(h.m.View(), "elsewhere") == "" || lineOf(h.m.View(), "NAMESPACE") == "" {
		t.Fatalf(":pods other,demo: title %q\n%s", got, h.m.View())
	}
	h.command("pods demo,,other")
	if status := h.promptLine(); !strings.Contains(status, "missing between the commas") || h.title() != "pods(demo,other)[2]" {
		t.Fatalf(":pods demo,,other: status %q, title %q", status, h.title())
	}
	h.command("pods demo")
	h.runKey(h.send(pickKey))
	h.typeText("other")
	h.keys("tab")
	h.keys("backspace", "backspace", "backspace", "backspace", "backspace")
	h.typeText("demo")
	h.keys("tab")
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(demo,other)[2]" || h.m.Overlay() != nil {
		t.Fatalf("demo and other marked in the picker: title %q\n%s", got, h.m.View())
	}

	h = startWith(t, restrictedClient(t, objects()...), "demo", width, height)
	h.runKey(h.send(pickKey))
	h.typeText("other,demo")
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(demo,other)[2]" {
		t.Fatalf("other,demo typed by a restricted user: title %q\n%s", got, h.m.View())
	}
}
