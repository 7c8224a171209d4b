package kube_test

import (
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/kube"
)

// revision is a ControllerRevision of owner (kind ownerKind), number n,
// whose pods carry controller-revision-hash hash.
func revision(name, ownerKind, owner string, n int64, hash string) *appsv1.ControllerRevision {
	return &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID(name + "-uid"),
			Labels:          map[string]string{"app": "web", "controller-revision-hash": hash},
			OwnerReferences: controller(ownerKind, owner, owner+"-uid")},
		Revision: n,
	}
}

// sts is a StatefulSet "db" of 3 replicas at generation 2, updated from
// revision db-1 to db-2 and complete; set changes it.
func sts(set func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "demo", UID: "db-uid", Generation: 2},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr(int32(3)),
			Selector: &metav1.LabelSelector{MatchLabels: webLabels},
			Template: template("db:v2", nil),
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr(int32(0))}},
		},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, AvailableReplicas: 3,
			UpdatedReplicas: 3, CurrentReplicas: 3, CurrentRevision: "db-2", UpdateRevision: "db-2"},
	}
	if set != nil {
		set(s)
	}
	return s
}

func stsPod(name, rev, waiting string) *corev1.Pod {
	return pod(name, "StatefulSet", "db", map[string]string{"controller-revision-hash": rev}, waiting)
}

var dbRef = kube.WorkloadRef{Kind: kube.KindStatefulSets, Namespace: "demo", Name: "db"}

