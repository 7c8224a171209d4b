package deploy

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/spinner"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// progressBuffer is how many step changes wait for the screen; a change
// that finds it full is dropped (the result's steps replace them all).
const progressBuffer = 1024

// run is a live deploy or remove: its steps as they change. The work runs
// in one tea.Cmd; its Progress callback feeds ch, which a re-arming
// command (wait) reads, one message per change, until the work ends and
// closes it. Nothing blocks Update.
type run struct {
	owner  any
	token  int
	steps  []kube.DeployStep
	ch     chan kube.DeployStep
	cancel context.CancelFunc
	spin   spinner.Model
	done   bool
	result kube.DeployResult
	err    error
	// now is the clock; started when each step (by stepKey) was first
	// seen running; deadline is a rollout step's (0: none shown).
	now      func() time.Time
	started  map[string]time.Time
	deadline time.Duration
}

// stepKey names a step: its service, kind, name and action.
func stepKey(s kube.DeployStep) string {
	return s.Service + "\x00" + s.Kind + "\x00" + s.Name + "\x00" + string(s.Action)
}

// runningText is a running step's state: "running 0:42", and for a
// rollout with a deadline "running 0:42 of 3:00".
func (r *run) runningText(s kube.DeployStep) string {
	t := "running"
	at, ok := r.started[stepKey(s)]
	if !ok || r.now == nil {
		return t
	}
	t += " " + clock(r.now().Sub(at))
	if s.Action == kube.StepRollout && r.deadline > 0 {
		t += " of " + clock(r.deadline)
	}
	return t
}

// clock is a duration as m:ss ("0:42", "3:00", "75:10"), cut to whole
// seconds; a negative one is 0:00.
func clock(d time.Duration) string {
	sec := max(int(d/time.Second), 0)
	return fmt.Sprintf("%d:%02d", sec/60, sec%60)
}

// stepMsg is one step change read from the channel; closed says the
// channel closed (no re-arm).
type stepMsg struct {
	owner  any
	token  int
	step   kube.DeployStep
	closed bool
}

// runDoneMsg carries the work's result.
type runDoneMsg struct {
	owner any
	token int
	res   kube.DeployResult
	err   error
}

// startRun starts work with the steps planned (all pending) and returns
// the run and the commands: the work, the channel's reader and the
// spinner's ticks.
//
// The work's end is an answer (views.AnswerMsg): when the person left the
// screen before it (a `:` command, a context switch, which stop it), the
// root records left's outcome of the run as it ended (the steps done are
// written), so no deploy or remove that wrote goes unrecorded.
func startRun(owner views.Screen, token int, planned []kube.DeployStep, left func(*run) kube.OperateOutcome,
	work func(ctx context.Context, progress func(kube.DeployStep)) (kube.DeployResult, error)) (*run, tea.Cmd) {
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	r := &run{owner: owner, token: token, steps: append([]kube.DeployStep(nil), planned...),
		ch: make(chan kube.DeployStep, progressBuffer), cancel: cancel, spin: spinner.New(spinner.WithSpinner(spinner.MiniDot)),
		now: time.Now, started: map[string]time.Time{}}
	ch := r.ch
	progress := func(s kube.DeployStep) {
		select {
		case ch <- s:
		default:
		}
	}
	do := func() tea.Msg {
		defer cancel()
		res, err := work(ctx, progress)
		close(ch)
		ended := &run{steps: planned, done: true, result: res, err: err}
		if len(res.Steps) > 0 {
			ended.steps = res.Steps
		}
		a := views.Answer(owner, runDoneMsg{owner: owner, token: token, res: res, err: err}, views.StatusMsg{})
		a.Left = []kube.OperateOutcome{left(ended)}
		return a
	}
	return r, tea.Batch(do, r.wait(), r.spin.Tick)
}

// wait reads the next step change.
func (r *run) wait() tea.Cmd {
	ch, owner, token := r.ch, r.owner, r.token
	return func() tea.Msg {
		s, ok := <-ch
		return stepMsg{owner: owner, token: token, step: s, closed: !ok}
	}
}

