package inventory_test

import (
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8stypes "k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/views/viewtest"
)

// deploymentWithPods is Deployment name in demo wanting len(states) pods,
// its ReplicaSet <name>-5c4b and one pod of it per state (ready when
// running), with the status the controllers write: every pod updated,
// ready and available those running, and, while some are not, the
// Progressing condition of a rollout within its deadline.
func deploymentWithPods(name string, states ...corev1.ContainerState) []runtime.Object {
	ready := int32(0)
	for _, s := range states {
		if s.Running != nil {
			ready++
		}
	}
	n := int32(len(states))
	created := metav1.NewTime(viewtest.Now.Add(-30 * time.Minute))
	cond := appsv1.DeploymentCondition{Type: appsv1.DeploymentProgressing, Status: corev1.ConditionTrue, Reason: "NewReplicaSetAvailable"}
	if ready < n {
		cond.Reason = "ReplicaSetUpdated"
	}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name, UID: k8stypes.UID(name), Generation: 1, CreationTimestamp: created},
		Spec:       appsv1.DeploymentSpec{Replicas: &n, Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}},
		Status: appsv1.DeploymentStatus{ObservedGeneration: 1, Replicas: n, UpdatedReplicas: n, ReadyReplicas: ready,
			AvailableReplicas: ready, Conditions: []appsv1.DeploymentCondition{cond}},
	}
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: name + "-5c4b", UID: k8stypes.UID(name + "-5c4b"), CreationTimestamp: created,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "Deployment", Name: name, UID: d.UID}}},
		Spec:   appsv1.ReplicaSetSpec{Replicas: &n},
		Status: appsv1.ReplicaSetStatus{Replicas: n, ReadyReplicas: ready, AvailableReplicas: ready},
	}
	objs := []runtime.Object{d, rs}
	for i, s := range states {
		p := testPod("demo", rs.Name+"-"+string(rune('a'+i)), 30*time.Minute, s, s.Running != nil, 0)
		p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs.Name, UID: rs.UID}}
		objs = append(objs, p)
	}
	return objs
}

// TestC10UnhealthyShowsDeploymentsWhosePodsCannotStart: Deployments whose
// every pod waits in CrashLoopBackOff or ImagePullBackOff are failed (x) as
// soon as their pods are read, though their Progressing condition says the
// rollout is within its deadline, and U lists them; a Deployment whose
// pods are being created stays progressing (~), one all ready stays ok,
// and neither is listed by U.
func TestC10UnhealthyShowsDeploymentsWhosePodsCannotStart(t *testing.T) {
	creating := corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
	var objs []runtime.Object
	objs = append(objs, deploymentWithPods("crashy", loop, loop)...)
	objs = append(objs, deploymentWithPods("badimage", pull)...)
	objs = append(objs, deploymentWithPods("rolling", run, creating)...)
	objs = append(objs, deploymentWithPods("web", run, run)...)
	client, _ := kubetest.FakeClient(t, objs...)
	m, _ := load(t, client, "deployments", "demo", 80, 24)
	// The pods are read from a cache the first snapshot starts.
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(m.View(), "x  crashy") || !strings.Contains(m.View(), "x  badimage") {
		if time.Now().After(deadline) {
			t.Fatalf("crashy and badimage never showed as failed:\n%s", m.View())
		}
		time.Sleep(20 * time.Millisecond)
		refresh(t, m, m.Init())
	}
	if v := m.View(); !strings.Contains(v, "~  rolling") {
		t.Fatalf("rolling, whose pods are being created, is not progressing:\n%s", v)
	}
	keys(m, "U")
	view := m.View()
	viewtest.Size(t, view, 80, 24)
	viewtest.Golden(t, "deployments-unhealthy-80x24", view)
	if got := m.Title(); got != "deployments(demo)[2/4] unhealthy" {
		t.Fatalf("title %q:\n%s", got, view)
	}
	for _, name := range []string{"rolling", "web"} {
		if strings.Contains(view, name) {
			t.Fatalf("U lists %s:\n%s", name, view)
		}
	}
}
