package deploy

// A deploy's and a remove's outcome goes to the session's history
// (views.Report) with its status line: one entry on the instance
// (<namespace>/apps/<instance>), done, stopped or refused, and a preview or
// a remove plan that refuses before anything is sent.

import (
	"fmt"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// instanceRef is the history's object of an app instance.
func instanceRef(namespace, instance string) kube.ObjectRef {
	return kube.ObjectRef{Kind: kube.KindApps, Namespace: namespace, Name: instance}
}

// runOutcome is the history entry of a finished run of action (deploy or
// remove) on ref, told by text: done, or refused with the result's reason
// (the error's when the result has none). Written says whether any step
// was done.
func runOutcome(ref kube.ObjectRef, action kube.Action, r *run, text string) kube.OperateOutcome {
	done, _, _ := stepCounts(r.steps)
	o := kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: action}, Detail: text, Written: done > 0}
	if r.failed() {
		o.Reason = r.result.Reason
		if o.Reason == "" {
			o.Reason = kube.ReasonOf(r.err)
		}
		if o.Reason == "" {
			o.Reason = kube.ReasonError
		}
	}
	return o
}

// deployOutcome is the history entry of a deploy run r of instance
// (shown as name) in namespace, as it ended: done, failed or stopped.
func deployOutcome(namespace, instance, name string, r *run) kube.OperateOutcome {
	done, failed, skipped := stepCounts(r.steps)
	ref := instanceRef(namespace, instance)
	switch {
	case r.err != nil && r.result.Reason == "":
		return runOutcome(ref, kube.ActionDeploy, r, "deploy of "+name+" failed: "+views.ErrText(r.err))
	case r.failed():
		return runOutcome(ref, kube.ActionDeploy, r,
			fmt.Sprintf("deploy of %s stopped: %s (%d done, %d failed, %d skipped)", name, r.result.Reason, done, failed, skipped))
	}
	return runOutcome(ref, kube.ActionDeploy, r, fmt.Sprintf("deployed %s in %s: %s done", name, views.Sanitize(namespace), kube.Plural(done, "step")))
}

// removeOutcome is the history entry of a remove run r of instance in
// namespace, as it ended.
func removeOutcome(namespace, instance string, r *run) kube.OperateOutcome {
	done, failed, skipped := stepCounts(r.steps)
	inst := views.Sanitize(instance)
	text := fmt.Sprintf("removed %s from %s: %s deleted, %d kept", inst, views.Sanitize(namespace), kube.Plural(done, "object"), kept(r.steps))
	switch {
	case r.err != nil && r.result.Reason == "":
		text = "remove of " + inst + " failed: " + views.ErrText(r.err)
	case r.failed():
		text = fmt.Sprintf("remove of %s stopped: %s (%d done, %d failed, %d skipped)", inst, r.result.Reason, done, failed, skipped)
	}
	return runOutcome(instanceRef(namespace, instance), kube.ActionRemove, r, text)
}

// report tells the outcome o on the status line (text) and in the history.
func report(o kube.OperateOutcome) tea.Cmd {
	return views.Report(views.StatusMsg{Text: o.Detail, Error: !o.OK()}, o)
}

// planRefusal is the history entry of a deploy preview that refuses the
// deploy before anything is sent (the plan failed, a guard refused, the
// API server refused the dry run); ok is false when the preview allows it.
func planRefusal(ref kube.ObjectRef, p *preview) (kube.OperateOutcome, bool) {
	o := kube.OperateOutcome{Op: kube.Operation{Ref: ref, Action: kube.ActionDeploy}, Verdicts: p.dp.Verdicts}
	switch {
	case p.err != nil:
		return views.RefusedOutcome(ref, kube.ActionDeploy, p.err, "not sent"), true
	case p.dp.Verdicts.Refusal() != nil:
		r := p.dp.Verdicts.Refusal()
		o.Reason, o.Detail = r.Reason, views.Sanitize(r.Detail+" (not sent)")
	case len(p.dryRunFailures()) > 0:
		first := p.dryRunFailures()[0]
		// The plan does not classify the server's text: its words say why.
		o.Reason = kube.ReasonError
		o.Detail = views.Sanitize(fmt.Sprintf("the API server refused the dry run of %s: %s (not sent)", first, p.dp.DryRun[first]))
	default:
		return o, false
	}
	return o, true
}
