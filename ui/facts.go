package ui

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// factsInterval is how often the header's facts are read again.
const factsInterval = 10 * time.Second

// While the API server cannot be reached, the facts are read again after
// retryFirst, doubling up to retryMax: the banner's retries.
const (
	retryFirst = time.Second
	retryMax   = 30 * time.Second
)

// factsMsg carries freshly read facts, read through connection epoch.
type factsMsg struct {
	epoch int
	facts kube.Facts
}

// factsTickMsg asks for the facts of connection epoch to be read again,
// unless a later tick (seq) has been scheduled since.
type factsTickMsg struct{ epoch, seq int }

// Reachability is what a Source may also tell: whether its last request
// that reached the network got an answer (kube.Client.Reachable).
type Reachability interface {
	Reachable() bool
}

// readFacts reads the header's facts through the current connection, off
// the Update loop; tookFacts takes them.
func (m *Model) readFacts() tea.Cmd {
	m.factsReading = true
	client, epoch := m.vc.Client, m.epoch
	return func() tea.Msg { return factsMsg{epoch: epoch, facts: client.Facts(context.Background())} }
}

// tookFacts takes facts read through the current connection and schedules
// the next read (trackReachability says when).
func (m *Model) tookFacts(msg factsMsg) tea.Cmd {
	if msg.epoch != m.epoch {
		return nil
	}
	m.factsReading = false
	m.takeFacts(msg.facts)
	next, cmd := m.trackReachability(msg.facts, time.Now())
	m.factsSeq++
	epoch, seq := m.epoch, m.factsSeq
	return tea.Batch(cmd, tea.Tick(next, func(time.Time) tea.Msg { return factsTickMsg{epoch: epoch, seq: seq} }))
}

// factsTick reads the facts again when the tick is the one scheduled last,
// of the current connection, and no read is under way.
func (m *Model) factsTick(msg factsTickMsg) tea.Cmd {
	if msg.epoch != m.epoch || msg.seq != m.factsSeq || m.factsReading {
		return nil
	}
	return m.readFacts()
}

// factsEarly reads the facts at once when the banner is up and a request
// of a screen has been answered since the last that failed (the client's
// Reachability): the banner then goes with the next screen refresh after
// the API server is back, not at the next backoff retry up to 30 s later.
func (m *Model) factsEarly() tea.Cmd {
	if m.unreachableSince.IsZero() || m.factsReading {
		return nil
	}
	if r, ok := m.vc.Client.(Reachability); !ok || !r.Reachable() {
		return nil
	}
	return m.readFacts()
}

// takeFacts shows newly read facts, unless the server could not be reached
// (no version) after it once was: then the facts read before stay, marked
// stale, rather than turning into "unknown" or kubeconfig guesses.
func (m *Model) takeFacts(f kube.Facts) {
	if f.ServerVersion == kube.Unknown && m.hasFacts && m.facts.ServerVersion != kube.Unknown {
		m.factsStale = true
		return
	}
	m.facts, m.hasFacts, m.factsStale, m.factsAt = f, true, false, time.Now()
}

// trackReachability keeps the banner's state from the facts: a read that
// could not get the server's version means the API server cannot be
// reached. While it cannot, the facts are read again with a doubling
// backoff (1 s to 30 s); when it answers again, the banner goes and the top
// screen refreshes at once, so screens recover without a restart. It
// returns when to read the facts next, and the refresh command if any.
func (m *Model) trackReachability(f kube.Facts, now time.Time) (time.Duration, tea.Cmd) {
	if f.ServerVersion == kube.Unknown {
		if m.unreachableSince.IsZero() {
			m.unreachableSince, m.retry = now, retryFirst
		} else {
			m.retry = min(2*m.retry, retryMax)
		}
		return m.retry, nil
	}
	if m.unreachableSince.IsZero() {
		return factsInterval, nil
	}
	m.unreachableSince, m.retry = time.Time{}, 0
	m.notice("the API server answers again")
	return factsInterval, m.Top().Init()
}

// modeText is what the header says of the write policy: "read-only",
// "strict", both, or "" for the interactive default.
func (m *Model) modeText() string {
	md, ok := m.vc.Client.(views.Modes)
	if !ok {
		return ""
	}
	switch {
	case md.ReadOnly() && md.Policy() == kube.PolicyStrict:
		return "read-only, strict"
	case md.ReadOnly():
		return "read-only"
	case md.Policy() == kube.PolicyStrict:
		return "strict"
	}
	return ""
}
