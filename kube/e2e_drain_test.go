package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// drainTaint keeps every pod but the test's own off its node.
const drainTaint = "kyyard.dev/drain-test"

// drainNode makes a Node of the test's own that kwok manages (label
// type=kwok), tainted so that no other test's pod lands on it, and deletes
// it when the test ends.
func (e *opEnv) drainNode() *corev1.Node {
	e.t.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("kyyard-drain-%x", time.Now().UnixNano()&0xffffff)
	res := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("8"), corev1.ResourceMemory: resource.MustParse("32Gi"), corev1.ResourcePods: resource.MustParse("50")}
	n := &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"type": "kwok", "kubernetes.io/hostname": name},
			Annotations: map[string]string{"kwok.x-k8s.io/node": "fake", "node.alpha.kubernetes.io/ttl": "0"}},
		Spec: corev1.NodeSpec{Taints: []corev1.Taint{{Key: "kwok.x-k8s.io/node", Value: "fake", Effect: corev1.TaintEffectNoSchedule},
			{Key: drainTaint, Value: "yes", Effect: corev1.TaintEffectNoSchedule}}},
		Status: corev1.NodeStatus{Allocatable: res, Capacity: res},
	}
	got, err := e.cs.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = e.cs.CoreV1().Nodes().Delete(context.Background(), name, metav1.DeleteOptions{}) })
	return got
}

// pinnedSpec is a pod spec on node (spec.nodeName: the scheduler, and so
// the cordon, is bypassed, as for a pod made again by its ReplicaSet).
func pinnedSpec(node string) corev1.PodSpec {
	s := kwokPodSpec("busybox:1.36")
	s.NodeSelector = nil
	s.NodeName = node
	return s
}

