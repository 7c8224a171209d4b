package kube_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// Fixtures of a Deployment "web" in namespace "demo" that moved from image
// v1 (ReplicaSet web-old, revision 1) to v2 (ReplicaSet web-new, revision 2).

var webLabels = map[string]string{"app": "web"}

func template(image string, extra map[string]string) corev1.PodTemplateSpec {
	l := map[string]string{"app": "web"}
	for k, v := range extra {
		l[k] = v
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: l},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: image}}},
	}
}

func ptr[T any](v T) *T { return &v }

// dep is a Deployment at generation 2, observed, wanting 3 replicas of v2;
// its status is filled by the caller through set.
func dep(set func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "dep-uid", Generation: 2},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: webLabels},
			Template: template("web:v2", nil),
		},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3, ReadyReplicas: 3, AvailableReplicas: 3},
	}
	if set != nil {
		set(d)
	}
	return d
}

func controller(kind, name, uid string) []metav1.OwnerReference {
	return []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: kind, Name: name, UID: types.UID(uid), Controller: ptr(true)}}
}

func rs(name, hash, rev, image string, want, have int32, set func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	r := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: "demo", UID: types.UID(name + "-uid"),
			Labels:            map[string]string{"app": "web", "pod-template-hash": hash},
			Annotations:       map[string]string{"deployment.kubernetes.io/revision": rev},
			OwnerReferences:   controller("Deployment", "web", "dep-uid"),
			CreationTimestamp: metav1.NewTime(time.Date(2026, 1, 1, 0, 0, len(rev), 0, time.UTC)),
		},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr(want),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "pod-template-hash": hash}},
			Template: template(image, map[string]string{"pod-template-hash": hash}),
		},
		Status: appsv1.ReplicaSetStatus{Replicas: have},
	}
	if set != nil {
		set(r)
	}
	return r
}

// pod is a Running, ready pod controlled by ownerKind/owner, labelled labels
// plus app=web; waiting, when set, makes its container wait for that reason.
func pod(name, ownerKind, owner string, l map[string]string, waiting string) *corev1.Pod {
	all := map[string]string{"app": "web"}
	for k, v := range l {
		all[k] = v
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", Labels: all,
			OwnerReferences: controller(ownerKind, owner, owner+"-uid")},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			ContainerStatuses: []corev1.ContainerStatus{{Name: "web", Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
	if waiting != "" {
		p.Status.Phase = corev1.PodPending
		p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: "web",
			State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: waiting, Message: "details of " + waiting}}}
	}
	return p
}

func newPod(name, waiting string) *corev1.Pod {
	return pod(name, "ReplicaSet", "web-new", map[string]string{"pod-template-hash": "new"}, waiting)
}

func oldPod(name, waiting string) *corev1.Pod {
	return pod(name, "ReplicaSet", "web-old", map[string]string{"pod-template-hash": "old"}, waiting)
}

func failedCreate(at time.Time) *corev1.Event {
	return &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "web-new.1", Namespace: "demo"},
		InvolvedObject: corev1.ObjectReference{Kind: "ReplicaSet", Name: "web-new", Namespace: "demo", UID: "web-new-uid"},
		Reason:         "FailedCreate", Type: corev1.EventTypeWarning,
		Message:       `Error creating: pods "web-new-" is forbidden: violates PodSecurity "restricted"`,
		LastTimestamp: metav1.NewTime(at),
	}
}

type rolloutCase struct {
	name string
	objs []runtime.Object
	ref  kube.WorkloadRef
	// want holds the fields compared; Pods only when wantPods is set.
	phase    kube.RolloutPhase
	message  string // a substring of Message
	want     func(t *testing.T, st kube.RolloutStatus)
	wantPods []kube.RolloutPod
}

func runRollout(t *testing.T, cases []rolloutCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := kubetest.FakeClient(t, tc.objs...)
			st, err := c.RolloutStatus(context.Background(), tc.ref)
			if err != nil {
				t.Fatal(err)
			}
			if st.Phase != tc.phase || !strings.Contains(st.Message, tc.message) {
				t.Fatalf("phase %q message %q, want %q with %q", st.Phase, st.Message, tc.phase, tc.message)
			}
			if st.Ref.Kind == "" || st.Ref.Name != tc.ref.Name {
				t.Errorf("ref %+v", st.Ref)
			}
			if tc.wantPods != nil && !reflect.DeepEqual(st.Pods, tc.wantPods) {
				t.Errorf("pods\n got %+v\nwant %+v", st.Pods, tc.wantPods)
			}
			if tc.want != nil {
				tc.want(t, st)
			}
		})
	}
}

