package vocab

import "strings"

// Capability is a set of actions a kind supports, as bit flags. A kind
// plugin declares its set in KindInfo.Capabilities; that declaration is
// the one answer to "does this kind support this action": the guards
// (actionRule), Permissions, Logs, StartPortForward, RolloutStatus,
// WorkloadOf and the screens' keys, help marks and action list read it,
// none keeps a list of its own. A flag says what kyyard offers on the
// kind's objects today, not what the API server would allow.
type Capability uint

// Capabilities a kind plugin may declare. Adding an action on a kind is
// the action's code plus the kind's flag; an action of its own is one
// flag here and one entry in actionCapabilities.
const (
	// CanLogs: the objects' containers have logs (pods/log): l and p; a
	// workload's are its pods' (the pods its spec.selector selects).
	CanLogs Capability = 1 << iota
	// CanExec: a shell can be opened in the objects' containers
	// (pods/exec): s on a pod or a container row (ActionShell).
	CanExec
	// CanEdit: the workload form edits the object's pod template itself
	// (ActionEdit, a strategic merge patch of the object).
	CanEdit
	// CanScale: spec.replicas is set through the scale subresource
	// (ActionScale).
	CanScale
	// CanRestart: the pods are replaced the way `kubectl rollout restart`
	// does (ActionRestart).
	CanRestart
	// CanDelete: kyyard deletes the objects, with the guards of a delete
	// (ActionDelete).
	CanDelete
	// CanWatch: the API server serves watch for the kind (discovery lists
	// the verb). Set on the kinds Discover finds; a discovered kind is
	// cached only when it has it. Not an action.
	CanWatch
	// CanPortForward: a port-forward starts from the objects (shift+f,
	// ActionPortForward): to the pod itself, or to a ready pod the
	// object's selector selects.
	CanPortForward
	// CanPause: spec.paused is set and cleared as `kubectl rollout pause`
	// and `kubectl rollout resume` do (ActionPause, ActionResume).
	CanPause
	// CanUndo: the object is rolled back to its previous revision as
	// `kubectl rollout undo` does (ActionUndo).
	CanUndo
	// CanRollout: the object's rollout can be followed (R, the rollout
	// screen; RolloutStatus, as `kubectl rollout status`).
	CanRollout
	// CanEditOwner: e on the object opens the workload form on the
	// Deployment, StatefulSet or DaemonSet that controls it (WorkloadOf):
	// a Pod, a ReplicaSet.
	CanEditOwner
	// CanTrigger: a Job is created now from the object's job template, as
	// `kubectl create job --from=cronjob/X` does (ActionTrigger): CronJobs.
	CanTrigger
	// CanSuspend: spec.suspend is set and cleared (ActionSuspend,
	// ActionUnsuspend): CronJobs. Not CanPause: a Deployment's pause
	// holds its rollouts (spec.paused, `kubectl rollout pause`), a
	// CronJob's suspend stops its schedule; they are other fields, and
	// the words and what follows (a rollout to watch) differ.
	CanSuspend
	// CanDecode: the object's values are shown decoded, each hidden until
	// the person reveals it (x): Secrets.
	CanDecode
	// CanCordon: spec.unschedulable is set and cleared (ActionCordon,
	// ActionUncordon): Nodes.
	CanCordon
)

// capabilityNames names each flag for people, in the order String lists
// them.
var capabilityNames = []struct {
	c    Capability
	name string
}{
	{CanLogs, "logs"}, {CanExec, "shell"}, {CanEdit, "edit"}, {CanEditOwner, "edit its owner"}, {CanRollout, "rollout"},
	{CanRestart, "restart"}, {CanScale, "scale"}, {CanPause, "pause and resume"}, {CanUndo, "undo"},
	{CanTrigger, "trigger"}, {CanSuspend, "suspend and unsuspend"}, {CanDecode, "decode"}, {CanCordon, "cordon and uncordon"},
	{CanDelete, "delete"}, {CanPortForward, "port-forward"},
}

// actionCapabilities maps each action a kind may or may not have to the
// flag that says it has it, in the order KindActions lists them. Actions
// not named (apply, deploy, remove, debug) are not a kind's: Supports is
// false for them.
var actionCapabilities = []struct {
	a Action
	c Capability
}{
	{ActionRestart, CanRestart}, {ActionScale, CanScale}, {ActionDelete, CanDelete},
	{ActionPause, CanPause}, {ActionResume, CanPause}, {ActionUndo, CanUndo},
	{ActionTrigger, CanTrigger}, {ActionSuspend, CanSuspend}, {ActionUnsuspend, CanSuspend},
	{ActionCordon, CanCordon}, {ActionUncordon, CanCordon},
	{ActionEdit, CanEdit}, {ActionShell, CanExec}, {ActionPortForward, CanPortForward},
}

// KindActions returns every action a kind may have (restart, scale,
// delete, pause, resume, undo, trigger, suspend, unsuspend, edit, shell,
// port-forward), in that order:
// what Permissions asks about, from the one table Supports reads.
func KindActions() []Action {
	out := make([]Action, len(actionCapabilities))
	for i, ac := range actionCapabilities {
		out[i] = ac.a
	}
	return out
}

// Has reports whether every capability in want is in c.
func (c Capability) Has(want Capability) bool { return c&want == want }

// Supports reports whether c has the flag of action a (restart, scale,
// delete, pause, resume, undo, trigger, suspend, unsuspend, edit, shell,
// port-forward); false for an
// action that is not a kind's.
func (c Capability) Supports(a Action) bool {
	for _, ac := range actionCapabilities {
		if ac.a == a {
			return c.Has(ac.c)
		}
	}
	return false
}

// String lists the actions of c for people ("logs, shell, delete,
// port-forward"); "none" when c has none. CanWatch is left out: it is not
// an action.
func (c Capability) String() string {
	var names []string
	for _, n := range capabilityNames {
		if c.Has(n.c) {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// Supports reports whether the kind has action a (Capability.Supports).
func (k KindInfo) Supports(a Action) bool { return k.Capabilities.Supports(a) }

// NotOffered says, for people, that action a is not offered on the
// kind's objects and what is: "restart is not offered on pods (pods
// offer logs, shell, edit its owner, delete, port-forward)".
// A kind with no action says "(configmaps offer no action)".
func (k KindInfo) NotOffered(a Action) string {
	offer := k.Capabilities.String()
	if offer == "none" {
		offer = "no action"
	}
	return string(a) + " is not offered on " + string(k.ID) + " (" + string(k.ID) + " offer " + offer + ")"
}