// TestE2EDrain: a Node of the test's own holds a Deployment's two pods a
// PodDisruptionBudget protects (minAvailable 2), a free Deployment's pod,
// a pod with emptyDir data, a pod no controller manages and a DaemonSet's
// pod. The plan evicts the first three and leaves the others with kubectl
// drain's reasons; the drain cordons the Node, evicts the free pod (gone),
// meets the budget (blocked, named) until its timeout, and says so, the
// Node left cordoned. A drain cancelled says cancelled. The read-only user
// is refused at the plan, before anything is sent.
func TestE2EDrain(t *testing.T) {
	e := newOpEnv(t)
	ctx := context.Background()
	node := e.drainNode()
	labels := func(app string) map[string]string { return map[string]string{"app": app} }
	deploy := func(name string, replicas int32, spec corev1.PodSpec) {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: appsv1.DeploymentSpec{Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels(name)},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels(name)}, Spec: spec}}}
		if _, err := e.cs.AppsV1().Deployments(e.ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	deploy("guarded", 2, pinnedSpec(node.Name))
	deploy("free", 1, pinnedSpec(node.Name))
	scratch := pinnedSpec(node.Name)
	scratch.Volumes = []corev1.Volume{{Name: "cache", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	deploy("scratch", 1, scratch)
	if _, err := e.cs.CoreV1().Pods(e.ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "loner"}, Spec: pinnedSpec(node.Name)}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dsSpec := kwokPodSpec("busybox:1.36")
	dsSpec.NodeSelector = map[string]string{"kubernetes.io/hostname": node.Name}
	dsSpec.Tolerations = append(dsSpec.Tolerations, corev1.Toleration{Key: drainTaint, Operator: corev1.TolerationOpExists})
	if _, err := e.cs.AppsV1().DaemonSets(e.ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "agent"}, Spec: appsv1.DaemonSetSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels("agent")},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels("agent")}, Spec: dsSpec}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	two := intstr.FromInt32(2)
	if _, err := e.cs.PolicyV1().PodDisruptionBudgets(e.ns).Create(ctx, &policyv1.PodDisruptionBudget{ObjectMeta: metav1.ObjectMeta{Name: "guarded-pdb"},
		Spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: &two, Selector: &metav1.LabelSelector{MatchLabels: labels("guarded")}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Every pod running, and the budget's status read by its controller.
	deadline := time.Now().Add(60 * time.Second)
	for {
		pods, _ := e.cs.CoreV1().Pods(e.ns).List(ctx, metav1.ListOptions{})
		running := 0
		for _, p := range pods.Items {
			if p.Status.Phase == corev1.PodRunning {
				running++
			}
		}
		pdb, _ := e.cs.PolicyV1().PodDisruptionBudgets(e.ns).Get(ctx, "guarded-pdb", metav1.GetOptions{})
		if running == 6 && pdb != nil && pdb.Status.ObservedGeneration == pdb.Generation && pdb.Status.CurrentHealthy == 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("pods running %d of 6, budget %+v", running, pdb.Status)
		}
		time.Sleep(250 * time.Millisecond)
	}

	c, agent := e.client(e.cfg, kube.Options{})
	ref := kube.ObjectRef{Kind: kube.KindNodes, Name: node.Name, UID: string(node.UID)}
	since := time.Now()
	plan, err := c.PlanDrain(ctx, ref)
	if err != nil {
		t.Fatal(err)
	}
	noRealWrites(t, agent, since)
	var evict, left []string
	whys := map[string]string{}
	for _, p := range plan.Pods {
		if p.Evict {
			evict = append(evict, p.Ref.Name)
		} else {
			left = append(left, p.Ref.Name)
			whys[strings.SplitN(p.Ref.Name, "-", 2)[0]] = p.Why
		}
	}
	if len(evict) != 3 || plan.ToEvict() != 3 || len(left) != 3 || plan.Cordoned {
		t.Fatalf("plan: evict %v, left %v", evict, left)
	}
	for prefix, want := range map[string]string{"agent": "managed by DaemonSet agent", "scratch": "emptyDir volume cache", "loner": "not managed by a controller"} {
		if !strings.Contains(whys[prefix], want) {
			t.Errorf("%s left because %q, want %q", prefix, whys[prefix], want)
		}
	}

	// The drain: cordon, the free pod gone, the guarded ones blocked.
	events := make(chan kube.DrainEvent, 64)
	var seen []kube.DrainEvent
	doneSeen := make(chan struct{})
	go func() {
		defer close(doneSeen)
		for ev := range events {
			seen = append(seen, ev)
		}
	}()
	out := c.Drain(ctx, plan, nil, 12*time.Second, events)
	close(events)
	<-doneSeen
	if !out.Written || out.Reason != kube.ReasonTimeout || !strings.Contains(out.Detail, "blocked by PodDisruptionBudget guarded-pdb") ||
		!strings.Contains(out.Detail, "1 pod of 3 evicted") || !strings.Contains(out.Detail, "stays cordoned") {
		t.Fatalf("drain outcome %+v", out)
	}
	var freeGone, blocked bool
	for _, ev := range seen {
		freeGone = freeGone || strings.HasPrefix(ev.Pod.Name, "free-") && ev.State == "gone"
		blocked = blocked || strings.HasPrefix(ev.Pod.Name, "guarded-") && ev.State == "blocked" && ev.Budget == "guarded-pdb"
	}
	if !freeGone || !blocked {
		t.Fatalf("events %+v", seen)
	}
	if n, _ := e.cs.CoreV1().Nodes().Get(ctx, node.Name, metav1.GetOptions{}); !n.Spec.Unschedulable {
		t.Fatal("the node is not cordoned after the drain")
	}
	for _, name := range left {
		if _, err := e.cs.CoreV1().Pods(e.ns).Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("pod %s, which the drain leaves, is gone: %v", name, err)
		}
	}

	// Cancelled: planned again (cordoned now), then stopped at once.
	plan, err = c.PlanDrain(ctx, ref)
	if err != nil || !plan.Cordoned {
		t.Fatalf("second plan %+v %v", plan, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	sink := make(chan kube.DrainEvent)
	go func() {
		for range sink {
			cancel()
		}
	}()
	out = c.Drain(cctx, plan, nil, time.Minute, sink)
	close(sink)
	if out.Reason != kube.ReasonCancelled || !strings.Contains(out.Detail, "cancelled") {
		t.Fatalf("cancelled drain %+v", out)
	}

	// The read-only user: refused at the plan.
	viewer, viewerAgent := e.client(kubetest.LocalReadOnly(t), kube.Options{})
	since = time.Now()
	if _, err := viewer.PlanDrain(ctx, ref); kube.ReasonOf(err) != kube.ReasonForbidden {
		t.Fatalf("read-only drain plan: %v", err)
	}
	if ws := auditWrites(t, viewerAgent, since); len(ws) != 0 {
		t.Fatalf("the read-only user's drain sent %+v", ws)
	}
}
