package inventory_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stypes "k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

func testPod(ns, name string, age time.Duration, state corev1.ContainerState, ready bool, restarts int32) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: k8stypes.UID(ns + "/" + name),
			CreationTimestamp: metav1.NewTime(viewtest.Now.Add(-age))},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app"}}, NodeName: "kwok-node-0"},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIPs: []corev1.PodIP{{IP: "10.0.0.1"}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "app", Ready: ready, State: state, RestartCount: restarts}}},
	}
	if restarts > 0 {
		p.Status.ContainerStatuses[0].LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
			ExitCode: 1, Reason: "Error", FinishedAt: metav1.NewTime(viewtest.Now.Add(-3 * time.Minute))}}
	}
	return p
}

var (
	run  = corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}
	loop = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}
	pull = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ImagePullBackOff"}}
)

func demoObjects() []runtime.Object {
	return []runtime.Object{
		testPod("demo", "web-7d9f-abcde", 2*time.Hour, run, true, 0),
		testPod("demo", "crashy-5c4b-xyz12", 30*time.Minute, loop, false, 7),
		testPod("demo", "badimage-66f-qq9", 5*time.Minute, pull, false, 0),
		testPod("other", "elsewhere", 49*time.Hour, run, true, 0),
	}
}

// load builds a screen and feeds it its first snapshot.
func load(t *testing.T, client views.Source, kind kube.Kind, ns string, w, h int) (*inventory.Model, *views.Context) {
	t.Helper()
	vc := viewtest.Context(noSamples(client), w, h)
	m, err := inventory.New(vc, kind, ns)
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	refresh(t, m, m.Init())
	return m, vc
}

// refresh runs a refresh command and hands its message to the screen.
func refresh(t *testing.T, m *inventory.Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no refresh command")
	}
	if _, next := m.Update(cmd()); next == nil {
		t.Fatal("a snapshot did not arm the next refresh")
	}
}

func press(m *inventory.Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		_, last = m.Update(viewtest.Key(k))
	}
	return last
}

func TestPodsView(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	view := m.View()
	viewtest.Size(t, view, 80, 8)
	viewtest.Golden(t, "pods", view)
	if got := m.Title(); got != "pods(demo)[3]" {
		t.Fatalf("title %q", got)
	}
}

func TestPodsViewWideAllNamespaces(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "po", "", 120, 8)
	press(m, "w", "j")
	view := m.View()
	viewtest.Size(t, view, 120, 8)
	viewtest.Golden(t, "pods-wide-all", view)
	if got := m.Title(); got != "pods(all)[4]" {
		t.Fatalf("title %q", got)
	}
}

func TestNarrowTerminalCutsColumns(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 40, 6)
	view := m.View()
	viewtest.Size(t, view, 40, 6)
	viewtest.Golden(t, "pods-narrow", view)
}

func TestForbiddenKindExplainsInsteadOfEmptyTable(t *testing.T) {
	client, cs := kubetest.FakeClient(t)
	cs.PrependReactor("list", "namespaces", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "namespaces"}, "",
			errors.New(`User "system:serviceaccount:demo:viewer" cannot list resource "namespaces" at the cluster scope`))
	})
	m, _ := load(t, client, "ns", "demo", 80, 8)
	view := m.View()
	viewtest.Size(t, view, 80, 8)
	viewtest.Golden(t, "namespaces-forbidden", view)
	if !strings.Contains(view, "forbids it") || !strings.Contains(view, "cannot list") {
		t.Fatalf("no explanation in:\n%s", view)
	}
	if got := m.Title(); got != "namespaces[?]" {
		t.Fatalf("title %q: a kind that could not be read has no count", got)
	}
}

func TestFailedRefreshKeepsRowsAndSaysSo(t *testing.T) {
	client, cs := kubetest.FakeClient(t, demoObjects()...)
	// A user who may not watch: pods are listed on each refresh.
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewServiceUnavailable("the server is shutting down")
	})
	refresh(t, m, press(m, "ctrl+r"))
	view := m.View()
	if !strings.Contains(view, "refresh failed (unavailable)") || !strings.Contains(view, "web-7d9f-abcde") {
		t.Fatalf("rows or notice missing after a failed refresh:\n%s", view)
	}
}

