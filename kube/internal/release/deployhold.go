package release

// What holds a deploy's rollout: the new pods' waiting reasons and
// scheduling failures, the Deployment's progress condition and a Pending
// claim's latest event (Warning preferred), read while the rollout step runs
// (deployrollout.go) so that the step's Detail says why it waits and a
// failure leads with the cluster's cause.

import (
	"context"
	"fmt"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/internal/rollouts"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
)

// hold is one thing that holds a rollout: code is the cluster's reason
// ("ImagePullBackOff", "ProgressDeadlineExceeded", "Unschedulable",
// "FailedBinding", "ContainerCreating"), text what it says, naming the
// pod or claim.
type hold struct{ code, text string }

// String is "code: text".
func (h hold) String() string { return h.code + ": " + h.text }

// Hold ranks: a failure first, then what the cluster waits on.
const (
	holdFailing     = iota // a CannotStart reason, the progress deadline
	holdClaim              // a Pending claim's Warning event
	holdUnscheduled        // PodScheduled=False
	holdWaiting            // another waiting reason (ContainerCreating)
)

// rolloutHolds orders what holds a Deployment's rollout, from d (its
// Progressing condition), its new pods and the claims they mount (claims
// by name, events the newest Warning event per claim name): failing
// waits and ProgressDeadlineExceeded/ReplicaSetCreateError first, then
// Pending claims with their event, pods PodScheduled=False, other
// waiting reasons. One hold per code and text (the first pod by the
// order given). Pure.
func rolloutHolds(d *appsv1.Deployment, newPods []*corev1.Pod, claims map[string]*corev1.PersistentVolumeClaim,
	events map[string]*corev1.Event) []hold {
	ranked := [4][]hold{}
	seen := map[string]bool{}
	add := func(rank int, h hold) {
		if !seen[h.code] {
			seen[h.code] = true
			ranked[rank] = append(ranked[rank], h)
		}
	}
	if d != nil {
		if c := objects.DeploymentCondition(d, appsv1.DeploymentProgressing); c != nil && c.Status == corev1.ConditionFalse &&
			(c.Reason == "ProgressDeadlineExceeded" || c.Reason == "ReplicaSetCreateError") {
			add(holdFailing, hold{code: c.Reason, text: c.Message})
		}
	}
	for _, pod := range newPods {
		if pod == nil || pod.DeletionTimestamp != nil {
			continue
		}
		for _, c := range pod.Status.Conditions {
			if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse {
				code := c.Reason
				if code == "" {
					code = "Unschedulable"
				}
				add(holdUnscheduled, hold{code: code, text: "pod " + pod.Name + " not scheduled: " + c.Message})
			}
		}
		for _, statuses := range [][]corev1.ContainerStatus{pod.Status.InitContainerStatuses, pod.Status.ContainerStatuses} {
			for _, cs := range statuses {
				w := cs.State.Waiting
				if w == nil || w.Reason == "" {
					continue
				}
				text := "pod " + pod.Name + " container " + cs.Name
				if w.Message != "" {
					text += ": " + w.Message
				}
				rank := holdWaiting
				if vocab.CannotStart(w.Reason) {
					rank = holdFailing
				}
				add(rank, hold{code: w.Reason, text: text})
			}
		}
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim == nil {
				continue
			}
			name := v.PersistentVolumeClaim.ClaimName
			pvc := claims[name]
			if pvc == nil || pvc.Status.Phase != corev1.ClaimPending {
				continue
			}
			h := hold{code: "ClaimPending", text: "claim " + name + " is Pending"}
			if ev := events[name]; ev != nil {
				h.code, h.text = ev.Reason, h.text+": "+ev.Message
			}
			if !seen[h.text] {
				seen[h.text] = true
				ranked[holdClaim] = append(ranked[holdClaim], h)
			}
		}
	}
	var out []hold
	for _, r := range ranked {
		out = append(out, r...)
	}
	return out
}

// holdsText joins holds as "code: text; code: text" ("" for none).
func holdsText(hs []hold) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.String()
	}
	return strings.Join(s, "; ")
}

