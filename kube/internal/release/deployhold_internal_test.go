package release

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// holdPendingPod is a new pod of a rollout, mounting claim (when set), with
// the given scheduled condition and container waiting reason.
func holdPendingPod(name, claim string, unscheduled string, waiting, msg string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if claim != "" {
		p.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
			PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}}}
	}
	if unscheduled != "" {
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
			Reason: "Unschedulable", Message: unscheduled}}
	}
	if waiting != "" {
		p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: "web", State: corev1.ContainerState{
			Waiting: &corev1.ContainerStateWaiting{Reason: waiting, Message: msg}}}}
	}
	return p
}

// TestRolloutHolds (issue 11): a stuck rollout says what holds it — a
// Pending claim's event, the scheduler's message, a waiting reason — and
// a failure the cluster reports leads the step's detail.
func TestRolloutHolds(t *testing.T) {
	pending := map[string]*corev1.PersistentVolumeClaim{"shop-db-data": {Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}}}
	bound := map[string]*corev1.PersistentVolumeClaim{"shop-db-data": {Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimBound}}}
	ev := map[string]*corev1.Event{"shop-db-data": {Reason: "FailedBinding", Type: corev1.EventTypeWarning,
		Message: "no persistent volumes available for this claim and no storage class is set"}}
	deadline := &appsv1.Deployment{Status: appsv1.DeploymentStatus{Conditions: []appsv1.DeploymentCondition{{
		Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse, Reason: "ProgressDeadlineExceeded",
		Message: `ReplicaSet "web-1" has timed out progressing.`}}}}
	for _, tc := range []struct {
		name    string
		d       *appsv1.Deployment
		pods    []*corev1.Pod
		claims  map[string]*corev1.PersistentVolumeClaim
		events  map[string]*corev1.Event
		want    string
		failure string
	}{
		{name: "claim pending, pod unscheduled",
			pods:   []*corev1.Pod{holdPendingPod("db-1", "shop-db-data", "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.", "", "")},
			claims: pending, events: ev,
			want: "FailedBinding: claim shop-db-data is Pending: no persistent volumes available for this claim and no storage class is set; " +
				"Unschedulable: pod db-1 not scheduled: 0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims."},
		{name: "claim pending without an event", pods: []*corev1.Pod{holdPendingPod("db-1", "shop-db-data", "", "", "")}, claims: pending,
			want: "ClaimPending: claim shop-db-data is Pending"},
		{name: "bound claim holds nothing", pods: []*corev1.Pod{holdPendingPod("db-1", "shop-db-data", "", "ContainerCreating", "")}, claims: bound, events: ev,
			want: "ContainerCreating: pod db-1 container web"},
		{name: "image pull first, one per reason",
			pods: []*corev1.Pod{holdPendingPod("web-1", "", "", "ContainerCreating", ""), holdPendingPod("web-2", "", "", "ImagePullBackOff", `Back-off pulling image "nope"`),
				holdPendingPod("web-3", "", "", "ImagePullBackOff", `Back-off pulling image "nope"`)},
			want:    `ImagePullBackOff: pod web-2 container web: Back-off pulling image "nope"; ContainerCreating: pod web-1 container web`,
			failure: `ImagePullBackOff: pod web-2 container web: Back-off pulling image "nope"; ContainerCreating: pod web-1 container web`},
		{name: "progress deadline", d: deadline, want: `ProgressDeadlineExceeded: ReplicaSet "web-1" has timed out progressing.`,
			failure: `ProgressDeadlineExceeded: ReplicaSet "web-1" has timed out progressing.`},
		{name: "nothing read", want: "", failure: "FailedCreate: ReplicaSet web-1 cannot create pods: denied"},
	} {
		hs := rolloutHolds(tc.d, tc.pods, tc.claims, tc.events)
		if got := holdsText(hs); got != tc.want {
			t.Errorf("%s: holds %q\nwant %q", tc.name, got, tc.want)
		}
		if tc.failure != "" {
			msg := "ReplicaSet web-1 cannot create pods: denied"
			if got := failureDetail(hs, msg); got != tc.failure {
				t.Errorf("%s: failure %q\nwant %q", tc.name, got, tc.failure)
			}
		}
	}
	hs := rolloutHolds(nil, []*corev1.Pod{holdPendingPod("db-1", "shop-db-data", "", "", "")}, pending, ev)
	want := "FailedBinding: claim shop-db-data is Pending: no persistent volumes available for this claim and no storage class is set; " +
		"not available after 3m0s: 0 of 1 updated replicas are available"
	if got := timeoutDetail(hs, 3*time.Minute, "0 of 1 updated replicas are available"); got != want {
		t.Errorf("timeout %q\nwant %q", got, want)
	}
}

// TestNewestEvent: a claim's newest Warning event wins; without one, its
// newest event (the PV controller's FailedBinding is Normal).
func TestNewestEvent(t *testing.T) {
	at := func(reason, typ string, sec int, name string) corev1.Event {
		return corev1.Event{Reason: reason, Type: typ, LastTimestamp: metav1.NewTime(time.Unix(int64(sec), 0)),
			InvolvedObject: corev1.ObjectReference{Kind: "PersistentVolumeClaim", Name: name}}
	}
	evs := []corev1.Event{at("FailedBinding", "Normal", 1, "c"), at("ProvisioningFailed", "Warning", 0, "c"), at("Other", "Warning", 9, "d")}
	if got := newestEvent(evs, "PersistentVolumeClaim", "c", ""); got == nil || got.Reason != "ProvisioningFailed" {
		t.Errorf("warning preferred: %+v", got)
	}
	if got := newestEvent(evs[:1], "PersistentVolumeClaim", "c", ""); got == nil || got.Reason != "FailedBinding" {
		t.Errorf("normal when no warning: %+v", got)
	}
	if got := newestEvent(evs, "PersistentVolumeClaim", "x", ""); got != nil {
		t.Errorf("another claim's event: %+v", got)
	}
}

func TestStaticVolumeFor(t *testing.T) {
	pv := func(name, class, claimNS, claim string, phase corev1.PersistentVolumePhase) corev1.PersistentVolume {
		p := corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: corev1.PersistentVolumeSpec{StorageClassName: class},
			Status: corev1.PersistentVolumeStatus{Phase: phase}}
		if claim != "" {
			p.Spec.ClaimRef = &corev1.ObjectReference{Namespace: claimNS, Name: claim}
		}
		return p
	}
	for _, tc := range []struct {
		pvs  []corev1.PersistentVolume
		want string
	}{
		{nil, ""},
		{[]corev1.PersistentVolume{pv("a", "fast", "", "", corev1.VolumeAvailable)}, ""},
		{[]corev1.PersistentVolume{pv("a", "", "apps", "other", corev1.VolumeAvailable)}, ""},
		{[]corev1.PersistentVolume{pv("a", "", "", "", corev1.VolumeReleased)}, ""},
		{[]corev1.PersistentVolume{pv("a", "", "apps", "shop-db-data", corev1.VolumeAvailable)}, "a"},
		{[]corev1.PersistentVolume{pv("a", "", "", "", corev1.VolumeAvailable)}, "a"},
	} {
		if got := staticVolumeFor(tc.pvs, "apps", "shop-db-data"); got != tc.want {
			t.Errorf("staticVolumeFor(%v) = %q, want %q", tc.pvs, got, tc.want)
		}
	}
}
