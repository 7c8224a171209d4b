package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestUnreachableServerKeepsFactsMarkedStale: when the server goes away the
// header keeps what it read and says it is stale, instead of turning the
// server's answers into unknowns or kubeconfig guesses.
func TestUnreachableServerKeepsFactsMarkedStale(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	good := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok linux/amd64", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}
	m.takeFacts(good)
	m.takeFacts(kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: "jane-kc (kubeconfig)"})
	header := m.header()
	if !strings.Contains(header, "user: jane") || strings.Contains(header, "kubeconfig") || !strings.Contains(header, "k8s: v1.37.2") {
		t.Fatalf("stale header lost the server's facts:\n%s", header)
	}
	if !strings.Contains(header, "server unreachable") {
		t.Fatalf("stale header does not say so:\n%s", header)
	}
	m.takeFacts(good)
	if strings.Contains(m.header(), "unreachable") {
		t.Fatalf("header still stale after a good read:\n%s", m.header())
	}
}

// TestUnreachableServerBannerBacksOffAndRecovers: unreachable facts raise
// a banner and read again after 1 s, 2 s, 4 s ... up to 30 s; when the
// server answers, the banner goes and the top screen refreshes at once.
func TestUnreachableServerBannerBacksOffAndRecovers(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	good := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}
	down := kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: kube.Unknown}
	if next, cmd := m.trackReachability(good, viewtest.Now); next != factsInterval || cmd != nil {
		t.Fatalf("a reachable server: next read in %s, refresh %v", next, cmd != nil)
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second, 16 * time.Second, 30 * time.Second, 30 * time.Second}
	for i, w := range want {
		m.takeFacts(down)
		if next, _ := m.trackReachability(down, viewtest.Now.Add(time.Duration(i)*time.Second)); next != w {
			t.Fatalf("attempt %d: next read in %s, want %s", i, next, w)
		}
	}
	header := m.header()
	if !strings.Contains(header, "API server unreachable since "+viewtest.Now.Format("15:04:05")) || !strings.Contains(header, "keeps retrying") {
		t.Fatalf("no banner in the header:\n%s", header)
	}
	viewtest.Size(t, header, 120, 2)
	m.takeFacts(good)
	next, cmd := m.trackReachability(good, viewtest.Now.Add(time.Minute))
	if next != factsInterval || cmd == nil {
		t.Fatalf("recovery: next read in %s, refresh %v; want %s and a refresh", next, cmd != nil, factsInterval)
	}
	if strings.Contains(m.header(), "unreachable") || !strings.Contains(m.status.Text, "answers again") {
		t.Fatalf("after recovery: header\n%s\nstatus %q", m.header(), m.status.Text)
	}
}

// reachSource is a Source whose Reachability the test sets.
type reachSource struct {
	views.Source
	ok bool
}

func (r *reachSource) Reachable() bool { return r.ok }

// factsReads runs cmd (and the batches it returns) and counts the facts
// reads among the messages.
func factsReads(cmd tea.Cmd) int {
	if cmd == nil {
		return 0
	}
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		n := 0
		for _, c := range msg {
			n += factsReads(c)
		}
		return n
	case factsMsg:
		return 1
	}
	return 0
}

// TestBannerGoesWhenAScreenIsAnswered: while the banner is up, a screen's
// message after the client got an answer again reads the facts at once
// (the tester's banner stayed 35 s after the server was back, waiting for
// the 30 s backoff); once, not again while that read is under way, and the
// backoff tick scheduled before it is dropped rather than starting a
// second chain of reads.
func TestBannerGoesWhenAScreenIsAnswered(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	src := &reachSource{Source: client}
	m, err := New(viewtest.Context(src, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	down := kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: kube.Unknown}
	m.factsReading = true
	m.Update(factsMsg{facts: down})
	stale := factsTickMsg{seq: m.factsSeq}
	if m.unreachableSince.IsZero() {
		t.Fatal("no banner")
	}
	type screenMsg struct{}
	if _, cmd := m.Update(screenMsg{}); factsReads(cmd) != 0 {
		t.Fatal("facts read early while the client still fails")
	}
	src.ok = true
	_, cmd := m.Update(screenMsg{})
	if n := factsReads(cmd); n != 1 {
		t.Fatalf("%d facts reads once the client is answered, want 1", n)
	}
	m.factsReading = true // the read above, under way
	if _, cmd := m.Update(screenMsg{}); factsReads(cmd) != 0 {
		t.Fatal("a second early read while the first is under way")
	}
	if _, cmd := m.Update(stale); cmd != nil {
		t.Fatal("the backoff tick read the facts while the early read is under way")
	}
	m.Update(factsMsg{facts: kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}})
	if !m.unreachableSince.IsZero() || m.factsReading {
		t.Fatalf("banner since %s, reading %v after the answer", m.unreachableSince, m.factsReading)
	}
	if _, cmd := m.Update(stale); cmd != nil {
		t.Fatal("a tick scheduled before the early read started a second chain")
	}
}

// TestOutcomeStatusOutlivesTheReachabilityNotice: an outcome's status line
// (a shell's "exit status unknown") stays until a key is pressed: the API
// server answering again, seconds later, does not replace it (the banner's
// going says so); after a key, the notice shows as before.
func TestOutcomeStatusOutlivesTheReachabilityNotice(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	m, err := New(viewtest.Context(client, 100, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 12})
	good := kube.Facts{ServerVersion: "v1.37.2", Platform: "kwok", Nodes: "1", Context: "c", Cluster: "k", User: "jane"}
	down := kube.Facts{ServerVersion: kube.Unknown, Platform: kube.Unknown, Nodes: kube.Unknown, Context: "c", Cluster: "k", User: kube.Unknown}
	out := kube.OperateOutcome{Op: kube.Operation{Ref: kube.ObjectRef{Kind: kube.KindPods, Namespace: "demo", Name: "web-1"}, Action: kube.ActionShell},
		Reason: kube.ReasonError, Detail: "/bin/sh in container web: the stream closed: connection lost"}
	m.trackReachability(down, viewtest.Now)
	m.Update(views.OutcomesMsg{Outcomes: []kube.OperateOutcome{out}, Status: views.StatusMsg{Text: "exit status unknown: connection lost", Error: true}})
	m.trackReachability(good, viewtest.Now.Add(25*time.Second))
	if m.status.Text != "exit status unknown: connection lost" {
		t.Fatalf("status %q: the outcome was replaced before a key was pressed", m.status.Text)
	}
	m.Update(viewtest.Key("j"))
	m.trackReachability(down, viewtest.Now.Add(time.Minute))
	m.trackReachability(good, viewtest.Now.Add(2*time.Minute))
	if !strings.Contains(m.status.Text, "answers again") {
		t.Fatalf("status %q: want the notice once the outcome was seen", m.status.Text)
	}
}