// failureDetail is a failed rollout step's Detail: the cluster's cause
// first ("ImagePullBackOff: pod web-x container web: Back-off pulling
// image ...") and then what else holds it; without a hold read, the
// RolloutStatus message (a ReplicaSet that cannot create pods leads with
// FailedCreate).
func failureDetail(hs []hold, message string) string {
	if len(hs) > 0 && (vocab.CannotStart(hs[0].code) || hs[0].code == "ProgressDeadlineExceeded" || hs[0].code == "ReplicaSetCreateError") {
		return holdsText(hs)
	}
	out := "failed: " + message
	if strings.HasPrefix(message, "ReplicaSet ") && strings.Contains(message, " cannot create pods: ") {
		out = "FailedCreate: " + message
	}
	if len(hs) > 0 {
		out += "; " + holdsText(hs)
	}
	return out
}

// timeoutDetail is a rollout step's Detail after its deadline: what holds
// it first, then "not available after 3m0s: <the last status>".
func timeoutDetail(hs []hold, timeout fmt.Stringer, last string) string {
	tail := fmt.Sprintf("not available after %s: %s", timeout, last)
	if len(hs) == 0 {
		return tail
	}
	return holdsText(hs) + "; " + tail
}

// readHolds reads what holds the rollout of Deployment name in ns: the
// Deployment, its new pods (the names st marks New), the claims they
// mount and, for a Pending one, the event that says why (claimEvent). A failed read
// gives no hold (the rollout status alone is shown).
func (c Deployer) readHolds(ctx context.Context, ns, name string, st vocab.RolloutStatus) []hold {
	d, err := c.CS.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	newNames := map[string]bool{}
	for _, p := range st.Pods {
		if p.New {
			newNames[p.Name] = true
		}
	}
	var pods []*corev1.Pod
	if len(newNames) > 0 {
		sel, err := objects.SelectorOf(d.Spec.Selector)
		if err != nil {
			return nil
		}
		list, err := c.CS.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
		if err != nil {
			return nil
		}
		for i := range list.Items {
			if newNames[list.Items[i].Name] {
				pods = append(pods, &list.Items[i])
			}
		}
	}
	claims, events := map[string]*corev1.PersistentVolumeClaim{}, map[string]*corev1.Event{}
	for _, pod := range pods {
		for _, v := range pod.Spec.Volumes {
			if v.PersistentVolumeClaim == nil || claims[v.PersistentVolumeClaim.ClaimName] != nil {
				continue
			}
			cn := v.PersistentVolumeClaim.ClaimName
			pvc, err := c.CS.CoreV1().PersistentVolumeClaims(ns).Get(ctx, cn, metav1.GetOptions{})
			if err != nil {
				continue
			}
			claims[cn] = pvc
			if pvc.Status.Phase == corev1.ClaimPending {
				events[cn] = c.claimEvent(ctx, ns, cn, string(pvc.UID))
			}
		}
	}
	return rolloutHolds(d, pods, claims, events)
}

// claimEvent returns the event that says why a claim is Pending: its
// newest Warning event, else its newest event of any type (the PV
// controller reports "no persistent volumes available for this claim and
// no storage class is set" as a Normal FailedBinding event:
// k8s.io/kubernetes pkg/controller/volume/persistentvolume), nil when
// there is none or the events cannot be read. The field selector is
// applied again to what comes back (fakes ignore it).
func (c Deployer) claimEvent(ctx context.Context, ns, name, uid string) *corev1.Event {
	const kind = "PersistentVolumeClaim"
	fs := fields.Set{"involvedObject.kind": kind, "involvedObject.name": name}
	list, err := c.CS.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: fs.AsSelector().String()})
	if err != nil {
		return nil
	}
	return newestEvent(list.Items, kind, name, uid)
}

// newestEvent picks from evs, about the object kind/name (uid when both
// are set), the newest Warning event, else the newest event; nil for
// none. Pure.
func newestEvent(evs []corev1.Event, kind, name, uid string) *corev1.Event {
	var warning, any *corev1.Event
	for i := range evs {
		ev := &evs[i]
		io := ev.InvolvedObject
		if io.Kind != kind || io.Name != name || (uid != "" && io.UID != "" && string(io.UID) != uid) {
			continue
		}
		if any == nil || rollouts.EventTime(ev).After(rollouts.EventTime(any)) {
			any = ev
		}
		if ev.Type == corev1.EventTypeWarning && (warning == nil || rollouts.EventTime(ev).After(rollouts.EventTime(warning))) {
			warning = ev
		}
	}
	if warning != nil {
		return warning
	}
	return any
}
