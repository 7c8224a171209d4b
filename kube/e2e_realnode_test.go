package kube_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// The tests of this file run real containers on the local cluster's real
// node (a kubelet with containerd and runc; hack/cluster): the paths kwok's
// fake kubelet cannot show (reference local-cluster.md, section 8: exit
// codes lost, stdin EOF never arriving, restarts only patched into the
// status, no process behind a port-forward). They fail, saying why, when
// the node is missing or not Ready; kubectl built from the same release is
// the oracle where it can be one.

// realNode returns the admin config and clientset and a temporary
// namespace, after checking that the real node is Ready.
func realNode(t *testing.T, prefix string) (*rest.Config, kubernetes.Interface, string) {
	t.Helper()
	cfg := kubetest.Local(t)
	cs := kubernetes.NewForConfigOrDie(cfg)
	kubetest.RequireRealNode(t, cs)
	return cfg, cs, kubetest.TempNamespace(t, cs, prefix)
}

// shellPod is a busybox pod that waits until it is stopped.
func shellPod(name string) *corev1.Pod {
	return kubetest.RealNodePod(name, kubetest.BusyboxImage, "sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done")
}

// realExec runs cmd in the pod's only container through kyyard (no TTY)
// and returns the result, its stdout and stderr.
func realExec(t *testing.T, c *kube.Client, p *corev1.Pod, cmd []string, stdin io.Reader) (kube.ExecResult, string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req := kube.ExecRequest{Namespace: p.Namespace, Pod: p.Name, UID: string(p.UID), Command: cmd}
	plan, err := c.PlanExec(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range plan.Verdicts.Warnings() { // a temporary namespace enforces no Pod Security level
		req.Confirmed = append(req.Confirmed, w.Reason)
	}
	s, err := c.OpenExec(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	var out, errb syncBuffer
	res, err := s.Run(ctx, kube.ExecStreams{Stdin: stdin, Stdout: &out, Stderr: &errb}, kube.ExecLimits{})
	return res, out.String(), errb.String(), err
}

// TestE2ERealNodeExecExitCode: a real container's exit status comes back
// as it is, reported by the kubelet itself (not parsed from an error's
// text, as kwok needs), and kubectl exec exits with the same code.
func TestE2ERealNodeExecExitCode(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realexec")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	c := kubetest.Client(t, cfg)
	for _, code := range []int{3, 0, 1, 127} {
		res, out, errs, err := realExec(t, c, p, []string{"sh", "-c", "echo before; exit " + strconv.Itoa(code)}, nil)
		if err != nil || res.ExitCode != code || res.ExitReportedAsError != "" || out != "before\n" {
			t.Errorf("exit %d: result %+v, error %v, stdout %q, stderr %q", code, res, err, out, errs)
		}
		_, _, kcode := kubetest.Kubectl(t, "", "-n", ns, "exec", "shell", "--", "sh", "-c", "exit "+strconv.Itoa(code))
		if kcode != code {
			t.Errorf("kubectl exec exit %d, kyyard %d", kcode, res.ExitCode)
		}
	}
	// A command that does not exist: busybox's sh says so and exits 127.
	res, _, errs, err := realExec(t, c, p, []string{"sh", "-c", "no-such-command"}, nil)
	if err != nil || res.ExitCode != 127 || !strings.Contains(errs, "not found") {
		t.Errorf("missing command: %+v, %v, stderr %q", res, err, errs)
	}
}

// TestE2ERealNodeExecStdinEOF: the end of the local stdin reaches the
// remote process (cat ends and its output is all there), as with kubectl
// exec -i; kwok never delivers it.
func TestE2ERealNodeExecStdinEOF(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realstdin")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	c := kubetest.Client(t, cfg)
	input := "one\ntwo\n" + strings.Repeat("0123456789", 20000) + "\nlast line without newline"
	start := time.Now()
	res, out, errs, err := realExec(t, c, p, []string{"cat"}, strings.NewReader(input))
	if err != nil || res.ExitCode != 0 {
		t.Fatalf("cat: %+v, %v (after %s), stderr %q", res, err, time.Since(start), errs)
	}
	if out != input {
		t.Errorf("cat gave %d bytes back, want the %d sent", len(out), len(input))
	}
	kout, kerr, kcode := kubetest.Kubectl(t, input, "-n", ns, "exec", "-i", "shell", "--", "cat")
	if kcode != 0 || kout != out {
		t.Errorf("kubectl exec -i cat: exit %d, %d bytes (stderr %q); kyyard %d bytes", kcode, len(kout), kerr, len(out))
	}
	// wc -c counts what arrived before EOF.
	res, out, _, err = realExec(t, c, p, []string{"wc", "-c"}, strings.NewReader(input))
	if err != nil || res.ExitCode != 0 || strings.TrimSpace(out) != strconv.Itoa(len(input)) {
		t.Errorf("wc -c: %+v, %v, %q; want %d", res, err, out, len(input))
	}
}

// TestE2ERealNodeExecMatchesKubectl: stdout and stderr of a real process,
// bytes that are not text included, are what kubectl exec shows.
func TestE2ERealNodeExecMatchesKubectl(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realoracle")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	c := kubetest.Client(t, cfg)
	script := `echo out; echo err >&2; printf 'a\000b\377c\033[31mred\n'; ls /bin/sh; cat /etc/hostname; exit 4`
	res, out, errs, err := realExec(t, c, p, []string{"sh", "-c", script}, nil)
	if err != nil || res.ExitCode != 4 {
		t.Fatalf("%+v, %v", res, err)
	}
	kout, kerr, kcode := kubetest.Kubectl(t, "", "-n", ns, "exec", "shell", "--", "sh", "-c", script)
	if kcode != 4 || kout != out {
		t.Errorf("stdout: kubectl (exit %d) %q, kyyard %q", kcode, kout, out)
	}
	// kubectl adds its own line about the exit code to its stderr.
	if !strings.HasPrefix(kerr, errs) || errs != "err\n" {
		t.Errorf("stderr: kubectl %q, kyyard %q", kerr, errs)
	}
	if !strings.Contains(out, "a\x00b\xffc\x1b[31mred\n") || !strings.Contains(out, "shell\n") {
		t.Errorf("stdout %q", out)
	}
}

// restartRE is a line of the restarting container: its instance's random
// id and the line's number.
var restartRE = regexp.MustCompile(`^run=([0-9a-f-]+) line=(\d)$`)

// TestE2ERealNodeLogsFollowAcrossRestart: following a container that the
// kubelet really restarts, every instance's lines arrive once, in order, a
// resume marked as a restart separates them, and the previous instance
// kubectl logs --previous shows is one of them, whole.
func TestE2ERealNodeLogsFollowAcrossRestart(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realrestart")
	pod := kubetest.RealNodePod("crash", kubetest.BusyboxImage, "sh", "-c",
		`id=$(cat /proc/sys/kernel/random/uuid); for i in 1 2 3; do echo "run=$id line=$i"; sleep 1; done; exit 1`)
	p := kubetest.RunRealNodePod(t, cs, ns, pod)
	c := kubetest.Client(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rec := &logRecorder{}
	done := make(chan error, 1)
	go func() {
		done <- c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "crash", UID: string(p.UID),
			Options: kube.LogOptions{Follow: true, TailLines: -1}}, rec)
	}()
	runs := func() ([]string, map[string][]string) {
		rec.mu.Lock()
		defer rec.mu.Unlock()
		var order []string
		lines := map[string][]string{}
		for _, l := range rec.lines {
			m := restartRE.FindStringSubmatch(string(l.Raw))
			if m == nil {
				t.Errorf("unexpected line %q", l.Raw)
				continue
			}
			if _, ok := lines[m[1]]; !ok {
				order = append(order, m[1])
			}
			lines[m[1]] = append(lines[m[1]], m[2])
		}
		return order, lines
	}
	for {
		if order, _ := runs(); len(order) >= 3 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("Logs ended: %v; events %q", err, rec.snapshot())
		case <-ctx.Done():
			t.Fatalf("three instances not seen in 2 minutes: events %q", rec.snapshot())
		case <-time.After(200 * time.Millisecond):
		}
	}
	// kubectl asks the kubelet for the container named in the Pod's
	// lastState; when the kubelet restarts the container in between, that
	// one may already be removed by its container garbage collection and
	// kubectl prints "unable to retrieve container logs" (exit 0). That is
	// the kubelet's race, not kyyard's, so the oracle is asked again.
	var prev, kerr string
	var kcode int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(500 * time.Millisecond) {
		prev, kerr, kcode = kubetest.Kubectl(t, "", "-n", ns, "logs", "--previous", "crash")
		if kcode != 0 || restartRE.MatchString(strings.SplitN(prev, "\n", 2)[0]) || time.Now().After(deadline) {
			break
		}
	}
	cancel()
	<-done
	order, lines := runs()
	for i, id := range order {
		got := strings.Join(lines[id], ",")
		if i < len(order)-1 && got != "1,2,3" || i == len(order)-1 && !strings.HasPrefix("1,2,3", got) {
			t.Errorf("instance %d (%s) lines %s, want 1,2,3 once each in order", i, id, got)
		}
	}
	restarted := 0
	for _, n := range rec.notes {
		if n.Kind == kube.LogNoteResumed && n.Restarted {
			restarted++
		}
	}
	if restarted < len(order)-1 {
		t.Errorf("%d resumes marked as restarts for %d instances: events %q", restarted, len(order), rec.snapshot())
	}
	m := restartRE.FindStringSubmatch(strings.SplitN(prev, "\n", 2)[0])
	if kcode != 0 || m == nil {
		t.Fatalf("kubectl logs --previous: exit %d, %q, %q", kcode, prev, kerr)
	}
	var want strings.Builder
	for _, n := range []string{"1", "2", "3"} {
		fmt.Fprintf(&want, "run=%s line=%s\n", m[1], n)
	}
	if prev != want.String() || strings.Join(lines[m[1]], ",") != "1,2,3" {
		t.Errorf("kubectl logs --previous %q; kyyard's lines of that instance %v", prev, lines[m[1]])
	}
}

