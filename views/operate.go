package views

import (
	"context"

	"github.com/kyyard/kyyard/kube"
)

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
	// Replace swaps the top screen (the action list it was chosen in)
	// instead of pushing on top of it.
	Replace bool
}

// ActionsMsg asks the root for the action list of one object (`a`): every
// action, and why each one that is disabled is.
type ActionsMsg struct {
	// Target is the object, with the UID the person saw.
	Target kube.ObjectRef
	// Kind describes Target's kind (its plugin's KindInfo): the list
	// offers the actions its Capabilities have.
	Kind kube.KindInfo
	// Replicas is its current replicas, -1 when unknown.
	Replicas int32
}

// ActionKey is one Operate action and the inventory key that opens its
// confirmation (on the marked rows, or the cursor row).
type ActionKey struct {
	// Action is the action.
	Action kube.Action
	// Key is the key's name as bubbles reads it ("r", "ctrl+d", "Z").
	Key string
	// Help is the key's help text ("restart (marked: each)").
	Help string
}

// Actions is the table of Operate actions, in the action list's and the
// help's order: the inventory's key bindings, its help marks, its key
// handling and the action list's key column all read it. Each is offered
// on the kinds whose plugin declares it (kube.KindInfo.Supports). Adding
// an action to the screens is one entry here.
var Actions = []ActionKey{
	{kube.ActionRestart, "r", "restart (marked: each)"},
	{kube.ActionScale, "s", "scale (pods: shell)"},
	{kube.ActionDelete, "ctrl+d", "delete"},
	{kube.ActionPause, "z", "pause rollout"},
	{kube.ActionResume, "Z", "resume rollout"},
	{kube.ActionUndo, "B", "undo rollout"},
	// k9s's keys: t triggers a CronJob, ctrl+s toggles its suspend; here
	// ctrl+s suspends and ctrl+u unsuspends (each says when there is
	// nothing to send), so a key never does the opposite of what the row
	// showed when someone else changed it in between.
	{kube.ActionTrigger, "t", "trigger cronjob (a Job now)"},
	{kube.ActionSuspend, "ctrl+s", "suspend cronjob"},
	{kube.ActionUnsuspend, "ctrl+u", "unsuspend cronjob"},
	{kube.ActionCordon, "c", "cordon node"},
	{kube.ActionUncordon, "C", "uncordon node"},
}

// OpenRolloutMsg asks the root to show the rollout screen of a workload.
type OpenRolloutMsg struct {
	// Ref is the Deployment, StatefulSet or DaemonSet.
	Ref kube.WorkloadRef
	// UID is the metadata.uid the person saw, "" when unknown: with it, a
	// Deployment's rollout can be undone from the screen (u).
	UID string
	// What says what started the rollout ("restarted demo/deployments/web:
	// its pods are replaced"); "" to watch one.
	What string
	// Replace swaps the top screen (the confirmation it followed) instead
	// of pushing on top of it.
	Replace bool
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

// Permitter is a client that says which actions the user may not do on a
// kind in a namespace (see kube.Client.Permissions); *kube.Client is one.
type Permitter interface {
	// Permissions maps each action the API server denies to its sentence.
	Permissions(ctx context.Context, kind kube.Kind, namespace string) map[kube.Action]string
}
