package ui_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 80, 14

func objects() []runtime.Object {
	created := metav1.NewTime(viewtest.Now.Add(-time.Hour))
	replicas := int32(3)
	return []runtime.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo", CreationTimestamp: created}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "other", CreationTimestamp: created}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web-1", UID: "u1", CreationTimestamp: created},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}}},
		&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "other", Name: "elsewhere", UID: "u2", CreationTimestamp: created},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}}, Status: corev1.PodStatus{Phase: corev1.PodPending}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web", UID: "u3", CreationTimestamp: created},
			Spec:   appsv1.DeploymentSpec{Replicas: &replicas, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
			Status: appsv1.DeploymentStatus{Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3}},
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "kwok-node-0", CreationTimestamp: created, Annotations: map[string]string{"kwok.x-k8s.io/node": "fake"}}},
	}
}

// harness drives a root model: it runs commands once (never the ticks they
// arm, which would sleep) and feeds their messages back.
type harness struct {
	t *testing.T
	m *ui.Model
}

func start(t *testing.T) *harness {
	t.Helper()
	client, cs := kubetest.FakeClient(t, objects()...)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2", Platform: "linux/amd64"}
	return startWith(t, client, "demo", width, height)
}

// startWith starts a root model over any source at a fixed size.
func startWith(t *testing.T, client views.Source, ns string, w, h int, opts ...ui.Option) *harness {
	t.Helper()
	vc := viewtest.Context(client, 0, 0)
	m, err := ui.New(vc, "pods", ns, opts...)
	if err != nil {
		t.Fatal(err)
	}
	hs := &harness{t: t, m: m}
	hs.send(tea.WindowSizeMsg{Width: w, Height: h})
	hs.run(m.Init())
	hs.clock()
	return hs
}

// clock fixes the top screen's clock so that ages are stable.
func (h *harness) clock() {
	if inv, ok := h.m.Top().(*inventory.Model); ok {
		inv.SetClock(func() time.Time { return viewtest.Now })
	}
}

func (h *harness) send(msg tea.Msg) tea.Cmd {
	_, cmd := h.m.Update(msg)
	h.clock()
	return cmd
}

// run executes cmd (and the commands of a batch) and sends their messages.
func (h *harness) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	if batch, ok := msg.(tea.BatchMsg); ok {
		for _, c := range batch {
			h.run(c)
		}
		return
	}
	next := h.send(msg)
	if follows(msg) {
		h.run(next)
	}
}

// follows reports whether what the root answers a message with must run
// too: opening or returning to a screen starts its refresh, and so do a
// context switch and its connection, and the contexts read for the picker.
// Other follow-ups are ticks, which would sleep.
func follows(msg tea.Msg) bool {
	switch msg.(type) {
	case views.OpenKindMsg, views.BackMsg, views.SwitchContextMsg, views.OpenDeployMsg, views.OpenRemoveMsg, views.OpenDriftMsg,
		views.OpenChangeAcrossMsg:
		return true
	}
	switch fmt.Sprintf("%T", msg) {
	case "ui.connectedMsg", "ui.contextsMsg", "ui.rediscoveredMsg", "ui.planAcrossMsg":
		return true
	}
	return false
}

func (h *harness) keys(keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		last = h.send(viewtest.Key(k))
	}
	return last
}

// command types a `:` command and runs what it starts.
func (h *harness) command(text string) {
	h.keys(":")
	for _, r := range text {
		h.keys(string(r))
	}
	h.runKey(h.keys("enter"))
}

// runKey runs the command of a key press, and the screen start it may open.
func (h *harness) runKey(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	msg := cmd()
	next := h.send(msg)
	if follows(msg) {
		h.run(next)
	}
}

func TestRootView(t *testing.T) {
	h := start(t)
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "root-pods", view)
}

func TestCommandSwitchesKind(t *testing.T) {
	h := start(t)
	h.command("deploy")
	if got := h.m.Top().Title(); got != "deployments(demo)[1]" {
		t.Fatalf("title %q", got)
	}
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	viewtest.Golden(t, "root-deploy", view)

	h.command("nodes")
	if got := h.m.Top().Title(); got != "nodes[1]" {
		t.Fatalf("title %q", got)
	}
	h.command("po all")
	if got := h.m.Top().Title(); got != "pods(all)[2]" {
		t.Fatalf("title %q", got)
	}
}

func TestDrillDownAndBackKeepsRow(t *testing.T) {
	h := start(t)
	h.command("ns")
	h.keys("j") // the second namespace: other
	h.runKey(h.keys("enter"))
	if got := h.m.Top().Title(); got != "pods(other)[1]" {
		t.Fatalf("after enter on namespace other: title %q", got)
	}
	if !strings.Contains(h.m.View(), "namespaces[2] › pods(other)[1]") {
		t.Fatalf("no breadcrumb in:\n%s", h.m.View())
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); got != "namespaces[2]" {
		t.Fatalf("after esc: title %q", got)
	}
	view := h.m.View()
	viewtest.Golden(t, "root-back-to-namespaces", view)
}

