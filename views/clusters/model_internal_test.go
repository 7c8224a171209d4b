package clusters

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fakeCluster is a client whose overview is fixed.
type fakeCluster struct {
	views.Source
	ov     kube.ClusterOverview
	closed bool
}

func (f *fakeCluster) Overview(context.Context) kube.ClusterOverview { return f.ov }
func (f *fakeCluster) Close()                                        { f.closed = true }

// fakeConn connects eu and us at once, fails bad, and holds hang.
type fakeConn struct {
	clusters map[string]*fakeCluster
	hang     chan struct{}
}

func (f *fakeConn) Connect(name string) (views.Source, error) {
	switch name {
	case "bad":
		return nil, errors.New(`context "bad": exec plugin: executable aws not found`)
	case "hang":
		<-f.hang
		return nil, errors.New("released")
	}
	return f.clusters[name], nil
}

var now = viewtest.Now

func fleet() *fakeConn {
	return &fakeConn{hang: make(chan struct{}), clusters: map[string]*fakeCluster{
		"prod-eu": {ov: kube.ClusterOverview{Version: "v1.37.2", Latency: 12 * time.Millisecond, NodesReady: 3, NodesTotal: 4,
			PodsRunning: 120, PodsPending: 2, PodsFailed: 1, PodsTotal: 130, Warnings: 7, Metrics: true,
			Used: kube.Usage{CPU: 1500, Memory: 3 << 30}, Allocatable: kube.Usage{CPU: 8000, Memory: 32 << 30},
			MayList: true, MayWatch: true, MayWrite: true, Answered: now.Add(-4 * time.Second)}},
		"prod-us": {ov: kube.ClusterOverview{Reason: kube.ReasonUnavailable, Message: "dial tcp 10.0.0.9:443: connect: connection refused",
			Latency: 3 * time.Millisecond, Answered: now.Add(-2 * time.Second)}},
		"staging": {ov: kube.ClusterOverview{Version: "v1.36.1", Latency: 40 * time.Millisecond, NodesReady: 1, NodesTotal: 1, PodsRunning: 9, PodsTotal: 9,
			MayList: true, ReadOnly: true, MetricsReason: kube.ReasonNotFound, Unread: []string{"nodes: forbidden"}, Namespace: "demo", Answered: now.Add(-90 * time.Second)}},
	}}
}

// run runs cmd's reads, each in its own goroutine as Bubble Tea does,
// handing m every answer that comes within a second (hang's never does).
func run(t *testing.T, m *Model, cmd tea.Cmd) {
	t.Helper()
	var cmds []tea.Cmd
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		cmds = msg
	default:
		m.Update(msg)
		return
	}
	msgs := make(chan tea.Msg, len(cmds))
	for _, c := range cmds {
		if c != nil {
			go func() { msgs <- c() }()
		}
	}
	for {
		select {
		case msg := <-msgs:
			m.Update(msg) // the tick it returns is not run
		case <-time.After(time.Second):
			return
		}
	}
}

// The overview shows each context as it answers: the reachable ones'
// figures, an unreachable one's reason, a connection that failed, one
// still reading (its credential plugin hangs) without holding the others;
// the details line is the selected cluster's.
func TestOverviewView(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	conn := fleet()
	defer close(conn.hang)
	m := New(viewtest.Context(client, 180, 14), conn, []string{"prod-eu", "prod-us", "staging", "bad", "hang"}, "prod-eu",
		WithClock(func() time.Time { return now }))
	_ = m.Init() // the root's -c start runs Init twice and drops the first's command
	run(t, m, m.Init())
	v := m.View()
	viewtest.Size(t, v, 180, 14)
	viewtest.Golden(t, "clusters-180x14", v)
	for _, want := range []string{">*prod-eu", "3/4", "120/2/1", "1500m/8000m", "list watch write", "unavailable", "partial", "list read-only (demo)", "cannot connect", "reading… "} {
		if !strings.Contains(v, want) {
			t.Errorf("view lacks %q:\n%s", want, v)
		}
	}
	m.Update(viewtest.Key("down"))
	if v := m.View(); !strings.Contains(v, "prod-us: unavailable: ") || !strings.Contains(v, "connection refused") {
		t.Fatalf("details of prod-us:\n%s", v)
	}
	m.Update(viewtest.Key("down"))
	if v := m.View(); !strings.Contains(v, "staging: Pods and events of namespace demo only") || !strings.Contains(v, "could not read nodes: forbidden") {
		t.Fatalf("details of staging:\n%s", v)
	}
	m.Update(viewtest.Key("down"))
	if v := m.View(); !strings.Contains(v, "bad: cannot connect: ") || !strings.Contains(v, "executable aws not found") {
		t.Fatalf("details of bad:\n%s", v)
	}
	viewtest.Golden(t, "clusters-80x24", func() string { m.vc.Width, m.vc.Height = 80, 24; return m.View() }())
	// At 80 columns MAY and ANSWERED are off the right edge: → brings
	// them in, CONTEXT staying.
	if v := m.View(); strings.Contains(v, "ANSWERED") || !strings.Contains(v, "←/→ more columns") {
		t.Fatalf("80 columns:\n%s", v)
	}
	for range len(columns) {
		m.Update(viewtest.Key("right"))
	}
	if v := m.View(); !strings.Contains(v, "ANSWERED") || !strings.Contains(v, "CONTEXT") || strings.Contains(v, "LATENCY") {
		t.Fatalf("→ did not scroll the columns:\n%s", v)
	}
	m.Update(viewtest.Key("left"))
	if v := m.View(); strings.Contains(v, "ANSWERED") && m.hscroll == m.maxScroll(80) {
		t.Fatalf("← did not scroll back")
	}
}