func TestOnlyVisibleRowsAreDrawnAndCursorScrolls(t *testing.T) {
	var objs []runtime.Object
	for i := range 1000 {
		objs = append(objs, testPod("demo", fmt.Sprintf("pod-%04d", i), time.Hour, run, true, 0))
	}
	client, _ := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "pods", "demo", 60, 10)
	press(m, "G")
	view := m.View()
	viewtest.Size(t, view, 60, 10)
	if !strings.Contains(view, "pod-0999") || strings.Contains(view, "pod-0000") {
		t.Fatalf("after G the last row must show and the first must not:\n%s", view)
	}
	press(m, "g", "pgdown")
	view = m.View()
	if !strings.Contains(view, "pod-0008") || !strings.Contains(view, "pod-0015") || strings.Contains(view, "pod-0007") {
		t.Fatalf("after a page down rows 8..15 must show:\n%s", view)
	}
}

// refreshUntil refreshes the screen until its title holds want (informers
// deliver changes asynchronously), for at most five seconds.
func refreshUntil(t *testing.T, m *inventory.Model, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(m.Title(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("title %q never showed %q", m.Title(), want)
		}
		time.Sleep(20 * time.Millisecond)
		refresh(t, m, m.Init())
	}
}

// cursorLine returns the view line the cursor marker starts.
func cursorLine(view string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.HasPrefix(l, ">") || strings.HasPrefix(l, "»") {
			return l
		}
	}
	return ""
}

func TestCursorFollowsItsObjectAcrossRefreshes(t *testing.T) {
	client, cs := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	press(m, "j", "j") // web-... is the third row, sorted by name
	if l := cursorLine(m.View()); !strings.Contains(l, "web-7d9f-abcde") {
		t.Fatalf("cursor not on web before the refresh: %q", l)
	}
	if _, err := cs.CoreV1().Pods("demo").Create(t.Context(), testPod("demo", "aaa-first", time.Minute, run, true, 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	refreshUntil(t, m, "[4]")
	if l := cursorLine(m.View()); !strings.Contains(l, "web-7d9f-abcde") {
		t.Fatalf("a row added above moved the cursor off its object:\n%s", m.View())
	}
}

// TestDeletedRowUnderTheCursor: the object under the cursor at the bottom
// of the list is deleted (a rollout, a scale-down): the screen does not
// fail, and the cursor stays on the list.
func TestDeletedRowUnderTheCursor(t *testing.T) {
	var objs []runtime.Object
	for i := range 8 {
		objs = append(objs, testPod("demo", fmt.Sprintf("run-%d", i), time.Hour, run, true, 0))
	}
	client, cs := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "pods", "demo", 80, 12)
	press(m, "G")
	if err := cs.CoreV1().Pods("demo").Delete(t.Context(), "run-7", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	refreshUntil(t, m, "[7]")
	if l := cursorLine(m.View()); !strings.Contains(l, "run-6") {
		t.Fatalf("cursor after its row went: %q\n%s", l, m.View())
	}
}

func TestHostileAndWideNamesStayAligned(t *testing.T) {
	client, _ := kubetest.FakeClient(t,
		testPod("demo", "\x1b]52;c;aGk=\x07evil\x1b[2J", time.Hour, run, true, 0),
		testPod("demo", "数据库-primary", time.Hour, run, true, 0),
		testPod("demo", "plain", time.Hour, run, true, 0),
	)
	m, _ := load(t, client, "pods", "demo", 70, 6)
	view := m.View()
	if strings.ContainsRune(view, 0x1b) || strings.ContainsRune(view, 0x07) {
		t.Fatalf("control characters reached the view: %q", view)
	}
	viewtest.Size(t, view, 70, 6)
	viewtest.Golden(t, "pods-hostile-wide", view)
}

func TestEnterOnNamespaceOpensItsPods(t *testing.T) {
	client, _ := kubetest.FakeClient(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "demo"}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}})
	m, _ := load(t, client, "namespaces", "", 80, 8)
	cmd := press(m, "enter")
	if cmd == nil {
		t.Fatal("enter on a namespace did nothing")
	}
	msg, ok := cmd().(views.OpenKindMsg)
	if !ok || msg.Kind != "pods" || msg.Namespace != "demo" || msg.Replace {
		t.Fatalf("got %#v, want a push of pods in demo", msg)
	}
}

// TestEmptyNamespace: a namespace that exists and holds no pods says so
// (one that does not exist says that instead: TestMissingNamespaceIsSaid).
func TestEmptyNamespace(t *testing.T) {
	client, _ := kubetest.FakeClient(t, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "empty"}})
	m, _ := load(t, client, "pods", "empty", 60, 4)
	if view := m.View(); !strings.Contains(view, "No pods in namespace empty.") {
		t.Fatalf("view:\n%s", view)
	}
}