// update takes a step change, the result or a spinner tick; it reports
// whether msg was the run's.
func (r *run) update(msg tea.Msg) (bool, tea.Cmd) {
	switch msg := msg.(type) {
	case stepMsg:
		if msg.owner != r.owner || msg.token != r.token {
			return false, nil
		}
		if msg.closed {
			return true, nil
		}
		if !r.done {
			r.steps = mergeStep(r.steps, msg.step)
			if k := stepKey(msg.step); msg.step.Outcome == kube.StepRunning && r.started[k].IsZero() {
				r.started[k] = r.now()
			}
		}
		return true, r.wait()
	case runDoneMsg:
		if msg.owner != r.owner || msg.token != r.token {
			return false, nil
		}
		r.done, r.result, r.err = true, msg.res, msg.err
		if len(msg.res.Steps) > 0 {
			r.steps = msg.res.Steps
		}
		return true, nil
	case spinner.TickMsg:
		if r.done || msg.ID != r.spin.ID() {
			return false, nil
		}
		var cmd tea.Cmd
		r.spin, cmd = r.spin.Update(msg)
		return true, cmd
	}
	return false, nil
}

// stop cancels the work (the screen leaves the stack).
func (r *run) stop() {
	if r != nil && r.cancel != nil {
		r.cancel()
	}
}

// failed reports whether the run ended with a failure: an error, or a
// result with a reason.
func (r *run) failed() bool { return r.done && (r.err != nil || r.result.Reason != "") }

// mergeStep puts s in place of the step with its service, kind, name and
// action, or adds it at the end.
func mergeStep(steps []kube.DeployStep, s kube.DeployStep) []kube.DeployStep {
	for i, o := range steps {
		if o.Service == s.Service && o.Kind == s.Kind && o.Name == s.Name && o.Action == s.Action {
			steps[i] = s
			return steps
		}
	}
	return append(steps, s)
}

// stepLines draws the steps, one line each: a marker (· pending, the
// spinner running, ✓ done, ✗ failed, – skipped), the service, the action,
// the object, and the reason and detail; a running step's state is
// running(s) ("running 0:42 of 3:00"; "running" when running is nil).
func stepLines(st views.Styles, steps []kube.DeployStep, spin string, running func(kube.DeployStep) string) []string {
	ws, wk, wn := 7, 10, 10
	for _, s := range steps {
		ws, wk, wn = max(ws, len(s.Service)), max(wk, len(s.Kind)), max(wn, len(s.Name))
	}
	out := make([]string, 0, len(steps))
	for _, s := range steps {
		svc := s.Service
		if svc == "" {
			svc = "-"
		}
		line := fmt.Sprintf("%-*s  %-8s %-*s %-*s", ws, views.Sanitize(svc), s.Action, wk, s.Kind, wn, views.Sanitize(s.Name))
		tail := string(s.Reason)
		if s.Detail != "" {
			if tail != "" {
				tail += ": "
			}
			tail += views.Sanitize(s.Detail)
		}
		switch s.Outcome {
		case kube.StepRunning:
			state := "running"
			if running != nil {
				state = running(s)
			}
			out = append(out, spin+" "+line+" "+st.Muted.Render(state+suffix(tail)))
		case kube.StepDone:
			out = append(out, "✓ "+line+" done"+suffix(tail))
		case kube.StepFailed:
			out = append(out, st.Error.Render("✗ "+line+" failed"+suffix(tail)))
		case kube.StepSkipped:
			if tail == "" {
				tail = "not run"
			}
			out = append(out, st.Muted.Render("– "+line+" skipped: "+tail))
		default:
			out = append(out, st.Muted.Render("· "+line+" pending"))
		}
	}
	return out
}

func suffix(s string) string {
	if s == "" {
		return ""
	}
	return ": " + s
}

// stepCounts counts done, failed and skipped steps.
func stepCounts(steps []kube.DeployStep) (done, failed, skipped int) {
	for _, s := range steps {
		switch s.Outcome {
		case kube.StepDone:
			done++
		case kube.StepFailed:
			failed++
		case kube.StepSkipped:
			skipped++
		}
	}
	return done, failed, skipped
}