// TestE2ERealNodeLogsMatchKubectl: a real container's hostile log (escape
// sequences, invalid UTF-8, a 200,000-byte line that containerd stores as
// partial entries) reads back byte for byte as kubectl logs prints it.
func TestE2ERealNodeLogsMatchKubectl(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-reallogs")
	p := kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("hostile", kubetest.DemoAppImage, "/demoapp", "hostile", "-every=1h"))
	var kout string
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		out, _, code := kubetest.Kubectl(t, "", "-n", ns, "logs", "hostile")
		if code == 0 && strings.Contains(out, "hostile: done with the first round\n") {
			kout = out
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the hostile log is not complete after 30 s: %.200q", out)
		}
	}
	c := kubetest.Client(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &logRecorder{}
	if err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "hostile", UID: string(p.UID),
		Options: kube.LogOptions{TailLines: -1}}, rec); err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	long := 0
	for _, l := range rec.lines {
		if l.Partial || l.Continued {
			t.Errorf("a line of the finished read is partial: %.60q", l.Raw)
		}
		got.Write(l.Raw)
		got.WriteByte('\n')
		if len(l.Raw) > long {
			long = len(l.Raw)
		}
	}
	if got.String() != kout {
		t.Errorf("kyyard's lines (%d bytes) differ from kubectl logs (%d bytes)", got.Len(), len(kout))
	}
	if long != 200000 {
		t.Errorf("the longest line has %d bytes, want 200000", long)
	}
	if !bytes.Contains(got.Bytes(), []byte("invalid UTF-8 \xff\xfe")) || !bytes.Contains(got.Bytes(), []byte("\x1b]52;c;")) {
		t.Errorf("hostile bytes were changed: %.300q", got.String())
	}
}

// TestE2ERealNodePortForward: bytes go both ways through a forward to a
// real process listening in the pod's own network namespace: every byte
// value to the TCP echo server and back, and an HTTP request to the web
// server.
func TestE2ERealNodePortForward(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realpf")
	p := kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("web", kubetest.DemoAppImage, "/demoapp", "web", "-addr=:8080", "-echo-addr=:9000"))
	c := kubetest.Client(t, cfg)
	ctx := context.Background()
	echo, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindPods, Namespace: ns, Name: "web", UID: string(p.UID), RemotePort: 9000})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.StopPortForward(echo.ID) })
	payload := make([]byte, 256*1024)
	for i := range payload {
		payload[i] = byte(i * 7)
	}
	kubetest.EchoThrough(t, echo.LocalPort, payload)
	web, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindPods, Namespace: ns, Name: "web", UID: string(p.UID), RemotePort: 8080})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.StopPortForward(web.ID) })
	if host := kubetest.GetThrough(t, web.LocalPort, "/through-kyyard"); host != "web" {
		t.Errorf("GET through the forward answered by %q, want the pod web", host)
	}
}
