// Package fleetchange applies one change of a workload to several clusters,
// one cluster at a time: the change the workload form made in one context
// (base → edited) is carried onto the workload read in each context of
// the plan (kube.CarryEdits), dry-run there with every guard (in parallel,
// before anything is written), then, once the person confirms, written to
// the first cluster, its rollout followed to completion, then the next; the
// first failure (a refused step, a refused write, a failed or timed-out
// rollout) stops it, the later clusters untouched, and the clusters
// already changed can be undone. Each cluster's outcome is one line of the
// session's history, in that cluster's context.
//
// The files: plan.go (the steps: plan, apply, follow, undo), model.go (the
// screen: keys and confirmations), view.go (the drawing).
package fleetchange

import (
	"context"
	"fmt"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/workload"
)

// Editor reads, previews and writes one cluster's workload and reads its
// rollout: the workload form's (views/workload.Editor); *kube.Client is
// one.
type Editor = workload.Editor

// Target is one cluster of the plan, in the order the change is applied.
type Target struct {
	// Context names the kubeconfig context.
	Context string
	// Editor reaches it; nil when it cannot be reached (Err says why).
	Editor Editor
	Err    error
}

// Change is what the form made in one context: base is the workload as
// the form read it there, edited the form's values; or, with Restart, a
// restart of the workload's pods in each context (Base and Edited unset).
type Change struct {
	// Source is the context the form read ("" for a restart).
	Source       string
	Base, Edited kube.Workload
	// Restart restarts the pods instead (kube.ActionRestart: the pod
	// template's kubectl.kubernetes.io/restartedAt set to now), through
	// each cluster's Operator; a restart cannot be undone.
	Restart bool
}

// Operator plans and runs an action on one object (*kube.Client is one):
// a restart across clusters goes through it.
type Operator interface {
	// PlanOperation runs the action's guards, writing nothing.
	PlanOperation(ctx context.Context, op kube.Operation) (kube.Verdicts, error)
	// Operate runs the guards and writes; the outcome says what was done.
	Operate(ctx context.Context, op kube.Operation) (kube.OperateOutcome, error)
}

// restartChange is how a restart's step lists what it changes.
var restartChange = kube.Change{Field: "restart", After: "pods replaced (kubectl.kubernetes.io/restartedAt: now)"}

// callTimeout bounds one read, dry run or write.
const callTimeout = 30 * time.Second

// stepState is where one cluster's step stands.
type stepState int

const (
	statePlanning   stepState = iota // read and dry run under way
	statePlanned                     // ready (or blocked: step.blocked)
	stateApplying                    // the write is under way
	stateRolling                     // written; its rollout is followed
	stateDone                        // written and rolled out (or nothing to change)
	stateFailed                      // refused, or its rollout failed: the change stopped here
	stateUntouched                   // after a failure: never written
	stateUndoing                     // the undo is under way
	stateUndone                      // the undo was written
	stateUndoFailed                  // the undo was refused
	stateLeftOut                     // left out of the plan by the person: never written
)

// step is one cluster's part of the plan.
type step struct {
	target Target
	ref    kube.WorkloadRef
	state  stepState
	// out: the person left this cluster out of the plan (its number key).
	out bool
	// The plan: the workload read there, the change carried onto it, the
	// fields it changes there, where it held another value than the
	// source (differed), what cannot be carried (refused), the dry run.
	read              kube.Workload
	merged            kube.Workload
	changes           []kube.Change
	differed, refused []kube.Change
	preview           kube.Preview
	err               error
	// The apply: the warnings' reasons the person confirmed (the undo
	// sends them too, as the workload form's does), its result, the
	// rollout followed, why it failed.
	confirmed []kube.Reason
	applyErr  error // the write's refusal
	result    kube.ApplyResult
	follow    *rollout.Follow
	why       string
}

