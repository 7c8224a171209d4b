// Package rollout follows a workload's rollout: one reading of
// kube.RolloutStatus a second until it completes, fails (with the
// cluster's own reason), is paused, cannot be followed (updateStrategy
// OnDelete), the workload is deleted (or deleted and created again under
// the same name) or a deadline passes. Follow is the shared part, used by the
// workload form's rollout page and by this package's own screen (Model),
// which the inventory's `R` and the actions of views/operate open.
package rollout

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Reader reads where a workload's rollout stands; *kube.Client is one.
// Errors carry a kube.ReasonOf reason.
type Reader interface {
	// RolloutStatus reads one rollout status (see kube.Client.RolloutStatus).
	RolloutStatus(ctx context.Context, ref kube.WorkloadRef) (kube.RolloutStatus, error)
}

// Budgets of following a rollout.
const (
	// PollEvery is how often the rollout is read while it goes on.
	PollEvery = time.Second
	// DefaultDeadline is how long a rollout is followed before it is
	// reported as rollout_timeout.
	DefaultDeadline = 5 * time.Minute
	// statusTimeout bounds one reading.
	statusTimeout = 10 * time.Second
)

// Follow is the state of one followed rollout: the last reading and how
// the following ended. Use NewFollow; it is not safe for concurrent use
// (it lives in a screen's Update).
type Follow struct {
	// Ref is the workload followed.
	Ref kube.WorkloadRef
	// Started is when the following began; Deadline how long it goes on;
	// Poll the wait between readings.
	Started  time.Time
	Deadline time.Duration
	Poll     time.Duration
	// Status is the last reading, valid when Have is set.
	Status kube.RolloutStatus
	Have   bool
	// Err is set when the last reading failed (the next one is still asked).
	Err error
	// Done is set when the rollout ended (complete, failed, paused,
	// unfollowed), TimedOut, or the workload is Gone.
	Done, TimedOut bool
	// UID is the metadata.uid of the workload followed: the first
	// reading's, unless set before it (the UID the person saw). "" while
	// unknown.
	UID string
	// Deleted is set when a reading found the workload gone (Missing);
	// Recreated when a reading found it under the same name with another
	// UID than UID: deleted and created again, so the rollout followed is
	// gone. Status keeps the last reading of the workload followed.
	Deleted, Recreated bool

	token int
}

// NewFollow starts following ref at started, for deadline, reading every
// poll (0 is at once, for tests).
func NewFollow(ref kube.WorkloadRef, started time.Time, deadline, poll time.Duration) *Follow {
	return &Follow{Ref: ref, Started: started, Deadline: deadline, Poll: poll}
}

// StatusMsg carries one reading to the Follow that asked for it.
type StatusMsg struct {
	f      *Follow
	token  int
	status kube.RolloutStatus
	err    error
}

// PollMsg asks the Follow that sent it for its next reading.
type PollMsg struct {
	f     *Follow
	token int
}

// Owns reports whether msg (a StatusMsg or PollMsg) is f's and current.
func (f *Follow) Owns(msg tea.Msg) bool {
	switch msg := msg.(type) {
	case StatusMsg:
		return msg.f == f && msg.token == f.token
	case PollMsg:
		return msg.f == f && msg.token == f.token
	}
	return false
}

// Stop drops the answers of readings asked before it.
func (f *Follow) Stop() { f.token++ }

// Read returns the command that takes one reading through r.
func (f *Follow) Read(r Reader) tea.Cmd {
	owner, token, ref := f, f.token, f.Ref
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), statusTimeout)
		defer cancel()
		st, err := r.RolloutStatus(ctx, ref)
		return StatusMsg{f: owner, token: token, status: st, err: err}
	}
}

// Take keeps a reading (one f Owns) and returns the poll tick for the next
// one, or nil when the rollout ended or the deadline passed at now.
func (f *Follow) Take(msg StatusMsg, now time.Time) tea.Cmd {
	if f.Done {
		return nil
	}
	f.Err = msg.err
	if msg.err == nil {
		switch {
		case msg.status.Missing:
			f.Done, f.Deleted = true, true
			return nil
		case f.UID == "":
			f.UID = msg.status.UID
		case msg.status.UID != "" && msg.status.UID != f.UID:
			f.Done, f.Recreated = true, true
			return nil
		}
		f.Status, f.Have = msg.status, true
		switch msg.status.Phase {
		case kube.RolloutComplete, kube.RolloutFailed, kube.RolloutPaused, kube.RolloutUnfollowed:
			f.Done = true
			return nil
		}
	}
	if now.Sub(f.Started) >= f.Deadline {
		f.Done, f.TimedOut = true, true
		return nil
	}
	owner, token := f, f.token
	return tea.Tick(f.Poll, func(time.Time) tea.Msg { return PollMsg{f: owner, token: token} })
}

// Failed reports whether the rollout failed, did not finish in time, or
// its workload is Gone.
func (f *Follow) Failed() bool {
	return f.Done && (f.TimedOut || f.Gone() || f.Status.Phase == kube.RolloutFailed)
}

// Gone reports whether the workload followed was deleted, or deleted and
// created again: there is nothing left to undo or follow.
func (f *Follow) Gone() bool { return f.Deleted || f.Recreated }

