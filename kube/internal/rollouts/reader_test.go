package rollouts

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/kube/vocab"
)

// The black-box tests of package kube (rollout_test.go, rollout_sets_test.go,
// inspect_test.go) drive these reads through *kube.Client. These drive the
// package on its own plain inputs: a clientset, a kind resolver and a
// plugin lookup, without the Client.

// reader is a Reader over cs with the built-in plugins, as kube builds one.
func reader(cs *fake.Clientset) Reader {
	reg := kinds.Builtin()
	return Reader{
		CS: cs,
		KindInfo: func(k vocab.Kind) vocab.KindInfo {
			if p, ok := reg.Lookup(string(k)); ok {
				return p.Info()
			}
			return vocab.KindInfo{ID: k}
		},
		Lookup: reg.Lookup,
	}
}

// TestWorkloadKindIsTheKindsWithARollout: of the built-in kinds, exactly the
// Deployments, StatefulSets and DaemonSets have a rollout; every other kind
// is refused as invalid (vocab.ErrInvalid, ReasonOf invalid), and so is a
// name no plugin serves.
func TestWorkloadKindIsTheKindsWithARollout(t *testing.T) {
	var with []vocab.Kind
	for _, info := range append(kinds.Builtin().Kinds(), vocab.KindInfo{ID: "widgets"}) {
		id, err := WorkloadKind(info)
		if err != nil {
			if !errors.Is(err, vocab.ErrInvalid) || vocab.ReasonOf(err) != vocab.ReasonInvalid {
				t.Errorf("WorkloadKind(%s) = %v: want an error wrapping vocab.ErrInvalid", info.ID, err)
			}
			continue
		}
		if id != info.ID {
			t.Errorf("WorkloadKind(%s) = %q, want the kind's id", info.ID, id)
		}
		with = append(with, id)
	}
	slices.Sort(with)
	if want := []vocab.Kind{"daemonsets", "deployments", "statefulsets"}; !slices.Equal(with, want) {
		t.Errorf("kinds with a rollout = %q, want %q", with, want)
	}
}

// TestEventTimeTakesTheFirstSetTime: an event's time is its series' last
// observation, else lastTimestamp, else eventTime, else firstTimestamp
// (`kubectl events`' order), whatever the later fields hold.
func TestEventTimeTakesTheFirstSetTime(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 1, 1, 0, min, 0, 0, time.UTC) }
	first := corev1.Event{FirstTimestamp: metav1.NewTime(at(1))}
	micro := first
	micro.EventTime = metav1.NewMicroTime(at(2))
	last := micro
	last.LastTimestamp = metav1.NewTime(at(3))
	series := last
	series.Series = &corev1.EventSeries{LastObservedTime: metav1.NewMicroTime(at(4))}
	emptySeries := last
	emptySeries.Series = &corev1.EventSeries{}
	for _, tc := range []struct {
		name string
		ev   corev1.Event
		want time.Time
	}{
		{"firstTimestamp", first, at(1)},
		{"eventTime", micro, at(2)},
		{"lastTimestamp", last, at(3)},
		{"series", series, at(4)},
		{"series without an observation", emptySeries, at(3)},
	} {
		if got := EventTime(&tc.ev); !got.Equal(tc.want) {
			t.Errorf("%s: EventTime = %v, want %v", tc.name, got, tc.want)
		}
	}
}