func TestRolloutStatusStatefulSet(t *testing.T) {
	revs := []runtime.Object{revision("db-1", "StatefulSet", "db", 1, "db-1"), revision("db-2", "StatefulSet", "db", 2, "db-2")}
	objs := func(s *appsv1.StatefulSet, pods ...runtime.Object) []runtime.Object {
		return append(append([]runtime.Object{s}, revs...), pods...)
	}
	updated := []runtime.Object{stsPod("db-0", "db-2", ""), stsPod("db-1", "db-2", ""), stsPod("db-2", "db-2", "")}
	mixed := []runtime.Object{stsPod("db-0", "db-1", ""), stsPod("db-1", "db-1", ""), stsPod("db-2", "db-2", "")}
	midway := func(s *appsv1.StatefulSet) {
		s.Status.UpdatedReplicas, s.Status.CurrentReplicas, s.Status.CurrentRevision = 1, 2, "db-1"
	}
	partitioned := func(updated int32) func(*appsv1.StatefulSet) {
		return func(s *appsv1.StatefulSet) {
			midway(s)
			s.Status.UpdatedReplicas = updated
			s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr(int32(2))
		}
	}
	runRollout(t, []rolloutCase{
		{
			name: "complete", objs: objs(sts(nil), updated...), ref: dbRef,
			phase: kube.RolloutComplete, message: "rolling update complete: 3 pods at revision db-2",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if st.NewRevision != "db-2" || st.Revision != "2" || st.OldRevisions != nil {
					t.Errorf("revisions %q %q %q", st.NewRevision, st.Revision, st.OldRevisions)
				}
				if st.Desired != 3 || st.Updated != 3 || st.Ready != 3 || st.Available != 3 {
					t.Errorf("counts %+v", st)
				}
			},
		},
		{
			name: "updating", objs: objs(sts(midway), mixed...), ref: dbRef,
			phase: kube.RolloutProgressing, message: "1 out of 3 new pods have been updated",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if !reflect.DeepEqual(st.OldRevisions, []string{"db-1 (rev 1)"}) {
					t.Errorf("old revisions %q", st.OldRevisions)
				}
			},
			wantPods: []kube.RolloutPod{
				{Name: "db-2", Ready: "1/1", Status: "Running", New: true},
				{Name: "db-0", Ready: "1/1", Status: "Running"},
				{Name: "db-1", Ready: "1/1", Status: "Running"},
			},
		},
		{
			name: "all updated, revision not yet current",
			objs: objs(sts(func(s *appsv1.StatefulSet) { s.Status.CurrentRevision = "db-1" }), updated...), ref: dbRef,
			phase: kube.RolloutProgressing, message: "waiting for the rolling update to complete: 3 pods at revision db-2",
		},
		{
			name: "not ready", objs: objs(sts(func(s *appsv1.StatefulSet) { s.Status.ReadyReplicas = 1 }), updated...), ref: dbRef,
			phase: kube.RolloutProgressing, message: "waiting for 2 pods to be ready",
		},
		{
			name: "generation not observed", objs: objs(sts(func(s *appsv1.StatefulSet) { s.Generation = 3 }), updated...), ref: dbRef,
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "never observed", objs: objs(sts(func(s *appsv1.StatefulSet) { s.Status.ObservedGeneration = 0 }), updated...), ref: dbRef,
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "partition reached", objs: objs(sts(partitioned(1)), mixed...), ref: dbRef,
			phase: kube.RolloutComplete, message: "partitioned rollout complete: 1 new pods have been updated (partition 2)",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if !reflect.DeepEqual(st.OldRevisions, []string{"db-1 (rev 1)"}) {
					t.Errorf("old revisions %q", st.OldRevisions)
				}
			},
		},
		{
			name: "partition not reached", objs: objs(sts(partitioned(0)), stsPod("db-0", "db-1", "")), ref: dbRef,
			phase: kube.RolloutProgressing, message: "waiting for partitioned rollout to finish: 0 out of 1 new pods have been updated",
		},
		{
			name: "OnDelete", ref: dbRef,
			objs: objs(sts(func(s *appsv1.StatefulSet) {
				midway(s)
				s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
			}), mixed...),
			phase: kube.RolloutUnfollowed, message: "updateStrategy OnDelete",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if len(st.Pods) != 3 || st.Updated != 1 {
					t.Errorf("counts and pods are still read: %+v", st)
				}
			},
		},
		{
			// The tester's trial: applied to an OnDelete StatefulSet, the first
			// read showed the old updateRevision as "updated 2/2", unfollowed.
			name: "OnDelete, change not observed", ref: dbRef,
			objs: objs(sts(func(s *appsv1.StatefulSet) {
				s.Generation = 3
				s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
			})),
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "new pod failing to pull", ref: dbRef,
			objs:  objs(sts(midway), stsPod("db-0", "db-1", ""), stsPod("db-1", "db-1", ""), stsPod("db-2", "db-2", "ImagePullBackOff")),
			phase: kube.RolloutFailed, message: "pod db-2: container web: ImagePullBackOff",
		},
	})
}

// ds is a DaemonSet "agent" on 2 nodes at generation 3 (template generation
// 2), complete at revision agent-new; set changes it.
func ds(set func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	d := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "demo", UID: "agent-uid", Generation: 3,
			Annotations: map[string]string{"deprecated.daemonset.template.generation": "2"}},
		Spec: appsv1.DaemonSetSpec{
			Selector:       &metav1.LabelSelector{MatchLabels: webLabels},
			Template:       template("agent:v2", nil),
			UpdateStrategy: appsv1.DaemonSetUpdateStrategy{Type: appsv1.RollingUpdateDaemonSetStrategyType},
		},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 3, DesiredNumberScheduled: 2, CurrentNumberScheduled: 2,
			UpdatedNumberScheduled: 2, NumberReady: 2, NumberAvailable: 2},
	}
	if set != nil {
		set(d)
	}
	return d
}

func dsPod(name, hash, generation, waiting string) *corev1.Pod {
	l := map[string]string{"controller-revision-hash": hash}
	if generation != "" {
		l["pod-template-generation"] = generation
	}
	return pod(name, "DaemonSet", "agent", l, waiting)
}

var agentRef = kube.WorkloadRef{Kind: kube.KindDaemonSets, Namespace: "demo", Name: "agent"}