func TestHelpOverlay(t *testing.T) {
	h := start(t)
	h.keys("?")
	view := h.m.View()
	viewtest.Size(t, view, width, height)
	for _, want := range []string{"command", ":ns <ns>|all", ":ctx [context]", ":keys", "e.g. :pods, :deploy demo"} {
		if !strings.Contains(view, want) {
			t.Fatalf("help lacks %q:\n%s", want, view)
		}
	}
	// Every key of the screen is in the overlay: shown at once, or reached
	// by scrolling it.
	seen := view
	for range 20 {
		h.keys("pgdown")
		v := h.m.View()
		viewtest.Size(t, v, width, height)
		seen += v
	}
	for _, b := range h.m.Top().Bindings() {
		if d := b.Help().Desc; d != "" && !strings.Contains(seen, d) {
			t.Errorf("help never shows %q (%s)", d, b.Help().Key)
		}
	}
	for _, want := range []string{"ctrl+n", "pick namespace", "ctrl+space", "q ctrl+c quit"} {
		if !strings.Contains(seen, want) {
			t.Errorf("help never shows %q", want)
		}
	}
	h.keys("g")
	if v := h.m.View(); !strings.Contains(v, "Global") {
		t.Fatalf("g did not scroll the help back to the top:\n%s", v)
	}
	h.keys("esc")
	if strings.Contains(h.m.View(), "wide columns") {
		t.Fatal("esc did not close the help")
	}
}

func TestQuit(t *testing.T) {
	h := start(t)
	cmd := h.keys("q")
	if cmd == nil {
		t.Fatal("q returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatal("q did not quit")
	}
	h = start(t)
	h.command("quit")
}

// TestKeyBurstIsSplit: runes that arrive in one read are separate key
// presses, so ":ns" typed fast still opens the prompt.
func TestKeyBurstIsSplit(t *testing.T) {
	h := start(t)
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(":ns")})
	h.runKey(h.keys("enter"))
	if got := h.m.Top().Title(); got != "namespaces[2]" {
		t.Fatalf("after a burst \":ns\" and enter: title %q", got)
	}
	h.send(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("jj")})
	if !strings.Contains(h.m.View(), ">   other") {
		t.Fatalf("a burst \"jj\" did not move the cursor:\n%s", h.m.View())
	}
}

func TestEnterTakesTheShownCompletion(t *testing.T) {
	h := start(t)
	h.command("d")
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "deployments(") {
		t.Fatalf(":d + enter: title %q, want deployments", got)
	}
}

func TestUnknownCommandSaysSo(t *testing.T) {
	h := start(t)
	h.command("widgets")
	if !strings.Contains(h.m.View(), `unknown command "widgets"`) {
		t.Fatalf("no error in:\n%s", h.m.View())
	}
	if got := h.m.Top().Title(); got != "pods(demo)[1]" {
		t.Fatalf("an unknown command changed the screen to %q", got)
	}
}

func TestPromptCompletesKinds(t *testing.T) {
	h := start(t)
	h.keys(":", "d", "e", "p", "tab")
	h.runKey(h.keys("enter"))
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "deployments(") {
		t.Fatalf("tab did not complete to a deployment kind: title %q", got)
	}
}

// TestEscClearsTheFilterBeforeGoingBack: with a filter applied, esc clears
// it (the screen captures back); the next esc returns to the screen below.
func TestEscClearsTheFilterBeforeGoingBack(t *testing.T) {
	h := start(t)
	h.command("ns")
	h.keys("j")
	h.runKey(h.keys("enter"))
	if got := h.m.Top().Title(); got != "pods(other)[1]" {
		t.Fatalf("after enter on namespace other: title %q", got)
	}
	h.keys("/", "z", "z", "z")
	h.run(h.keys("enter"))
	if got := h.m.Top().Title(); !strings.Contains(got, "/zzz") {
		t.Fatalf("filter not applied: title %q", got)
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); got != "pods(other)[1]" {
		t.Fatalf("first esc: title %q, want the filter cleared on the same screen", got)
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); got != "namespaces[2]" {
		t.Fatalf("second esc: title %q, want back to namespaces", got)
	}
}

// TestColonQQuitsEvenWhenAKindStartsWithQ: ":q" + enter quits; the shown
// completion (resourcequotas' "quota") is not taken for a command word.
func TestColonQQuitsEvenWhenAKindStartsWithQ(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, quotaSource{client}, "demo", width, height)
	h.keys(":", "q")
	cmd := h.keys("enter")
	if cmd == nil {
		t.Fatal(":q + enter returned no command")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Fatalf(":q + enter did not quit; title %q", h.m.Top().Title())
	}
}

