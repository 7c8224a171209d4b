package kube_test

import (
	"context"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
)

// rolloutUnderway is the Progressing condition of a Deployment whose
// rollout is within its progress deadline: what the controller says for
// the first 10 minutes of pods that never start.
var rolloutUnderway = appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "ReplicaSetUpdated"}

// stuckDeployment is Deployment name in demo (3 wanted, all updated,
// available of them, its Progressing condition rolloutUnderway), its
// ReplicaSet <name>-new and that one's three pods, the first bad of them
// waiting for reason, the others running and ready.
func stuckDeployment(name string, available, bad int, reason string) []runtime.Object {
	labels := map[string]string{"app": name}
	tmpl := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name, Image: name + ":v2"}}}}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID(name + "-uid"), Generation: 2},
		Spec:       appsv1.DeploymentSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: labels}, Template: tmpl},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, UpdatedReplicas: 3,
			ReadyReplicas: int32(available), AvailableReplicas: int32(available), Conditions: []appsv1.DeploymentCondition{rolloutUnderway}},
	}
	rsName := name + "-new"
	hashed := map[string]string{"app": name, "pod-template-hash": "new"}
	rsTmpl := *tmpl.DeepCopy()
	rsTmpl.Labels = hashed
	r := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: rsName, Namespace: "demo", UID: types.UID(rsName + "-uid"), Labels: hashed,
			Annotations:     map[string]string{"deployment.kubernetes.io/revision": "2"},
			OwnerReferences: controller("Deployment", name, name+"-uid")},
		Spec:   appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: hashed}, Template: rsTmpl},
		Status: appsv1.ReplicaSetStatus{Replicas: 3, ReadyReplicas: int32(available), AvailableReplicas: int32(available)},
	}
	objs := []runtime.Object{d, r}
	for i, suffix := range []string{"a", "b", "c"} {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: rsName + "-" + suffix, Namespace: "demo", UID: types.UID(rsName + "-" + suffix + "-uid"),
				Labels: hashed, OwnerReferences: controller("ReplicaSet", rsName, rsName+"-uid")},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: name}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, ContainerStatuses: []corev1.ContainerStatus{{Name: name, Ready: true,
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}},
		}
		if i < bad {
			p.Status.Phase = corev1.PodPending
			p.Status.ContainerStatuses[0] = corev1.ContainerStatus{Name: name,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "details of " + reason}}}
		}
		objs = append(objs, p)
	}
	return objs
}

// rowOf waits until a snapshot of kind in demo has the row name judged
// with health want (the Pods and ReplicaSets caches it reads start with
// the first snapshot and are not waited for), and returns it.
func rowOf(t *testing.T, c *kube.Client, kind kube.Kind, name string, want kube.Health) kube.Row {
	t.Helper()
	var row kube.Row
	eventually(t, c, kube.SnapshotRequest{Kinds: []kube.Kind{kind}, Namespace: "demo"}, 5*time.Second, 20*time.Millisecond,
		func(s kube.Snapshot) bool {
			tb, _ := s.Table(kind)
			for _, r := range tb.Rows {
				if r.Name == name {
					row = r
					return r.Health == want
				}
			}
			return false
		})
	return row
}

// TestC10DeploymentWhosePodsCannotStartIsUnhealthyAtOnce: a Deployment
// whose every pod waits in CrashLoopBackOff, ImagePullBackOff, ErrImagePull
// or CreateContainerConfigError is failed in the list at once, named by
// the reason, though its Progressing condition still says the rollout is
// within its deadline; RolloutStatus says failed for the same objects
// (one rule: kube.CannotStart). With some pods available it is a warning.
func TestC10DeploymentWhosePodsCannotStartIsUnhealthyAtOnce(t *testing.T) {
	for _, reason := range []string{"CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerConfigError"} {
		t.Run(reason, func(t *testing.T) {
			if !kube.CannotStart(reason) {
				t.Fatalf("CannotStart(%q) is false", reason)
			}
			c, _ := kubetest.FakeClient(t, stuckDeployment("web", 0, 3, reason)...)
			row := rowOf(t, c, "deployments", "web", kube.HealthFailed)
			if row.Status != reason {
				t.Fatalf("status %q, want %q", row.Status, reason)
			}
			st, err := c.RolloutStatus(context.Background(), kube.WorkloadRef{Kind: "deployments", Namespace: "demo", Name: "web"})
			if err != nil || st.Phase != kube.RolloutFailed || !strings.Contains(st.Message, reason) {
				t.Fatalf("rollout %+v, %v: want failed with %s", st, err, reason)
			}

			partial, _ := kubetest.FakeClient(t, stuckDeployment("web", 2, 1, reason)...)
			if row := rowOf(t, partial, "deployments", "web", kube.HealthWarning); row.Status != reason {
				t.Fatalf("partly available: status %q, want %q", row.Status, reason)
			}
		})
	}
}

