package ui

import (
	"fmt"
	"os/exec"
	"reflect"
	"slices"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestSiblingSortsEveryField: every field of Model is either one a
// sibling pane takes from its pane (configuration, and what is known of
// the connection they share) or one it starts afresh (its screens and
// session state): a field added to Model must be sorted here, and in
// sibling.
func TestSiblingSortsEveryField(t *testing.T) {
	taken := []string{"vc", "namespace", "short", "kubeconfig", "context", "fleet", "fleetName", "fleetOn", "nsChosen",
		"facts", "hasFacts", "factsStale", "factsAt", "unreachableSince", "retry", "nsNames", "ctxNames",
		"sess", "historyPath", "yamlEditor"}
	afresh := []string{"stack", "tags", "routing", "quitAsked", "factsSeq", "factsReading", "prompt", "prompting", "help",
		"helpOffset", "helpPage", "status", "cleared", "outcomeShown", "overlay", "across", "epoch", "switchSeq",
		"suggestedFor", "cycle", "cycleAt", "headerDrawn", "width", "height"}
	mt := reflect.TypeOf(Model{})
	for i := range mt.NumField() {
		f := mt.Field(i)
		if !slices.Contains(taken, f.Name) && !slices.Contains(afresh, f.Name) {
			t.Errorf("Model.%s is neither taken by a sibling nor started afresh: sort it (sibling, this test)", f.Name)
		}
	}
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 80, 20), "deployments", "shop", WithHistoryFile("/tmp/h.log"), WithFleetName("prod"),
		WithAliases(map[string]Alias{"web": {Kind: "pods"}}, map[string]string{"f2": "web"}))
	if err != nil {
		t.Fatal(err)
	}
	m.status = views.StatusMsg{Text: "mine"}
	m.context = "kyyard-other"
	s := m.sibling()
	if s.vc == m.vc || s.vc.Client != m.vc.Client || s.sess != m.sess {
		t.Fatal("the sibling must have its own Context over the same client, and the same session")
	}
	if s.historyPath != "/tmp/h.log" || s.fleetName != "prod" || s.context != "kyyard-other" || s.short.hotkeys["f2"] != "web" {
		t.Fatalf("configuration not taken: %q %q %q %v", s.historyPath, s.fleetName, s.context, s.short.hotkeys)
	}
	if s.status.Text != "" || s.Top().Title() != "deployments(shop)[?]" || len(s.stack) != 1 {
		t.Fatalf("session state taken: status %q, screens %d, top %q", s.status.Text, len(s.stack), s.Top().Title())
	}
}

// TestTagging: a pane's Cmds come back with kyyard's messages and
// tea.Exec's tagged, batches and sequences rebuilt of wrapped Cmds of
// their own type, and any other message as it was.
func TestTagging(t *testing.T) {
	pane := &Model{}
	msgOf := func(v tea.Msg) tea.Cmd { return func() tea.Msg { return v } }
	if got := wrap(pane, msgOf(views.StatusMsg{Text: "x"}))(); got != (paneMsg{pane: pane, msg: views.StatusMsg{Text: "x"}}) {
		t.Fatalf("a views message: %#v", got)
	}
	if got := wrap(pane, msgOf(&views.StatusMsg{}))(); reflect.TypeOf(got) != reflect.TypeOf(paneMsg{}) {
		t.Fatalf("a pointer to a views message: %T", got)
	}
	for _, foreign := range []tea.Msg{tea.QuitMsg{}, tea.WindowSizeMsg{Width: 1}, "text", 3} {
		if got := wrap(pane, msgOf(foreign))(); got != foreign {
			t.Fatalf("%T was changed into %#v", foreign, got)
		}
	}
	if wrap(pane, nil) != nil || wrap(pane, msgOf(nil))() != nil {
		t.Fatal("nil is not kept")
	}
	batch := wrap(pane, tea.Batch(msgOf(onlyMsg{}), msgOf(tea.QuitMsg{})))()
	b, ok := batch.(tea.BatchMsg)
	if !ok || len(b) != 2 || b[0]() != (paneMsg{pane: pane, msg: onlyMsg{}}) || b[1]() != (tea.QuitMsg{}) {
		t.Fatalf("a batch: %#v", batch)
	}
	seq := wrap(pane, tea.Sequence(msgOf(closePaneMsg{}), msgOf(tea.QuitMsg{})))()
	if got := fmt.Sprintf("%T", seq); got != "tea.sequenceMsg" {
		t.Fatalf("a sequence became %s", got)
	}
	v := reflect.ValueOf(seq)
	first, _ := v.Index(0).Interface().(tea.Cmd)
	second, _ := v.Index(1).Interface().(tea.Cmd)
	if first() != (paneMsg{pane: pane, msg: closePaneMsg{}}) || second() != (tea.QuitMsg{}) {
		t.Fatalf("the sequence's Cmds: %#v, %#v", first(), second())
	}
	ex := wrap(pane, tea.ExecProcess(exec.Command("true"), nil))()
	if pm, ok := ex.(paneMsg); !ok || !isExec(pm.msg) {
		t.Fatalf("tea.Exec's message: %T", ex)
	}
}

// closeCounter counts the Closes of the source it wraps.
type closeCounter struct {
	views.Source
	closed *int
}

func (c closeCounter) Close() { *c.closed++ }

// TestSharedConnectionClosedLast: a context switch in one pane keeps the
// connection the other pane reads; closing that pane closes it, once.
func TestSharedConnectionClosedLast(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	closedA, closedB := 0, 0
	a, b := closeCounter{client, &closedA}, closeCounter{client, &closedB}
	if !sameSource(a, a) || sameSource(a, b) || sameSource(struct{ views.Source }{client}, nil) {
		t.Fatal("sameSource")
	}
	if sameSource(sliceSource{client, nil}, sliceSource{client, nil}) {
		t.Fatal("sources that cannot be compared are never the same")
	}
	m, err := New(viewtest.Context(a, 0, 0), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	p := NewPanes(m)
	p.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	p.split(m, "")
	below := p.Pane(1)
	below.switchSeq = 1
	below.connected(connectedMsg{context: "b", source: b, seq: 1})
	if closedA != 0 || below.vc.Client != views.Source(b) || m.vc.Client != views.Source(a) {
		t.Fatalf("a switch below closed the top pane's connection (%d) or changed it", closedA)
	}
	p.close(m)
	if closedA != 1 || closedB != 0 {
		t.Fatalf("closing the top pane: its connection closed %d times, the other's %d", closedA, closedB)
	}
}

// sliceSource is a source of a type that cannot be compared.
type sliceSource struct {
	views.Source
	names []string
}

// TestHeaderRedrawnWhenItsFactsChange: the header kept between frames is
// drawn again when anything it shows changes (facts, the namespace among
// the favourites, the width, the split).
func TestHeaderRedrawnWhenItsFactsChange(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 0, 0), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 20})
	m.Update(factsMsg{facts: kube.Facts{Context: "a", ServerVersion: "v1.37.2", Nodes: "3"}})
	was := m.header()
	for _, change := range []func(){
		func() { m.Update(factsMsg{facts: kube.Facts{Context: "a", ServerVersion: "v1.37.2", Nodes: "4"}}) },
		func() { m.setNamespace("shop") },
		func() { m.Update(tea.WindowSizeMsg{Width: 40, Height: 20}) },
		func() { m.sess.panes = []*Model{m, {}} },
	} {
		change()
		now := m.header()
		if now == was || now != m.drawHeader() {
			t.Fatalf("the header was not drawn again:\n%s\n(was)\n%s", now, was)
		}
		was = now
	}
}
