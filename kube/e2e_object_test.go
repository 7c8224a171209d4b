package kube_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

func e2eContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestE2EYAMLOfSecretShowsSizesOnly reads the demo Secrets' real values with
// the admin's clientset and checks that their YAML names every key with
// its size and shows no value, neither decoded nor in base64.
func TestE2EYAMLOfSecretShowsSizesOnly(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := e2eContext(t)
	for _, name := range []string{"web-credentials", "db-credentials"} {
		secret, err := cs.CoreV1().Secrets(kubetest.DemoNamespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(secret.Data) == 0 {
			t.Fatalf("demo Secret %s has no data: was the cluster seeded?", name)
		}
		out, err := c.YAML(ctx, "secrets", kubetest.DemoNamespace, name, kube.YAMLOptions{ManagedFields: true})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range secret.Data {
			if want := fmt.Sprintf("%s: <%d bytes>", k, len(v)); !strings.Contains(out, want) {
				t.Errorf("%s: YAML lacks %q:\n%s", name, want, out)
			}
			if strings.Contains(out, base64.StdEncoding.EncodeToString(v)) {
				t.Errorf("%s: YAML shows the base64 of %s:\n%s", name, k, out)
			}
			if len(v) >= 8 && strings.Contains(out, string(v)) {
				t.Errorf("%s: YAML shows the value of %s:\n%s", name, k, out)
			}
		}
		if strings.Contains(out, "last-applied-configuration") {
			t.Errorf("%s: YAML keeps the last-applied annotation:\n%s", name, out)
		}
	}
}

func TestE2EYAMLOfDeploymentHidesManagedFields(t *testing.T) {
	c := kubetest.Client(t, kubetest.Local(t))
	ctx := e2eContext(t)
	out, err := c.YAML(ctx, "deploy", kubetest.DemoNamespace, "web", kube.YAMLOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "kind: Deployment") || !strings.Contains(out, "name: web") {
		t.Fatalf("not the web Deployment:\n%s", out)
	}
	if strings.Contains(out, "managedFields") {
		t.Fatalf("managedFields shown without being asked:\n%s", out)
	}
	out, err = c.YAML(ctx, "deployments", kubetest.DemoNamespace, "web", kube.YAMLOptions{ManagedFields: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "managedFields:") || !strings.Contains(out, "manager:") {
		t.Fatalf("managedFields missing when asked:\n%s", out)
	}
}

// TestE2EDescribeCrashingPod describes one of the crashy Deployment's pods,
// found by listing, and expects kubectl's CrashLoopBackOff and Events.
func TestE2EDescribeCrashingPod(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := e2eContext(t)
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var name string
	for _, p := range pods.Items {
		if strings.HasPrefix(p.Name, "crashy-") {
			name = p.Name
			break
		}
	}
	if name == "" {
		t.Fatal("no crashy-... pod in demo: was the cluster seeded?")
	}
	// The kubelet's own back-off events expire (the API server keeps
	// events for an hour), so one of the same kind is made for this run.
	var pod *corev1.Pod
	for i := range pods.Items {
		if pods.Items[i].Name == name {
			pod = &pods.Items[i]
		}
	}
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{GenerateName: "kyyard-e2e-backoff-"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", APIVersion: "v1", Namespace: pod.Namespace, Name: pod.Name, UID: pod.UID},
		Reason:         "BackOff", Type: corev1.EventTypeWarning, Count: 1, FirstTimestamp: now, LastTimestamp: now,
		Message: "Back-off restarting failed container crashy in pod " + pod.Name,
		Source:  corev1.EventSource{Component: "kyyard-e2e"},
	}
	created, err := cs.CoreV1().Events(pod.Namespace).Create(ctx, ev, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.CoreV1().Events(pod.Namespace).Delete(context.Background(), created.Name, metav1.DeleteOptions{})
	})
	out, err := c.Describe(ctx, "pods", kubetest.DemoNamespace, name)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{name, "CrashLoopBackOff", "\nEvents:", "Back-off restarting failed container"} {
		if !strings.Contains(out, want) {
			t.Errorf("describe lacks %q:\n%s", want, out)
		}
	}
	// The local kubectl of the same release is the oracle for everything
	// above the Events (whose ages move).
	kubectl := exec.CommandContext(ctx, os.Getenv(kubetest.KubectlEnv), "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv),
		"-n", kubetest.DemoNamespace, "describe", "pod", name)
	want, err := kubectl.Output()
	if err != nil {
		t.Fatalf("kubectl describe: %v", err)
	}
	if ours, theirs := beforeEvents(out), beforeEvents(string(want)); ours != theirs {
		t.Errorf("describe differs from kubectl's above the Events:\n--- kyyard ---\n%s\n--- kubectl ---\n%s", ours, theirs)
	}
	out, err = c.Describe(ctx, "deploy", kubetest.DemoNamespace, "crashy")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "Replicas:") || !strings.Contains(out, "Pod Template:") {
		t.Errorf("describe of Deployment crashy:\n%s", out)
	}
}

func beforeEvents(s string) string {
	before, _, _ := strings.Cut(s, "\nEvents:")
	return before
}

// TestE2EReadOnlyUserIsForbidden: the ServiceAccount that may only get and
// list some kinds in demo may read neither Secrets nor Nodes; Describe and
// YAML say forbidden rather than failing vaguely, and a deleted object is
// not_found.
func TestE2EReadOnlyUserIsForbidden(t *testing.T) {
	c := kubetest.Client(t, kubetest.LocalReadOnly(t))
	ctx := e2eContext(t)
	for _, tc := range []struct {
		kind kube.Kind
		name string
		want kube.Reason
	}{
		{"secrets", "web-credentials", kube.ReasonForbidden},
		{"nodes", "kwok-node-0", kube.ReasonForbidden},
		{"pods", "no-such-pod-kyyard-e2e", kube.ReasonNotFound},
	} {
		_, err := c.Describe(ctx, tc.kind, kubetest.DemoNamespace, tc.name)
		if got := kube.ReasonOf(err); got != tc.want {
			t.Errorf("Describe %s/%s as the read-only user: reason %q (%v), want %q", tc.kind, tc.name, got, err, tc.want)
		}
		_, err = c.YAML(ctx, tc.kind, kubetest.DemoNamespace, tc.name, kube.YAMLOptions{})
		if got := kube.ReasonOf(err); got != tc.want {
			t.Errorf("YAML %s/%s as the read-only user: reason %q (%v), want %q", tc.kind, tc.name, got, err, tc.want)
		}
	}
	if _, err := c.Describe(ctx, "deploy", kubetest.DemoNamespace, "web"); err != nil {
		t.Errorf("the read-only user may get Deployment web, yet Describe failed: %v", err)
	}
}
