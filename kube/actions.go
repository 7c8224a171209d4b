package kube

// The actions (restart, scale, delete, pause, resume, undo; a CronJob's
// trigger, suspend and unsuspend), their guards
// and Permissions live in kube/internal/actions; the Client builds an
// actions.Actor from its clientset, guard pipeline and kind resolver and
// delegates PlanOperation, Operate and Permissions to it. Operation,
// OperateOutcome, RestartedAtAnnotation, InstantiateAnnotation and
// TriggeredJobName are actions' own, re-exported: see their documentation
// there.

import (
	"context"
	"slices"
	"time"

	"github.com/kyyard/kyyard/kube/internal/actions"
	"k8s.io/client-go/metadata"
)

// The actions' types (aliases of kube/internal/actions').
type (
	// Operation is actions.Operation: one action on one object.
	Operation = actions.Operation
	// OperateOutcome is actions.OperateOutcome: what one Operate call did.
	OperateOutcome = actions.OperateOutcome
)

// RestartedAtAnnotation is actions.RestartedAtAnnotation: the pod template
// annotation `kubectl rollout restart` stamps with the current time.
const RestartedAtAnnotation = actions.RestartedAtAnnotation

// InstantiateAnnotation is actions.InstantiateAnnotation: the annotation
// (cronjob.kubernetes.io/instantiate: manual) kubectl and a trigger put on
// a Job made by hand from a CronJob.
const InstantiateAnnotation = actions.InstantiateAnnotation

// TriggeredJobName is actions.TriggeredJobName: the name of the Job a
// trigger of the CronJob named cronJob creates at now
// ("<cronjob>-manual-<minutes since the Unix epoch>", at most 63
// characters).
func TriggeredJobName(cronJob string, now time.Time) string {
	return actions.TriggeredJobName(cronJob, now)
}

// actor runs the actions over c's clientset, metadata client, guards,
// kinds and cached rows (dependents).
func (c *Client) actor() actions.Actor {
	return actions.Actor{CS: c.cs, Guards: c.guards, KindInfo: c.kindInfo, Dependents: c.dependents,
		Metadata: func() (metadata.Interface, error) {
			if c.metadataCS != nil {
				return c.metadataCS, nil
			}
			o, err := c.objectClients()
			if err != nil {
				return nil, err
			}
			return o.md, nil
		}}
}

// dependents counts, by kind, the cached rows in namespace ("" for every
// namespace; a cluster-scoped owner's dependents may live in any) whose
// Owners name uid, and returns the kinds of the caches it looked in:
// what the garbage collector deletes with the owner, as far as kyyard has
// read. It costs one pass over each cache's rows and no request.
func (c *Client) dependents(namespace, uid string) (map[Kind]int, []Kind) {
	c.mu.Lock()
	caches := make(map[cacheKey]*kindCache, len(c.caches))
	for k, kc := range c.caches {
		if namespace == "" || k.namespace == "" || k.namespace == namespace {
			caches[k] = kc
		}
	}
	c.mu.Unlock()
	counts := map[Kind]int{}
	seenSet := map[Kind]bool{}
	for k, kc := range caches {
		if !kc.synced() {
			continue // its rows are not all in: it would undercount
		}
		kc.mu.Lock()
		rows := kc.set.rows()
		kc.mu.Unlock()
		seenSet[k.kind] = true
		for _, r := range rows {
			if (namespace == "" || r.Namespace == namespace) && slices.Contains(r.Owners, uid) {
				counts[k.kind]++
			}
		}
	}
	seen := make([]Kind, 0, len(seenSet))
	for k := range seenSet {
		seen = append(seen, k)
	}
	return counts, seen
}

