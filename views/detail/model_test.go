package detail_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/viewtest"
)

// source serves canned describe and YAML texts and records what was asked.
type source struct {
	describe string
	yaml     func(opts kube.YAMLOptions) string
	err      error
	asked    []string
}

func (s *source) Snapshot(context.Context, kube.SnapshotRequest) kube.Snapshot {
	return kube.Snapshot{}
}
func (s *source) Facts(context.Context) kube.Facts  { return kube.Facts{} }
func (s *source) Kind(string) (kube.KindInfo, bool) { return kube.KindInfo{}, false }
func (s *source) Names() []string                   { return nil }
func (s *source) Rediscover(context.Context) bool   { return false }
func (s *source) Namespace() string                 { return "demo" }
func (s *source) DrillDown(context.Context, kube.Kind, string, string) (kube.SnapshotRequest, error) {
	return kube.SnapshotRequest{}, errors.New("no drill-down here")
}

func (s *source) Describe(_ context.Context, kind kube.Kind, ns, name string) (string, error) {
	s.asked = append(s.asked, fmt.Sprintf("describe %s %s %s", kind, ns, name))
	return s.describe, s.err
}

func (s *source) YAML(_ context.Context, kind kube.Kind, ns, name string, opts kube.YAMLOptions) (string, error) {
	s.asked = append(s.asked, fmt.Sprintf("yaml %s %s %s managedFields=%v", kind, ns, name, opts.ManagedFields))
	if s.err != nil {
		return "", s.err
	}
	return s.yaml(opts), nil
}

// describeText is `kubectl describe pod` output, tabs and all.
const describeText = `Name:             web-7d9f-abcde
Namespace:        demo
Priority:         0
Service Account:  default
Node:             kwok-node-0/10.0.0.5
Start Time:       Sun, 29 Nov 2026 11:00:00 +0000
Labels:           app=web
                  pod-template-hash=7d9f
Status:           Running
IP:               10.244.0.7
Controlled By:  ReplicaSet/web-7d9f
Containers:
  web:
    Image:          nginx:1.27
    Port:           80/TCP
    State:          Waiting
      Reason:       CrashLoopBackOff
    Ready:          False
    Restart Count:  4
    Environment:
      PASSWORD:  <set to the key 'password' in secret 'web-credentials'>  Optional: false
Conditions:
  Type              Status
  Ready             False
QoS Class:          BestEffort
Events:
  Type     Reason   Age   From     Message
  ----     ------   ----  ----     -------
  Warning  BackOff  2m	kubelet	Back-off restarting failed container web in pod web-7d9f-abcde_demo(0b1c2d3e-4f5a-6b7c-8d9e-0f1a2b3c4d5e)
`

func yamlText(opts kube.YAMLOptions) string {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n")
	b.WriteString("  annotations:\n    deployment.kubernetes.io/revision: \"1\"\n")
	if opts.ManagedFields {
		b.WriteString("  managedFields:\n  - apiVersion: apps/v1\n    manager: kube-controller-manager\n    operation: Update\n")
	}
	b.WriteString("  name: web\n  namespace: demo\nspec:\n  replicas: 3\n  template:\n    spec:\n      containers:\n")
	b.WriteString("      - image: nginx:1.27\n        name: web\n        args: [\"--a-very-long-flag-that-runs-past-the-edge-of-an-eighty-column-terminal=value\", \"--web\"]\n")
	b.WriteString("status:\n  availableReplicas: 3\n  readyReplicas: 3\n  replicas: 3\n")
	return b.String()
}

func newSource() *source { return &source{describe: describeText, yaml: yamlText} }

// open returns a detail screen of w x h cells that has read its object.
func open(t *testing.T, src *source, view views.ObjectView, w, h int) *detail.Model {
	t.Helper()
	vc := viewtest.Context(src, w, h)
	kind := kube.Kind("pods")
	name := "web-7d9f-abcde"
	if view == views.YAMLView {
		kind, name = "deployments", "web"
	}
	m := detail.New(vc, views.OpenObjectMsg{View: view, Kind: kind, Namespace: "demo", Name: name})
	run(t, m, m.Init())
	return m
}

// run executes a read command and hands its answer to the screen.
func run(t *testing.T, m *detail.Model, cmd tea.Cmd) {
	t.Helper()
	if cmd == nil {
		t.Fatal("no read command")
	}
	m.Update(cmd())
}

func press(m *detail.Model, keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		_, last = m.Update(viewtest.Key(k))
	}
	return last
}

