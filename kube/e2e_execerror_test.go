package kube_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2EExecServerErrors: on the local cluster, a shell in a pod kwok has
// no Exec for ends with the server's error, its cause first (`no exec
// found for container "app"`), not as a lost connection; and a command
// that exits 3 (which kwok reports as an internal error ending in "exit
// status 3", reference section 8) is exit code 3, marked as read from
// the error.
func TestE2EExecServerErrors(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	ns := kubetest.TempNamespace(t, cs, "kyyard-fixexec")
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "noexec"},
		Spec: kwokPodSpec("registry.example/app:1")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var pod *corev1.Pod
	for i := 0; i < 300 && (pod == nil || pod.Status.Phase != corev1.PodRunning); i++ {
		time.Sleep(100 * time.Millisecond)
		pod, _ = cs.CoreV1().Pods(ns).Get(ctx, "noexec", metav1.GetOptions{})
	}
	if pod == nil || pod.Status.Phase != corev1.PodRunning {
		t.Fatal("pod noexec never Running")
	}
	c := kubetest.Client(t, cfg)
	_, err := c.OpenExec(ctx, kube.ExecRequest{Namespace: ns, Pod: "noexec", UID: string(pod.UID), TTY: true,
		Confirmed: []kube.Reason{kube.ReasonPodSecurity}})
	var se *kube.ExecServerError
	if !errors.As(err, &se) || errors.Is(err, kube.ErrExecClosed) || !strings.HasPrefix(se.Cause, `no exec found for container "app"`) {
		t.Fatalf("OpenExec error %v; want the server's error, cause first", err)
	}
	if strings.Count(err.Error(), "Internal error occurred") > 1 {
		t.Fatalf("error %q keeps the repeated part", err)
	}

	demo := runningDemoPod(t, cs)
	s, err := c.OpenExec(ctx, kube.ExecRequest{Namespace: demo.Namespace, Pod: demo.Name, UID: string(demo.UID),
		Command: []string{"sh", "-c", "exit 3"}, Confirmed: []kube.Reason{kube.ReasonPodSecurity}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.Run(ctx, kube.ExecStreams{Stdout: io.Discard, Stderr: io.Discard}, kube.ExecLimits{})
	if err != nil || res.ExitCode != 3 || !strings.Contains(res.ExitReportedAsError, "exit status 3") {
		t.Fatalf("Run = %+v, %v; want exit 3 read from kwok's error", res, err)
	}
}

// TestE2EPortForwardConnectionErrors: a forward to a pod for which kwok
// forwards nothing: each connection is refused on the pod's side ("no
// forward found for port 8080"), and the forward says so (Failed, the
// last error) while it stays active; once kwok forwards the port, the
// next connection works.
func TestE2EPortForwardConnectionErrors(t *testing.T) {
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	ns := kubetest.TempNamespace(t, cs, "kpf-fixexec")
	ctx := context.Background()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "echo", Namespace: ns, Labels: map[string]string{"app": "echo"}}, Spec: pfPodSpec()}
	if _, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := pfReadyPod(t, cs, ns, "app=echo", "")
	c := kubetest.Client(t, cfg)
	st, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindPods, Namespace: ns, Name: "echo", UID: string(p.UID), RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(st.LocalPort)), 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = conn.Write([]byte("GET / HTTP/1.0\r\n\r\n"))
		_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, _ = io.ReadAll(conn)
		conn.Close()
	}
	var last kube.ForwardStatus
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if last = c.PortForwards()[0]; last.Failed == 2 {
			break
		}
	}
	if last.Failed != 2 || !strings.HasPrefix(last.LastError, "no forward found for port 8080") || last.State != kube.ForwardActive {
		t.Fatalf("status %+v; want 2 failed connections, the kubelet's cause first, still active", last)
	}
	t.Logf("last error: %s", last.LastError)
	kwokForward(t, dynamic.NewForConfigOrDie(cfg), ns, "echo", 8080, pfEchoServer(t))
	var got string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline) && got != "echo:ping"; time.Sleep(200 * time.Millisecond) {
		got = pfTry(st.LocalPort, "ping")
	}
	if got != "echo:ping" {
		t.Fatalf("after kwok forwards the port: %q", got)
	}
	if st := c.PortForwards()[0]; st.State != kube.ForwardActive || st.Failed < 2 {
		t.Fatalf("status %+v", st)
	}
}

// pfTry connects, writes msg and reads the answer; "" when none came.
func pfTry(port int32, msg string) string {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(port)), 5*time.Second)
	if err != nil {
		return ""
	}
	defer c.Close()
	if _, err := c.Write([]byte(msg)); err != nil {
		return ""
	}
	_ = c.SetReadDeadline(time.Now().Add(3 * time.Second))
	buf := make([]byte, 256)
	n, _ := c.Read(buf)
	return string(buf[:n])
}