// quotaSource adds a kind whose alias starts with q, as discovery adds
// resourcequotas ("quota") on a real cluster.
type quotaSource struct{ *kube.Client }

func (q quotaSource) Names() []string {
	return append([]string{"quota", "resourcequotas"}, q.Client.Names()...)
}

func (q quotaSource) Kind(name string) (kube.KindInfo, bool) {
	if name == "quota" || name == "resourcequotas" {
		return kube.KindInfo{ID: "resourcequotas", Version: "v1", Resource: "resourcequotas", Namespaced: true,
			Columns: []kube.Column{{Name: "NAME"}}}, true
	}
	return q.Client.Kind(name)
}

// TestCommandStartsAFreshStack: after a drill-down, a `:` command shows
// only its own screen (k9s's behaviour): no stale breadcrumb, nothing for
// esc to return to.
func TestCommandStartsAFreshStack(t *testing.T) {
	h := start(t)
	h.command("ns")
	h.keys("j")
	h.runKey(h.keys("enter"))
	h.command("deploy")
	if view := h.m.View(); strings.Contains(view, "›") || !strings.Contains(view, "deployments(") {
		t.Fatalf("breadcrumb after a command:\n%s", view)
	}
	h.run(h.keys("esc"))
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "deployments(") {
		t.Fatalf("esc after a command left %q", got)
	}
}

// TestTooSmallTerminalGivesItsRealSize: below what kyyard needs, the whole
// terminal says so, with the terminal's own size, cut to fit.
func TestTooSmallTerminalGivesItsRealSize(t *testing.T) {
	h := start(t)
	for _, size := range [][2]int{{200, 2}, {10, 3}, {19, 40}, {1, 1}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		view := h.m.View()
		viewtest.Size(t, view, size[0], size[1])
		flat := strings.Join(strings.Fields(strings.ReplaceAll(view, "\n", "")), " ")
		if want := fmt.Sprintf("%dx%d", size[0], size[1]); size[0] >= 10 && !strings.Contains(strings.ReplaceAll(view, "\n", ""), want) {
			t.Errorf("%dx%d: %q lacks %s", size[0], size[1], flat, want)
		}
	}
}

// TestPromptHintIsWhatEnterRuns: the hint after the typed text is the
// command enter runs. ":deploy" is a kind in full, so it shows no
// completion to "deployments"; ":d" shows "deploy" (found by a fresh-user
// trial: ":pv" hinted ":pvc" and enter opened persistentvolumes).
func TestPromptHintIsWhatEnterRuns(t *testing.T) {
	h := start(t)
	h.keys(":", "d")
	if !strings.Contains(h.m.View(), ":deploy") {
		t.Fatalf(":d shows no completion:\n%s", h.m.View())
	}
	h.typeText("eploy")
	if strings.Contains(h.m.View(), ":deployments") {
		t.Fatalf(":deploy hints deployments, but enter runs deploy:\n%s", h.m.View())
	}
	h.runKey(h.keys("enter"))
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "deployments(") {
		t.Fatalf(":deploy + enter: title %q", got)
	}
}

// TestTooSmallWrapsAtWords: the too-small message breaks at spaces, or
// says less, but never cuts a size in two.
func TestTooSmallWrapsAtWords(t *testing.T) {
	h := start(t)
	h.send(tea.WindowSizeMsg{Width: 20, Height: 5})
	view := h.m.View()
	viewtest.Size(t, view, 20, 5)
	viewtest.Golden(t, "root-too-small", view)
	for _, size := range [][2]int{{20, 5}, {19, 6}, {10, 3}, {12, 2}, {6, 1}, {5, 9}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		view := h.m.View()
		viewtest.Size(t, view, size[0], size[1])
		found := false
		for _, l := range strings.Split(view, "\n") {
			found = found || slices.Contains(strings.Fields(l), "20x7") || slices.Contains(strings.Fields(l), "20x7.")
		}
		if !found {
			t.Errorf("%dx%d: the size kyyard needs is not whole on one line:\n%s", size[0], size[1], view)
		}
	}
}

// laterKind hides configmaps until Rediscover is called, as a CRD
// installed after kyyard read discovery is unknown until it reads again.
type laterKind struct {
	views.Source
	found bool
}

func (s *laterKind) Kind(name string) (kube.KindInfo, bool) {
	if !s.found && (name == "configmaps" || name == "cm") {
		return kube.KindInfo{}, false
	}
	return s.Source.Kind(name)
}

func (s *laterKind) Rediscover(context.Context) bool {
	s.found = true
	return true
}