// typeSearch opens the prompt, types query and presses enter.
func typeSearch(t *testing.T, m *detail.Model, query string) {
	t.Helper()
	press(m, "/")
	if !m.Capturing() {
		t.Fatal("the search prompt does not capture keys")
	}
	for _, r := range query {
		press(m, string(r))
	}
	press(m, "enter")
	if m.Capturing() {
		t.Fatal("enter did not close the search prompt")
	}
}

func lines(view string) []string { return strings.Split(view, "\n") }

func footer(view string) string {
	l := lines(view)
	return l[len(l)-1]
}

func TestDescribeView(t *testing.T) {
	for _, size := range [][2]int{{80, 20}, {120, 30}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			src := newSource()
			m := open(t, src, views.DescribeView, size[0], size[1])
			if got := m.Title(); got != "describe pods/demo/web-7d9f-abcde" {
				t.Fatalf("title %q", got)
			}
			if len(src.asked) != 1 || src.asked[0] != "describe pods demo web-7d9f-abcde" {
				t.Fatalf("asked %v", src.asked)
			}
			view := m.View()
			viewtest.Size(t, view, size[0], size[1])
			viewtest.Golden(t, fmt.Sprintf("describe-%dx%d", size[0], size[1]), view)
		})
	}
}

func TestYAMLView(t *testing.T) {
	src := newSource()
	m := open(t, src, views.YAMLView, 80, 20)
	if got := m.Title(); got != "yaml deployments/demo/web" {
		t.Fatalf("title %q", got)
	}
	view := m.View()
	viewtest.Size(t, view, 80, 20)
	viewtest.Golden(t, "yaml-80x20", view)
	m = open(t, newSource(), views.YAMLView, 120, 30)
	viewtest.Golden(t, "yaml-120x30", m.View())
}

func TestTabsAreExpanded(t *testing.T) {
	m := open(t, newSource(), views.DescribeView, 200, 40)
	view := m.View()
	if strings.Contains(view, "\t") {
		t.Fatal("a tab reached the view")
	}
	// "  Warning  BackOff  2m" is 22 cells: the tab stops at 24, then 32.
	if !strings.Contains(view, "  Warning  BackOff  2m  kubelet Back-off") {
		t.Fatalf("tabs not expanded to tab stops:\n%s", view)
	}
}

func TestScrollKeys(t *testing.T) {
	src := newSource()
	m := open(t, src, views.DescribeView, 80, 10) // 9 text lines of 30
	first := func() string { return strings.TrimSpace(lines(m.View())[0]) }
	steps := []struct {
		keys      []string
		wantFirst string
		footer    string
	}{
		{nil, "Name:             web-7d9f-abcde", "lines 1-9 of 29"},
		{[]string{"down"}, "Namespace:        demo", "lines 2-10 of 29"},
		{[]string{"j", "j"}, "Service Account:  default", "lines 4-12 of 29"},
		{[]string{"k"}, "Priority:         0", "lines 3-11 of 29"},
		{[]string{"up"}, "Namespace:        demo", "lines 2-10 of 29"},
		{[]string{"pgdown"}, "Controlled By:  ReplicaSet/web-7d9f", "lines 11-19 of 29"},
		{[]string{"pgup"}, "Namespace:        demo", "lines 2-10 of 29"},
		{[]string{" "}, "Controlled By:  ReplicaSet/web-7d9f", "lines 11-19 of 29"},
		{[]string{"b"}, "Namespace:        demo", "lines 2-10 of 29"},
		{[]string{"G"}, "PASSWORD:  <set to the key 'password' in secret 'web-credentials'>  Option", "lines 21-29 of 29 (100%)"},
		{[]string{"g"}, "Name:             web-7d9f-abcde", "lines 1-9 of 29"},
		{[]string{"end"}, "PASSWORD:  <set to the key 'password' in secret 'web-credentials'>  Option", "lines 21-29 of 29"},
		{[]string{"home"}, "Name:             web-7d9f-abcde", "lines 1-9 of 29"},
	}
	for _, s := range steps {
		press(m, s.keys...)
		if got := first(); got != s.wantFirst {
			t.Fatalf("after %v: first line %q, want %q", s.keys, got, s.wantFirst)
		}
		if f := footer(m.View()); !strings.Contains(f, s.footer) {
			t.Fatalf("after %v: footer %q, want %q", s.keys, f, s.footer)
		}
	}
	if len(src.asked) != 1 {
		t.Fatalf("scrolling read the object again: %v", src.asked)
	}
}