// sts is a StatefulSet "db" in "demo", one replica, rolled out to revision
// db-2 (revision 2), with its ControllerRevision and its one ready pod.
func sts() (*appsv1.StatefulSet, *appsv1.ControllerRevision, *corev1.Pod) {
	s := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "demo", UID: "sts-uid", Generation: 2},
		Spec: appsv1.StatefulSetSpec{
			Replicas: func() *int32 { n := int32(1); return &n }(),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
		},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1,
			UpdatedReplicas: 1, AvailableReplicas: 1, CurrentRevision: "db-2", UpdateRevision: "db-2"},
	}
	owner := []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "sts-uid",
		Controller: func() *bool { b := true; return &b }()}}
	rev := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Name: "db-2", Namespace: "demo", UID: types.UID("rev-uid"),
			Labels: map[string]string{"app": "db"}, OwnerReferences: owner},
		Revision: 2,
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "db-0", Namespace: "demo", OwnerReferences: owner,
			Labels: map[string]string{"app": "db", appsv1.ControllerRevisionHashLabelKey: "db-2"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "db", Image: "db:2"}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning,
			Conditions:        []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}},
			ContainerStatuses: []corev1.ContainerStatus{{Name: "db", Ready: true, State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
	}
	return s, rev, pod
}

// TestReaderOnPlainInputs reads a StatefulSet's rollout and inspection with
// a Reader built from a fake clientset and the built-in plugins: the phase,
// revision and pod with kubectl's READY and STATUS; the alias "sts"
// resolved to its id; a workload that is gone is Missing without an error.
func TestReaderOnPlainInputs(t *testing.T) {
	ctx := context.Background()
	s, rev, pod := sts()
	r := reader(fake.NewSimpleClientset(s, rev, pod))
	ref := vocab.WorkloadRef{Kind: "sts", Namespace: "demo", Name: "db"}

	st, err := r.Status(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	wantPod := vocab.RolloutPod{Name: "db-0", Ready: "1/1", Status: "Running", New: true, PodReady: true}
	if st.Ref.Kind != "statefulsets" || st.Phase != vocab.RolloutComplete || st.UID != "sts-uid" ||
		st.NewRevision != "db-2" || st.Revision != "2" || len(st.OldRevisions) != 0 ||
		len(st.Pods) != 1 || st.Pods[0] != wantPod {
		t.Errorf("Status = %+v, want statefulsets db complete at db-2 (rev 2) with pod %+v", st, wantPod)
	}

	in, err := r.Inspect(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	if in.Ref.Kind != "statefulsets" || in.Missing || in.UID != "sts-uid" || in.Desired != 1 || in.Ready != 1 ||
		len(in.Pods) != 1 || in.Pods[0] != wantPod {
		t.Errorf("Inspect = %+v, want statefulsets db, 1 of 1 ready, pod %+v", in, wantPod)
	}

	gone := vocab.WorkloadRef{Kind: "deploy", Namespace: "demo", Name: "web"}
	if st, err := r.Status(ctx, gone); err != nil || !st.Missing || st.Ref.Kind != "deployments" {
		t.Errorf("Status of a workload that is gone = %+v, %v: want Missing, no error", st, err)
	}
	if in, err := r.Inspect(ctx, gone); err != nil || !in.Missing || in.Ref.Kind != "deployments" {
		t.Errorf("Inspect of a workload that is gone = %+v, %v: want Missing, no error", in, err)
	}
}

// TestReaderWithoutAPodsPlugin: with no plugin lookup (or no pods plugin), a
// pod's STATUS is its phase and READY is empty; the rest of the reading is
// the same.
func TestReaderWithoutAPodsPlugin(t *testing.T) {
	s, rev, pod := sts()
	r := reader(fake.NewSimpleClientset(s, rev, pod))
	want := vocab.RolloutPod{Name: "db-0", Status: "Running", New: true, PodReady: true}
	for name, lookup := range map[string]func(string) (vocab.Plugin, bool){
		"nil lookup":     nil,
		"no pods plugin": func(string) (vocab.Plugin, bool) { return nil, false },
	} {
		r.Lookup = lookup
		st, err := r.Status(context.Background(), vocab.WorkloadRef{Kind: "statefulsets", Namespace: "demo", Name: "db"})
		if err != nil {
			t.Fatal(err)
		}
		if st.Phase != vocab.RolloutComplete || len(st.Pods) != 1 || st.Pods[0] != want {
			t.Errorf("%s: Status = %+v, want complete with pod %+v", name, st, want)
		}
	}
}
