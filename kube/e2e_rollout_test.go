package kube_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// Labels of the local cluster's fake nodes and kwok's simulated failures
// (hack/cluster/internal/cluster nodes.go and kwokconf): a pod labelled
// kyyard.dev/demo-state=imagepull waits in ImagePullBackOff, as the demo's
// badimage Deployment's pods do.
const (
	kwokNodeTaint  = "kwok.x-k8s.io/node"
	demoStateLabel = "kyyard.dev/demo-state"
)

// kwokPodSpec places one container "app" on the fake nodes; pods go at once
// when deleted.
func kwokPodSpec(image string) corev1.PodSpec {
	return corev1.PodSpec{
		Containers:   []corev1.Container{{Name: "app", Image: image}},
		NodeSelector: map[string]string{"type": "kwok"},
		Tolerations: []corev1.Toleration{{Key: kwokNodeTaint, Operator: corev1.TolerationOpEqual, Value: "fake",
			Effect: corev1.TaintEffectNoSchedule}},
		TerminationGracePeriodSeconds: ptr(int64(0)),
	}
}

// rolloutWatch polls RolloutStatus (every 100 ms, at most 90 s) until done
// holds, and returns the last reading and every phase seen, in order and
// without repeats.
func rolloutWatch(t *testing.T, c *kube.Client, ref kube.WorkloadRef, done func(kube.RolloutStatus) bool) (kube.RolloutStatus, []kube.RolloutPhase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var phases []kube.RolloutPhase
	var last kube.RolloutStatus
	for {
		st, err := c.RolloutStatus(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v (last reading %+v)", ref, err, last)
		}
		last = st
		if len(phases) == 0 || phases[len(phases)-1] != st.Phase {
			phases = append(phases, st.Phase)
		}
		if done(st) {
			return st, phases
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%s: not done after 90 s; phases %q, last reading %+v", ref, phases, last)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func patchTemplate(t *testing.T, cs kubernetes.Interface, ref kube.WorkloadRef, patch string) {
	t.Helper()
	patchWorkload(t, cs, ref, `{"spec":{"template":`+patch+`}}`)
}

// patchWorkload sends a strategic merge patch of the whole object.
func patchWorkload(t *testing.T, cs kubernetes.Interface, ref kube.WorkloadRef, patch string) {
	t.Helper()
	body := []byte(patch)
	ctx := context.Background()
	var err error
	switch ref.Kind {
	case kube.KindDeployments:
		_, err = cs.AppsV1().Deployments(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	case kube.KindStatefulSets:
		_, err = cs.AppsV1().StatefulSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	default:
		_, err = cs.AppsV1().DaemonSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, metav1.PatchOptions{})
	}
	if err != nil {
		t.Fatalf("patch %s: %v", ref, err)
	}
}

func imagePatch(image string) string {
	return fmt.Sprintf(`{"spec":{"containers":[{"name":"app","image":%q}]}}`, image)
}

func complete(st kube.RolloutStatus) bool { return st.Phase == kube.RolloutComplete }

// allNew checks that a complete rollout's pods are n, all new.
func allNew(t *testing.T, st kube.RolloutStatus, n int) {
	t.Helper()
	if len(st.Pods) != n {
		t.Errorf("%s: %d pods, want %d: %+v", st.Ref, len(st.Pods), n, st.Pods)
	}
	for _, p := range st.Pods {
		if !p.New || p.Ready != "1/1" || p.Status != "Running" {
			t.Errorf("%s: pod %+v, want new, 1/1 Running", st.Ref, p)
		}
	}
}

// TestE2ERolloutDeployment follows a Deployment's rollouts on the local
// cluster: its first one to complete; an image change through progressing
// (minReadySeconds keeps each new pod unavailable for 2 s) to complete at
// revision 2; then an unpullable image to failed, naming the new pod and
// ImagePullBackOff long before the progress deadline.
func TestE2ERolloutDeployment(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-rollout")
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas:        ptr(int32(2)),
			MinReadySeconds: 2,
			Selector:        &metav1.LabelSelector{MatchLabels: labels},
			Template:        corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("nginx:1.27.3")},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(context.Background(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}

	first, _ := rolloutWatch(t, c, ref, complete)
	if first.Revision != "1" || !strings.HasPrefix(first.NewRevision, "web-") || first.Desired != 2 || first.Available != 2 {
		t.Errorf("first rollout: %+v", first)
	}
	allNew(t, first, 2)
	for _, row := range []struct {
		kind kube.Kind
		name string
	}{{"pods", first.Pods[0].Name}, {"replicasets", first.NewRevision}, {"deploy", "web"}} {
		if got, err := c.WorkloadOf(context.Background(), row.kind, ns, row.name); err != nil || got != ref {
			t.Errorf("WorkloadOf(%s %s) = %+v, %v; want %s", row.kind, row.name, got, err, ref)
		}
	}

	patchTemplate(t, cs, ref, imagePatch("nginx:1.27.4"))
	second, phases := rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Revision == "2" })
	if phases[0] != kube.RolloutProgressing {
		t.Errorf("phases after the image change %q, want progressing first", phases)
	}
	if second.NewRevision == first.NewRevision || !strings.HasPrefix(second.NewRevision, "web-") || len(second.OldRevisions) != 0 {
		t.Errorf("second rollout: new %q (first %q), old %q", second.NewRevision, first.NewRevision, second.OldRevisions)
	}
	allNew(t, second, 2)

	patchTemplate(t, cs, ref, fmt.Sprintf(`{"metadata":{"labels":{%q:"imagepull"}},"spec":{"containers":[{"name":"app","image":"registry.invalid/kyyard/does-not-exist:1.0"}]}}`, demoStateLabel))
	failed, phases := rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return st.Phase == kube.RolloutFailed })
	t.Logf("phases %q; failed: %s", phases, failed.Message)
	if failed.Revision != "3" || !strings.Contains(failed.Message, "pod "+failed.NewRevision+"-") ||
		!strings.Contains(failed.Message, "ImagePullBackOff") {
		t.Errorf("failed rollout: revision %q new %q message %q", failed.Revision, failed.NewRevision, failed.Message)
	}
	want := second.NewRevision + " (rev 2)"
	if len(failed.OldRevisions) != 1 || failed.OldRevisions[0] != want {
		t.Errorf("old revisions %q, want [%q]", failed.OldRevisions, want)
	}
	var newPods, oldPods int
	for _, p := range failed.Pods {
		if p.New {
			newPods++
			if p.Status != "ImagePullBackOff" || p.Ready != "0/1" {
				t.Errorf("new pod %+v, want 0/1 ImagePullBackOff", p)
			}
		} else {
			oldPods++
		}
	}
	if newPods == 0 || oldPods == 0 || !failed.Pods[0].New {
		t.Errorf("pods %+v: want new ones first, and old ones kept", failed.Pods)
	}
}

