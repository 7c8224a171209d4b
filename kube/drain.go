package kube

// Draining a Node (kube/internal/drain): the plan (the Node cordoned,
// which pods are evicted and which are left, with kubectl drain's rules)
// guarded before anything is sent, then the cordon and the evictions
// through the Eviction API, each pod's progress told as it happens.

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/kube/internal/drain"
	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// DefaultDrainTimeout bounds a drain from the TUI: the evictions a
// PodDisruptionBudget blocks are retried until then (kubectl drain waits
// forever unless --timeout).
const DefaultDrainTimeout = 5 * time.Minute

// DrainPod is one pod on a Node to drain.
type DrainPod struct {
	// Ref names the pod (Kind "pods", its UID).
	Ref ObjectRef
	// Evict says the drain evicts it; Why says why not when it does not
	// (a DaemonSet's, a mirror pod, emptyDir data, no controller: kubectl
	// drain's rules).
	Evict bool
	Why   string
}

// DrainPlan is a drain planned (PlanDrain): nothing is sent until Drain.
type DrainPlan struct {
	// Node names the Node, with the UID and resourceVersion read.
	Node ObjectRef
	// Cordoned says it is unschedulable already (no cordon is sent).
	Cordoned bool
	// Verdicts are the guards' answers: read-only, the access reviews of
	// patch nodes and of create pods/eviction in each namespace with a pod
	// to evict, the Node read fresh, managed by another tool.
	Verdicts Verdicts
	// Pods are the Node's pods, those to evict first, each group by
	// namespace and name.
	Pods []DrainPod
	pods []*corev1.Pod
}

// ToEvict counts the pods the drain evicts (Pods with Evict).
func (p *DrainPlan) ToEvict() int {
	n := 0
	for _, pod := range p.Pods {
		if pod.Evict {
			n++
		}
	}
	return n
}

// DrainEvent is one pod's progress in a drain.
type DrainEvent struct {
	// Pod names the pod.
	Pod ObjectRef
	// State is "evicting", "blocked" (a PodDisruptionBudget allows no
	// disruption now: asked again every 5 s), "evicted" (terminating),
	// "gone", "failed" or "stopped" (the drain ended first).
	State string
	// Budget names the blocking PodDisruptionBudget (blocked).
	Budget string
	// Detail is the API server's text (blocked, failed).
	Detail string
}

// PlanDrain reads the Node node names fresh and plans its drain: the
// guards run (read-only; the SelfSubjectAccessReviews of patch nodes and of
// create pods/eviction in each namespace with a pod to evict; the Node
// still the one seen, by UID; another tool's markers), its pods listed (one
// list of every namespace's pods with spec.nodeName, as kubectl drain
// lists them) and classified (drain.Classify). Nothing is written. A
// refusal comes back with the plan, so its verdicts can be shown.
// Errors: a *Refusal of a guard; the reads' (not_found, forbidden: the
// pods of every namespace must be listable, unavailable).
func (c *Client) PlanDrain(ctx context.Context, node ObjectRef) (*DrainPlan, error) {
	p := &DrainPlan{Node: node}
	var n *corev1.Node
	vs, err := c.guards.Run(ctx, guards.Write{
		Access: []guards.AccessCheck{{Verb: "patch", Resource: "nodes"}},
		Object: func(ctx context.Context) (Verdicts, error) {
			got, err := c.cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			if node.UID != "" && string(got.UID) != node.UID {
				return Verdicts{{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict,
					Sentence: fmt.Sprintf("nodes/%s was deleted and made again since you saw it (UID %s is now %s)", node.Name, node.UID, got.UID)}}, nil
			}
			n = got
			p.Node.UID, p.Node.ResourceVersion, p.Cordoned = string(got.UID), got.ResourceVersion, got.Spec.Unschedulable
			return Verdicts{{Guard: GuardFresh, Outcome: OutcomePass, Sentence: fmt.Sprintf("nodes/%s is the Node you saw (resourceVersion %s)", node.Name, got.ResourceVersion)}}, nil
		},
		Risks: func(ctx context.Context) (Verdicts, error) {
			list, err := c.cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("spec.nodeName", node.Name).String()})
			if err != nil {
				return nil, err
			}
			p.plan(list.Items)
			vs := Verdicts{c.guards.Managed(node.Name, n.Labels, n.Annotations)}
			for _, ns := range p.namespaces() {
				vs = append(vs, c.guards.Access(ctx, guards.AccessCheck{Verb: "create", Resource: "pods", Subresource: "eviction", Namespace: ns}))
			}
			return vs, nil
		},
	})
	p.Verdicts = vs
	if err != nil {
		return nil, err
	}
	if r := vs.Refusal(); r != nil {
		return p, r
	}
	return p, nil
}

// plan classifies pods: those to evict first, then those left, each by
// namespace and name.
func (p *DrainPlan) plan(pods []corev1.Pod) {
	sort.Slice(pods, func(i, j int) bool {
		a, b := pods[i], pods[j]
		return a.Namespace < b.Namespace || a.Namespace == b.Namespace && a.Name < b.Name
	})
	var left []DrainPod
	for i := range pods {
		pod := &pods[i]
		ref := ObjectRef{Kind: KindPods, Namespace: pod.Namespace, Name: pod.Name, UID: string(pod.UID)}
		evict, why := drain.Classify(pod)
		if evict {
			p.pods = append(p.pods, pod)
			p.Pods = append(p.Pods, DrainPod{Ref: ref, Evict: true})
		} else {
			left = append(left, DrainPod{Ref: ref, Why: why})
		}
	}
	p.Pods = append(p.Pods, left...)
}

