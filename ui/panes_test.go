package ui_test

import (
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/apimachinery/pkg/version"
	fakediscovery "k8s.io/client-go/discovery/fake"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// paneHarness drives the top-level model as Bubble Tea would, but runs
// commands once (never the ticks they arm, which would sleep).
type paneHarness struct {
	t *testing.T
	p *ui.Panes
}

// startPanes starts kyyard's top-level model on the fake cluster's pods
// in demo at a fixed size.
func startPanes(t *testing.T, w, h int) *paneHarness {
	t.Helper()
	client, cs := kubetest.FakeClient(t, objects()...)
	cs.Discovery().(*fakediscovery.FakeDiscovery).FakedServerVersion = &version.Info{GitVersion: "v1.37.2", Platform: "linux/amd64"}
	m, err := ui.New(viewtest.Context(client, 0, 0), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	ph := &paneHarness{t: t, p: ui.NewPanes(m)}
	ph.send(tea.WindowSizeMsg{Width: w, Height: h})
	ph.run(ph.p.Init())
	ph.clock()
	return ph
}

// clock fixes the inventory screens' clocks so that ages are stable.
func (h *paneHarness) clock() {
	for i := range 2 {
		if pane := h.p.Pane(i); pane != nil {
			if inv, ok := pane.Top().(*inventory.Model); ok {
				inv.SetClock(func() time.Time { return viewtest.Now })
			}
		}
	}
}

func (h *paneHarness) send(msg tea.Msg) tea.Cmd {
	_, cmd := h.p.Update(msg)
	h.clock()
	return cmd
}

// run executes cmd (and the commands of a batch) and sends their
// messages, running what follows a screen's opening (followsInPanes).
func (h *paneHarness) run(cmd tea.Cmd) {
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
	if followsInPanes(msg) {
		h.run(next)
	}
}

// followsInPanes is follows for a pane's message, and for the panes'
// own: a split starts the new pane, a pane closed resizes the other.
func followsInPanes(msg tea.Msg) bool {
	inner := ui.Untag(msg)
	switch fmt.Sprintf("%T", inner) {
	case "ui.splitMsg", "ui.onlyMsg", "ui.closePaneMsg":
		return true
	}
	if l, ok := inner.(views.OpenLogsMsg); ok && l.Beside {
		return true // Panes shows them in the other pane (whose stream is not run)
	}
	return follows(inner)
}

func (h *paneHarness) keys(keys ...string) tea.Cmd {
	var last tea.Cmd
	for _, k := range keys {
		last = h.send(viewtest.Key(k))
	}
	return last
}

// command types a `:` command and runs what it starts.
func (h *paneHarness) command(text string) {
	h.keys(":")
	for _, r := range text {
		h.keys(string(r))
	}
	h.run(h.keys("enter"))
}

// title returns pane i's top screen's title ("" when there is no pane i).
func (h *paneHarness) title(i int) string {
	if p := h.p.Pane(i); p != nil {
		return p.Top().Title()
	}
	return ""
}

// focused returns which pane has the keys (0 top, 1 bottom).
func (h *paneHarness) focused() int {
	if h.p.Focused() == h.p.Pane(1) {
		return 1
	}
	return 0
}

// TestOnePaneIsTheModel: with one pane, Panes draws the pane's frame byte
// for byte (the golden of the root model alone).
func TestOnePaneIsTheModel(t *testing.T) {
	h := startPanes(t, width, height)
	viewtest.Golden(t, "root-pods", h.p.View())
	h.keys("esc") // the last screen of the only pane: nothing happens
	if h.p.Pane(0) == nil || h.title(0) != "pods(demo)[1]" {
		t.Fatalf("esc on the only pane's last screen: %q", h.title(0))
	}
	h.keys("ctrl+w")
	if v := h.p.View(); !strings.Contains(v, ":split opens a second") {
		t.Fatalf("ctrl+w with one pane does not say how to split:\n%s", v)
	}
}

// TestSplitOpensASecondPane: `:split deploy` opens the deployments below,
// focused; `:split` alone opens the pane's own kind and namespace. Both
// are drawn at fixed sizes, the focused pane marked in the text (») and
// the other's status line saying how to focus it.
func TestSplitOpensASecondPane(t *testing.T) {
	for _, size := range [][2]int{{120, 30}, {80, 24}} {
		h := startPanes(t, size[0], size[1])
		h.command("split deploy")
		if got := h.title(1); got != "deployments(demo)[1]" {
			t.Fatalf("%dx%d: the new pane shows %q", size[0], size[1], got)
		}
		if h.title(0) != "pods(demo)[1]" || h.focused() != 1 {
			t.Fatalf("top pane %q, focused %d", h.title(0), h.focused())
		}
		view := h.p.View()
		viewtest.Size(t, view, size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("panes-split-%dx%d", size[0], size[1]), view)
		lines := strings.Split(view, "\n")
		top := size[1] / 2
		if !strings.HasPrefix(lines[1], "  pods(demo)") || !strings.HasPrefix(lines[top+1], "» deployments(demo)") {
			t.Fatalf("the title bars do not tell the focused pane:\n%s", view)
		}
		if !strings.Contains(lines[top-1], "ctrl+w: focus this pane") {
			t.Fatalf("the unfocused pane's status line:\n%s", view)
		}
	}
	h := startPanes(t, 80, 24)
	h.command("ns other")
	h.command("split")
	if got := h.title(1); got != "pods(other)[1]" {
		t.Fatalf(":split alone opened %q, want the pane's own pods(other)", got)
	}
	h.command("split only")
	if v := h.p.View(); !strings.Contains(v, ":split takes what the new pane shows") || h.title(0) != "pods(other)[1]" {
		t.Fatalf(":split only:\n%s", v)
	}
}

// TestHelpListsTheSplit: the help overlay lists the focus key and the
// panes' commands.
func TestHelpListsTheSplit(t *testing.T) {
	h := startPanes(t, 120, 30)
	h.keys("?")
	for _, want := range []string{"ctrl+w", "other pane (:split, :only)", ":split [cmd]", ":only"} {
		if v := h.p.View(); !strings.Contains(v, want) {
			t.Fatalf("the help lacks %q:\n%s", want, v)
		}
	}
}

// TestFocusKeyMovesTheKeys: ctrl+w gives the keys to the other pane; a
// key acts in the focused pane only; while the pane takes text, ctrl+w is
// the text's (it deletes a word in the prompt).
func TestFocusKeyMovesTheKeys(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split")
	h.command("nodes")
	if h.title(1) != "nodes[1]" || h.title(0) != "pods(demo)[1]" {
		t.Fatalf(":nodes in the bottom pane: %q above, %q below", h.title(0), h.title(1))
	}
	h.keys("ctrl+w")
	if h.focused() != 0 {
		t.Fatal("ctrl+w did not focus the top pane")
	}
	h.command("deploy")
	if h.title(0) != "deployments(demo)[1]" || h.title(1) != "nodes[1]" {
		t.Fatalf(":deploy in the top pane: %q above, %q below", h.title(0), h.title(1))
	}
	h.keys(":", "n", "s", " ", "d", "e", "ctrl+w")
	if h.focused() != 0 {
		t.Fatal("ctrl+w in the prompt moved the focus")
	}
	lines := strings.Split(h.p.View(), "\n")
	if got := strings.TrimRight(lines[11], " "); got != ":ns" {
		t.Fatalf("ctrl+w in the prompt did not delete a word: %q", got)
	}
	h.keys("esc", "ctrl+w")
	if h.focused() != 1 {
		t.Fatal("ctrl+w after the prompt closed did not focus the bottom pane")
	}
}

// TestPaneMessagesStayInTheirPane: what a pane's screens ask for (a
// drill-down, a status line) reaches that pane only.
func TestPaneMessagesStayInTheirPane(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split ns")
	h.keys("j")
	h.run(h.keys("enter"))
	if got := h.title(1); got != "pods(other)[1]" {
		t.Fatalf("enter on namespace other in the bottom pane: %q", got)
	}
	if !strings.Contains(h.p.View(), "namespaces[2] › pods(other)[1]") {
		t.Fatalf("no breadcrumb below:\n%s", h.p.View())
	}
	if got := h.title(0); got != "pods(demo)[1]" || strings.Contains(strings.Join(strings.Split(h.p.View(), "\n")[:12], "\n"), "›") {
		t.Fatalf("the drill-down below changed the top pane: %q\n%s", got, h.p.View())
	}
	h.send(ui.Tag(h.p.Pane(0), views.StatusMsg{Text: "said above only"}))
	lines := strings.Split(h.p.View(), "\n")
	if !strings.Contains(lines[11], "said above only") || strings.Contains(lines[23], "said above") {
		t.Fatalf("a status of the top pane:\n%s", h.p.View())
	}
}

// TestEscClosesThePaneAtItsBottom: esc on a pane's last screen closes
// that pane; the other fills the terminal, with its full header again.
func TestEscClosesThePaneAtItsBottom(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split deploy")
	h.run(h.keys("esc"))
	if h.p.Pane(1) != nil || h.title(0) != "pods(demo)[1]" {
		t.Fatalf("esc on the bottom pane's last screen: %q, %q", h.title(0), h.title(1))
	}
	view := h.p.View()
	viewtest.Size(t, view, 80, 24)
	if lines := strings.Split(view, "\n"); !strings.HasPrefix(lines[2], "pods(demo)[1]") || !strings.Contains(lines[1], "k8s: v1.37.2") {
		t.Fatalf("the pane left is not drawn alone:\n%s", view)
	}
	// The top pane closes as well, after a drill-down is gone back from.
	h.command("split")
	h.keys("ctrl+w")
	h.command("ns")
	h.run(h.keys("enter"))
	h.run(h.keys("esc"))
	if h.p.Pane(1) == nil || h.title(0) != "namespaces[2]" {
		t.Fatalf("esc after a drill-down closed a pane: %q, %q", h.title(0), h.title(1))
	}
	h.run(h.keys("esc"))
	if h.p.Pane(1) != nil || h.title(0) != "pods(demo)[1]" || h.focused() != 0 {
		t.Fatalf("esc on the top pane's last screen: %q, %q", h.title(0), h.title(1))
	}
}

// TestOnlyClosesTheOtherPane: :only closes the other pane; with one pane
// it says there is one.
func TestOnlyClosesTheOtherPane(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split deploy")
	h.keys("ctrl+w")
	h.command("only")
	if h.p.Pane(1) != nil || h.title(0) != "pods(demo)[1]" {
		t.Fatalf(":only in the top pane: %q, %q", h.title(0), h.title(1))
	}
	h.command("only")
	if !strings.Contains(h.p.View(), "one pane is shown") {
		t.Fatalf(":only with one pane:\n%s", h.p.View())
	}
	h.command("split deploy")
	h.command("unsplit")
	if h.p.Pane(1) != nil || h.title(0) != "deployments(demo)[1]" {
		t.Fatalf(":unsplit in the bottom pane: %q, %q", h.title(0), h.title(1))
	}
}

// TestQuitAsksAboutTheOtherPane: a form with an edit in the unfocused
// pane is asked about before q quits, and :only and :split keep it.
func TestQuitAsksAboutTheOtherPane(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("deploy")
	h.run(h.send(h.keys("e")()))
	h.keys("backspace", "5")
	h.run(h.send(ui.Tag(h.p.Pane(0), views.OpenObjectMsg{View: views.DescribeView, Kind: "deployments", Namespace: "demo", Name: "web"})))
	h.command("split pods")
	if h.focused() != 1 || h.title(1) != "pods(demo)[1]" {
		t.Fatalf("split: %q below, focused %d", h.title(1), h.focused())
	}
	for _, c := range []string{"only", "split nodes"} {
		h.command(c)
		if v := h.p.View(); !strings.Contains(v, "would close 1 unapplied edit to deployments/web in the other pane") || h.p.Pane(1) == nil {
			t.Fatalf(":%s with an edit in the other pane:\n%s", c, v)
		}
	}
	if cmd := h.keys("q"); cmd != nil {
		if _, quit := cmd().(tea.QuitMsg); quit {
			t.Fatal("q quit with an unapplied edit in the other pane")
		}
	}
	if v := h.p.View(); !strings.Contains(v, "quit and lose 1 unapplied edit to deployments/web in the other pane?") {
		t.Fatalf("no question:\n%s", v)
	}
	cmd := h.keys("ctrl+c")
	if cmd == nil {
		t.Fatal("ctrl+c after the question did not quit")
	}
	if _, quit := cmd().(tea.QuitMsg); !quit {
		t.Fatalf("ctrl+c after the question: %#v", cmd())
	}
}

// TestSplitTooSmall: below two panes' smallest height, :split says so;
// a split terminal made too small says so, in its own size.
func TestSplitTooSmall(t *testing.T) {
	h := startPanes(t, 80, 11)
	h.command("split")
	if h.p.Pane(1) != nil || !strings.Contains(h.p.View(), "too small for two panes: they need 20x12") {
		t.Fatalf(":split at 80x11:\n%s", h.p.View())
	}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 12})
	h.command("split")
	if h.p.Pane(1) == nil {
		t.Fatal(":split at 80x12 did not split")
	}
	viewtest.Size(t, h.p.View(), 80, 12)
	for _, size := range [][2]int{{80, 11}, {19, 30}, {30, 4}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		view := h.p.View()
		viewtest.Size(t, view, size[0], size[1])
		if flat := strings.ReplaceAll(view, "\n", " "); !strings.Contains(flat, fmt.Sprintf("%dx%d", size[0], size[1])) || !strings.Contains(flat, "20x12") {
			t.Errorf("%dx%d:\n%s", size[0], size[1], view)
		}
	}
	h.send(tea.WindowSizeMsg{Width: 80, Height: 11})
	viewtest.Golden(t, "panes-too-small", h.p.View())
	// The : line typed there is shown on the last line (a trial: :only
	// was typed blind), at any size.
	h.keys(":", "o", "n")
	for _, size := range [][2]int{{80, 11}, {30, 4}, {19, 1}} {
		h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		view := h.p.View()
		viewtest.Size(t, view, size[0], size[1])
		if lines := strings.Split(view, "\n"); !strings.HasPrefix(lines[len(lines)-1], ":on") {
			t.Errorf("%dx%d, typing :on:\n%s", size[0], size[1], view)
		}
	}
	h.keys("l", "y")
	h.run(h.keys("enter"))
	if h.p.Pane(1) != nil {
		t.Fatalf(":only typed in a too small split did not close a pane:\n%s", h.p.View())
	}
}