// blocked says why the step cannot be written ("" when it can): it could
// not be read or dry-run, an edit cannot be carried, a guard refuses, the
// API server refused the dry run.
func (s *step) blocked() string {
	switch {
	case s.err != nil:
		return fmt.Sprintf("%s: %s", kube.ReasonOf(s.err), views.ErrText(s.err))
	case len(s.refused) > 0:
		r := s.refused[0]
		return fmt.Sprintf("cannot carry %s: %s", field(r), r.Before)
	case s.preview.Verdicts.Refusal() != nil:
		return views.ErrText(s.preview.Verdicts.Refusal())
	case s.preview.DryRunError != "":
		return fmt.Sprintf("the API server refused the dry run (%s): %s", orError(s.preview.DryRunReason), s.preview.DryRunError)
	}
	return ""
}

// reason is the reason code of a blocked step.
func (s *step) reason() kube.Reason {
	switch {
	case s.err != nil:
		return kube.ReasonOf(s.err)
	case len(s.refused) > 0:
		return kube.ReasonConfigurationUnreported
	case s.preview.Verdicts.Refusal() != nil:
		return kube.ReasonOf(s.preview.Verdicts.Refusal())
	}
	return orError(s.preview.DryRunReason)
}

func orError(r kube.Reason) kube.Reason {
	if r == "" {
		return kube.ReasonError
	}
	return r
}

// field names a change's field: "web: image".
func field(c kube.Change) string {
	if c.Container == "" {
		return c.Field
	}
	return c.Container + ": " + c.Field
}

// plannedMsg carries one round of planning (seq tells rounds apart).
type plannedMsg struct {
	seq   int
	steps []*step
}

// planCmd reads the workload in every target, carries the change onto
// it and dry-runs it there, all targets in parallel.
func planCmd(seq int, ref kube.WorkloadRef, ch Change, targets []Target) tea.Cmd {
	return func() tea.Msg {
		steps := make([]*step, len(targets))
		var wg sync.WaitGroup
		for i, t := range targets {
			s := &step{target: t, ref: ref, state: statePlanned}
			steps[i] = s
			if t.Editor == nil {
				s.err = t.Err
				if s.err == nil {
					s.err = fmt.Errorf("%w: context %s cannot be reached", kube.ErrInvalid, t.Context)
				}
				continue
			}
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
				defer cancel()
				s.read, s.err = t.Editor.ReadWorkload(ctx, ref)
				if s.err != nil {
					return
				}
				if ch.Restart {
					opr, ok := t.Editor.(Operator)
					if !ok {
						s.err = fmt.Errorf("%w: the client of context %s restarts nothing", kube.ErrInvalid, t.Context)
						return
					}
					s.merged, s.changes = s.read, []kube.Change{restartChange}
					s.preview.Verdicts, s.err = opr.PlanOperation(ctx, kube.Operation{Ref: workload.ObjectRef(s.read), Action: kube.ActionRestart})
					return
				}
				s.merged, s.differed, s.refused = kube.CarryEdits(ch.Base, ch.Edited, s.read)
				s.changes = kube.Changes(s.read, s.merged)
				if len(s.changes) == 0 || len(s.refused) > 0 {
					return // nothing to send there, or it cannot go
				}
				s.preview, s.err = t.Editor.DryRun(ctx, s.read, s.merged)
			})
		}
		wg.Wait()
		return plannedMsg{seq: seq, steps: steps}
	}
}

// appliedMsg carries a finished write (or undo) of step i.
type appliedMsg struct {
	seq    int
	i      int
	undo   bool
	result kube.ApplyResult
	before kube.Workload
	err    error
}

// applyCmd writes step i's change with its confirmed reasons; the answer
// carries the write's outcome to the history in the step's context
// (recorded even when the screen is gone), then its appliedMsg to owner.
func applyCmd(owner views.Screen, seq, i int, s *step, confirmed []kube.Reason, restart bool) tea.Cmd {
	ed, before, after, where := s.target.Editor, s.read, s.merged, s.target.Context
	if restart {
		return restartCmd(owner, seq, i, s, confirmed)
	}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := ed.ApplyWorkload(ctx, before, after, confirmed)
		msg := appliedMsg{seq: seq, i: i, result: res, before: before, err: err}
		return views.ContextMsg{Context: where, Msg: views.Answer(owner, msg, views.StatusMsg{}, writeOutcome(before, msg))}
	}
}