func TestLongLinesScrollAndWrap(t *testing.T) {
	m := open(t, newSource(), views.YAMLView, 80, 20)
	view := m.View()
	if strings.Contains(view, "value") || !strings.Contains(footer(view), "cols 1-80 of 104") {
		t.Fatalf("a long line is not cut at 80 cells:\n%s", view)
	}
	press(m, "l")
	view = m.View()
	viewtest.Golden(t, "yaml-scrolled-right", view)
	// Half a screen, but no further than the longest line's end.
	if !strings.Contains(view, "column-terminal=value") || !strings.Contains(footer(view), "cols 25-104 of 104") {
		t.Fatalf("l did not scroll right to the end:\n%s", view)
	}
	m.Update(tea.KeyMsg{Type: tea.KeyLeft})
	if !strings.Contains(footer(m.View()), "cols 1-80") {
		t.Fatalf("left did not scroll back:\n%s", m.View())
	}
	m.Update(tea.KeyMsg{Type: tea.KeyRight})
	press(m, "h")
	if !strings.Contains(footer(m.View()), "cols 1-80") {
		t.Fatalf("right then h:\n%s", m.View())
	}
	press(m, "w")
	view = m.View()
	viewtest.Size(t, view, 80, 20)
	viewtest.Golden(t, "yaml-wrapped", view)
	if !strings.Contains(view, "\nerminal=value") || !strings.Contains(footer(view), "wrapped") || strings.Contains(footer(view), "cols") {
		t.Fatalf("w did not wrap the long line:\n%s", view)
	}
	press(m, "w")
	if strings.Contains(footer(m.View()), "wrapped") {
		t.Fatal("a second w did not turn wrapping off")
	}
}

func TestSearchHighlightsAndMoves(t *testing.T) {
	m := open(t, newSource(), views.DescribeView, 80, 20)
	typeSearch(t, m, "web")
	view := m.View()
	viewtest.Size(t, view, 80, 20)
	viewtest.Golden(t, "describe-search", view)
	if f := footer(view); !strings.Contains(f, "/web: match 1 of 7, line 1") {
		t.Fatalf("footer %q", f)
	}
	if !strings.HasPrefix(lines(view)[0], "> Name:") || !strings.HasPrefix(lines(view)[6], "* Labels:") {
		t.Fatalf("match markers:\n%s", view)
	}
	press(m, "n")
	if f := footer(m.View()); !strings.Contains(f, "match 2 of 7, line 7") {
		t.Fatalf("after n: %q", f)
	}
	press(m, "N", "N")
	view = m.View()
	if f := footer(view); !strings.Contains(f, "match 7 of 7, line 29") {
		t.Fatalf("N from the first match does not wrap to the last: %q", f)
	}
	if !strings.Contains(view, "> ") || !strings.Contains(view, "in pod web-7d9f") {
		t.Fatalf("the last match is not on screen:\n%s", view)
	}
	press(m, "n")
	if f := footer(m.View()); !strings.Contains(f, "match 1 of 7, line 1") {
		t.Fatalf("n from the last match does not wrap to the first: %q", f)
	}
}

// TestSearchIsSmartCase: a lower-case query ignores case, one with an
// upper-case letter does not.
func TestSearchIsSmartCase(t *testing.T) {
	m := open(t, newSource(), views.DescribeView, 80, 20)
	typeSearch(t, m, "ready")
	if f := footer(m.View()); !strings.Contains(f, "of 2,") {
		t.Fatalf("ready: %q", f)
	}
	typeSearch(t, m, "Ready")
	if f := footer(m.View()); !strings.Contains(f, "of 2,") {
		t.Fatalf("Ready: %q", f)
	}
	typeSearch(t, m, "READY")
	if f := footer(m.View()); !strings.Contains(f, "/READY: no match") {
		t.Fatalf("READY: %q", f)
	}
	if strings.HasPrefix(lines(m.View())[0], "  ") {
		t.Fatal("no match, yet the marker column is drawn")
	}
	typeSearch(t, m, "")
	if f := footer(m.View()); strings.Contains(f, "match") {
		t.Fatalf("an empty search did not end the search: %q", f)
	}
}

// TestSearchMovesHorizontally: a match past the right edge scrolls into view.
func TestSearchMovesHorizontally(t *testing.T) {
	m := open(t, newSource(), views.YAMLView, 80, 20)
	typeSearch(t, m, "=value")
	view := m.View()
	if !strings.Contains(view, "=value") {
		t.Fatalf("the match past the edge is not shown:\n%s", view)
	}
}