var webRef = kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}

func TestRolloutStatusDeployment(t *testing.T) {
	newRS := rs("web-new", "new", "2", "web:v2", 3, 3, nil)
	oldRS := rs("web-old", "old", "1", "web:v1", 0, 0, nil)
	running := []runtime.Object{newRS, oldRS, newPod("web-new-a", ""), newPod("web-new-b", ""), newPod("web-new-c", "")}
	objs := func(d *appsv1.Deployment, more ...runtime.Object) []runtime.Object {
		return append([]runtime.Object{d}, more...)
	}
	halfway := []runtime.Object{
		rs("web-new", "new", "2", "web:v2", 2, 2, nil), rs("web-old", "old", "1", "web:v1", 1, 1, nil),
		oldPod("web-old-z", ""), newPod("web-new-b", ""), newPod("web-new-a", ""),
		// A pod the selector matches that no ReplicaSet of web controls.
		pod("stray", "ReplicaSet", "other", nil, ""),
	}
	readyCond := []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}
	readyNew, going := newPod("web-new-a", ""), oldPod("web-old-z", "")
	readyNew.Status.Conditions, going.Status.Conditions = readyCond, readyCond
	going.DeletionTimestamp, going.Finalizers = &metav1.Time{Time: time.Now()}, []string{"kyyard.dev/test"}
	runRollout(t, []rolloutCase{
		{
			// The view draws ready new pods, and only pods being deleted as
			// terminating (a ready pod being deleted is not ready).
			name: "ready and terminating pods",
			objs: objs(dep(func(d *appsv1.Deployment) { d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 2, 3 }),
				rs("web-new", "new", "2", "web:v2", 2, 2, nil), rs("web-old", "old", "1", "web:v1", 1, 1, nil),
				readyNew, newPod("web-new-b", ""), going),
			ref: webRef, phase: kube.RolloutProgressing, message: "2 out of 3 new replicas have been updated",
			wantPods: []kube.RolloutPod{
				{Name: "web-new-a", Ready: "1/1", Status: "Running", New: true, PodReady: true},
				{Name: "web-new-b", Ready: "1/1", Status: "Running", New: true},
				{Name: "web-old-z", Ready: "1/1", Status: "Terminating", Terminating: true},
			},
		},
		{
			name: "complete", objs: objs(dep(nil), running...), ref: webRef,
			phase: kube.RolloutComplete, message: "successfully rolled out",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if st.NewRevision != "web-new" || st.Revision != "2" || st.OldRevisions != nil {
					t.Errorf("revisions %q %q %q", st.NewRevision, st.Revision, st.OldRevisions)
				}
				if st.Desired != 3 || st.Updated != 3 || st.Ready != 3 || st.Available != 3 || st.ObservedGeneration != 2 {
					t.Errorf("counts %+v", st)
				}
			},
			wantPods: []kube.RolloutPod{
				{Name: "web-new-a", Ready: "1/1", Status: "Running", New: true},
				{Name: "web-new-b", Ready: "1/1", Status: "Running", New: true},
				{Name: "web-new-c", Ready: "1/1", Status: "Running", New: true},
			},
		},
		{
			name: "alias kind", objs: objs(dep(nil), running...),
			ref:   kube.WorkloadRef{Kind: "deploy", Namespace: "demo", Name: "web"},
			phase: kube.RolloutComplete,
			want: func(t *testing.T, st kube.RolloutStatus) {
				if st.Ref.Kind != kube.KindDeployments {
					t.Errorf("kind %q, want the plugin id", st.Ref.Kind)
				}
			},
		},
		{
			name:  "generation not observed",
			objs:  objs(dep(func(d *appsv1.Deployment) { d.Generation = 3 }), running...),
			ref:   webRef,
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "updating",
			objs: objs(dep(func(d *appsv1.Deployment) {
				d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 2, 3
			}), halfway...),
			ref: webRef, phase: kube.RolloutProgressing, message: "2 out of 3 new replicas have been updated",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if !reflect.DeepEqual(st.OldRevisions, []string{"web-old (rev 1)"}) {
					t.Errorf("old revisions %q", st.OldRevisions)
				}
			},
			wantPods: []kube.RolloutPod{
				{Name: "web-new-a", Ready: "1/1", Status: "Running", New: true},
				{Name: "web-new-b", Ready: "1/1", Status: "Running", New: true},
				{Name: "web-old-z", Ready: "1/1", Status: "Running"},
			},
		},
		{
			name:  "old replicas terminating",
			objs:  objs(dep(func(d *appsv1.Deployment) { d.Status.Replicas = 4 }), running...),
			ref:   webRef,
			phase: kube.RolloutProgressing, message: "1 old replicas are pending termination",
		},
		{
			name:  "not yet available",
			objs:  objs(dep(func(d *appsv1.Deployment) { d.Status.AvailableReplicas = 1 }), running...),
			ref:   webRef,
			phase: kube.RolloutProgressing, message: "1 of 3 updated replicas are available",
		},
		{
			name: "progress deadline exceeded",
			objs: objs(dep(func(d *appsv1.Deployment) {
				d.Status.UpdatedReplicas = 1
				d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
					Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "web-new" has timed out progressing.`}}
			}), running...),
			ref: webRef, phase: kube.RolloutFailed, message: `ReplicaSet "web-new" has timed out progressing.`,
		},
		{
			name: "new ReplicaSet not created",
			objs: objs(dep(func(d *appsv1.Deployment) {
				d.Status.UpdatedReplicas = 0
				d.Status.Conditions = []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionFalse,
					Reason: "ReplicaSetCreateError", Message: `Failed to create new replica set "web-new": exceeded quota`}}
			}), oldRS),
			ref: webRef, phase: kube.RolloutFailed, message: `Failed to create new replica set "web-new": exceeded quota`,
		},
		{
			name:  "paused",
			objs:  objs(dep(func(d *appsv1.Deployment) { d.Spec.Paused, d.Status.UpdatedReplicas = true, 0 }), running...),
			ref:   webRef,
			phase: kube.RolloutPaused, message: "paused: the rollout is not waited for; resume it",
		},
	})
}

func TestRolloutStatusDeploymentFailures(t *testing.T) {
	d := dep(func(d *appsv1.Deployment) { d.Status.UpdatedReplicas, d.Status.AvailableReplicas = 1, 2 })
	newRS := rs("web-new", "new", "2", "web:v2", 1, 1, nil)
	oldRS := rs("web-old", "old", "1", "web:v1", 2, 2, nil)
	sets := []runtime.Object{d, newRS, oldRS, oldPod("web-old-y", ""), oldPod("web-old-z", "")}
	with := func(more ...runtime.Object) []runtime.Object {
		return append(append([]runtime.Object{}, sets...), more...)
	}
	short := func(set func(*appsv1.ReplicaSet)) []runtime.Object {
		return []runtime.Object{d, rs("web-new", "new", "2", "web:v2", 1, 0, set), oldRS, oldPod("web-old-y", ""), oldPod("web-old-z", "")}
	}
	initCrash := newPod("web-new-i", "")
	initCrash.Status.InitContainerStatuses = []corev1.ContainerStatus{{Name: "migrate",
		State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff"}}}}
	replicaFailure := func(r *appsv1.ReplicaSet) {
		r.Status.Conditions = []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue,
			Reason: "FailedCreate", Message: "pods \"web-new-\" is forbidden: quota"}}
	}
	var cases []rolloutCase
	for _, reason := range []string{"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "InvalidImageName", "CreateContainerConfigError"} {
		cases = append(cases, rolloutCase{
			name: "new pod " + reason, objs: with(newPod("web-new-a", reason)), ref: webRef,
			phase: kube.RolloutFailed, message: "pod web-new-a: container web: " + reason + ": details of " + reason,
			want: func(t *testing.T, st kube.RolloutStatus) {
				if len(st.Pods) != 3 || !st.Pods[0].New || st.Pods[0].Status != reason || st.Pods[0].Ready != "0/1" {
					t.Errorf("pods %+v", st.Pods)
				}
			},
		})
	}
	cases = append(cases,
		rolloutCase{
			name: "old pod crash-looping is not the rollout's failure", objs: with(newPod("web-new-a", ""), oldPod("web-old-x", "CrashLoopBackOff")),
			ref: webRef, phase: kube.RolloutProgressing, message: "1 out of 3 new replicas have been updated",
		},
		rolloutCase{
			name: "new pod's init container crash-looping", objs: with(initCrash), ref: webRef,
			phase: kube.RolloutFailed, message: "pod web-new-i: container migrate: CrashLoopBackOff",
		},
		rolloutCase{
			name: "ReplicaFailure condition with the FailedCreate event", objs: append(short(replicaFailure), failedCreate(time.Now().Add(-time.Hour))),
			ref: webRef, phase: kube.RolloutFailed,
			message: `ReplicaSet web-new cannot create pods: Error creating: pods "web-new-" is forbidden: violates PodSecurity "restricted"`,
		},
		rolloutCase{
			name: "ReplicaFailure condition without an event", objs: short(replicaFailure),
			ref: webRef, phase: kube.RolloutFailed, message: `ReplicaSet web-new cannot create pods: pods "web-new-" is forbidden: quota`,
		},
		rolloutCase{
			name: "recent FailedCreate event while pods are missing", objs: append(short(nil), failedCreate(time.Now())),
			ref: webRef, phase: kube.RolloutFailed, message: `violates PodSecurity "restricted"`,
		},
		rolloutCase{
			name: "an hour-old FailedCreate event is over", objs: append(short(nil), failedCreate(time.Now().Add(-time.Hour))),
			ref: webRef, phase: kube.RolloutProgressing, message: "1 out of 3 new replicas have been updated",
		},
	)
	runRollout(t, cases)
}

// TestRolloutStatusDeploymentRequests counts a reading's requests: a get and
// two lists, and a list of events only when the new ReplicaSet lacks pods.
func TestRolloutStatusDeploymentRequests(t *testing.T) {
	for _, tc := range []struct {
		name string
		have int32
		want []string
	}{
		{"pods all made", 3, []string{"get deployments", "list replicasets", "list pods"}},
		{"pods missing", 1, []string{"get deployments", "list replicasets", "list pods", "list events"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, cs := kubetest.FakeClient(t, dep(nil), rs("web-new", "new", "2", "web:v2", 3, tc.have, nil))
			cs.ClearActions()
			if _, err := c.RolloutStatus(context.Background(), webRef); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range cs.Actions() {
				got = append(got, a.GetVerb()+" "+a.GetResource().Resource)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("requests %q, want %q", got, tc.want)
			}
		})
	}
}

// TestRolloutStatusMissingAndUID: a workload that is gone is a reading
// with Missing set and no error; one that is there carries its UID.
func TestRolloutStatusMissingAndUID(t *testing.T) {
	c, _ := kubetest.FakeClient(t, dep(nil))
	ctx := context.Background()
	for _, kind := range []kube.Kind{kube.KindDeployments, kube.KindStatefulSets, kube.KindDaemonSets} {
		ref := kube.WorkloadRef{Kind: kind, Namespace: "demo", Name: "gone"}
		st, err := c.RolloutStatus(ctx, ref)
		if err != nil || !st.Missing || st.Ref != ref || st.UID != "" {
			t.Errorf("%s: %+v, %v; want Missing and no error", ref, st, err)
		}
	}
	st, err := c.RolloutStatus(ctx, webRef)
	if err != nil || st.Missing || st.UID != "dep-uid" {
		t.Errorf("%s: Missing %v UID %q, %v; want UID dep-uid", webRef, st.Missing, st.UID, err)
	}
}

func TestRolloutStatusErrors(t *testing.T) {
	c, cs := kubetest.FakeClient(t, dep(nil))
	ctx := context.Background()
	for _, tc := range []struct {
		ref  kube.WorkloadRef
		want kube.Reason
	}{
		{kube.WorkloadRef{Kind: "pods", Namespace: "demo", Name: "web"}, kube.ReasonInvalid},
		{kube.WorkloadRef{Kind: "jobs", Namespace: "demo", Name: "web"}, kube.ReasonInvalid},
	} {
		_, err := c.RolloutStatus(ctx, tc.ref)
		if got := kube.ReasonOf(err); got != tc.want {
			t.Errorf("%s: reason %q (%v), want %q", tc.ref, got, err, tc.want)
		}
	}
	cs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", errors.New("RBAC"))
	})
	_, err := c.RolloutStatus(ctx, webRef)
	if kube.ReasonOf(err) != kube.ReasonForbidden || !strings.Contains(err.Error(), "demo/deployments/web") {
		t.Errorf("forbidden pods: %v (%q)", err, kube.ReasonOf(err))
	}
}
