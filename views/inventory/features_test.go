package inventory_test

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
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// keyOf returns the key press for name: the few keys viewtest does not
// know, else viewtest.Key.
func keyOf(name string) tea.KeyMsg {
	switch name {
	case "space":
		return tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	case "ctrl+space":
		return tea.KeyMsg{Type: tea.KeyCtrlAt}
	case `ctrl+\`:
		return tea.KeyMsg{Type: tea.KeyCtrlBackslash}
	case "left":
		return tea.KeyMsg{Type: tea.KeyLeft}
	case "right":
		return tea.KeyMsg{Type: tea.KeyRight}
	case "backspace":
		return tea.KeyMsg{Type: tea.KeyBackspace}
	}
	return viewtest.Key(name)
}

// keys presses each key in turn and returns the last command.
func keys(m *inventory.Model, names ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range names {
		_, last = m.Update(keyOf(k))
	}
	return last
}

// typeFilter opens the filter prompt and types text, one key per rune.
func typeFilter(m *inventory.Model, text string) tea.Cmd {
	last := keys(m, "/")
	for _, r := range text {
		_, last = m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	return last
}

// names returns the pod names in the view, top to bottom.
func names(view string) []string {
	var out []string
	for _, l := range strings.Split(view, "\n") {
		r := []rune(l)
		if len(r) < 4 {
			continue
		}
		f := strings.Fields(string(r[4:])) // after the marker column and the gap
		if len(f) > 1 && (strings.Contains(l, "/1") || strings.Contains(l, "/2")) {
			out = append(out, f[0])
		}
	}
	return out
}

func labelled(p *corev1.Pod, labels map[string]string) *corev1.Pod {
	p.Labels = labels
	return p
}

func TestFilterTextAppliesWhileTypingAndStays(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	typeFilter(m, "CRASH")
	if !m.Capturing() {
		t.Fatal("the screen does not capture keys while a filter is typed")
	}
	if got := m.Title(); got != "pods(demo)[1/3] /CRASH" {
		t.Fatalf("title while typing %q", got)
	}
	view := m.View()
	if !strings.HasPrefix(view, "/CRASH") || !slices.Equal(names(view), []string{"crashy-5c4b-xyz12"}) {
		t.Fatalf("typing /CRASH shows:\n%s", view)
	}
	keys(m, "enter")
	if m.Capturing() || !m.CapturesBack() {
		t.Fatal("after enter the prompt must close and esc must clear the filter")
	}
	refresh(t, m, keys(m, "ctrl+r"))
	if got := m.Title(); got != "pods(demo)[1/3] /CRASH" {
		t.Fatalf("the filter did not survive a refresh: %q", got)
	}
	keys(m, "backspace") // not typing: backspace does nothing
	if cmd := keys(m, "esc"); cmd != nil {
		t.Fatalf("esc with a filter must clear it, not %#v", cmd())
	}
	if got := m.Title(); got != "pods(demo)[3]" || m.CapturesBack() {
		t.Fatalf("after esc: %q", got)
	}
	cmd := keys(m, "esc")
	if cmd == nil {
		t.Fatal("esc with nothing to clear did nothing")
	}
	if _, ok := cmd().(views.BackMsg); !ok {
		t.Fatal("esc with nothing to clear must go back")
	}
}

func TestFilterModes(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	for _, c := range []struct {
		filter string
		want   []string
		notice string
	}{
		{"web", []string{"web-7d9f-abcde"}, ""},
		{"^(web|bad)", []string{"badimage-66f-qq9", "web-7d9f-abcde"}, ""},
		{"backoff$", []string{"badimage-66f-qq9", "crashy-5c4b-xyz12"}, ""}, // $ ends each cell (STATUS)
		{"!crash", []string{"badimage-66f-qq9", "web-7d9f-abcde"}, ""},
		{"!^c.*y", []string{"badimage-66f-qq9", "web-7d9f-abcde"}, ""},
		{"-f wbd", []string{"web-7d9f-abcde"}, ""},
		{"~bdmg", []string{"badimage-66f-qq9"}, ""},
		{"kwok-node", []string{"badimage-66f-qq9", "crashy-5c4b-xyz12", "web-7d9f-abcde"}, ""}, // a hidden wide column
		{"x(", []string{}, "not a regular expression (missing closing )); matching as text"},
	} {
		t.Run(c.filter, func(t *testing.T) {
			m, _ := load(t, client, "pods", "demo", 120, 8) // wide enough for every column: no notice
			typeFilter(m, c.filter)
			keys(m, "enter")
			view := m.View()
			if got := names(view); !slices.Equal(got, c.want) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("/%s shows %q, want %q:\n%s", c.filter, got, c.want, view)
			}
			if first := strings.Split(view, "\n")[0]; !strings.Contains(first, c.notice) || (c.notice == "" && strings.TrimSpace(first) != "") {
				t.Fatalf("notice %q, want %q", first, c.notice)
			}
		})
	}
}

func TestFilterMatchingNothingSaysSo(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 6)
	typeFilter(m, "xyz9")
	keys(m, "enter")
	view := m.View()
	viewtest.Size(t, view, 80, 6)
	if !strings.Contains(view, "No rows match /xyz9 (3 pods hidden") || strings.Contains(view, "NAME") {
		t.Fatalf("an empty table instead of a message:\n%s", view)
	}
	if got := m.Title(); got != "pods(demo)[0/3] /xyz9" {
		t.Fatalf("title %q", got)
	}
	if keys(m, "d") != nil || keys(m, "space") != nil || keys(m, "u") == nil {
		t.Fatal("keys on no rows must do nothing but say so")
	}
	// An invalid expression falls back to text, which matches nothing.
	typeFilter(m, "web[")
	view = m.View()
	if !strings.Contains(view, "missing closing ]") {
		t.Fatalf("an invalid regex is not explained while typing:\n%s", view)
	}
}

func TestEmptyFilterAndEscWhileTyping(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	typeFilter(m, "")
	keys(m, "enter")
	if got := m.Title(); got != "pods(demo)[3]" || m.CapturesBack() {
		t.Fatalf("an empty filter is no filter: %q", got)
	}
	typeFilter(m, "web")
	keys(m, "enter")
	typeFilter(m, "x") // edits the filter in force: "webx"
	if got := m.Title(); got != "pods(demo)[0/3] /webx" {
		t.Fatalf("`/` does not edit the filter in force: %q", got)
	}
	keys(m, "esc")
	if m.Capturing() || m.Title() != "pods(demo)[3]" {
		t.Fatalf("esc while typing must close the prompt and clear the filter: %q", m.Title())
	}
	if len(names(m.View())) != 3 {
		t.Fatalf("rows missing after esc:\n%s", m.View())
	}
}

// recorder remembers the requests a screen makes.
type recorder struct {
	views.Source
	reqs []kube.SnapshotRequest
}

func (r *recorder) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	r.reqs = append(r.reqs, req)
	return r.Source.Snapshot(ctx, req)
}

func TestLabelFilterGoesToTheRequest(t *testing.T) {
	client, _ := kubetest.FakeClient(t, deployment("demo", "web", map[string]string{"app": "web"}),
		labelled(testPod("demo", "web-1", time.Hour, run, true, 0), map[string]string{"app": "web", "tier": "front"}),
		labelled(testPod("demo", "web-db", time.Hour, run, true, 0), map[string]string{"app": "web", "tier": "db"}),
		labelled(testPod("demo", "other", time.Hour, run, true, 0), map[string]string{"app": "other"}),
	)
	rec := &recorder{Source: client}
	vc := viewtest.Context(rec, 80, 8)
	m, err := inventory.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	m.Narrow(kube.Selector{Labels: "app=web"}, "deployments/web")
	refresh(t, m, m.Init())
	if got := m.Title(); got != "pods(demo deployments/web)[2]" {
		t.Fatalf("title %q", got)
	}
	if typeFilter(m, "-l tier!=db"); len(names(m.View())) != 2 {
		t.Fatalf("a label selector must not apply before enter:\n%s", m.View())
	}
	if !strings.Contains(m.View(), "enter reads the objects with this label selector") {
		t.Fatalf("no hint while typing -l:\n%s", m.View())
	}
	refresh(t, m, keys(m, "enter"))
	if got := rec.reqs[len(rec.reqs)-1].Selector.Labels; got != "app=web,tier!=db" {
		t.Fatalf("request selector %q, want the drill-down's and the filter's", got)
	}
	if got := names(m.View()); !slices.Equal(got, []string{"web-1"}) {
		t.Fatalf("rows %q", got)
	}
	if got := m.Title(); got != "pods(demo deployments/web)[1] /-l tier!=db" {
		t.Fatalf("title %q", got)
	}

	// A malformed selector: the message shows, the rows and the filter
	// before it stay, and the next request goes without it.
	typeFilter(m, "x") // "-l tier!=dbx" is fine; start over with a bad one
	for range len("-l tier!=dbx") {
		keys(m, "backspace")
	}
	for _, r := range "-l app in (" {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	cmd := keys(m, "enter")
	if got := rec.Snapshot; got == nil {
		t.Fatal("unreachable")
	}
	_, again := m.Update(cmd())
	if again == nil {
		t.Fatal("after a malformed selector the screen must read again without it")
	}
	view := m.View()
	if !strings.Contains(view, `not applied: found '', expected:`) || !slices.Equal(names(view), []string{"web-1"}) {
		t.Fatalf("a malformed selector must be explained over the old rows:\n%s", view)
	}
	if got := m.Title(); got != "pods(demo deployments/web)[1] /-l tier!=db /-l app in ( (invalid)" {
		t.Fatalf("the filter before the malformed one is not back, or the malformed one not shown: %q", got)
	}
	refresh(t, m, again)
	if got := rec.reqs[len(rec.reqs)-1].Selector.Labels; got != "app=web,tier!=db" {
		t.Fatalf("request selector after the malformed one %q", got)
	}
	// esc clears the label filter: all the drill-down's rows return.
	refresh(t, m, keys(m, "esc"))
	if got := rec.reqs[len(rec.reqs)-1].Selector.Labels; got != "app=web" || len(names(m.View())) != 2 {
		t.Fatalf("after esc: selector %q, view:\n%s", got, m.View())
	}
}

func TestSortKeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	byName := []string{"badimage-66f-qq9", "crashy-5c4b-xyz12", "web-7d9f-abcde"}
	youngest := []string{"badimage-66f-qq9", "crashy-5c4b-xyz12", "web-7d9f-abcde"}
	for _, c := range []struct {
		keys   []string
		want   []string
		header string
	}{
		{nil, byName, "NAME "},
		{[]string{"A"}, youngest, "AGE↑"},
		{[]string{"A"}, reversed(youngest), "AGE↓"},
		{[]string{"N"}, byName, "NAME↑"},
		{[]string{"S"}, reversed(byName), "NAME↓"},
		{[]string{">"}, []string{"badimage-66f-qq9", "crashy-5c4b-xyz12", "web-7d9f-abcde"}, "READY↑"},         // 0/1 0/1 1/1
		{[]string{">", ">"}, []string{"badimage-66f-qq9", "web-7d9f-abcde", "crashy-5c4b-xyz12"}, "RESTARTS↑"}, // 0, 0, 7; ties by name
		{[]string{"S"}, []string{"crashy-5c4b-xyz12", "badimage-66f-qq9", "web-7d9f-abcde"}, "RESTARTS↓"},
		{[]string{"<"}, []string{"crashy-5c4b-xyz12", "badimage-66f-qq9", "web-7d9f-abcde"}, "STATUS↑"},
		// RESTARTS, the metrics columns (issue 12), AGE, then past AGE: back
		// to the snapshot's order.
		{[]string{">", ">", ">"}, []string{"badimage-66f-qq9", "crashy-5c4b-xyz12", "web-7d9f-abcde"}, "MEM↑"}, // no samples: ties by name
		{[]string{">", ">", ">", ">", ">", ">"}, byName, " NAME "},
		{[]string{"<"}, youngest, "AGE↑"},
	} {
		keys(m, c.keys...)
		view := m.View()
		if got := names(view); !slices.Equal(got, c.want) || !strings.Contains(view, c.header) {
			t.Fatalf("after %q: rows %q, want %q with %q:\n%s", c.keys, got, c.want, c.header, view)
		}
	}
}

func reversed(s []string) []string {
	out := slices.Clone(s)
	slices.Reverse(out)
	return out
}

func TestMarks(t *testing.T) {
	var objs []runtime.Object
	for _, n := range []string{"a", "b", "c", "d", "e", "f"} {
		objs = append(objs, testPod("demo", "pod-"+n, time.Hour, run, true, 0))
	}
	client, _ := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "pods", "demo", 60, 10)
	keys(m, "space")                // marks a, cursor to b
	keys(m, "j", "j", "ctrl+space") // marks a..d
	if got := marked(m); !slices.Equal(got, []string{"pod-a", "pod-b", "pod-c", "pod-d"}) {
		t.Fatalf("marked %q", got)
	}
	keys(m, "k", "space") // unmarks c
	if got := marked(m); !slices.Equal(got, []string{"pod-a", "pod-b", "pod-d"}) {
		t.Fatalf("marked %q", got)
	}
	view := m.View()
	if !strings.Contains(view, "*   pod-a") || !strings.Contains(view, "»   pod-d") || !strings.Contains(view, "3 marked") {
		t.Fatalf("marks not shown:\n%s", view)
	}
	refresh(t, m, keys(m, "ctrl+r"))
	if got := marked(m); len(got) != 3 {
		t.Fatalf("marks lost on refresh: %q", got)
	}
	typeFilter(m, "pod-[ab]")
	keys(m, "enter")
	if got := marked(m); !slices.Equal(got, []string{"pod-a", "pod-b"}) {
		t.Fatalf("Marked must return only shown rows: %q", got)
	}
	keys(m, "esc") // marks first
	if got := marked(m); got != nil || m.Title() != "pods(demo)[2/6] /pod-[ab]" {
		t.Fatalf("esc must clear the marks first: %q %q", got, m.Title())
	}
	keys(m, "V", `ctrl+\`)
	if marked(m) != nil {
		t.Fatal(`ctrl+\ did not clear the marks`)
	}
}

func marked(m *inventory.Model) []string {
	var out []string
	for _, r := range m.Marked() {
		out = append(out, r.Name)
	}
	return out
}

func TestUnhealthyKeys(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	keys(m, "G") // web, healthy
	keys(m, "u")
	if !strings.Contains(m.View(), ">x  badimage") {
		t.Fatalf("u did not wrap to the first unhealthy row:\n%s", m.View())
	}
	keys(m, "u")
	if !strings.Contains(m.View(), ">x  crashy") {
		t.Fatalf("u did not move to the next unhealthy row:\n%s", m.View())
	}
	keys(m, "U")
	if got := m.Title(); got != "pods(demo)[2/3] unhealthy" {
		t.Fatalf("title %q", got)
	}
	typeFilter(m, "crash")
	keys(m, "enter")
	if got := m.Title(); got != "pods(demo)[1/3] /crash unhealthy" {
		t.Fatalf("title %q", got)
	}
	keys(m, "esc", "U")
	if got := m.Title(); got != "pods(demo)[2/3] unhealthy" {
		t.Fatalf("title %q", got)
	}
	keys(m, "U")
	if got := m.Title(); got != "pods(demo)[3]" {
		t.Fatalf("title %q", got)
	}

	healthy, _ := kubetest.FakeClient(t, testPod("demo", "fine", time.Hour, run, true, 0))
	m, _ = load(t, healthy, "pods", "demo", 80, 8)
	cmd := keys(m, "u")
	if cmd == nil {
		t.Fatal("u without unhealthy rows says nothing")
	}
	if msg, ok := cmd().(views.StatusMsg); !ok || msg.Text != "no unhealthy pods shown" {
		t.Fatalf("got %#v", msg)
	}
}

func TestDescribeAndYAMLOpenTheCursorRow(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "", 80, 8)
	keys(m, "j")
	for key, want := range map[string]views.ObjectView{"d": views.DescribeView, "y": views.YAMLView} {
		cmd := keys(m, key)
		if cmd == nil {
			t.Fatalf("%s did nothing", key)
		}
		got, ok := cmd().(views.OpenObjectMsg)
		if !ok || got != (views.OpenObjectMsg{View: want, Kind: "pods", Namespace: "demo", Name: "crashy-5c4b-xyz12"}) {
			t.Fatalf("%s: got %#v", key, got)
		}
	}
}

func TestHorizontalScrollKeepsNamePinned(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, vc := load(t, client, "pods", "demo", 40, 6)
	keys(m, "right")
	view := m.View()
	if !strings.Contains(view, "«   NAME") || strings.Contains(view, "READY") || !strings.Contains(view, "1 column scrolled") {
		t.Fatalf("→ must scroll READY out and keep NAME:\n%s", view)
	}
	for range 20 { // past the metrics columns too
		keys(m, "right")
	}
	view = m.View()
	if !strings.Contains(view, "NAME") || !strings.Contains(view, "AGE") || !strings.Contains(view, "badimage-66f-qq9") {
		t.Fatalf("scrolling past the end must keep the last column:\n%s", view)
	}
	for range 20 {
		keys(m, "left")
	}
	if view := m.View(); !strings.Contains(view, "READY") || strings.Contains(view, "«") {
		t.Fatalf("← must scroll back:\n%s", view)
	}
	wide, _ := load(t, client, "pods", "demo", 120, 6)
	keys(wide, "right")
	if view := wide.View(); !strings.Contains(view, "READY") {
		t.Fatalf("a table that fits must not scroll:\n%s", view)
	}
	// Scrolled in a narrow terminal, then the terminal grows: every column
	// is back.
	keys(m, "right", "right")
	vc.Width, vc.Height = 200, 10
	m.Update(tea.WindowSizeMsg{Width: 200, Height: 10})
	if view := m.View(); !strings.Contains(view, "READY") || strings.Contains(view, "scrolled") {
		t.Fatalf("columns still scrolled after the terminal grew:\n%s", view)
	}
}

func TestFilteredSortedMarkedScrolledGolden(t *testing.T) {
	client, _ := kubetest.FakeClient(t, append(demoObjects(),
		testPod("demo", "数据库-primary", 3*time.Hour, loop, false, 2),
		testPod("demo", strings.Repeat("long-name-", 8), 10*time.Minute, run, true, 0),
	)...)
	m, _ := load(t, client, "pods", "demo", 50, 8)
	typeFilter(m, "!web")
	keys(m, "enter", "A", "space", "space", "right")
	view := m.View()
	viewtest.Size(t, view, 50, 8)
	viewtest.Golden(t, "pods-filtered-sorted-marked-scrolled", view)
	if got := m.Title(); got != "pods(demo)[4/5] /!web" {
		t.Fatalf("title %q", got)
	}
}

func TestRefreshBacksOffWhileUnavailable(t *testing.T) {
	client, cs := kubetest.FakeClient(t, demoObjects()...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", kubetest.DenyAccessReviews)
	m, vc := load(t, client, "pods", "demo", 120, 8)
	vc.Config.RefreshInterval = 2 * time.Second
	refresh(t, m, keys(m, "ctrl+r")) // waits the new interval from now on
	failing := true
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if failing {
			return true, nil, apierrors.NewServiceUnavailable("the server is shutting down")
		}
		return false, nil, nil
	})
	for _, want := range []string{"retrying in 4s", "retrying in 8s", "retrying in 16s", "retrying in 30s", "retrying in 30s"} {
		refresh(t, m, keys(m, "ctrl+r"))
		if first := strings.Split(m.View(), "\n")[0]; !strings.Contains(first, want) {
			t.Fatalf("notice %q, want %q", first, want)
		}
	}
	failing = false
	refresh(t, m, keys(m, "ctrl+r"))
	if first := strings.Split(m.View(), "\n")[0]; strings.TrimSpace(first) != "" {
		t.Fatalf("notice after a successful refresh: %q", first)
	}
}

func TestBindingsListEveryKey(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	seen := map[string]bool{}
	for _, b := range m.Bindings() {
		if b.Help().Key == "" || b.Help().Desc == "" || len(b.Keys()) == 0 {
			t.Fatalf("binding %q without help", b.Keys())
		}
		for _, k := range b.Keys() {
			if seen[k] {
				t.Fatalf("key %q bound twice", k)
			}
			seen[k] = true
		}
	}
	for _, k := range []string{"/", "<", ">", "S", "N", "A", " ", "ctrl+@", `ctrl+\`, "u", "U", "d", "y", "left", "right", "l", "p", "F", "s", "esc", "w", "enter"} {
		if !seen[k] {
			t.Errorf("key %q missing from Bindings", k)
		}
	}
	for _, k := range views.DefaultGlobalKeys().Bindings() {
		for _, name := range k.Keys() {
			if seen[name] && name != "esc" {
				t.Errorf("key %q is global and the screen's", name)
			}
		}
	}
}

func TestFuzzyRanksByScore(t *testing.T) {
	var objs []runtime.Object
	for _, n := range []string{"a-web-x", "w-e-b", "webapp", "xxwxexb", "other"} {
		objs = append(objs, testPod("demo", n, time.Hour, run, true, 0))
	}
	client, _ := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "pods", "demo", 60, 10)
	typeFilter(m, "-f web")
	keys(m, "enter")
	// sahilm/fuzzy's scores: separators and adjacent letters count.
	if got := names(m.View()); !slices.Equal(got, []string{"w-e-b", "webapp", "a-web-x", "xxwxexb"}) {
		t.Fatalf("fuzzy order %q", got)
	}
}

// TestNarrowedFuzzyAndBackspaceEqualAFreshSearch: typing a fuzzy pattern
// letter by letter (each letter searching only what the last one kept) and
// backspacing (reusing the session's results) show exactly the rows, in
// exactly the order, that a fresh search for the same pattern shows.
func TestNarrowedFuzzyAndBackspaceEqualAFreshSearch(t *testing.T) {
	var objs []runtime.Object
	for _, n := range []string{"web-1", "web-2", "we-b", "wxeb", "bew", "a-web-x", "webapp", "ebw", "w-e-b", "web-10"} {
		objs = append(objs, testPod("demo", n, time.Hour, run, true, 0))
	}
	client, _ := kubetest.FakeClient(t, objs...)
	fresh := func(pattern string) []string {
		m, _ := load(t, client, "pods", "demo", 60, 16)
		keys(m, "/")
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(pattern)}) // one keystroke: a full search
		return names(m.View())
	}
	m, _ := load(t, client, "pods", "demo", 60, 16)
	typeFilter(m, "-f w")
	for _, next := range []rune{'e', 'b'} {
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{next}})
	}
	if got, want := names(m.View()), fresh("-f web"); !slices.Equal(got, want) {
		t.Fatalf("narrowed -f web shows %q, a fresh search %q", got, want)
	}
	keys(m, "backspace")
	if got, want := names(m.View()), fresh("-f we"); !slices.Equal(got, want) {
		t.Fatalf("after backspace -f we shows %q, a fresh search %q", got, want)
	}
}

// TestSortChangedWhileRefreshingIsKept: changed rows are sorted in the
// refresh's goroutine by the sort asked for then; when the person changed
// the sort before they arrive, the screen sorts them by the new one.
func TestSortChangedWhileRefreshingIsKept(t *testing.T) {
	client, cs := kubetest.FakeClient(t,
		testPod("demo", "a", time.Hour, run, true, 0), testPod("demo", "b", 2*time.Hour, run, true, 0),
		testPod("demo", "c", 30*time.Minute, run, true, 0))
	m, _ := load(t, client, "pods", "demo", 60, 10)
	keys(m, "N") // by name
	if _, err := cs.CoreV1().Pods("demo").Create(t.Context(), testPod("demo", "d", 10*time.Minute, run, true, 0), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		snap := client.Snapshot(t.Context(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: "demo"})
		if tb, _ := snap.Table("pods"); len(tb.Rows) == 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the new pod never reached the cache")
		}
		time.Sleep(20 * time.Millisecond)
	}
	msg := m.Init()() // sorted by name in the refresh
	keys(m, "A")      // the person sorts by age meanwhile
	m.Update(msg)
	if got := names(m.View()); !slices.Equal(got, []string{"d", "c", "a", "b"}) {
		t.Fatalf("rows %q, want the youngest first (sorted by age)", got)
	}
}

// TestLabelFilterWithTheCursorDownTheList: a label selector that leaves
// fewer rows than the cursor's position (the trial's crash) shows them.
func TestLabelFilterWithTheCursorDownTheList(t *testing.T) {
	var objs []runtime.Object
	for i := range 12 {
		app := "other"
		if i%4 == 0 {
			app = "web"
		}
		objs = append(objs, labelled(testPod("demo", fmt.Sprintf("pod-%02d", i), time.Hour, run, true, 0), map[string]string{"app": app}))
	}
	client, _ := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "pods", "demo", 80, 16)
	keys(m, "G")
	typeFilter(m, "-l app=web")
	refresh(t, m, keys(m, "enter"))
	if got := names(m.View()); !slices.Equal(got, []string{"pod-00", "pod-04", "pod-08"}) {
		t.Fatalf("rows %q after -l app=web", got)
	}
}

// TestEmptyDrillDownNamesItsParent: a drill-down that selects nothing says
// what it selected for ("No jobs of cronjobs/nightly"), not that the kind
// has no objects at all.
func TestEmptyDrillDownNamesItsParent(t *testing.T) {
	client, _ := kubetest.FakeClient(t, append(demoObjects(), deployment("demo", "web", map[string]string{"app": "nothing-has-this"}))...)
	vc := viewtest.Context(client, 80, 8)
	m, err := inventory.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Narrow(kube.Selector{Labels: "app=nothing-has-this"}, "deployments/web")
	refresh(t, m, m.Init())
	if view := m.View(); !strings.Contains(view, "No pods of deployments/web in namespace demo.") {
		t.Fatalf("empty drill-down:\n%s", view)
	}
}

// TestAgeKeyOnAKindWithoutAGE: A sorts events by LAST SEEN, their first
// column of moments.
func TestAgeKeyOnAKindWithoutAGE(t *testing.T) {
	info := kube.KindInfo{ID: "events", Version: "v1", Resource: "events", Namespaced: true,
		Columns: []kube.Column{{Name: "LAST SEEN"}, {Name: "TYPE"}, {Name: "NAME"}}}
	rows := []kube.Row{
		{Namespace: "demo", Name: "old", Cells: []kube.Cell{kube.Age(viewtest.Now.Add(-time.Hour)), kube.Text("Normal"), kube.Text("old")}},
		{Namespace: "demo", Name: "new", Cells: []kube.Cell{kube.Age(viewtest.Now.Add(-time.Minute)), kube.Text("Normal"), kube.Text("new")}},
		{Namespace: "demo", Name: "mid", Cells: []kube.Cell{kube.Age(viewtest.Now.Add(-10 * time.Minute)), kube.Text("Normal"), kube.Text("mid")}},
	}
	src := fixedSource{info: info, snap: kube.Snapshot{Namespace: "demo", Generation: 1, Tables: []kube.Table{{Kind: "events", Columns: info.Columns, Rows: rows}}}}
	m, err := inventory.New(viewtest.Context(src, 80, 8), "events", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	refresh(t, m, m.Init())
	cmd := keys(m, "A")
	if cmd != nil {
		if msg, ok := cmd().(views.StatusMsg); ok && msg.Error {
			t.Fatalf("A on events: %q", msg.Text)
		}
	}
	view := m.View()
	if !strings.Contains(view, "LAST SEEN↑") || strings.Index(view, "new") > strings.Index(view, "mid") || strings.Index(view, "mid") > strings.Index(view, "old") {
		t.Fatalf("A on events must sort by LAST SEEN, youngest first:\n%s", view)
	}
}

// fixedSource serves one snapshot of one kind.
type fixedSource struct {
	views.Source
	info kube.KindInfo
	snap kube.Snapshot
}

func (s fixedSource) Snapshot(context.Context, kube.SnapshotRequest) kube.Snapshot { return s.snap }
func (s fixedSource) Kind(string) (kube.KindInfo, bool)                            { return s.info, true }

// TestLabelFilterMatchingNothingSaysSo: rows read with a label selector
// that matches nothing say so, not that the kind has no objects.
func TestLabelFilterMatchingNothingSaysSo(t *testing.T) {
	client, _ := kubetest.FakeClient(t, labelled(testPod("demo", "web-1", time.Hour, run, true, 0), map[string]string{"app": "web"}))
	m, _ := load(t, client, "pods", "demo", 100, 8)
	typeFilter(m, "-l app=nothing")
	refresh(t, m, keys(m, "enter"))
	if view := m.View(); !strings.Contains(view, "No pods in namespace demo match -l app=nothing") {
		t.Fatalf("empty label-selected rows:\n%s", view)
	}
}

// TestDescribeOnAContainerOpensItsPod: d and y on a pod's containers open
// the pod (a container is no object of its own).
func TestDescribeOnAContainerOpensItsPod(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, err := inventory.New(viewtest.Context(client, 80, 8), "containers", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Narrow(kube.Selector{Fields: "metadata.name=web-7d9f-abcde"}, "pods/web-7d9f-abcde")
	refresh(t, m, m.Init())
	for key, want := range map[string]views.ObjectView{"d": views.DescribeView, "y": views.YAMLView} {
		cmd := keys(m, key)
		if cmd == nil {
			t.Fatalf("%s did nothing:\n%s", key, m.View())
		}
		got, ok := cmd().(views.OpenObjectMsg)
		if !ok || got != (views.OpenObjectMsg{View: want, Kind: "pods", Namespace: "demo", Name: "web-7d9f-abcde"}) {
			t.Fatalf("%s: got %#v", key, got)
		}
	}
}

// TestReverseTheDefaultOrder: S on the snapshot's own order (by name)
// reverses it, and the header says so.
func TestReverseTheDefaultOrder(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	before := names(m.View())
	keys(m, "S")
	view := m.View()
	if got := names(view); !slices.Equal(got, reversed(before)) || !strings.Contains(view, "NAME↓") {
		t.Fatalf("S on the default order: %q (was %q)\n%s", got, before, view)
	}
}

// TestFilterOfNothingIsNotKept: "!", "-l" or "-f" alone filter nothing;
// enter keeps no filter, and the next / starts empty.
func TestFilterOfNothingIsNotKept(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 80, 8)
	for _, text := range []string{"!", "-l", "-f", "~"} {
		typeFilter(m, text)
		keys(m, "enter")
		if got := m.Title(); strings.Contains(got, "/") {
			t.Errorf("%q kept as a filter: title %q", text, got)
		}
		keys(m, "/")
		if view := m.View(); strings.Contains(view, "/"+text) {
			t.Errorf("%q came back in the prompt:\n%s", text, view)
		}
		keys(m, "esc")
	}
}

// TestLabelFilterOnContainersSaysWhy: containers have no labels; a -l
// filter there is refused with a reason, not silently ignored.
func TestLabelFilterOnContainersSaysWhy(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, err := inventory.New(viewtest.Context(client, 100, 8), "containers", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Narrow(kube.Selector{Fields: "metadata.name=web-7d9f-abcde"}, "pods/web-7d9f-abcde")
	refresh(t, m, m.Init())
	typeFilter(m, "-l app=zzz")
	keys(m, "enter")
	view := m.View()
	if !strings.Contains(view, "containers have no labels") || strings.Contains(m.Title(), "-l") {
		t.Fatalf("-l on containers:\n%s", view)
	}
}

// TestContainersOfADeletedPod: when the pod whose containers are shown is
// deleted, its containers are no longer shown as running, and the notice
// says the pod was deleted, not that the kind does not exist (found by a
// fresh-user trial).
func TestContainersOfADeletedPod(t *testing.T) {
	client, cs := kubetest.FakeClient(t, demoObjects()...)
	m, err := inventory.New(viewtest.Context(client, 100, 8), "containers", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Narrow(kube.Selector{Fields: "metadata.name=web-7d9f-abcde"}, "pods/web-7d9f-abcde")
	refresh(t, m, m.Init())
	if view := m.View(); !strings.Contains(view, "Running") {
		t.Fatalf("before the deletion:\n%s", view)
	}
	if err := cs.CoreV1().Pods("demo").Delete(context.Background(), "web-7d9f-abcde", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	refresh(t, m, keys(m, "ctrl+r"))
	view := m.View()
	viewtest.Size(t, view, 100, 8)
	viewtest.Golden(t, "containers-of-deleted-pod", view)
	if !strings.Contains(view, "pods/web-7d9f-abcde was deleted") || strings.Contains(view, "Running") || strings.Contains(view, "does not exist") {
		t.Fatalf("after the pod was deleted:\n%s", view)
	}
}

// deployment is a Deployment whose pods carry selector's labels.
func deployment(namespace, name string, selector map[string]string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: selector}}},
	}
}

// TestDrillDownFollowsItsParent: a drill-down reads its parent again on
// each refresh: a Service whose selector changed shows the pods it selects
// now, one whose selector was removed shows none, and a deleted Service
// says so (found by a fresh-user trial: ctrl+r
// kept the pods of the old selector).
func TestDrillDownFollowsItsParent(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "sv"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "one"}}}
	client, cs := kubetest.FakeClient(t, svc,
		labelled(testPod("demo", "one-1", time.Hour, run, true, 0), map[string]string{"app": "one"}),
		labelled(testPod("demo", "two-1", time.Hour, run, true, 0), map[string]string{"app": "two"}),
	)
	m, err := inventory.New(viewtest.Context(client, 80, 8), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Narrow(kube.Selector{Labels: "app=one"}, "services/sv")
	refresh(t, m, m.Init())
	if got := names(m.View()); !slices.Equal(got, []string{"one-1"}) {
		t.Fatalf("before: %q", got)
	}
	svc.Spec.Selector = map[string]string{"app": "two"}
	if _, err := cs.CoreV1().Services("demo").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	refresh(t, m, keys(m, "ctrl+r"))
	if got := names(m.View()); !slices.Equal(got, []string{"two-1"}) {
		t.Fatalf("after the selector changed: %q\n%s", got, m.View())
	}
	svc.Spec.Selector = nil
	if _, err := cs.CoreV1().Services("demo").Update(context.Background(), svc, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	refresh(t, m, keys(m, "ctrl+r"))
	if view := m.View(); !strings.Contains(view, "services/sv has no selector") || len(names(view)) != 0 {
		t.Fatalf("after the selector was removed:\n%s", view)
	}
	if err := cs.CoreV1().Services("demo").Delete(context.Background(), "sv", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	refresh(t, m, keys(m, "ctrl+r"))
	view := m.View()
	viewtest.Size(t, view, 80, 8)
	if !strings.Contains(view, "services/sv was deleted") || len(names(view)) != 0 {
		t.Fatalf("after the Service was deleted:\n%s", view)
	}
}

// TestHidingTheSortColumnRestoresTheDefaultOrder: sorted by a wide column
// (IP), w hides it: the rows return to the default order, the status line
// says why, and the header's arrow is not lost with the column.
func TestHidingTheSortColumnRestoresTheDefaultOrder(t *testing.T) {
	withIP := func(p *corev1.Pod, ip string) *corev1.Pod {
		p.Status.PodIPs = []corev1.PodIP{{IP: ip}}
		return p
	}
	client, _ := kubetest.FakeClient(t,
		withIP(testPod("demo", "a-pod", time.Hour, run, true, 0), "10.0.0.3"),
		withIP(testPod("demo", "b-pod", time.Hour, run, true, 0), "10.0.0.1"),
		withIP(testPod("demo", "c-pod", time.Hour, run, true, 0), "10.0.0.2"),
	)
	m, _ := load(t, client, "pods", "demo", 80, 6)
	keys(m, "w")
	for !strings.Contains(m.View(), "IP↑") {
		if keys(m, ">"); strings.Contains(m.View(), " NAME ") && !strings.Contains(m.View(), "↑") {
			t.Fatalf("> never sorted by IP:\n%s", m.View())
		}
	}
	keys(m, "S")
	if got := names(m.View()); !slices.Equal(got, []string{"a-pod", "c-pod", "b-pod"}) {
		t.Fatalf("sorted by IP, descending: %q\n%s", got, m.View())
	}
	cmd := keys(m, "w")
	view := m.View()
	viewtest.Size(t, view, 80, 6)
	if got := names(view); !slices.Equal(got, []string{"a-pod", "b-pod", "c-pod"}) {
		t.Fatalf("after w hid IP the rows are not in name order: %q\n%s", got, view)
	}
	if strings.Contains(view, "IP") {
		t.Fatalf("w did not hide IP:\n%s", view)
	}
	if cmd == nil {
		t.Fatal("w hid the sort column and said nothing")
	}
	if msg, ok := cmd().(views.StatusMsg); !ok || msg.Error || !strings.Contains(msg.Text, "IP is a wide column, now hidden") {
		t.Fatalf("w's message: %#v", cmd())
	}
	// Showing the wide columns again changes no order and says nothing.
	if cmd := keys(m, "w"); cmd != nil || !slices.Equal(names(m.View()), []string{"a-pod", "b-pod", "c-pod"}) {
		t.Fatalf("w again: %v\n%s", cmd, m.View())
	}
}

// TestEnterWithNothingToOpenSaysSo: enter on a kind with no drill-down
// (ConfigMaps) says what d and y do instead of doing nothing.
func TestEnterWithNothingToOpenSaysSo(t *testing.T) {
	client, _ := kubetest.FakeClient(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "settings", UID: "cm1"}})
	m, _ := load(t, client, "configmaps", "demo", 80, 6)
	cmd := keys(m, "enter")
	if cmd == nil {
		t.Fatal("enter on a ConfigMap said nothing")
	}
	msg, ok := cmd().(views.StatusMsg)
	if !ok || msg.Error || msg.Text != "configmaps have nothing to open; d describes, y shows YAML" {
		t.Fatalf("enter on a ConfigMap: %#v", cmd())
	}
}

// TestMalformedLabelFilterStaysInTheTitle: a -l filter the parser refuses
// stays in the title as typed, marked invalid, over the unfiltered rows;
// the line above the table says what is wrong first; / brings the text
// back to be corrected, esc clears it.
func TestMalformedLabelFilterStaysInTheTitle(t *testing.T) {
	client, _ := kubetest.FakeClient(t, demoObjects()...)
	m, _ := load(t, client, "pods", "demo", 100, 6)
	typeFilter(m, "-l app in (web")
	_, again := m.Update(keys(m, "enter")())
	if again == nil {
		t.Fatal("after a malformed selector the screen must read again without it")
	}
	refresh(t, m, again)
	if got := m.Title(); got != "pods(demo)[3] /-l app in (web (invalid)" {
		t.Fatalf("title %q", got)
	}
	view := m.View()
	viewtest.Size(t, view, 100, 6)
	if first := strings.Split(view, "\n")[0]; !strings.HasPrefix(first, "not applied: found '', expected: ',' or ')'") {
		t.Fatalf("the problem is not first on the notice line:\n%s", view)
	}
	if len(names(view)) != 3 {
		t.Fatalf("rows under a malformed selector:\n%s", view)
	}
	if !m.CapturesBack() {
		t.Fatal("esc must clear a malformed filter first")
	}
	keys(m, "/")
	if view := m.View(); !strings.HasPrefix(view, "/-l app in (web") {
		t.Fatalf("/ does not bring the malformed filter back:\n%s", view)
	}
	keys(m, "esc")
	if got := m.Title(); got != "pods(demo)[3]" || m.CapturesBack() {
		t.Fatalf("after esc: title %q", got)
	}
	typeFilter(m, "-l app in (web")
	refresh(t, m, func() tea.Msg { _, again := m.Update(keys(m, "enter")()); return again() })
	keys(m, "esc")
	if got := m.Title(); got != "pods(demo)[3]" {
		t.Fatalf("esc on the malformed filter: title %q", got)
	}
}

// goneKind answers every Snapshot after the first as the Client does once
// a CRD was deleted: the kind is no longer served.
type goneKind struct {
	views.Source
	calls int
}

func (g *goneKind) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	g.calls++
	if g.calls == 1 {
		return g.Source.Snapshot(ctx, req)
	}
	return kube.Snapshot{Namespace: req.Namespace, Generation: 99, Taken: viewtest.Now,
		Truncated: []kube.Truncation{{Kind: req.Kinds[0], Reason: kube.ReasonUnknownKind, Message: "no plugin serves " + string(req.Kinds[0])}}}
}

// TestKindNoLongerServed: when the kind shown stops being served (its CRD
// deleted) and no row is left, the screen says so, rather than "No ... in
// namespace" under a line about rows that are not there (found by a
// fresh-user trial).
func TestKindNoLongerServed(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	src := &goneKind{Source: client}
	m, err := inventory.New(viewtest.Context(src, 100, 8), "configmaps", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	refresh(t, m, m.Init())
	refresh(t, m, keys(m, "ctrl+r"))
	view := m.View()
	viewtest.Size(t, view, 100, 8)
	if !strings.Contains(view, "does not serve this kind") || strings.Contains(view, "No configmaps in") || strings.Contains(view, "showing rows read") {
		t.Fatalf("a kind no longer served:\n%s", view)
	}
	viewtest.Golden(t, "kind-no-longer-served", view)
}

// TestOpeningAServiceWithoutSelector: enter on a Service without a selector
// says so plainly, not that the request was invalid.
func TestOpeningAServiceWithoutSelector(t *testing.T) {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "external"}}
	client, _ := kubetest.FakeClient(t, svc)
	m, _ := load(t, client, "services", "demo", 80, 8)
	cmd := keys(m, "enter")
	if cmd == nil {
		t.Fatal("enter did nothing")
	}
	st, ok := cmd().(views.StatusMsg)
	if !ok || st.Error || st.Text != "services/external has no selector: it selects nothing to open" {
		t.Fatalf("enter on a Service without a selector: %#v", st)
	}
}