// TestSearchHighlightStyles draws in colour: the current match in the
// CurrentMatch style, the others in Match.
func TestSearchHighlightStyles(t *testing.T) {
	src := newSource()
	vc := viewtest.Context(src, 80, 20)
	lipgloss.SetColorProfile(termenv.ANSI256)
	t.Cleanup(func() { lipgloss.SetColorProfile(termenv.Ascii) })
	m := detail.New(vc, views.OpenObjectMsg{View: views.DescribeView, Kind: "pods", Namespace: "demo", Name: "web-7d9f-abcde"})
	run(t, m, m.Init())
	typeSearch(t, m, "web")
	view := m.View()
	current, other := vc.Styles.CurrentMatch.Render("web"), vc.Styles.Match.Render("web")
	if current == "web" || other == "web" || current == other {
		t.Fatalf("the styles do not mark matches: %q %q", current, other)
	}
	if got := strings.Count(view, current); got != 1 {
		t.Fatalf("current match drawn %d times:\n%q", got, view)
	}
	if !strings.Contains(lines(view)[6], other) {
		t.Fatalf("other match not highlighted: %q", lines(view)[6])
	}
}

func TestSearchPromptEscCancels(t *testing.T) {
	m := open(t, newSource(), views.DescribeView, 80, 20)
	press(m, "/", "x", "y")
	if !strings.HasPrefix(footer(m.View()), "/xy") {
		t.Fatalf("the prompt does not show what is typed: %q", footer(m.View()))
	}
	press(m, "esc")
	if m.Capturing() || strings.Contains(footer(m.View()), "xy") {
		t.Fatalf("esc did not cancel the search: %q", footer(m.View()))
	}
}

func TestManagedFieldsToggleReadsAgain(t *testing.T) {
	src := newSource()
	m := open(t, src, views.YAMLView, 80, 30)
	if strings.Contains(m.View(), "managedFields") {
		t.Fatal("managedFields shown before m")
	}
	run(t, m, press(m, "m"))
	view := m.View()
	if !strings.Contains(view, "managedFields:") || !strings.Contains(footer(view), "managedFields shown") {
		t.Fatalf("m did not show managedFields:\n%s", view)
	}
	run(t, m, press(m, "m"))
	if strings.Contains(m.View(), "managedFields:") {
		t.Fatal("a second m did not hide managedFields")
	}
	want := []string{"yaml deployments demo web managedFields=false", "yaml deployments demo web managedFields=true",
		"yaml deployments demo web managedFields=false"}
	if strings.Join(src.asked, "|") != strings.Join(want, "|") {
		t.Fatalf("reads %v, want %v", src.asked, want)
	}
	// m means nothing for describe.
	d := open(t, newSource(), views.DescribeView, 80, 20)
	if cmd := press(d, "m"); cmd != nil {
		t.Fatal("m read a describe view again")
	}
}

func TestRefreshReadsAgainAndDropsStaleAnswers(t *testing.T) {
	src := newSource()
	m := open(t, src, views.DescribeView, 80, 20)
	stale := press(m, "ctrl+r")
	if stale == nil {
		t.Fatal("ctrl+r read nothing")
	}
	if !strings.Contains(footer(m.View()), "reading…") {
		t.Fatalf("no reading notice: %q", footer(m.View()))
	}
	src.describe = "Name: changed\n"
	fresh := press(m, "ctrl+r")
	run(t, m, fresh)
	src.describe = "Name: stale\n"
	run(t, m, stale) // answers "Name: stale", for an older read
	view := m.View()
	if !strings.Contains(view, "Name: changed") || strings.Contains(view, "stale") || strings.Contains(footer(view), "reading") {
		t.Fatalf("the newest read is not the one shown:\n%s", view)
	}
}

func TestErrorStates(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"forbidden", apierrors.NewForbidden(pods, "web-7d9f-abcde", errors.New("User \"viewer\" cannot get resource \"pods\"")), "RBAC forbids it"},
		{"not-found", apierrors.NewNotFound(pods, "web-7d9f-abcde"), "the object was deleted"},
		{"unavailable", apierrors.NewServiceUnavailable("etcd is down"), "cannot be reached"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newSource()
			src.err = tc.err
			m := open(t, src, views.DescribeView, 80, 20)
			view := m.View()
			viewtest.Size(t, view, 80, 20)
			viewtest.Golden(t, "error-"+tc.name, view)
			if !strings.Contains(view, "Cannot show describe pods/demo/web-7d9f-abcde") || !strings.Contains(view, tc.want) {
				t.Fatalf("no explanation:\n%s", view)
			}
		})
	}
}

