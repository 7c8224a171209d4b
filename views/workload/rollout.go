package workload

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// rolloutState is the rollout page: the apply that started it and the
// last reading of the rollout.
type rolloutState struct {
	started time.Time
	// before and after are the apply's workloads (the values before it and
	// as sent); current is the object the API server returned: undo lays
	// before's values of the changed fields onto current.
	before, after, current kube.Workload
	confirmed              []kube.Reason
	warnings               []string
	undo                   bool // this rollout is an undo's

	status   kube.RolloutStatus
	have     bool
	err      error // the last reading failed
	done     bool
	timedOut bool
	undoing  bool
	undoErr  error
}

// asRefusal returns err's *kube.Refusal, if it is one.
func asRefusal(err error) (*kube.Refusal, bool) {
	var r *kube.Refusal
	if errors.As(err, &r) {
		return r, true
	}
	return nil, false
}

// takeApply follows a successful apply: its result becomes the form's
// base (the next apply carries its resourceVersion, casebook C33) and the
// rollout is followed. A failed one keeps the form and says why.
func (m *Model) takeApply(msg applyMsg) tea.Cmd {
	if msg.err != nil {
		if msg.undo && m.ro != nil {
			m.ro.undoing, m.ro.undoErr = false, msg.err
			return nil
		}
		if m.pv != nil {
			m.pv.applying, m.pv.applyErr = false, msg.err
		}
		return nil
	}
	res := msg.result.Workload
	m.ro = &rolloutState{started: m.now(), before: msg.before, after: msg.after, current: res,
		confirmed: msg.confirmed, warnings: msg.result.Warnings, undo: msg.undo}
	m.form = newForm(res, res)
	m.focus, m.offset, m.pv = 0, 0, nil
	m.rebuild()
	m.mode, m.page = modeRollout, 0
	return m.statusCmd()
}

// takeStatus shows a reading of the rollout and asks for the next one
// until the rollout ends or the deadline passes.
func (m *Model) takeStatus(msg statusMsg) tea.Cmd {
	r := m.ro
	if r == nil || r.done {
		return nil
	}
	r.err = msg.err
	if msg.err == nil {
		r.status, r.have = msg.status, true
		switch msg.status.Phase {
		case kube.RolloutComplete, kube.RolloutFailed, kube.RolloutPaused, kube.RolloutUnfollowed:
			r.done, m.note = true, ""
			return nil
		}
	}
	if m.now().Sub(r.started) >= m.deadline {
		r.done, r.timedOut = true, true
		return nil
	}
	return m.pollCmd()
}

// failed reports whether the rollout failed or did not finish in time.
func (r *rolloutState) failed() bool {
	return r.done && (r.timedOut || r.status.Phase == kube.RolloutFailed)
}

// rolloutKey handles a key on the rollout page.
func (m *Model) rolloutKey(msg tea.KeyMsg) tea.Cmd {
	r, k := m.ro, m.keys
	m.note = ""
	switch {
	case key.Matches(msg, k.Down, k.PageDown):
		m.page += m.step(msg)
	case key.Matches(msg, k.Up, k.PageUp):
		m.page = max(m.page-m.step(msg), 0)
	case key.Matches(msg, k.Back):
		return tea.Batch(back, views.Status(m.rolloutSummary(), r.failed()))
	case key.Matches(msg, k.Edit):
		// Read afresh: the autoscaler or the object may have changed since
		// the apply.
		m.setNote("reading "+m.name()+"…", false)
		return m.readCmd(readEdit)
	case key.Matches(msg, k.Undo):
		if !r.failed() || r.undo || r.undoing {
			m.setNote("u undoes the change after a failed rollout", false)
			return nil
		}
		target, _ := lay(r.current, r.after, r.before)
		r.undoing, r.undoErr = true, nil
		return m.applyCmd(r.current, target, r.confirmed, true)
	}
	return nil
}