// TestC10PodsThatStartKeepTheRolloutProgressing: pods still being created
// (ContainerCreating) keep a rollout within its deadline progressing, and
// an inventory whose every workload is healthy starts no Pods cache.
func TestC10PodsThatStartKeepTheRolloutProgressing(t *testing.T) {
	c, _ := kubetest.FakeClient(t, append(stuckDeployment("web", 0, 3, "ContainerCreating"),
		stuckDeployment("crashy", 0, 3, "CrashLoopBackOff")...)...)
	// crashy judged failed: the caches the judgement reads are in.
	rowOf(t, c, "deployments", "crashy", kube.HealthFailed)
	if row := rowOf(t, c, "deployments", "web", kube.HealthProgressing); row.Status != "Progressing" {
		t.Fatalf("web, whose pods are being created: %q", row.Status)
	}

	req := kube.SnapshotRequest{Kinds: []kube.Kind{"deployments"}, Namespace: "demo"}
	healthy, _ := kubetest.FakeClient(t, stuckDeployment("web", 3, 0, "")...)
	for range 3 {
		if tb, _ := healthy.Snapshot(context.Background(), req).Table("deployments"); len(tb.Rows) != 1 {
			t.Fatalf("rows %+v", tb.Rows)
		}
	}
	if got := healthy.CacheStats().Kinds; len(got) != 1 || got[0] != "deployments/demo" {
		t.Fatalf("caches %v, want deployments alone for a healthy inventory", got)
	}
}

// TestC10OtherWorkloadsWhosePodsCannotStart: a StatefulSet and a DaemonSet
// mid-rollout and a ReplicaSet still scaling, each with a pod that cannot
// start, are warnings (some pods are available) named by the pod's reason,
// not progressing; a pod being deleted counts for nothing.
func TestC10OtherWorkloadsWhosePodsCannotStart(t *testing.T) {
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: "demo", UID: "db-uid", Generation: 2},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: webLabels},
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType}},
		Status: appsv1.StatefulSetStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UpdatedReplicas: 1,
			CurrentRevision: "db-1", UpdateRevision: "db-2"},
	}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent", Namespace: "demo", UID: "agent-uid", Generation: 2},
		Spec:       appsv1.DaemonSetSpec{Selector: &metav1.LabelSelector{MatchLabels: webLabels}},
		Status: appsv1.DaemonSetStatus{ObservedGeneration: 2, DesiredNumberScheduled: 3, CurrentNumberScheduled: 3,
			NumberReady: 2, UpdatedNumberScheduled: 1, NumberAvailable: 2},
	}
	lone := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "lone", Namespace: "demo", UID: "lone-uid", Generation: 1},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: webLabels}},
		Status:     appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1},
	}
	quiet := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "quiet", Namespace: "demo", UID: "quiet-uid", Generation: 1},
		Spec:       appsv1.ReplicaSetSpec{Replicas: ptr(int32(3)), Selector: &metav1.LabelSelector{MatchLabels: webLabels}},
		Status:     appsv1.ReplicaSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 1, AvailableReplicas: 1},
	}
	stuck := func(name, kind, owner, reason string) *corev1.Pod {
		p := pod(name, kind, owner, nil, reason)
		p.UID = types.UID(name + "-uid")
		return p
	}
	deleting := stuck("quiet-x", "ReplicaSet", "quiet", "CrashLoopBackOff")
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	deleting.Finalizers = []string{"kyyard.dev/test"}
	c, _ := kubetest.FakeClient(t, sts, ds, lone, quiet,
		stuck("db-2", "StatefulSet", "db", "CrashLoopBackOff"),
		stuck("agent-x", "DaemonSet", "agent", "ErrImagePull"),
		stuck("lone-x", "ReplicaSet", "lone", "CreateContainerConfigError"),
		deleting)
	for _, tc := range []struct {
		kind         kube.Kind
		name, reason string
	}{
		{"statefulsets", "db", "CrashLoopBackOff"},
		{"daemonsets", "agent", "ErrImagePull"},
		{"replicasets", "lone", "CreateContainerConfigError"},
	} {
		if row := rowOf(t, c, tc.kind, tc.name, kube.HealthWarning); row.Status != tc.reason {
			t.Fatalf("%s/%s: status %q, want %q", tc.kind, tc.name, row.Status, tc.reason)
		}
	}
	tb, _ := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"replicasets"}, Namespace: "demo"}).Table("replicasets")
	for _, r := range tb.Rows {
		if r.Name == "quiet" && (r.Health != kube.HealthProgressing || r.Status != "Scaling") {
			t.Fatalf("quiet, whose only stuck pod is being deleted: %q %v", r.Status, r.Health)
		}
	}
}