// namespaces are the namespaces of the pods to evict, once each.
func (p *DrainPlan) namespaces() []string {
	var out []string
	for _, pod := range p.pods {
		if len(out) == 0 || out[len(out)-1] != pod.Namespace {
			out = append(out, pod.Namespace)
		}
	}
	return out
}

// Drain runs p once every warning of its verdicts is among confirmed: the
// Node cordoned (a strategic merge patch of spec.unschedulable with the
// resourceVersion read, unless it was cordoned already), then every pod
// of p evicted at once through the Eviction API with its UID as
// precondition, each blocked eviction (a PodDisruptionBudget) asked again
// every 5 s, each evicted pod waited for until it is gone, until timeout
// (0: DefaultDrainTimeout) or ctx is cancelled. Each pod's progress goes
// to events (never closed; sends wait for ctx). The outcome (ActionDrain)
// says what was done: drained; or timeout, cancelled, a failed eviction's
// reason (forbidden), a PDB's block named, and that the Node stays
// cordoned. Written is true once the cordon or an eviction was sent.
func (c *Client) Drain(ctx context.Context, p *DrainPlan, confirmed []Reason, timeout time.Duration, events chan<- DrainEvent) OperateOutcome {
	out := OperateOutcome{Op: Operation{Ref: p.Node, Action: ActionDrain}, Verdicts: p.Verdicts}
	refuse := func(err error) OperateOutcome {
		if out.Reason = ReasonOf(err); out.Reason == "" {
			out.Reason = vocab.ReasonError
		}
		out.Detail = fmt.Sprintf("drain of nodes/%s: %s", p.Node.Name, err)
		return out
	}
	if r := p.Verdicts.Unconfirmed(confirmed); r != nil {
		return refuse(r)
	}
	if timeout <= 0 {
		timeout = DefaultDrainTimeout
	}
	if !p.Cordoned {
		body := fmt.Sprintf(`{"metadata":{"resourceVersion":%q},"spec":{"unschedulable":true}}`, p.Node.ResourceVersion)
		got, err := c.cs.CoreV1().Nodes().Patch(ctx, p.Node.Name, types.StrategicMergePatchType, []byte(body), metav1.PatchOptions{})
		if err != nil {
			return refuse(fmt.Errorf("cordon: %w", err))
		}
		out.ResourceVersion = got.ResourceVersion
	}
	out.Written = true
	run, cancel := context.WithTimeoutCause(ctx, timeout, context.DeadlineExceeded)
	defer cancel()
	raw := make(chan drain.Event)
	done := make(chan error, 1)
	go func() { done <- (drain.Evicter{CS: c.cs}).Evict(run, p.pods, raw) }()
	var gone int
	blocked := map[string]string{} // pod -> budget
	var err error
	for waiting := true; waiting; {
		select {
		case ev := <-raw:
			ref := ObjectRef{Kind: KindPods, Namespace: ev.Namespace, Name: ev.Name}
			key := ref.String()
			switch ev.State {
			case drain.Gone:
				gone++
				delete(blocked, key)
			case drain.Blocked:
				blocked[key] = ev.Budget
			case drain.Evicted:
				delete(blocked, key)
			}
			select {
			case events <- DrainEvent{Pod: ref, State: string(ev.State), Budget: ev.Budget, Detail: ev.Detail}:
			case <-ctx.Done():
			}
		case err = <-done:
			waiting = false
		}
	}
	left := len(p.Pods) - len(p.pods)
	summary := fmt.Sprintf("%s of %d evicted", Plural(gone, "pod"), len(p.pods))
	if left > 0 {
		summary += fmt.Sprintf("; %s left on it, as kubectl drain leaves them (DaemonSet, mirror, emptyDir or unmanaged pods)", Plural(left, "pod"))
	}
	switch {
	case err == nil:
		out.Detail = fmt.Sprintf("drained nodes/%s: cordoned, %s", p.Node.Name, summary)
		return out
	case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
		out.Reason = ReasonTimeout
		out.Detail = fmt.Sprintf("drain of nodes/%s timed out after %s: %s", p.Node.Name, timeout, summary)
	case ctx.Err() != nil:
		out.Reason = ReasonCancelled
		out.Detail = fmt.Sprintf("drain of nodes/%s cancelled: %s", p.Node.Name, summary)
	default:
		if out.Reason = ReasonOf(err); out.Reason == "" {
			out.Reason = vocab.ReasonError
		}
		out.Detail = fmt.Sprintf("drain of nodes/%s: %s; %s", p.Node.Name, firstLine(err), summary)
	}
	if len(blocked) > 0 {
		var names []string
		for pod, budget := range blocked {
			if budget == "" {
				budget = "a PodDisruptionBudget"
			} else {
				budget = "PodDisruptionBudget " + budget
			}
			names = append(names, pod+" (blocked by "+budget+")")
		}
		sort.Strings(names)
		out.Detail += "; not evicted: " + strings.Join(names, ", ")
	}
	out.Detail += "; the Node stays cordoned (C uncordons it)"
	return out
}

// firstLine is err's text up to its first newline (errors.Join's first).
func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