// rolloutSummary is the status line left when the screen closes.
func (m *Model) rolloutSummary() string {
	r := m.ro
	s := r.status
	switch {
	case r.timedOut:
		return fmt.Sprintf("%s: %s: %s", m.name(), kube.ReasonRolloutTimeout, kube.ReasonRolloutTimeout.Sentence())
	case s.Phase == kube.RolloutComplete:
		return fmt.Sprintf("%s: rollout complete (%d/%d updated)", m.name(), s.Updated, s.Desired)
	case s.Phase == kube.RolloutFailed:
		return fmt.Sprintf("%s: rollout failed: %s", m.name(), views.Sanitize(s.Message))
	case s.Phase == kube.RolloutPaused:
		return fmt.Sprintf("%s is paused: its rollout waits until it is resumed", m.name())
	case s.Phase == kube.RolloutUnfollowed:
		return fmt.Sprintf("%s uses updateStrategy OnDelete: a pod takes the change only when it is deleted; nothing to follow", m.name())
	}
	return fmt.Sprintf("%s: the rollout goes on (%d/%d updated); no longer followed here", m.name(), s.Updated, s.Desired)
}

// rolloutLines draws the rollout page's body.
func (m *Model) rolloutLines(w int) []string {
	st, r := m.vc.Styles, m.ro
	s := r.status
	var out []string
	add := func(t string) { out = append(out, " "+t) }
	elapsed := m.now().Sub(r.started).Round(time.Second)
	what := "apply"
	if r.undo {
		what = "undo"
	}
	state := "waiting for the first reading"
	if r.have {
		state = string(s.Phase)
	}
	switch {
	case r.timedOut:
		state = st.Error.Render(fmt.Sprintf("%s: %s", kube.ReasonRolloutTimeout, kube.ReasonRolloutTimeout.Sentence()))
	case s.Phase == kube.RolloutFailed:
		state = st.Error.Render("failed")
	}
	add(fmt.Sprintf("%s written at resourceVersion %s · %s · %s", what, r.current.ResourceVersion, state, elapsed))
	for _, wn := range r.warnings {
		add("! server warning: " + views.Sanitize(wn))
	}
	if r.have {
		add(fmt.Sprintf("desired %d   updated %d   ready %d   available %d    %s %d/%d",
			s.Desired, s.Updated, s.Ready, s.Available, bar(int(s.Updated), int(s.Desired), 12), s.Updated, s.Desired))
		if s.NewRevision != "" {
			rev := ""
			if s.Revision != "" {
				rev = " (rev " + s.Revision + ")"
			}
			add("new  " + views.Sanitize(s.NewRevision) + rev)
		}
		for _, p := range s.Pods {
			if p.New {
				add(fmt.Sprintf("       %s  %s  %s", views.Sanitize(p.Name), p.Ready, views.Sanitize(p.Status)))
			}
		}
		if len(s.OldRevisions) > 0 {
			old := 0
			for _, p := range s.Pods {
				if !p.New {
					old++
				}
			}
			add(fmt.Sprintf("old  %s  (%s draining)", views.Sanitize(strings.Join(s.OldRevisions, ", ")), plural(old, "pod")))
			for _, p := range s.Pods {
				if !p.New {
					add(fmt.Sprintf("       %s  %s  %s", views.Sanitize(p.Name), p.Ready, views.Sanitize(p.Status)))
				}
			}
		}
		switch {
		case s.Message == "":
		case s.Phase == kube.RolloutFailed:
			add(st.Error.Render("! " + views.Sanitize(s.Message)))
		default:
			add(views.Sanitize(s.Message))
		}
	}
	if r.err != nil {
		add(st.Error.Render("! reading the rollout: " + errText(r.err)))
	}
	if r.failed() && !r.undo && !r.undoing && r.undoErr == nil {
		add(st.Muted.Render(undoText))
	}
	if r.undoing {
		add(st.Muted.Render("undoing…"))
	}
	if r.undoErr != nil {
		add(st.Error.Render("✗ undo refused: " + errText(r.undoErr)))
	}
	return out
}

// undoText says what u writes back (see lay).
const undoText = "u writes back the images, command and args, env, resources and replicas as they were before the apply; " +
	"paused is left as it is (a paused Deployment would not roll the undo out)"

// rolloutHelp is the rollout page's last line.
func (m *Model) rolloutHelp() string {
	r := m.ro
	parts := []string{}
	if r.failed() && !r.undo && !r.undoing {
		parts = append(parts, "u undo")
	}
	parts = append(parts, "e edit again")
	if r.done {
		parts = append(parts, "esc back")
	} else {
		parts = append(parts, "esc back (the rollout goes on)")
	}
	return strings.Join(parts, " · ")
}

// bar draws n of total as a bar of w cells.
func bar(n, total, w int) string {
	full := 0
	if total > 0 {
		full = min(max(n*w/total, 0), w)
	}
	return strings.Repeat("█", full) + strings.Repeat("░", w-full)
}