func TestRolloutStatusDaemonSet(t *testing.T) {
	revs := []runtime.Object{revision("agent-old", "DaemonSet", "agent", 1, "old"), revision("agent-new", "DaemonSet", "agent", 2, "new"),
		// A revision of another DaemonSet whose labels the selector matches.
		revision("other-newer", "DaemonSet", "other", 9, "newer")}
	objs := func(d *appsv1.DaemonSet, pods ...runtime.Object) []runtime.Object {
		return append(append([]runtime.Object{d}, revs...), pods...)
	}
	midway := func(d *appsv1.DaemonSet) { d.Status.UpdatedNumberScheduled = 1 }
	runRollout(t, []rolloutCase{
		{
			name: "complete", objs: objs(ds(nil), dsPod("agent-a", "new", "2", ""), dsPod("agent-b", "new", "2", "")), ref: agentRef,
			phase: kube.RolloutComplete, message: "successfully rolled out",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if st.NewRevision != "agent-new" || st.Revision != "2" || st.OldRevisions != nil {
					t.Errorf("revisions %q %q %q", st.NewRevision, st.Revision, st.OldRevisions)
				}
				if st.Desired != 2 || st.Updated != 2 || st.Ready != 2 || st.Available != 2 {
					t.Errorf("counts %+v", st)
				}
			},
		},
		{
			name: "updating", objs: objs(ds(midway), dsPod("agent-a", "old", "1", ""), dsPod("agent-b", "new", "2", "")), ref: agentRef,
			phase: kube.RolloutProgressing, message: "1 out of 2 new pods have been updated",
			want: func(t *testing.T, st kube.RolloutStatus) {
				if !reflect.DeepEqual(st.OldRevisions, []string{"agent-old (rev 1)"}) {
					t.Errorf("old revisions %q", st.OldRevisions)
				}
			},
			wantPods: []kube.RolloutPod{
				{Name: "agent-b", Ready: "1/1", Status: "Running", New: true},
				{Name: "agent-a", Ready: "1/1", Status: "Running"},
			},
		},
		{
			name: "new by template generation alone", objs: objs(ds(midway), dsPod("agent-a", "", "2", "")), ref: agentRef,
			phase:    kube.RolloutProgressing,
			wantPods: []kube.RolloutPod{{Name: "agent-a", Ready: "1/1", Status: "Running", New: true}},
		},
		{
			name: "not yet available", objs: objs(ds(func(d *appsv1.DaemonSet) { d.Status.NumberAvailable = 1 })), ref: agentRef,
			phase: kube.RolloutProgressing, message: "1 of 2 updated pods are available",
		},
		{
			name: "generation not observed", objs: objs(ds(func(d *appsv1.DaemonSet) { d.Generation = 4 })), ref: agentRef,
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "OnDelete", ref: agentRef,
			objs: objs(ds(func(d *appsv1.DaemonSet) {
				midway(d)
				d.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
			})),
			phase: kube.RolloutUnfollowed, message: "updateStrategy OnDelete",
		},
		{
			// Right after an apply: the counts are the old template's until
			// the controller observed it, so the rollout is read again.
			name: "OnDelete, change not observed", ref: agentRef,
			objs: objs(ds(func(d *appsv1.DaemonSet) {
				d.Generation = 4
				d.Spec.UpdateStrategy = appsv1.DaemonSetUpdateStrategy{Type: appsv1.OnDeleteDaemonSetStrategyType}
			})),
			phase: kube.RolloutProgressing, message: "waiting for the controller to observe the change",
		},
		{
			name: "new pod crash-looping", ref: agentRef,
			objs:  objs(ds(midway), dsPod("agent-a", "old", "1", ""), dsPod("agent-b", "new", "2", "CrashLoopBackOff")),
			phase: kube.RolloutFailed, message: "pod agent-b: container web: CrashLoopBackOff",
		},
	})
}