// TestResizeSplitsTheHeight: the top pane gets the upper half (rounded
// down), the bottom one the rest; each pane's screen the pane less its
// chrome.
func TestResizeSplitsTheHeight(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split")
	h.send(tea.WindowSizeMsg{Width: 100, Height: 31})
	if got := h.p.Pane(0).View(); strings.Count(got, "\n")+1 != 15 {
		t.Fatalf("top pane: %d lines, want 15", strings.Count(got, "\n")+1)
	}
	if got := h.p.Pane(1).View(); strings.Count(got, "\n")+1 != 16 {
		t.Fatalf("bottom pane: %d lines, want 16", strings.Count(got, "\n")+1)
	}
	viewtest.Size(t, h.p.View(), 100, 31)
}

// TestOutcomesOfEitherPaneAreInTheHistory: an outcome recorded in one
// pane, even one closed since, is in :history in the other.
func TestOutcomesOfEitherPaneAreInTheHistory(t *testing.T) {
	h := startPanes(t, 120, 30)
	h.command("split")
	bottom := h.p.Pane(1)
	outcome := func(name string) views.OutcomesMsg {
		return views.OutcomesMsg{Outcomes: []kube.OperateOutcome{{Op: kube.Operation{
			Ref: kube.ObjectRef{Kind: "deployments", Namespace: "demo", Name: name}, Action: kube.ActionRestart}, Written: true}}}
	}
	h.send(ui.Tag(bottom, outcome("web-below")))
	h.command("only")
	h.send(ui.Tag(bottom, outcome("web-closed"))) // the pane is gone, its write's answer is not
	h.command("history")
	for _, want := range []string{"web-below", "web-closed"} {
		if v := h.p.View(); !strings.Contains(v, want) {
			t.Fatalf(":history lacks %s:\n%s", want, v)
		}
	}
}