// TestE2ERolloutDaemonSetAndStatefulSet rolls a DaemonSet and a
// StatefulSet to a new image and follows each to complete at the new
// revision.
func TestE2ERolloutDaemonSetAndStatefulSet(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-rollout")
	ctx := context.Background()
	agentLabels := map[string]string{"app": "agent"}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Name: "agent"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: agentLabels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: agentLabels}, Spec: kwokPodSpec("fluent-bit:3.1")},
		},
	}
	if _, err := cs.AppsV1().DaemonSets(ns).Create(ctx, ds, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dbLabels := map[string]string{"app": "db"}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:            ptr(int32(2)),
			ServiceName:         "db",
			PodManagementPolicy: appsv1.ParallelPodManagement,
			Selector:            &metav1.LabelSelector{MatchLabels: dbLabels},
			Template:            corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: dbLabels}, Spec: kwokPodSpec("postgres:16.4")},
		},
	}
	if _, err := cs.AppsV1().StatefulSets(ns).Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ref   kube.WorkloadRef
		image string
	}{
		{kube.WorkloadRef{Kind: kube.KindDaemonSets, Namespace: ns, Name: "agent"}, "fluent-bit:3.2"},
		{kube.WorkloadRef{Kind: kube.KindStatefulSets, Namespace: ns, Name: "db"}, "postgres:16.5"},
	} {
		first, _ := rolloutWatch(t, c, tc.ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Desired > 0 })
		if first.NewRevision == "" || first.Revision != "1" {
			t.Errorf("%s first rollout: %+v", tc.ref, first)
		}
		allNew(t, first, int(first.Desired))
		if len(first.Pods) > 0 {
			if got, err := c.WorkloadOf(ctx, "pods", ns, first.Pods[0].Name); err != nil || got != tc.ref {
				t.Errorf("WorkloadOf(pod %s) = %+v, %v; want %s", first.Pods[0].Name, got, err, tc.ref)
			}
		}
		patchTemplate(t, cs, tc.ref, imagePatch(tc.image))
		second, phases := rolloutWatch(t, c, tc.ref, func(st kube.RolloutStatus) bool { return complete(st) && st.Revision == "2" })
		t.Logf("%s: phases %q", tc.ref, phases)
		if second.NewRevision == first.NewRevision || len(second.OldRevisions) != 0 {
			t.Errorf("%s second rollout: new %q (first %q), old %q", tc.ref, second.NewRevision, first.NewRevision, second.OldRevisions)
		}
		allNew(t, second, int(second.Desired))

		// Under OnDelete the rollout is not followed, but the reading that
		// says so is of the change just made: revision 3, not the old
		// template's counts read before the controller observed it.
		patchWorkload(t, cs, tc.ref, `{"spec":{"updateStrategy":{"type":"OnDelete","rollingUpdate":null},"template":`+imagePatch(tc.image+"-ondelete")+`}}`)
		third, phases := rolloutWatch(t, c, tc.ref, func(st kube.RolloutStatus) bool { return st.Phase == kube.RolloutUnfollowed })
		t.Logf("%s OnDelete: phases %q", tc.ref, phases)
		if third.Revision != "3" || third.NewRevision == second.NewRevision || third.Updated != 0 {
			t.Errorf("%s under OnDelete: revision %q new %q (before %q), updated %d; want revision 3, none updated",
				tc.ref, third.Revision, third.NewRevision, second.NewRevision, third.Updated)
		}
	}
}

// TestE2ERolloutPodsRefusedByAdmission: in a namespace that enforces the
// restricted Pod Security level, a Deployment's pods (no securityContext)
// are refused at creation; the rollout fails with the ReplicaSet's
// FailedCreate event text, which names the violation.
func TestE2ERolloutPodsRefusedByAdmission(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-rollout")
	enforce := []byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`)
	if _, err := cs.CoreV1().Namespaces().Patch(ctx, ns, types.StrategicMergePatchType, enforce, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	labels := map[string]string{"app": "web"}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(int32(1)),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: kwokPodSpec("nginx:1.27.3")},
		},
	}
	if _, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: ns, Name: "web"}
	st, phases := rolloutWatch(t, c, ref, func(st kube.RolloutStatus) bool { return st.Phase == kube.RolloutFailed })
	t.Logf("phases %q; failed: %s", phases, st.Message)
	if !strings.Contains(st.Message, "ReplicaSet "+st.NewRevision+" cannot create pods") ||
		!strings.Contains(st.Message, `violates PodSecurity "restricted`) || len(st.Pods) != 0 {
		t.Errorf("refused rollout: %+v", st)
	}
}