// TestFailedReadAfterTextKeepsOrReplacesIt: a server that cannot be
// reached leaves the text read before, with a notice; a deleted object
// replaces it with the explanation.
func TestFailedReadAfterTextKeepsOrReplacesIt(t *testing.T) {
	src := newSource()
	m := open(t, src, views.DescribeView, 80, 20)
	src.err = apierrors.NewServiceUnavailable("etcd is down")
	run(t, m, press(m, "ctrl+r"))
	view := m.View()
	if !strings.Contains(view, "Name:             web-7d9f-abcde") || !strings.Contains(footer(view), "! read failed (unavailable)") {
		t.Fatalf("an unreachable server blanked the text or said nothing:\n%s", view)
	}
	src.err = apierrors.NewNotFound(schema.GroupResource{Resource: "pods"}, "web-7d9f-abcde")
	run(t, m, press(m, "ctrl+r"))
	view = m.View()
	if strings.Contains(view, "Namespace:") || !strings.Contains(view, "the object was deleted") {
		t.Fatalf("a deleted object still shows its text:\n%s", view)
	}
	src.err = nil
	run(t, m, press(m, "ctrl+r"))
	if !strings.Contains(m.View(), "Namespace:") {
		t.Fatalf("a successful read after a failure:\n%s", m.View())
	}
}

func TestLoadingState(t *testing.T) {
	vc := viewtest.Context(newSource(), 80, 20)
	m := detail.New(vc, views.OpenObjectMsg{View: views.YAMLView, Kind: "nodes", Name: "kwok-node-0"})
	m.Init()
	view := m.View()
	viewtest.Size(t, view, 80, 20)
	if !strings.HasPrefix(view, "Reading yaml nodes/kwok-node-0…") {
		t.Fatalf("loading:\n%s", view)
	}
}

// TestHostileTextIsSanitized: escape sequences, bells and invalid UTF-8 in
// a value are drawn as U+FFFD, never sent to the terminal.
func TestHostileTextIsSanitized(t *testing.T) {
	src := newSource()
	src.yaml = func(kube.YAMLOptions) string {
		return "metadata:\n  annotations:\n    evil: \x1b]52;c;aGk=\x07\x1b[2J\x1b[31mred\u009b1m\xff\xfe\r\n  name: web\x1b[0m\n"
	}
	m := open(t, src, views.YAMLView, 80, 20)
	typeSearch(t, m, "red")
	view := m.View()
	viewtest.Golden(t, "yaml-hostile", view)
	if strings.ContainsAny(view, "\x1b\x07\r\u009b") || !utf8.ValidString(view) {
		t.Fatalf("hostile bytes reach the terminal: %q", view)
	}
	if !strings.Contains(view, "red") || !strings.Contains(view, "name: web\uFFFD[0m") {
		t.Fatalf("the text around hostile bytes is lost:\n%s", view)
	}
}

func TestEmptyText(t *testing.T) {
	src := newSource()
	src.describe = ""
	m := open(t, src, views.DescribeView, 80, 5)
	if !strings.HasPrefix(m.View(), "(empty)") {
		t.Fatalf("empty:\n%s", m.View())
	}
}

func TestBindingsForHelp(t *testing.T) {
	y := open(t, newSource(), views.YAMLView, 80, 20)
	d := open(t, newSource(), views.DescribeView, 80, 20)
	enabled := func(m *detail.Model) map[string]bool {
		out := map[string]bool{}
		for _, b := range m.Bindings() {
			if b.Enabled() {
				out[b.Help().Key] = true
			}
		}
		return out
	}
	for _, k := range []string{"↑/k", "↓/j", "pgup", "pgdn", "g", "G", "←/h", "→/l", "w", "/", "n", "N", "m", "ctrl+r"} {
		if !enabled(y)[k] {
			t.Errorf("YAML help lacks %q", k)
		}
	}
	if enabled(d)["m"] {
		t.Error("describe help lists m")
	}
}

// TestMouseWheelScrolls is issue 27's wheel on describe: one turn down
// scrolls three lines, one up back; a click does nothing.
func TestMouseWheelScrolls(t *testing.T) {
	m := open(t, newSource(), views.DescribeView, 80, 10)
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if f := footer(m.View()); !strings.Contains(f, "lines 4-12 of 29") {
		t.Fatalf("after a turn of the wheel down: footer %q", f)
	}
	m.Update(tea.MouseMsg{X: 3, Y: 3, Button: tea.MouseButtonLeft, Action: tea.MouseActionPress})
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelUp, Action: tea.MouseActionPress})
	if f := footer(m.View()); !strings.Contains(f, "lines 1-9 of 29") {
		t.Fatalf("after a turn of the wheel up: footer %q", f)
	}
}