// TestExecCallbackReachesItsPane: what a tea.Exec callback makes comes
// back from Bubble Tea untagged; it goes to the pane that handed the
// terminal over, focused or not.
func TestExecCallbackReachesItsPane(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split")
	execMsg := tea.ExecProcess(exec.Command("true"), nil)()
	cmd := h.send(ui.Tag(h.p.Pane(0), execMsg))
	if cmd == nil || fmt.Sprintf("%T", cmd()) != "tea.execMsg" {
		t.Fatal("the exec message was not handed on to Bubble Tea")
	}
	h.send(views.StatusMsg{Text: "editor done"})
	lines := strings.Split(h.p.View(), "\n")
	if !strings.Contains(lines[11], "editor done") || strings.Contains(lines[23], "editor done") {
		t.Fatalf("the callback's message:\n%s", h.p.View())
	}
}

// TestClickFocusesThePane: a click focuses the pane under the pointer;
// the wheel scrolls without moving the focus.
func TestClickFocusesThePane(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.command("split")
	h.send(tea.MouseMsg{X: 3, Y: 2, Action: tea.MouseActionPress, Button: tea.MouseButtonWheelDown})
	if h.focused() != 1 {
		t.Fatal("the wheel over the top pane focused it")
	}
	h.send(tea.MouseMsg{X: 3, Y: 4, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	if h.focused() != 0 {
		t.Fatal("a click on the top pane did not focus it")
	}
	h.send(tea.MouseMsg{X: 3, Y: 14, Action: tea.MouseActionPress, Button: tea.MouseButtonLeft})
	if h.focused() != 1 {
		t.Fatal("a click on the bottom pane did not focus it")
	}
}

// TestLogsBeside: L on a pod opens its logs in a new pane below, the keys
// staying with the pods; L again shows them in place of the viewer there;
// esc in the logs' pane closes it.
func TestLogsBeside(t *testing.T) {
	h := startPanes(t, 80, 24)
	h.run(h.keys("L"))
	if got := h.title(1); got != "logs pods/web-1" || h.focused() != 0 || h.title(0) != "pods(demo)[1]" {
		t.Fatalf("L on web-1: %q below, %q above, focused %d", got, h.title(0), h.focused())
	}
	h.run(h.keys("L"))
	if got := h.title(1); got != "logs pods/web-1" || strings.Contains(h.p.View(), "›") {
		t.Fatalf("L again: %q below, a breadcrumb:\n%s", got, h.p.View())
	}
	h.keys("ctrl+w")
	h.run(h.keys("esc"))
	if h.p.Pane(1) != nil || h.title(0) != "pods(demo)[1]" {
		t.Fatalf("esc in the logs' pane: %q, %q", h.title(0), h.title(1))
	}
	// Over a screen of the other pane, the viewer is pushed: esc returns
	// to it.
	h.command("split deploy")
	h.keys("ctrl+w")
	h.run(h.keys("L"))
	if h.title(1) != "logs pods/web-1" || !strings.Contains(h.p.View(), "deployments(demo)[1] › logs pods/web-1") {
		t.Fatalf("L beside the deployments:\n%s", h.p.View())
	}
	// Too small for two panes, L opens the logs here, as l.
	h = startPanes(t, 80, 11)
	h.run(h.keys("L"))
	if h.p.Pane(1) != nil || h.title(0) != "logs pods/web-1" || !strings.Contains(h.p.View(), "the logs opened here") {
		t.Fatalf("L at 80x11: %q\n%s", h.title(0), h.p.View())
	}
}

// TestSplitFramesAreTheirPanes: a split reuses the frame of a pane no
// message reached since it was drawn; after each step (keys in the
// focused pane, the focus moved, a resize, a filter, :only) the frame is
// the one the two panes draw afresh.
func TestSplitFramesAreTheirPanes(t *testing.T) {
	h := startPanes(t, 120, 30)
	h.command("split deploy")
	fresh := func(step string) {
		t.Helper()
		got := h.p.View()
		if h.p.Pane(1) == nil {
			if want := h.p.Pane(0).View(); got != want {
				t.Fatalf("%s: the frame is not the pane's:\n%s\n--- want ---\n%s", step, got, want)
			}
			return
		}
		if want := h.p.Pane(0).View() + "\n" + h.p.Pane(1).View(); got != want {
			t.Fatalf("%s: a stale pane frame:\n%s\n--- want ---\n%s", step, got, want)
		}
	}
	fresh("split")
	h.keys("j")
	fresh("j in the lower pane")
	h.send(viewtest.Key("ctrl+w"))
	fresh("the focus moved up")
	h.keys("j", "k")
	fresh("j k in the upper pane")
	h.send(tea.WindowSizeMsg{Width: 100, Height: 26})
	fresh("resized")
	h.keys("/", "w", "e", "b", "enter")
	fresh("a filter in the upper pane")
	h.send(viewtest.Key("ctrl+w"))
	h.keys("?")
	fresh("the help in the lower pane")
	h.keys("esc")
	h.command("only")
	fresh(":only")
}