// object is "<kind>/<name>" of the workload followed.
func (f *Follow) object() string {
	return views.Sanitize(string(f.Ref.Kind) + "/" + f.Ref.Name)
}

// Summary is the status line that says how the rollout of name stands.
func (f *Follow) Summary(name string) string {
	s := f.Status
	switch {
	case f.Recreated:
		return f.object() + " was deleted and created again (new UID); the rollout followed is gone"
	case f.Deleted:
		return f.object() + " was deleted"
	case f.TimedOut:
		return fmt.Sprintf("%s: %s: %s", name, kube.ReasonRolloutTimeout, kube.ReasonRolloutTimeout.Sentence())
	case s.Phase == kube.RolloutComplete:
		return fmt.Sprintf("%s: rollout complete (%d/%d updated)", name, s.Updated, s.Desired)
	case s.Phase == kube.RolloutFailed:
		return fmt.Sprintf("%s: rollout failed: %s", name, views.Sanitize(s.Message))
	case s.Phase == kube.RolloutPaused:
		return fmt.Sprintf("%s is paused: its rollout waits until it is resumed", name)
	case s.Phase == kube.RolloutUnfollowed:
		return fmt.Sprintf("%s uses updateStrategy OnDelete: a pod takes the change only when it is deleted; nothing to follow", name)
	}
	return fmt.Sprintf("%s: the rollout goes on (%d/%d updated); no longer followed here", name, s.Updated, s.Desired)
}

// State names where the rollout stands in a few words: the phase, the
// timeout in the error style, or that no reading came yet.
func (f *Follow) State(st views.Styles) string {
	state := "waiting for the first reading"
	if f.Have {
		state = string(f.Status.Phase)
	}
	switch {
	case f.Recreated:
		state = st.Error.Render("deleted and created again")
	case f.Deleted:
		state = st.Error.Render("deleted")
	case f.TimedOut:
		state = st.Error.Render(fmt.Sprintf("%s: %s", kube.ReasonRolloutTimeout, kube.ReasonRolloutTimeout.Sentence()))
	case f.Status.Phase == kube.RolloutFailed:
		state = st.Error.Render("failed")
	}
	return state
}

// Lines draws the last reading, one line each, without indentation: the
// counts with a bar of the new pods (ready, updated but not ready, not yet
// updated: Bar) and how many new pods are ready of those desired, the new
// revision and its pods, the old ones and their pods with how many of
// them are terminating (left while paused or under OnDelete), the
// rollout's message (a failure in the error style) and a failed reading.
// A rollout whose new pods all exist but none is ready shows an empty bar
// of updated cells, "0/2 new ready", never a full one.
func (f *Follow) Lines(st views.Styles) []string {
	s := f.Status
	var out []string
	add := func(t string) { out = append(out, t) }
	if f.Have {
		newReady, old, terminating := 0, 0, 0
		for _, p := range s.Pods {
			switch {
			case p.New && p.PodReady:
				newReady++
			case !p.New:
				old++
				if p.Terminating {
					terminating++
				}
			}
		}
		add(fmt.Sprintf("desired %d   updated %d   ready %d   available %d    %s %d/%d new ready",
			s.Desired, s.Updated, s.Ready, s.Available, Bar(newReady, int(s.Updated), int(s.Desired), 12), newReady, s.Desired))
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
		if len(s.OldRevisions) > 0 || old > 0 {
			// A paused rollout, or OnDelete, leaves the old pods until they
			// are deleted.
			left := s.Phase == kube.RolloutPaused || s.Phase == kube.RolloutUnfollowed
			line := "old  "
			if len(s.OldRevisions) > 0 {
				line += views.Sanitize(strings.Join(s.OldRevisions, ", ")) + "  "
			}
			add(line + "(" + oldPods(old, terminating, left) + ")")
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
	if f.Err != nil {
		add(st.Error.Render("! reading the rollout: " + views.ErrText(f.Err)))
	}
	return out
}

// Bar draws a rollout of total pods as a bar of w cells: ready of them
// updated and ready "█", the rest of the updated ones "▒", those not yet
// updated "░" (ready is at most updated, updated at most total).
func Bar(ready, updated, total, w int) string {
	cells := func(n int) int {
		if total <= 0 {
			return 0
		}
		return min(max(n*w/total, 0), w)
	}
	full := cells(min(ready, updated))
	half := max(cells(updated)-full, 0)
	return strings.Repeat("█", full) + strings.Repeat("▒", half) + strings.Repeat("░", w-full-half)
}

// oldPods says what the old pods do: "3 pods, none terminating" (a
// rollout with maxUnavailable 0 whose new pods are not ready keeps them
// all), "3 pods, 1 terminating", "1 pod terminating" (all of them), and
// with left (paused, OnDelete) "3 pods left".
func oldPods(n, terminating int, left bool) string {
	switch {
	case left && terminating > 0:
		return fmt.Sprintf("%s left, %d terminating", plural(n, "pod"), terminating)
	case left:
		return plural(n, "pod") + " left"
	case n > 0 && terminating == n:
		return plural(n, "pod") + " terminating"
	case terminating > 0:
		return fmt.Sprintf("%s, %d terminating", plural(n, "pod"), terminating)
	case n == 0:
		return "no pods"
	}
	return plural(n, "pod") + ", none terminating"
}

// plural returns "1 pod", "2 pods".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
