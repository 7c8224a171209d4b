package workload

// What the form writes goes to the session's history (views.Report): an
// apply or an undo written, and every refusal of one (the preview's
// guards or dry run, the apply's conflict, forbidden, a guard).

import (
	"fmt"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// historyAction is the history's action of an apply (undo: the undo of a
// failed rollout).
func historyAction(undo bool) kube.Action {
	if undo {
		return kube.ActionUndo
	}
	return kube.ActionApply
}

// ObjectRef is the history's object of a write on w: its kind, namespace
// and name, the UID and resourceVersion read (the form's, and the
// cluster-by-cluster change's, views/fleetchange).
func ObjectRef(w kube.Workload) kube.ObjectRef {
	return kube.ObjectRef{Kind: w.Ref.Kind, Namespace: w.Ref.Namespace, Name: w.Ref.Name,
		UID: w.UID, ResourceVersion: w.ResourceVersion}
}

// ChangesText lists changes for people, as the history's details say
// them: "web: cpu request 100m -> 250m; replicas 2 -> 3" (an empty value
// is "(unset)", Unset).
func ChangesText(changes []kube.Change) string {
	parts := make([]string, 0, len(changes))
	for _, c := range changes {
		f := c.Field
		if c.Container != "" {
			f = c.Container + ": " + f
		}
		parts = append(parts, fmt.Sprintf("%s %s -> %s", f, Unset(c.Before), Unset(c.After)))
	}
	return strings.Join(parts, "; ")
}

// Unset is v, or "(unset)" when empty: a change's value as the preview
// and the history say it.
func Unset(v string) string {
	if v == "" {
		return "(unset)"
	}
	return v
}

// applyOutcome is the history's entry of a finished ApplyWorkload:
// written at its new resourceVersion with the fields it changed, or
// refused. applyCmd's answer carries it (views.AnswerMsg): it is recorded
// whether or not the form is still shown.
func applyOutcome(msg applyMsg) kube.OperateOutcome {
	action, ref := historyAction(msg.undo), ObjectRef(msg.before)
	if msg.err != nil {
		return views.RefusedOutcome(ref, action, msg.err, "")
	}
	res := msg.result.Workload
	detail := fmt.Sprintf("%s written at resourceVersion %s", action, res.ResourceVersion)
	if len(msg.result.Changes) > 0 {
		detail += ": " + ChangesText(msg.result.Changes)
	}
	return kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: action, Confirmed: msg.confirmed},
		Detail: views.Sanitize(detail), ResourceVersion: res.ResourceVersion, Written: true}
}

// reportPreviewRefusal tells the history of a preview that refuses the
// apply before anything is sent (a guard refused, the API server refused
// the dry run, or the dry run could not be done); nil when the preview
// allows it or nothing changed.
func reportPreviewRefusal(before kube.Workload, msg dryRunMsg) tea.Cmd {
	ref := ObjectRef(before)
	p := msg.preview
	var out kube.OperateOutcome
	switch {
	case msg.err != nil:
		out = views.RefusedOutcome(ref, kube.ActionApply, msg.err, "not sent")
	case p.Verdicts.Refusal() != nil:
		out = views.RefusedOutcome(ref, kube.ActionApply, p.Verdicts.Refusal(), "not sent")
	case p.DryRunError != "":
		reason := p.DryRunReason
		if reason == "" {
			reason = kube.ReasonError
		}
		out = kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: kube.ActionApply}, Reason: reason,
			Detail: views.Sanitize("the API server refused the dry run: " + p.DryRunError + " (not sent)")}
	default:
		return nil
	}
	out.Verdicts = p.Verdicts
	return views.Report(views.StatusMsg{}, out)
}
