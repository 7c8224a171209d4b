package views

import "github.com/kyyard/kyyard/kube"

// OperateMsg asks the root to open the confirmation screen of an action
// (views/operate) on one object or on every marked row.
type OperateMsg struct {
	// Action is what to do.
	Action kube.Action
	// Targets are the objects, in the order shown; each carries the UID
	// the person saw.
	Targets []kube.ObjectRef
	// Replicas is the current replicas of a single scale target, the
	// scale form's starting value; -1 when unknown.
	Replicas int32
}

// OpenRolloutMsg asks the root to show the rollout screen of a workload.
type OpenRolloutMsg struct {
	// Ref is the Deployment, StatefulSet or DaemonSet.
	Ref kube.WorkloadRef
	// What says what started the rollout ("restarted demo/deployments/web:
	// its pods are replaced"); "" to watch one.
	What string
	// Replace swaps the top screen (the confirmation it followed) instead
	// of pushing on top of it.
	Replace bool
}

// OutcomesMsg reports the outcomes of actions done (or refused) to the
// root, which keeps them in the session's history.
type OutcomesMsg struct {
	// Outcomes are one per object, in the order asked.
	Outcomes []kube.OperateOutcome
}

// Modes is implemented by a Source that can say which policy its writes
// run under (*kube.Client): the header shows it and the action keys are
// disabled in read-only mode.
type Modes interface {
	// ReadOnly reports whether every write is refused before any request.
	ReadOnly() bool
	// Policy is how the guards' warnings are treated.
	Policy() kube.Policy
}

// ReadOnly reports whether the screens' client runs read-only.
func (vc *Context) ReadOnly() bool {
	m, ok := vc.Client.(Modes)
	return ok && m.ReadOnly()
}