// PlanOperation runs op's guards without writing, for a confirmation
// screen: read-only (no request at all when it refuses), the checks of
// the action's own rules (a kind without the action, replicas out of
// 0..MaxReplicas, a paused Deployment's restart or undo, no previous
// revision; a trigger of a CronJob whose template has no container, or
// whose Job's name is taken), the SelfSubjectAccessReview of the exact
// verb, resource, subresource and namespace (cached 30 s), the object read
// fresh against
// the UID (and resourceVersion) the person saw, and then the guards the
// action needs: another tool's markers, the namespace's Pod Security level
// (actions that create pods: a trigger and an unsuspend too), a
// HorizontalPodAutoscaler (scale), the claims a StatefulSet scale-down or
// delete removes. It stops at the first
// refusal of read-only, the action's rules, access and the fresh read, and
// after the rules checked on the object read (a paused Deployment, no
// previous revision) refuse or find nothing to write (already paused, the
// same replicas): later guards are not asked then.
// Errors: op itself is malformed (an unknown action or kind, no UID;
// wrapping errInvalid, ReasonOf: invalid) or a read the guards need failed
// for another reason than the object being gone (which is a not_found
// verdict).
func (c *Client) PlanOperation(ctx context.Context, op Operation) (Verdicts, error) {
	return c.actor().Plan(ctx, op)
}

// Operate runs op's guards (PlanOperation) and, when none refuses and
// every warning's reason is in op.Confirmed, writes:
//   - restart: a strategic merge patch {"metadata":{"resourceVersion":RV},
//     "spec":{"template":{"metadata":{"annotations":
//     {"kubectl.kubernetes.io/restartedAt":"<RFC 3339 now>"}}}}};
//   - scale: an update of the scale subresource with spec.replicas at RV;
//   - pause / resume: a strategic merge patch of spec.paused at RV;
//   - undo: kubectl's JSON patch (replace /spec/template and
//     /metadata/annotations) with a replace of /metadata/resourceVersion
//     as its precondition;
//   - delete: DeleteOptions{Preconditions: UID (and RV for a workload),
//     PropagationPolicy: Background}, a pod's grace period as asked;
//   - trigger: a create of the Job built from the CronJob's jobTemplate as
//     `kubectl create job --from=cronjob/X` builds it, named
//     TriggeredJobName (the outcome's Created names it); a name taken is
//     refused (name_taken);
//   - suspend / unsuspend: a strategic merge patch of spec.suspend at RV.
//
// RV is the resourceVersion of the guards' fresh read. A 409 the API server
// answers is retried (up to 5 times) only when the object read again shows
// that status alone moved (same UID and generation); otherwise it is a
// conflict. The outcome says what was done or why not; the error is nil
// when it was done, the *Refusal (same Reason and Detail as the outcome)
// when it was refused by a guard or the API server, and any other error
// for a malformed op or a failed read (the outcome's Reason is then
// ReasonOf it).
func (c *Client) Operate(ctx context.Context, op Operation) (OperateOutcome, error) {
	return c.actor().Operate(ctx, op)
}

// Permissions asks the API server which of the actions kyyard offers on
// objects of kind in namespace ("" is all namespaces) the user may not do,
// with one SelfSubjectAccessReview per distinct request the actions make
// (patch of the resource, update of its scale subresource, delete), each
// answer cached for the guards' 30 seconds. It returns, per action
// denied, the reviewer's sentence ("you may not delete deployments in
// demo (…)"); actions allowed, and those whose review could not be made
// (the API server unreachable), are left out: an action is only shown
// disabled when the server said no. Every action is still checked again
// by its guards when it is run. Only the actions the kind's plugin
// declares (KindInfo.Capabilities) are asked about: a kind with none costs
// no request. ActionEdit is the workload form's apply, a patch of the
// object (CanEdit; on a pod, e edits its owner: not asked); ActionShell
// is the create of pods/exec a shell makes (CanExec: pods and their
// containers); ActionPortForward the create of pods/portforward
// (CanPortForward).
func (c *Client) Permissions(ctx context.Context, kind Kind, namespace string) map[Action]string {
	return c.actor().Permissions(ctx, kind, namespace)
}