// TestC10JudgedRowsAreSharedWhileIdle: once judged, a snapshot of nothing
// changed answers the same rows and generation (no copy per refresh), and
// the judgement follows the pods: a pod that recovers takes it back.
func TestC10JudgedRowsAreSharedWhileIdle(t *testing.T) {
	c, cs := kubetest.FakeClient(t, stuckDeployment("web", 2, 1, "CrashLoopBackOff")...)
	rowOf(t, c, "deployments", "web", kube.HealthWarning)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"deployments"}, Namespace: "demo"}
	a := c.Snapshot(context.Background(), req)
	b := c.Snapshot(context.Background(), req)
	ta, _ := a.Table("deployments")
	tb, _ := b.Table("deployments")
	if a.Generation != b.Generation || &ta.Rows[0] != &tb.Rows[0] {
		t.Fatal("an idle snapshot of a judged row copied the rows or moved the generation")
	}
	fixed := stuckDeployment("web", 3, 0, "")[2].(*corev1.Pod)
	if _, err := cs.CoreV1().Pods("demo").Update(context.Background(), fixed, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if row := rowOf(t, c, "deployments", "web", kube.HealthProgressing); row.Status != "Progressing" {
		t.Fatalf("after the pod recovered: %q", row.Status)
	}
}

// TestC10AppsServiceWhosePodsCannotStartIsFailed: :apps judges a service's
// Deployment by its pods as the inventory does: one whose pods all
// crash-loop is "failed: CrashLoopBackOff", not "progressing".
func TestC10AppsServiceWhosePodsCannotStartIsFailed(t *testing.T) {
	objs := stuckDeployment("shop-web", 0, 3, "CrashLoopBackOff")
	d := objs[0].(*appsv1.Deployment)
	d.Generation = 3 // the controller has yet to observe it: progressing by the Deployment alone
	d.Labels = map[string]string{render.LabelManagedBy: render.ManagedBy, render.LabelInstance: "shop", render.LabelName: "web"}
	c, _ := kubetest.FakeClient(t, objs...)
	deadline := time.Now().Add(5 * time.Second)
	for {
		apps, err := c.Apps(context.Background(), "demo")
		if err != nil {
			t.Fatal(err)
		}
		if len(apps) == 1 && len(apps[0].Services) == 1 {
			s := apps[0].Services[0]
			if s.Status == "failed: CrashLoopBackOff" && s.Health == kube.HealthFailed {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("service %+v, want failed: CrashLoopBackOff", s)
			}
		} else if time.Now().After(deadline) {
			t.Fatalf("apps %+v", apps)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
