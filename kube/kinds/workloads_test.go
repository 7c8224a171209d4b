package kinds_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

func int32p(v int32) *int32 { return &v }

var (
	webSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	webTemplate = corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "web:1"}, {Name: "log", Image: "log:2"}}}}
	meta        = metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "uid-web", Generation: 2, CreationTimestamp: metav1.NewTime(created),
		OwnerReferences: []metav1.OwnerReference{{UID: "uid-owner"}}}
)

// check compares a row's status, health and (when cells is not nil) the
// cells rendered at now.
func check(t *testing.T, row kube.Row, status string, health kube.Health, cells []string) {
	t.Helper()
	if row.Status != status || row.Health != health {
		t.Fatalf("got %s/%v, want %s/%v", row.Status, row.Health, status, health)
	}
	if cells != nil {
		equal(t, texts(row), cells)
	}
}

func replicaSet(desired *int32, st appsv1.ReplicaSetStatus) *appsv1.ReplicaSet {
	return &appsv1.ReplicaSet{ObjectMeta: meta,
		Spec: appsv1.ReplicaSetSpec{Replicas: desired, Selector: webSelector, Template: webTemplate}, Status: st}
}

func TestReplicaSetRow(t *testing.T) {
	tests := []struct {
		name   string
		rs     *appsv1.ReplicaSet
		status string
		health kube.Health
		cells  []string
	}{
		{"ready", replicaSet(int32p(3), appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3}),
			"Ready", kube.HealthOK, []string{"web", "3", "3", "3", "90m", "app,log", "web:1,log:2", "app=web"}},
		// Unset replicas: judged by the API server's default (1), printed
		// as kubectl prints the unconverted field (0).
		{"unset replicas: judged as 1, printed as 0", replicaSet(nil, appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1}),
			"Ready", kube.HealthOK, []string{"web", "0", "1", "1", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"old replicaset of a deployment", replicaSet(int32p(0), appsv1.ReplicaSetStatus{ObservedGeneration: 2}),
			"ScaledToZero", kube.HealthOK, []string{"web", "0", "0", "0", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"spec not observed", replicaSet(int32p(3), appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: 3, ReadyReplicas: 3}),
			"Progressing", kube.HealthProgressing, nil},
		{"none ready", replicaSet(int32p(2), appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 2}),
			"Unavailable", kube.HealthFailed, []string{"web", "2", "2", "0", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"scaling up", replicaSet(int32p(3), appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 2, ReadyReplicas: 2}),
			"Scaling", kube.HealthProgressing, nil},
		{"some ready", replicaSet(int32p(3), appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 2}),
			"Degraded", kube.HealthWarning, nil},
		{"replica failure", replicaSet(int32p(3), appsv1.ReplicaSetStatus{ObservedGeneration: 2, Replicas: 1, ReadyReplicas: 1,
			Conditions: []appsv1.ReplicaSetCondition{{Type: appsv1.ReplicaSetReplicaFailure, Status: corev1.ConditionTrue, Reason: "FailedCreate"}}}),
			"FailedCreate", kube.HealthFailed, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.ReplicaSets{}.Row(tt.rs)
			if !ok {
				t.Fatal("Row refused a ReplicaSet")
			}
			check(t, row, tt.status, tt.health, tt.cells)
			if len(row.Owners) != 1 || row.Owners[0] != "uid-owner" || row.UID != "uid-web" {
				t.Errorf("identity: UID %q owners %v", row.UID, row.Owners)
			}
		})
	}
}

func statefulSet(desired int32, st appsv1.StatefulSetStatus) *appsv1.StatefulSet {
	return &appsv1.StatefulSet{ObjectMeta: meta,
		Spec: appsv1.StatefulSetSpec{Replicas: &desired, Selector: webSelector, Template: webTemplate,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: int32p(0)}}},
		Status: st}
}