// enter on another context asks the root to switch to it; on the current
// one it opens its pods; Close closes every connection the screen made.
func TestOverviewKeysAndClose(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	conn := fleet()
	defer close(conn.hang)
	m := New(viewtest.Context(client, 120, 12), conn, []string{"prod-eu", "staging"}, "prod-eu")
	run(t, m, m.Init())
	_, cmd := m.Update(viewtest.Key("enter"))
	if msg, ok := cmd().(views.OpenKindMsg); !ok || msg.Kind != kube.KindPods {
		t.Fatalf("enter on the current context: %#v", msg)
	}
	m.Update(viewtest.Key("down"))
	_, cmd = m.Update(viewtest.Key("enter"))
	if msg, ok := cmd().(views.SwitchContextMsg); !ok || msg.Context != "staging" {
		t.Fatalf("enter on staging: %#v", msg)
	}
	m.Close()
	if !conn.clusters["prod-eu"].closed || !conn.clusters["staging"].closed {
		t.Fatal("Close left a connection open")
	}
	if cmd := m.read(m.rows[0]); cmd != nil {
		t.Fatal("a closed screen reads again")
	}
}

// A cluster whose last answer is older than three intervals is stale, and
// says since when; a tick of an earlier chain is dropped.
func TestOverviewStale(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	conn := fleet()
	defer close(conn.hang)
	clock := now
	m := New(viewtest.Context(client, 120, 12), conn, []string{"prod-eu"}, "", WithClock(func() time.Time { return clock }))
	m.interval = minInterval // five refreshes of 2s: at least 10s
	run(t, m, m.Init())
	clock = now.Add(5 * time.Minute)
	if s, h := m.state(m.rows[0]); !strings.HasPrefix(s, "stale since ") || h != kube.HealthWarning {
		t.Fatalf("state %q %v", s, h)
	}
	m.Init() // a new chain
	if _, cmd := m.Update(tickMsg{owner: m, context: "prod-eu", epoch: 1}); cmd != nil {
		t.Fatal("an old chain's tick read again")
	}
}

// A long list scrolls with the cursor (g, G, pgdn), whose row shows ">";
// a cluster whose lists are still arriving says so rather than ok.
func TestOverviewScrollsAndSaysReading(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	var names []string
	for i := range 12 {
		names = append(names, fmt.Sprintf("ctx-%02d", i))
	}
	conn := &fakeConn{hang: make(chan struct{}), clusters: map[string]*fakeCluster{}}
	for _, n := range names {
		conn.clusters[n] = &fakeCluster{ov: kube.ClusterOverview{Version: "v1.37.2", Answered: time.Now(), NodesTotal: 11, Reading: n == "ctx-11"}}
	}
	m := New(viewtest.Context(client, 80, 8), conn, names, "ctx-00")
	run(t, m, m.Init())
	m.Update(viewtest.Key("G"))
	v := m.View()
	viewtest.Size(t, v, 80, 8)
	if !strings.Contains(v, "> ctx-11") || !strings.Contains(v, "reading… so far") {
		t.Fatalf("G: the last row is not in sight, or not reading:\n%s", v)
	}
	m.Update(viewtest.Key("g"))
	if v := m.View(); !strings.Contains(v, ">*ctx-00") || !strings.Contains(v, "CONTEXT") {
		t.Fatalf("g: the first row is not in sight:\n%s", v)
	}
	m.Update(viewtest.Key("pgdown"))
	if v := m.View(); strings.Contains(v, ">*ctx-00") || !strings.Contains(v, "> ctx-0") {
		t.Fatalf("pgdn did not move the cursor in sight:\n%s", v)
	}
}

// TestClustersKeysRebound: with `clusters: {open: o, down: J}`, enter
// and j do nothing; J moves down, o switches to the cursor's context.
func TestClustersKeysRebound(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	vc := viewtest.Context(client, 120, 12)
	vc.KeyMap = views.KeyMap{"clusters": {"open": {"o"}, "down": {"J"}}}
	m := New(vc, fleet(), []string{"prod-eu", "staging"}, "prod-eu")
	for _, k := range []string{"enter", "j"} {
		if _, cmd := m.Update(viewtest.Key(k)); cmd != nil || m.cursor != 0 {
			t.Fatalf("%s (an old key) acted: cursor %d", k, m.cursor)
		}
	}
	m.Update(viewtest.Key("J"))
	_, cmd := m.Update(viewtest.Key("o"))
	if cmd == nil {
		t.Fatal("o (open's new key) did nothing")
	}
	if msg, ok := cmd().(views.SwitchContextMsg); !ok || msg.Context != "staging" {
		t.Fatalf("o on staging: %#v", msg)
	}
	if v := m.View(); !strings.Contains(v, "o that cluster's pods") {
		t.Errorf("the help line does not name o:\n%s", v)
	}
}
