package rollouts

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// failedCreateFreshness is how recent a FailedCreate event must be to fail
// a rollout on its own, without the ReplicaSet's ReplicaFailure condition:
// the events spam filter lets an object's repeated event through once per
// 5 minutes (k8s.io/client-go tools/record), so an older one is over.
const failedCreateFreshness = 5 * time.Minute

// podReading is a workload's pods as Reader.Status shows them.
type podReading struct {
	// rows are the pods, new ones first, each group by name.
	rows []vocab.RolloutPod
	// failure names the first new pod (by name) whose container cannot
	// start (vocab.PodCannotStart), and why; "" when none does.
	failure string
}

// workloadPods lists the pods sel matches in namespace, keeps those whose
// controller is one of owners (UIDs), and marks new the ones isNew says
// are (given the pod's labels and its controller's UID).
func (r Reader) workloadPods(ctx context.Context, namespace string, sel labels.Selector, owners map[string]bool,
	isNew func(labels map[string]string, owner string) bool) (podReading, error) {
	list, err := r.CS.CoreV1().Pods(namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return podReading{}, err
	}
	var out podReading
	for i := range list.Items {
		pod := &list.Items[i]
		ref := metav1.GetControllerOf(pod)
		if ref == nil || !owners[string(ref.UID)] {
			continue
		}
		row := r.rolloutPod(pod)
		row.New = isNew(pod.Labels, string(ref.UID))
		out.rows = append(out.rows, row)
	}
	sortRolloutPods(out.rows)
	byName := map[string]*corev1.Pod{}
	for i := range list.Items {
		byName[list.Items[i].Name] = &list.Items[i]
	}
	for _, row := range out.rows {
		if !row.New {
			continue
		}
		if msg := podFailure(byName[row.Name]); msg != "" {
			out.failure = msg
			break
		}
	}
	return out, nil
}

// sortRolloutPods orders pods new ones first, each group by name (the
// order of vocab.RolloutStatus's and Inspection's Pods).
func sortRolloutPods(pods []vocab.RolloutPod) {
	sort.Slice(pods, func(i, j int) bool {
		if pods[i].New != pods[j].New {
			return pods[i].New
		}
		return pods[i].Name < pods[j].Name
	})
}

// rolloutPod is a pod's name with kubectl's READY and STATUS, taken from the
// pods plugin's row (package kinds computes them the way kubectl's printer
// does; without a pods plugin, STATUS is the pod's phase), whether its
// Ready condition is True (the first of that type, as kubectl reads it)
// and whether it is being deleted.
func (r Reader) rolloutPod(pod *corev1.Pod) vocab.RolloutPod {
	out := vocab.RolloutPod{Name: pod.Name, Status: string(pod.Status.Phase), Terminating: pod.DeletionTimestamp != nil}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			out.PodReady = c.Status == corev1.ConditionTrue && !out.Terminating
			break
		}
	}
	if r.Lookup == nil {
		return out
	}
	p, ok := r.Lookup("pods")
	if !ok {
		return out
	}
	row, ok := p.Row(pod)
	if !ok {
		return out
	}
	out.Status = row.Status
	for i, col := range p.Info().Columns {
		if col.Name == "READY" && i < len(row.Cells) {
			out.Ready = row.Cells[i].Text
		}
	}
	return out
}

// podFailure says why a pod fails a rollout: "pod web-7c9d5-x2k: container
// web: ImagePullBackOff: Back-off pulling image ..." for the container
// vocab.PodCannotStart names; "" otherwise, and for a pod being deleted.
func podFailure(pod *corev1.Pod) string {
	name, reason, message, ok := vocab.PodCannotStart(pod)
	if !ok {
		return ""
	}
	msg := fmt.Sprintf("pod %s: container %s: %s", pod.Name, name, reason)
	if message != "" {
		msg += ": " + message
	}
	return msg
}

// replicaSetFailure says why a Deployment's new ReplicaSet cannot create
// its pods, or "". The ReplicaSet controller sets a ReplicaFailure
// condition when a create fails (admission refused it, a quota is
// exhausted) and records a FailedCreate Warning event with the API
// server's answer; the event's text is preferred, the condition's message
// stands in when no event is left. Without the condition, a FailedCreate
// event fails the rollout only while the ReplicaSet has fewer pods than it
// wants and the event is recent (failedCreateFreshness). Events are listed
// only in those two cases.
func (r Reader) replicaSetFailure(ctx context.Context, rs *appsv1.ReplicaSet) (string, error) {
	var cond *appsv1.ReplicaSetCondition
	for i := range rs.Status.Conditions {
		ci := &rs.Status.Conditions[i]
		if ci.Type == appsv1.ReplicaSetReplicaFailure && ci.Status == corev1.ConditionTrue {
			cond = ci
		}
	}
	short := rs.Status.Replicas < objects.ReplicasOf(rs.Spec.Replicas)
	if cond == nil && !short {
		return "", nil
	}
	ev, err := r.failedCreate(ctx, rs)
	if err != nil {
		return "", err
	}
	prefix := fmt.Sprintf("ReplicaSet %s cannot create pods: ", rs.Name)
	switch {
	case ev != nil && (cond != nil || time.Since(EventTime(ev)) <= failedCreateFreshness):
		return prefix + ev.Message, nil
	case cond != nil:
		return prefix + cond.Message, nil
	}
	return "", nil
}

// failedCreate returns the newest FailedCreate Warning event of rs, or nil.
// The API server selects events on involvedObject.* and reason (core/v1
// events' selectable fields); the same test is applied again to what comes
// back, for servers (and fakes) that ignore field selectors.
func (r Reader) failedCreate(ctx context.Context, rs *appsv1.ReplicaSet) (*corev1.Event, error) {
	fs := fields.Set{
		"involvedObject.kind": "ReplicaSet",
		"involvedObject.name": rs.Name,
		"involvedObject.uid":  string(rs.UID),
		"reason":              "FailedCreate",
	}
	list, err := r.CS.CoreV1().Events(rs.Namespace).List(ctx, metav1.ListOptions{FieldSelector: fs.AsSelector().String()})
	if err != nil {
		return nil, err
	}
	var newest *corev1.Event
	for i := range list.Items {
		ev := &list.Items[i]
		io := ev.InvolvedObject
		if io.Kind != "ReplicaSet" || io.Name != rs.Name || (io.UID != "" && io.UID != rs.UID) ||
			ev.Reason != "FailedCreate" || ev.Type != corev1.EventTypeWarning {
			continue
		}
		if newest == nil || EventTime(ev).After(EventTime(newest)) {
			newest = ev
		}
	}
	return newest, nil
}

// EventTime is when an event was last seen: its series' last observation,
// lastTimestamp, eventTime or firstTimestamp, whichever is set first (the
// order `kubectl events` uses).
func EventTime(ev *corev1.Event) time.Time {
	switch {
	case ev.Series != nil && !ev.Series.LastObservedTime.IsZero():
		return ev.Series.LastObservedTime.Time
	case !ev.LastTimestamp.IsZero():
		return ev.LastTimestamp.Time
	case !ev.EventTime.IsZero():
		return ev.EventTime.Time
	}
	return ev.FirstTimestamp.Time
}
