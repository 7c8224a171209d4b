package kube_test

// End-to-end checks of the local cluster itself, and of kyyard against the
// locally built kubectl: the foundation the product's features stand on.

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// webPod returns the name of one Running pod of the demo Deployment web.
func webPod(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	pods, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(context.Background(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/name=web"})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		if p.Status.Phase == corev1.PodRunning {
			return p.Name
		}
	}
	t.Fatalf("no Running web pod among %d", len(pods.Items))
	return ""
}

// TestE2EClusterServesLogsAndExec: pods/log and pods/exec work through the
// API server (kwok's Logs and Exec resources behind it).
func TestE2EClusterServesLogsAndExec(t *testing.T) {
	cfg := kubetest.Local(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	pod := webPod(t, cs)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tail := int64(5)
	logs, err := cs.CoreV1().Pods(kubetest.DemoNamespace).GetLogs(pod, &corev1.PodLogOptions{Container: "web", TailLines: &tail}).DoRaw(ctx)
	if err != nil {
		t.Fatalf("pods/log: %v", err)
	}
	if lines := strings.Split(strings.TrimSpace(string(logs)), "\n"); len(lines) != 5 {
		t.Fatalf("pods/log with tailLines=5 gave %d lines:\n%s", len(lines), logs)
	}

	req := cs.CoreV1().RESTClient().Post().Resource("pods").Namespace(kubetest.DemoNamespace).Name(pod).SubResource("exec").
		VersionedParams(&corev1.PodExecOptions{Container: "web", Command: []string{"echo", "kyyard-e2e"}, Stdout: true, Stderr: true}, scheme.ParameterCodec)
	executor, err := remotecommand.NewSPDYExecutor(cfg, "POST", req.URL())
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := executor.StreamWithContext(ctx, remotecommand.StreamOptions{Stdout: &stdout, Stderr: &stderr}); err != nil {
		t.Fatalf("pods/exec: %v (stderr %q)", err, stderr.String())
	}
	if got := stdout.String(); got != "kyyard-e2e\n" {
		t.Fatalf("pods/exec echo printed %q", got)
	}
}

// TestE2EPodsMatchKubectl uses the kubectl built from the same release as an
// oracle: `kubectl get pods -n demo -o wide` prints the same READY, STATUS
// and NODE for every pod as kyyard's rows.
func TestE2EPodsMatchKubectl(t *testing.T) {
	cfg := kubetest.Local(t)
	kubectl := os.Getenv(kubetest.KubectlEnv)
	if kubectl == "" {
		t.Fatalf("%s is not set", kubetest.KubectlEnv)
	}
	c := kubetest.Client(t, cfg)
	var mismatch []string
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		out, err := exec.Command(kubectl, "--kubeconfig", os.Getenv(kubetest.KubeconfigEnv),
			"get", "pods", "-n", kubetest.DemoNamespace, "-o", "wide", "--no-headers").Output()
		if err != nil {
			t.Fatalf("kubectl: %v", err)
		}
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"pods"}, Namespace: kubetest.DemoNamespace})
		table, ok := snap.Table("pods")
		if !ok {
			t.Fatalf("snapshot truncated: %+v", snap.Truncated)
		}
		ours := map[string]kube.Row{}
		for _, r := range table.Rows {
			ours[r.Name] = r
		}
		mismatch = nil
		lines := strings.Split(strings.TrimSpace(string(out)), "\n")
		if len(lines) != len(ours) {
			mismatch = append(mismatch, "kubectl lists "+strings.Join(lines, "\n"))
		}
		for _, line := range lines {
			// NAME READY STATUS RESTARTS... NODE: RESTARTS may hold "(5m ago)".
			f := strings.Fields(line)
			r, ok := ours[f[0]]
			if !ok {
				mismatch = append(mismatch, f[0]+": not in kyyard's rows")
				continue
			}
			if r.Cells[1].Text != f[1] || r.Cells[2].Text != f[2] || !strings.Contains(line, " "+r.Cells[6].Text+" ") {
				mismatch = append(mismatch, "kubectl: "+line+"\nkyyard: "+r.Cells[1].Text+" "+r.Cells[2].Text+" "+r.Cells[6].Text)
			}
		}
		if len(mismatch) == 0 {
			return
		}
	}
	t.Fatalf("kyyard differs from kubectl:\n%s", strings.Join(mismatch, "\n"))
}