func TestUnknownKind(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	if _, err := inventory.New(viewtest.Context(client, 80, 10), "widgets", "demo"); err == nil {
		t.Fatal("an unknown kind was accepted")
	}
}

// TestLongNameGivesWayBeforeStatus: one very long pod name must not squeeze
// STATUS and RESTARTS of every row; NAME is cut instead, in the middle.
func TestLongNameGivesWayBeforeStatus(t *testing.T) {
	long := strings.Repeat("a-very-long-pod-name-", 12)[:240]
	client, _ := kubetest.FakeClient(t, append(demoObjects(), testPod("demo", long, time.Hour, run, true, 0))...)
	m, _ := load(t, client, "pods", "demo", 100, 8)
	view := m.View()
	viewtest.Size(t, view, 100, 8)
	for _, want := range []string{"ImagePullBackOff", "CrashLoopBackOff", "7 (3m ago)", "a-very-long-pod-name-a-very-long-pod-name-a-ve…ery-lo"} {
		if !strings.Contains(view, want) {
			t.Fatalf("%q is not shown whole:\n%s", want, view)
		}
	}
	viewtest.Golden(t, "pods-long-name", view)
}

func TestTooSmallSaysSo(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 19, 2)
	view := m.View()
	viewtest.Size(t, view, 19, 2)
	if !strings.Contains(view, "Too small: 19x6,") || !strings.Contains(view, "20x7.") {
		t.Fatalf("no message in a 19x2 area:\n%s", view)
	}
}

// TestNarrowNamesKeepTheirSuffix: two pods of one ReplicaSet differ only
// in their generated suffix; cut to fit a narrow terminal, their names
// must still differ (a fresh-user trial saw two identical "crashy-7699…").
func TestNarrowNamesKeepTheirSuffix(t *testing.T) {
	client, _ := kubetest.FakeClient(t,
		testPod("demo", "crashy-76995c8594-t6nxd", time.Hour, run, true, 0),
		testPod("demo", "crashy-76995c8594-x2x26", time.Hour, run, true, 0))
	m, _ := load(t, client, "pods", "demo", 50, 6)
	view := m.View()
	viewtest.Size(t, view, 50, 6)
	if !strings.Contains(view, "t6nxd") || !strings.Contains(view, "x2x26") {
		t.Fatalf("the names' suffixes are cut off:\n%s", view)
	}
	viewtest.Golden(t, "pods-narrow-suffix", view)
}

// TestTooSmallKeepsSizesWhole: the too-small message wraps at spaces, or
// says less, and never cuts "20x7" in two.
func TestTooSmallKeepsSizesWhole(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	for _, size := range [][2]int{{19, 2}, {16, 1}, {10, 2}, {5, 1}} {
		m, _ := load(t, client, "pods", "demo", size[0], size[1])
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		if !strings.Contains(view, "20x7") {
			t.Errorf("%dx%d: the size kyyard needs is cut:\n%s", size[0], size[1], view)
		}
	}
}

// TestNarrowWideColumnsAreCutOffNotSqueezed: a fresh-user trial saw every
// column squeezed to 2-4 cells ("ba…") at 50x15 with the -o wide columns.
// Columns on the right are left out instead, NAME stays readable (cut in
// the middle), the notice says how many are cut off, and l brings them
// into view.
func TestNarrowWideColumnsAreCutOffNotSqueezed(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 50, 15)
	press(m, "w")
	view := m.View()
	viewtest.Size(t, view, 50, 15)
	viewtest.Golden(t, "pods-narrow-wide", view)
	for _, want := range []string{"badima…f-qq9", "12 columns cut off (→ scrolls)", "RESTARTS"} { // 8 of them the metrics'

		if !strings.Contains(view, want) {
			t.Fatalf("%q is not shown:\n%s", want, view)
		}
	}
	for i := 0; strings.Contains(view, "cut off"); i++ {
		if i == 16 {
			t.Fatalf("→ does not bring the cut-off columns into view:\n%s", view)
		}
		press(m, "right")
		view = m.View()
		viewtest.Size(t, view, 50, 15)
	}
	viewtest.Golden(t, "pods-narrow-wide-scrolled", view)
	for _, want := range []string{"NAME", "NODE", "NOMINAT", "READINE", "badima…f-qq9", "scrolled (←)"} {
		if !strings.Contains(view, want) {
			t.Fatalf("%q is not shown after l:\n%s", want, view)
		}
	}
}