func TestStatefulSetRow(t *testing.T) {
	done := appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 2, ReadyReplicas: 2, UpdatedReplicas: 2, CurrentRevision: "r1", UpdateRevision: "r1"}
	with := func(f func(*appsv1.StatefulSetStatus)) appsv1.StatefulSetStatus { s := done; f(&s); return s }
	onDelete := statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.UpdatedReplicas = 0; s.UpdateRevision = "r2" }))
	onDelete.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	partitioned := statefulSet(3, appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 3, UpdatedReplicas: 1, CurrentRevision: "r1", UpdateRevision: "r2"})
	partitioned.Spec.UpdateStrategy.RollingUpdate.Partition = int32p(2)

	tests := []struct {
		name   string
		s      *appsv1.StatefulSet
		status string
		health kube.Health
		cells  []string
	}{
		{"ready", statefulSet(2, done), "Ready", kube.HealthOK, []string{"web", "2/2", "90m", "app,log", "web:1,log:2"}},
		{"fewer ready", statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.ReadyReplicas = 1 })),
			"Degraded", kube.HealthWarning, []string{"web", "1/2", "90m", "app,log", "web:1,log:2"}},
		{"none ready", statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.ReadyReplicas = 0 })), "Unavailable", kube.HealthFailed, nil},
		{"rolling update", statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.UpdatedReplicas = 1; s.UpdateRevision = "r2"; s.ReadyReplicas = 1 })),
			"Progressing", kube.HealthProgressing, nil},
		{"revision pending", statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.UpdateRevision = "r2" })), "Progressing", kube.HealthProgressing, nil},
		{"partition reached", partitioned, "Ready", kube.HealthOK, nil},
		{"on delete waits for no rollout", onDelete, "Ready", kube.HealthOK, nil},
		{"spec not observed", statefulSet(2, with(func(s *appsv1.StatefulSetStatus) { s.ObservedGeneration = 1 })), "Progressing", kube.HealthProgressing, nil},
		{"scaling up", statefulSet(3, done), "Progressing", kube.HealthProgressing, []string{"web", "2/3", "90m", "app,log", "web:1,log:2"}},
		{"scaled to zero", statefulSet(0, appsv1.StatefulSetStatus{ObservedGeneration: 2}), "ScaledToZero", kube.HealthOK, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.StatefulSets{}.Row(tt.s)
			if !ok {
				t.Fatal("Row refused a StatefulSet")
			}
			check(t, row, tt.status, tt.health, tt.cells)
		})
	}
}

func daemonSet(st appsv1.DaemonSetStatus) *appsv1.DaemonSet {
	tmpl := *webTemplate.DeepCopy()
	tmpl.Spec.NodeSelector = map[string]string{"type": "kwok", "disk": "ssd"}
	return &appsv1.DaemonSet{ObjectMeta: meta, Spec: appsv1.DaemonSetSpec{Selector: webSelector, Template: tmpl}, Status: st}
}

