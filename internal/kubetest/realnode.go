package kubetest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// The local cluster's real node (hack/cluster/internal/node and
// internal/images; kept equal by hand: the cluster tool is a module of its
// own): a kubelet with containerd and runc, tainted so that only pods that
// tolerate it land there, and its images, present without a registry.
const (
	// RealNodeName is the real node's name.
	RealNodeName = "kyyard-real-node"
	// RealNodeTaintKey is its taint's key and label's key (value "true").
	RealNodeTaintKey = "kyyard.dev/real-node"
	// BusyboxImage holds Debian's static busybox (sh, no bash).
	BusyboxImage = "kyyard.local/busybox:1"
	// DemoAppImage holds only /demoapp (web, logs, crash, hostile, idle),
	// no shell.
	DemoAppImage = "kyyard.local/demoapp:1"
)

// RequireRealNode fails the test, saying why, unless the real node exists
// and is Ready: the real-node tests never skip (a machine that cannot run
// containers fails them with the kubelet's reason).
func RequireRealNode(t testing.TB, cs kubernetes.Interface) {
	t.Helper()
	n, err := cs.CoreV1().Nodes().Get(context.Background(), RealNodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("the local cluster's real node %s is missing (hack/cluster `up` starts it; see its logs in hack/cluster/.cache/logs/kubelet.log): %v", RealNodeName, err)
	}
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			if c.Status != corev1.ConditionTrue {
				t.Fatalf("the real node %s is not Ready: %s %s: %s", RealNodeName, c.Status, c.Reason, c.Message)
			}
			return
		}
	}
	t.Fatalf("the real node %s has no Ready condition yet", RealNodeName)
}

// RealNodePod is a pod for the real node: its label selected, its taint
// tolerated, one container of image running command, never pulled, a
// short grace period.
func RealNodePod(name, image string, command ...string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": name}},
		Spec: corev1.PodSpec{
			NodeSelector: map[string]string{RealNodeTaintKey: "true"},
			Tolerations: []corev1.Toleration{{Key: RealNodeTaintKey, Operator: corev1.TolerationOpEqual, Value: "true",
				Effect: corev1.TaintEffectNoSchedule}},
			TerminationGracePeriodSeconds: ptrTo[int64](2),
			Containers: []corev1.Container{{
				Name: "main", Image: image, Command: command, ImagePullPolicy: corev1.PullNever,
				Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("64Mi")}},
			}},
		},
	}
}

func ptrTo[T any](v T) *T { return &v }

// RunRealNodePod creates pod in namespace ns and waits (up to a minute)
// until its containers run; the test fails with the pod's state otherwise.
func RunRealNodePod(t testing.TB, cs kubernetes.Interface, ns string, pod *corev1.Pod) *corev1.Pod {
	t.Helper()
	ctx := context.Background()
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create pod %s/%s: %v", ns, pod.Name, err)
	}
	var last *corev1.Pod
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		p, err := cs.CoreV1().Pods(ns).Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		last = p
		running := len(p.Status.ContainerStatuses) == len(p.Spec.Containers)
		for _, s := range p.Status.ContainerStatuses {
			running = running && s.State.Running != nil
		}
		if p.Status.Phase == corev1.PodRunning && running {
			if p.Spec.NodeName != RealNodeName {
				t.Fatalf("pod %s/%s runs on %s, not the real node", ns, pod.Name, p.Spec.NodeName)
			}
			return p
		}
	}
	t.Fatalf("pod %s/%s not running after a minute: %s", ns, pod.Name, podState(last))
	return nil
}

func podState(p *corev1.Pod) string {
	if p == nil {
		return "never read"
	}
	parts := []string{fmt.Sprintf("phase %s on %q", p.Status.Phase, p.Spec.NodeName)}
	for _, c := range p.Status.Conditions {
		if c.Status != corev1.ConditionTrue && c.Message != "" {
			parts = append(parts, fmt.Sprintf("%s: %s", c.Type, c.Message))
		}
	}
	for _, s := range p.Status.ContainerStatuses {
		if w := s.State.Waiting; w != nil {
			parts = append(parts, fmt.Sprintf("%s waiting %s: %s", s.Name, w.Reason, w.Message))
		}
	}
	return strings.Join(parts, "; ")
}

// Kubectl runs the kubectl built with the local cluster ($KYYARD_E2E_KUBECTL)
// with the admin kubeconfig, stdin from stdin, and returns its stdout,
// stderr and exit code; it fails the test when kubectl cannot run.
func Kubectl(t testing.TB, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	bin := os.Getenv(KubectlEnv)
	if bin == "" {
		t.Fatalf("%s is not set: the kubectl oracle is missing", KubectlEnv)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"--kubeconfig", os.Getenv(KubeconfigEnv)}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return out.String(), errb.String(), ee.ExitCode()
	}
	if err != nil {
		t.Fatalf("kubectl %v: %v", args, err)
	}
	return out.String(), errb.String(), 0
}
