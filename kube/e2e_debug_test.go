package kube_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// restrictedPod is a running pod that the restricted level admits, with
// runAsNonRoot on the pod and no runAsUser (casebook C44).
func restrictedPod(t *testing.T, cs kubernetes.Interface, ns string) *corev1.Pod {
	t.Helper()
	yes, no := true, false
	spec := kwokPodSpec("registry.local/distroless:1")
	spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: &yes,
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: &no,
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: ns}, Spec: spec}
	ctx := context.Background()
	pod, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if pod, err = cs.CoreV1().Pods(ns).Get(ctx, "app", metav1.GetOptions{}); err == nil && pod.Status.Phase == corev1.PodRunning {
			return pod
		}
	}
	t.Fatalf("pod %s/app is not running: %v", ns, err)
	return nil
}

// C44 on the local cluster: in a namespace enforcing restricted, the API
// server's Pod Security admission accepts the debug container OpenDebug
// sends; kwok reports no status for ephemeral containers, so the bounded
// wait ends naming that, never hanging. A root container sent by hand is
// rejected with the server's text.
func TestE2EC44DebugContainerRestricted(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kpf")
	ctx := context.Background()
	nsObj, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	nsObj.Labels["pod-security.kubernetes.io/enforce"] = "restricted"
	if _, err := cs.CoreV1().Namespaces().Update(ctx, nsObj, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := restrictedPod(t, cs, ns)

	c := kubetest.Client(t, cfg)
	req := kube.DebugRequest{Namespace: ns, Pod: "app", UID: string(pod.UID), Target: "app", StartTimeout: 3 * time.Second}
	vs, err := c.PlanDebug(ctx, req)
	if err != nil || vs.Refusal() != nil || len(vs.Warnings()) != 0 {
		t.Fatalf("plan: %+v %v", vs, err)
	}
	var progress []string
	_, err = c.OpenDebug(ctx, req, func(p string) { progress = append(progress, p) })
	if !errors.Is(err, kube.ErrDebugNotStarted) || !strings.Contains(err.Error(), "no status reported yet") {
		t.Fatalf("open: %v (progress %q)", err, progress)
	}
	t.Logf("kwok: %v; progress %q", err, progress)
	got, err := cs.CoreV1().Pods(ns).Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.EphemeralContainers) != 1 {
		t.Fatalf("ephemeral containers %+v", got.Spec.EphemeralContainers)
	}
	ec := got.Spec.EphemeralContainers[0]
	sc := ec.SecurityContext
	if !strings.HasPrefix(ec.Name, "debugger-") || ec.TargetContainerName != "app" || ec.Image != kube.DefaultDebugImage ||
		sc == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 || *sc.AllowPrivilegeEscalation {
		t.Fatalf("admitted container %+v", ec)
	}

	// A plain (root-capable) container is what restricted rejects, in
	// the API server's words.
	body := `{"spec":{"ephemeralContainers":[{"name":"rooty","image":"busybox:1.37","targetContainerName":"app"}]}}`
	_, err = cs.CoreV1().Pods(ns).Patch(ctx, "app", types.StrategicMergePatchType, []byte(body), metav1.PatchOptions{}, "ephemeralcontainers")
	if err == nil || !strings.Contains(err.Error(), `violates PodSecurity "restricted`) {
		t.Fatalf("a plain container in a restricted namespace: %v", err)
	}

	// The pod replaced: refused as a conflict before anything is sent.
	stale := req
	stale.UID = "not-the-uid"
	if _, err := c.OpenDebug(ctx, stale, nil); kube.ReasonOf(err) != kube.ReasonConflict {
		t.Fatalf("replaced: %v", err)
	}
}

// The read-only user may not add debug containers in demo.
func TestE2EDebugForbidden(t *testing.T) {
	c := kubetest.Client(t, kubetest.LocalReadOnly(t))
	cs := kubernetes.NewForConfigOrDie(kubetest.LocalReadOnly(t))
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{})
	if err != nil || len(pods.Items) == 0 {
		t.Skipf("no demo pod to try: %v", err)
	}
	var running *corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].Status.Phase == corev1.PodRunning {
			running = &pods.Items[i]
			break
		}
	}
	if running == nil {
		t.Skip("no running demo pod")
	}
	vs, err := c.PlanDebug(context.Background(), kube.DebugRequest{Namespace: running.Namespace, Pod: running.Name,
		UID: string(running.UID), Target: running.Spec.Containers[0].Name})
	r := vs.Refusal()
	if err != nil || r == nil || r.Reason != kube.ReasonForbidden || !strings.Contains(r.Detail, "pods/ephemeralcontainers") {
		t.Fatalf("read-only user: %+v %v", vs, err)
	}
}
