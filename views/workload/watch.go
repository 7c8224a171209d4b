package workload

import (
	"context"
	"fmt"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// While the form is open (and its preview), the workload is read again at
// the refresh interval (views.Config.RefreshInterval, --refresh, 2 s by
// default), off the UI goroutine, never blocking a key. When someone wrote
// it since the form read it (kube.Conflict.Written: its generation or a
// field the form shows moved; a moved status is not a write), a line says
// so at once, with the fields the person changed that the server changed
// too (the server's value now and theirs) and whether the server's other
// changes touch theirs (kube.ConflictOf, the words of the conflict refusal
// an apply would meet). The form's base is not changed: ctrl+r (r on the
// preview) reads again and keeps the edits, as after a refusal.

// defaultWatchEvery is the interval when the configuration has none.
const defaultWatchEvery = 2 * time.Second

// watchState is the chain of re-reads of one open form.
type watchState struct {
	// every is the interval between reads; 0 takes the configuration's
	// refresh interval (tests set it negative: each tick is then handed out
	// at once, for the test to deliver).
	every time.Duration
	token int
	// seen is the last read of the object, made against the form's current
	// base; nil before one (or since the base changed).
	seen *kube.Workload
	// gone is the error of the last read when the object is not found.
	gone error
}

// watchTickMsg asks for the next re-read of a form's chain.
type watchTickMsg struct {
	owner *Model
	token int
}

// watchMsg carries one re-read: base is the resourceVersion of the form's
// base when it was asked (a read against an older base is dropped).
type watchMsg struct {
	owner *Model
	token int
	base  string
	w     kube.Workload
	err   error
}

// startWatch starts (or restarts) the chain of re-reads of the form's
// object.
func (m *Model) startWatch() tea.Cmd {
	m.watch.token++
	m.watch.seen, m.watch.gone = nil, nil
	return m.watchTick()
}

// watchArmMsg arms the wait before the next re-read of a form's chain. It
// comes at once, so that the one command that sleeps is the one its
// handling returns (a test's driver that runs commands in line can tell it
// and leave it out, as it leaves out the other refresh ticks).
type watchArmMsg struct {
	owner *Model
	token int
}

// watchTick arms the next re-read of the current chain: at once when the
// interval is negative (tests), else after a watchArmMsg, a tick of the
// interval.
func (m *Model) watchTick() tea.Cmd {
	owner, token := m, m.watch.token
	if m.watch.every < 0 {
		return func() tea.Msg { return watchTickMsg{owner: owner, token: token} }
	}
	return func() tea.Msg { return watchArmMsg{owner: owner, token: token} }
}

// armWatch is the wait of the chain msg names, the refresh interval (the
// configuration's, else defaultWatchEvery); nil for a chain that ended.
func (m *Model) armWatch(msg watchArmMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.watch.token {
		return nil
	}
	every := m.watch.every
	if every == 0 {
		every = m.vc.Config.RefreshInterval
		if every <= 0 {
			every = defaultWatchEvery
		}
	}
	owner, token := msg.owner, msg.token
	return tea.Tick(every, func(time.Time) tea.Msg { return watchTickMsg{owner: owner, token: token} })
}

// takeWatchTick reads the object again while the form or its preview is
// shown; elsewhere (the rollout) the chain ends, and opening the form
// again starts a new one.
func (m *Model) takeWatchTick(msg watchTickMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.watch.token || m.form == nil || (m.mode != modeForm && m.mode != modePreview) {
		return nil
	}
	owner, token, ed, ref, base := m, m.watch.token, m.editor, m.ref, m.form.base.ResourceVersion
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		w, err := ed.ReadWorkload(ctx, ref)
		return watchMsg{owner: owner, token: token, base: base, w: w, err: err}
	}
}

// takeWatch keeps a re-read made against the form's current base and arms
// the next one. A read that fails for another reason than the object
// being gone keeps the last one (it is tried again at the next tick).
func (m *Model) takeWatch(msg watchMsg) tea.Cmd {
	if msg.owner != m || msg.token != m.watch.token {
		return nil
	}
	if m.form != nil && msg.base == m.form.base.ResourceVersion {
		switch {
		case msg.err == nil:
			w := msg.w
			m.watch.seen, m.watch.gone = &w, nil
		case kube.ReasonOf(msg.err) == kube.ReasonNotFound:
			m.watch.gone = msg.err
		}
	}
	return m.watchTick()
}

// forgetWatch drops the last re-read: the form's base changed (read again,
// rebased), so the next re-read is compared with the new one.
func (m *Model) forgetWatch() { m.watch.seen, m.watch.gone = nil, nil }

// watchLine is the form's line saying that the server's object changed
// since the form read it, and how that meets the person's edits; "" while
// it is as read (or only its status moved), and on a preview that says
// the conflict already (its fresh guard or the apply refused it).
func (m *Model) watchLine() string {
	if m.form == nil || (m.mode != modeForm && m.mode != modePreview) {
		return ""
	}
	if p := m.pv; m.mode == modePreview && p != nil {
		if r := p.p.Verdicts.Refusal(); r != nil && r.Reason == kube.ReasonConflict || isConflict(p.err) || isConflict(p.applyErr) {
			return ""
		}
	}
	again := "ctrl+r reads it again keeping your edits"
	if m.mode == modePreview {
		again = "r reads it again keeping your edits"
	}
	if m.watch.gone != nil {
		return fmt.Sprintf("! %s is gone from the server: %s", m.name(), errText(m.watch.gone))
	}
	base := m.form.base
	if m.watch.seen == nil || m.watch.seen.ResourceVersion == base.ResourceVersion {
		return ""
	}
	c := kube.ConflictOf(base, m.form.workload(), *m.watch.seen)
	if !c.Written() {
		return ""
	}
	moved := fmt.Sprintf("resourceVersion %s is now %s", c.ReadVersion, c.NowVersion)
	if c.NowGeneration != c.ReadGeneration {
		moved += fmt.Sprintf(", generation %d is now %d", c.ReadGeneration, c.NowGeneration)
	}
	return views.Sanitize(fmt.Sprintf("! the server's %s changed since you read it (%s): %s · %s", m.name(), moved, c.Text(), again))
}