func TestDaemonSetRow(t *testing.T) {
	ok := appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3, NumberReady: 3, UpdatedNumberScheduled: 3, NumberAvailable: 3}
	with := func(f func(*appsv1.DaemonSetStatus)) appsv1.DaemonSetStatus { s := ok; f(&s); return s }
	tests := []struct {
		name   string
		st     appsv1.DaemonSetStatus
		status string
		health kube.Health
		cells  []string
	}{
		{"ready", ok, "Ready", kube.HealthOK, []string{"web", "3", "3", "3", "3", "3", "disk=ssd,type=kwok", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"rolling", with(func(s *appsv1.DaemonSetStatus) { s.UpdatedNumberScheduled = 1 }), "Progressing", kube.HealthProgressing,
			[]string{"web", "3", "3", "3", "1", "3", "disk=ssd,type=kwok", "90m", "app,log", "web:1,log:2", "app=web"}},
		{"none ready", with(func(s *appsv1.DaemonSetStatus) { s.NumberReady, s.NumberAvailable = 0, 0 }), "Unavailable", kube.HealthFailed, nil},
		{"some ready", with(func(s *appsv1.DaemonSetStatus) { s.NumberReady, s.NumberAvailable = 2, 2 }), "Degraded", kube.HealthWarning, nil},
		{"misscheduled", with(func(s *appsv1.DaemonSetStatus) { s.NumberMisscheduled = 1 }), "Misscheduled", kube.HealthWarning, nil},
		{"no nodes", appsv1.DaemonSetStatus{ObservedGeneration: 2}, "NoNodes", kube.HealthOK, nil},
		{"spec not observed", with(func(s *appsv1.DaemonSetStatus) { s.ObservedGeneration = 1 }), "Progressing", kube.HealthProgressing, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row, ok := kinds.DaemonSets{}.Row(daemonSet(tt.st))
			if !ok {
				t.Fatal("Row refused a DaemonSet")
			}
			check(t, row, tt.status, tt.health, tt.cells)
		})
	}
	d := daemonSet(ok)
	d.Spec.Template.Spec.NodeSelector = nil
	if cell := texts(kinds.DaemonSetRow(d))[6]; cell != "<none>" {
		t.Errorf("NODE SELECTOR without one: %q, want <none>", cell)
	}
}

// TestWorkloadDrillSelectors: a workload opens the pods its spec.selector
// matches; a missing or empty selector opens nothing; another type is refused.
func TestWorkloadDrillSelectors(t *testing.T) {
	expr := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"},
		MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"a", "b"}}}}
	empty := &metav1.LabelSelector{}
	type driller interface {
		DrillSelector(any) (kube.Selector, bool)
	}
	tests := []struct {
		name   string
		plugin driller
		obj    func(*metav1.LabelSelector) any
	}{
		{"replicasets", kinds.ReplicaSets{}, func(s *metav1.LabelSelector) any {
			return &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Selector: s}}
		}},
		{"statefulsets", kinds.StatefulSets{}, func(s *metav1.LabelSelector) any {
			return &appsv1.StatefulSet{Spec: appsv1.StatefulSetSpec{Selector: s}}
		}},
		{"daemonsets", kinds.DaemonSets{}, func(s *metav1.LabelSelector) any {
			return &appsv1.DaemonSet{Spec: appsv1.DaemonSetSpec{Selector: s}}
		}},
		{"jobs", kinds.Jobs{}, jobWithSelector},
		{"poddisruptionbudgets", kinds.PodDisruptionBudgets{}, pdbWithSelector},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sel, ok := tt.plugin.DrillSelector(tt.obj(expr))
			if !ok || sel != (kube.Selector{Labels: "app=db,tier in (a,b)"}) {
				t.Fatalf("got %+v %v, want the labels app=db,tier in (a,b)", sel, ok)
			}
			for _, s := range []*metav1.LabelSelector{nil, empty} {
				if sel, ok := tt.plugin.DrillSelector(tt.obj(s)); ok {
					t.Errorf("selector %v opened %+v", s, sel)
				}
			}
			if _, ok := tt.plugin.DrillSelector(&corev1.Pod{}); ok {
				t.Error("a Pod was accepted")
			}
		})
	}
}

// TestRowRefusesOtherTypes: every new plugin's Row says ok false for an
// object of another kind.
func TestRowRefusesOtherTypes(t *testing.T) {
	for _, p := range []kube.Plugin{kinds.ReplicaSets{}, kinds.StatefulSets{}, kinds.DaemonSets{}, kinds.Jobs{}, kinds.CronJobs{},
		kinds.HorizontalPodAutoscalers{}, kinds.PodDisruptionBudgets{}, kinds.Containers{}} {
		if _, ok := p.Row(&corev1.Node{}); ok {
			t.Errorf("%s accepted a Node", p.Info().ID)
		}
	}
}