// TestUnknownKindIsLookedUpAgain: a command naming a kind kyyard does not
// know reads discovery again and then opens it (found by a fresh-user
// trial: a CRD installed after start could never be opened).
func TestUnknownKindIsLookedUpAgain(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	src := &laterKind{Source: client}
	h := startWith(t, src, "demo", width, height)
	h.command("cm")
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "configmaps(") {
		t.Fatalf(":cm after discovery was read again: title %q\n%s", got, h.m.View())
	}
	h.command("gizmos")
	if !strings.Contains(h.m.View(), `unknown command "gizmos"`) {
		t.Fatalf("a kind unknown after discovery:\n%s", h.m.View())
	}
}

// TestStatusIsClearedByTheNextKey: a status message is seen once, as k9s'
// flash: the next key clears it (found by a fresh-user trial: "sorted by
// name again: …" stayed for over a minute, through other keys), unless
// that key says something itself.
func TestStatusIsClearedByTheNextKey(t *testing.T) {
	h := start(t)
	h.command("widgets")
	if !strings.Contains(h.m.View(), `unknown command "widgets"`) {
		t.Fatalf("no error after the command:\n%s", h.m.View())
	}
	h.keys("j")
	if view := h.m.View(); strings.Contains(view, "unknown command") || !strings.Contains(view, "? help") {
		t.Fatalf("the error outlived the next key:\n%s", view)
	}
	// A key with its own message shows it; the key after clears it.
	h.runKey(h.keys("u"))
	if !strings.Contains(h.m.View(), "no unhealthy pods shown") {
		t.Fatalf("u did not say there is no unhealthy row:\n%s", h.m.View())
	}
	h.command("widgets")
	h.runKey(h.keys("u"))
	if view := h.m.View(); strings.Contains(view, "unknown command") || !strings.Contains(view, "no unhealthy pods shown") {
		t.Fatalf("u after an error does not show its own message alone:\n%s", view)
	}
	h.keys("k")
	if strings.Contains(h.m.View(), "no unhealthy") {
		t.Fatalf("the info message outlived the next key:\n%s", h.m.View())
	}
}

// promptLine returns the status line: the prompt while it is open.
func (h *harness) promptLine() string {
	lines := strings.Split(h.m.View(), "\n")
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// TestTabCyclesThroughCompletions: repeated tabs go through every
// completion of what was typed before the first, as a shell's (found by a
// fresh-user trial: ":pods de" tab gave "default", and "demo" was out of
// reach of tab). The prompt holds the candidate, so the hint adds nothing
// and enter runs it; any other key ends the run.
func TestTabCyclesThroughCompletions(t *testing.T) {
	created := metav1.NewTime(viewtest.Now.Add(-time.Hour))
	objs := append(objects(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default", CreationTimestamp: created},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	client, _ := kubetest.FakeClient(t, objs...)
	h := startWith(t, client, "demo", width, height)
	h.keys(":")
	h.typeText("pods de")
	for i, want := range []string{":pods default", ":pods demo", ":pods default", ":pods demo"} {
		h.keys("tab")
		if got := h.promptLine(); got != want {
			t.Fatalf("tab %d: prompt %q, want %q", i+1, got, want)
		}
	}
	h.runKey(h.keys("enter"))
	if got := h.title(); got != "pods(demo)[1]" {
		t.Fatalf("enter after tabbing to demo: title %q", got)
	}

	// Another key ends the run: the next tab completes the new text.
	h.keys(":")
	h.typeText("pods de")
	h.keys("tab", "tab", "backspace", "backspace", "f", "tab", "tab")
	if got := h.promptLine(); got != ":pods default" {
		t.Fatalf("tab after editing: prompt %q, want :pods default", got)
	}
	h.keys("esc")

	// Kind names cycle the same way, in the order the prompt offers them.
	h.keys(":")
	h.typeText("de")
	h.keys("tab")
	if got := h.promptLine(); got != ":deployments" {
		t.Fatalf(":de tab: prompt %q, want :deployments", got)
	}
	seen := []string{"deployments"}
	for range 20 {
		h.keys("tab")
		got := strings.TrimPrefix(h.promptLine(), ":")
		if got == "deployments" {
			break
		}
		if !strings.HasPrefix(got, "de") || slices.Contains(seen, got) {
			t.Fatalf(":de tab…: prompt %q after %q", got, seen)
		}
		seen = append(seen, got)
	}
	if len(seen) < 2 || seen[1] != "deploy" {
		t.Fatalf(":de tabs went through %q, want deployments, deploy, …", seen)
	}
	h.keys("tab")
	h.runKey(h.keys("enter"))
	if got := h.title(); !strings.HasPrefix(got, "deployments(") {
		t.Fatalf("enter after tabbing to deploy: title %q", got)
	}
}