// restartCmd restarts step i's workload (kube.Operate: its guards again,
// then the patch); the outcome Operate gives is the history's line.
func restartCmd(owner views.Screen, seq, i int, s *step, confirmed []kube.Reason) tea.Cmd {
	opr, before, where := s.target.Editor.(Operator), s.read, s.target.Context
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		out, err := opr.Operate(ctx, kube.Operation{Ref: workload.ObjectRef(before), Action: kube.ActionRestart, Confirmed: confirmed})
		msg := appliedMsg{seq: seq, i: i, before: before, err: err}
		if err == nil {
			msg.result.Workload = before
			msg.result.Workload.ResourceVersion = out.ResourceVersion
			msg.result.Changes = []kube.Change{restartChange}
			if msg.result.Workload.ResourceVersion == "" {
				msg.result.Workload.ResourceVersion = "(written)"
			}
		}
		return views.ContextMsg{Context: where, Msg: views.Answer(owner, msg, views.StatusMsg{}, out)}
	}
}

// writeOutcome is the history's line of a write (or undo) of the workload
// read as before: written with its changes at its new resourceVersion,
// or refused.
func writeOutcome(before kube.Workload, msg appliedMsg) kube.OperateOutcome {
	action := kube.ActionApply
	if msg.undo {
		action = kube.ActionUndo
	}
	ref := workload.ObjectRef(before)
	if msg.err != nil {
		return views.RefusedOutcome(ref, action, msg.err, "")
	}
	rv := msg.result.Workload.ResourceVersion
	detail := fmt.Sprintf("%s written at resourceVersion %s, cluster by cluster: %s", action, rv, workload.ChangesText(msg.result.Changes))
	return kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: action}, Detail: views.Sanitize(detail), ResourceVersion: rv, Written: true}
}

// undoCmd reads step i's workload again and writes back what the change
// changed there (the change carried backwards onto the object as it is
// now: its rollout moved its resourceVersion on), with the reasons the
// apply's warnings were confirmed with.
func undoCmd(owner views.Screen, seq, i int, s *step) tea.Cmd {
	ed, ref, changed, was, confirmed, where := s.target.Editor, s.read.Ref, s.merged, s.read, s.confirmed, s.target.Context
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		msg := appliedMsg{seq: seq, i: i, undo: true, before: was}
		now, err := ed.ReadWorkload(ctx, ref)
		if err == nil {
			back, _, refused := kube.CarryEdits(changed, was, now)
			msg.before = now
			if len(refused) > 0 {
				err = fmt.Errorf("%w: cannot carry %s back: %s", kube.ErrInvalid, field(refused[0]), refused[0].Before)
			} else {
				msg.result, err = ed.ApplyWorkload(ctx, now, back, confirmed)
			}
		}
		msg.err = err
		return views.ContextMsg{Context: where, Msg: views.Answer(owner, msg, views.StatusMsg{}, writeOutcome(msg.before, msg))}
	}
}

// unwritten is the history's line of a step never written: refused before
// its write (why), or untouched after the failure of the step named by
// stopped, with the reason the change stopped for.
func unwritten(s *step, reason kube.Reason, why string) kube.OperateOutcome {
	ref := workload.ObjectRef(s.read)
	if ref.Name == "" { // never read: the change's own workload
		ref = kube.ObjectRef{Kind: s.ref.Kind, Namespace: s.ref.Namespace, Name: s.ref.Name}
	}
	return kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: kube.ActionApply}, Reason: reason, Detail: views.Sanitize(why)}
}

// reasonOr is the reason of a failed step: its blocked reason, its
// rollout's.
func (s *step) reasonOr() kube.Reason {
	if s.follow != nil && s.follow.Failed() {
		if s.follow.TimedOut {
			return kube.ReasonRolloutTimeout
		}
		return kube.ReasonError
	}
	if s.blocked() != "" {
		return s.reason()
	}
	return kube.ReasonError
}
