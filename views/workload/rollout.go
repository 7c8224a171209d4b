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
	"github.com/kyyard/kyyard/views/rollout"
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

	// f follows the rollout (views/rollout, shared with the rollout screen).
	f       *rollout.Follow
	undoing bool
	undoErr error
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
	if m.ro != nil {
		m.ro.f.Stop()
	}
	m.ro = &rolloutState{started: m.now(), before: msg.before, after: msg.after, current: res,
		confirmed: msg.confirmed, warnings: msg.result.Warnings, undo: msg.undo,
		f: rollout.NewFollow(m.ref, m.now(), m.deadline, m.poll)}
	// The workload written is the one followed: a reading of another UID
	// is a workload deleted and created again.
	m.ro.f.UID = res.UID
	m.form = newForm(res, res)
	m.focus, m.offset, m.pv = 0, 0, nil
	m.rebuild()
	m.mode, m.page = modeRollout, 0
	return m.statusCmd()
}

// takeStatus shows a reading of the rollout and asks for the next one
// until the rollout ends or the deadline passes.
func (m *Model) takeStatus(msg rollout.StatusMsg) tea.Cmd {
	r := m.ro
	if r == nil || r.f.Done {
		return nil
	}
	cmd := r.f.Take(msg, m.now())
	if r.f.Done && !r.f.TimedOut {
		m.note = ""
	}
	return cmd
}

// failed reports whether the rollout failed or did not finish in time.
func (r *rolloutState) failed() bool { return r.f.Failed() }

// canUndo reports whether u undoes: the rollout failed and the workload
// is neither deleted nor created again, and no undo was sent.
func (r *rolloutState) canUndo() bool {
	return r.failed() && !r.f.Gone() && !r.undo && !r.undoing
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
		if !r.canUndo() {
			m.setNote("u undoes the change after a failed rollout", false)
			return nil
		}
		if r.undoConflict() {
			// Someone wrote since: read it again, and lay the undo onto it
			// (takeUndoRead) rather than send the refused write again.
			r.undoing, r.undoErr = true, nil
			m.setNote("reading "+m.name()+" again…", false)
			return m.readCmd(readUndo)
		}
		target, _ := lay(r.current, r.after, r.before)
		r.undoing, r.undoErr = true, nil
		return m.applyCmd(r.current, target, r.confirmed, true)
	}
	return nil
}

// undoConflict reports whether the last undo was refused because the
// object changed since it was read (kube.ReasonConflict).
func (r *rolloutState) undoConflict() bool {
	ref, ok := asRefusal(r.undoErr)
	return ok && ref.Reason == kube.ReasonConflict
}

// takeUndoRead lays the undo onto w, the workload read again after the
// undo was refused as a conflict: the fields the undo writes back are
// rebased onto w as the form's edits are (kube.Rebase), so another
// writer's changes to other fields are kept. When one of those fields
// changed on the server too, nothing is sent and the page names them: e
// opens the form on the object as it is now.
func (m *Model) takeUndoRead(w kube.Workload) tea.Cmd {
	r := m.ro
	if r == nil || !r.undoing {
		return nil
	}
	m.note = ""
	target, _ := lay(r.current, r.after, r.before)
	merged, clashes := rebase(r.current, target, w)
	if len(clashes) > 0 {
		var names []string
		for _, c := range clashes {
			names = append(names, strings.TrimSpace(c.Container+" "+c.Field))
		}
		r.undoing = false
		detail := fmt.Sprintf("%s changed on the server too since the apply (now at resourceVersion %s), so the undo would overwrite it",
			strings.Join(names, ", "), w.ResourceVersion)
		r.undoErr = errors.New(detail + ": e edits the workload as it is now")
		return views.Report(views.StatusMsg{}, views.RefusedOutcome(ObjectRef(w), kube.ActionUndo,
			&kube.Refusal{Reason: kube.ReasonConflict, Detail: detail}, "not sent"))
	}
	r.current = w
	return m.applyCmd(w, merged, r.confirmed, true)
}

// rolloutSummary is the status line left when the screen closes.
func (m *Model) rolloutSummary() string { return m.ro.f.Summary(m.name()) }

// rolloutLines draws the rollout page's body.
func (m *Model) rolloutLines(w int) []string {
	st, r := m.vc.Styles, m.ro
	var out []string
	add := func(t string) { out = append(out, " "+t) }
	elapsed := m.now().Sub(r.started).Round(time.Second)
	what := "apply"
	if r.undo {
		what = "undo"
	}
	add(fmt.Sprintf("%s written at resourceVersion %s · %s · %s", what, r.current.ResourceVersion, r.f.State(st), elapsed))
	for _, wn := range r.warnings {
		add("! server warning: " + views.Sanitize(wn))
	}
	for _, l := range r.f.Lines(st) {
		add(l)
	}
	if r.canUndo() && r.undoErr == nil {
		add(st.Muted.Render(undoText))
	}
	if r.undoing {
		add(st.Muted.Render("undoing…"))
	}
	if r.undoErr != nil {
		add(st.Error.Render("✗ undo refused: " + errText(r.undoErr)))
		if r.undoConflict() {
			add(st.Muted.Render("u reads it again and lays the undo onto it, keeping the other changes; e edits it as it is now"))
		}
	}
	return out
}

// undoText says what u writes back (see lay).
const undoText = "u writes back the images, command and args, env, resources and replicas as they were before the apply; " +
	"paused is left as it is (a paused Deployment would not roll the undo out)"

// rolloutHelp is the rollout page's last line.
func (m *Model) rolloutHelp() string {
	r, k := m.ro, m.keys
	undo, back := "", views.Hint("back", k.Back)
	if r.canUndo() {
		undo = views.Hint("undo", k.Undo)
	}
	if !r.f.Done {
		back = views.Hint("back (the rollout goes on)", k.Back)
	}
	return views.Hints(undo, views.Hint("edit again", k.Edit), back)
}
