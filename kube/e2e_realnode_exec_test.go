package kube_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/url"
	"path"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// The terminal sessions of kyyard on the real node (see
// e2e_realnode_test.go): a shell with a TTY and its resizes, the shell
// chosen in an image without bash, a connection lost under a command, an
// attach to a running container and back, and ephemeral debug containers
// under Pod Security.

// pushSizes is a terminal size queue the test feeds: each push is the
// next size the session sends; close ends the queue.
type pushSizes struct {
	ch   chan kube.TerminalSize
	done chan struct{}
	once sync.Once
}

func newPushSizes(first kube.TerminalSize) *pushSizes {
	q := &pushSizes{ch: make(chan kube.TerminalSize, 4), done: make(chan struct{})}
	q.ch <- first
	return q
}

func (q *pushSizes) push(s kube.TerminalSize) { q.ch <- s }

func (q *pushSizes) close() { q.once.Do(func() { close(q.done) }) }

func (q *pushSizes) Next() *kube.TerminalSize {
	select {
	case s := <-q.ch:
		return &s
	case <-q.done:
		return nil
	}
}

// ttyRun is a session running with a TTY: what the test types goes to
// in, what the remote terminal writes is in out.
type ttyRun struct {
	t      *testing.T
	in     *io.PipeWriter
	out    *syncBuffer
	cancel context.CancelFunc
	done   chan ttyEnd
}

// ttyEnd is how a session's Run returned.
type ttyEnd struct {
	res kube.ExecResult
	err error
}

// startTTY runs s with a TTY-less pipe as stdin and sizes as the size
// queue, for at most two minutes.
func startTTY(t *testing.T, s kube.ExecSession, sizes kube.TerminalSizeQueue) *ttyRun {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	r := &ttyRun{t: t, in: pw, out: &syncBuffer{}, cancel: cancel, done: make(chan ttyEnd, 1)}
	go func() {
		res, err := s.Run(ctx, kube.ExecStreams{Stdin: pr, Stdout: r.out, Sizes: sizes}, kube.ExecLimits{})
		_ = pr.Close()
		r.done <- ttyEnd{res, err}
	}()
	t.Cleanup(func() {
		cancel()
		_ = pw.Close()
	})
	return r
}

// ask types line (and a newline) until want appears in the output after
// the first time it was typed, typing it again every two seconds: the
// first bytes may reach the remote terminal before its program reads
// them, and a resize reaches the pty on a stream of its own, beside
// stdin. It fails after 30 seconds.
func (r *ttyRun) ask(line string, want *regexp.Regexp) {
	r.t.Helper()
	from := len(r.out.String())
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := io.WriteString(r.in, line+"\n"); err != nil {
			r.t.Fatalf("typing %q: %v (output %q)", line, err, r.out.String())
		}
		for typed := time.Now(); time.Since(typed) < 2*time.Second; time.Sleep(20 * time.Millisecond) {
			if want.MatchString(r.out.String()[from:]) {
				return
			}
		}
	}
	r.t.Fatalf("typed %q: %s not seen in 30 s; output %q", line, want, r.out.String())
}

// type1 types line once.
func (r *ttyRun) type1(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatalf("typing %q: %v", line, err)
	}
}

// end waits (at most a minute) for Run to return.
func (r *ttyRun) end() (kube.ExecResult, error) {
	r.t.Helper()
	select {
	case e := <-r.done:
		return e.res, e.err
	case <-time.After(time.Minute):
		r.t.Fatalf("the session did not end; output %q", r.out.String())
		return kube.ExecResult{}, nil
	}
}

// confirmedExec returns req with every warning of its plan confirmed (a
// temporary namespace enforces no Pod Security level).
func confirmedExec(t *testing.T, c *kube.Client, req kube.ExecRequest) kube.ExecRequest {
	t.Helper()
	plan, err := c.PlanExec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if r := plan.Verdicts.Refusal(); r != nil {
		t.Fatalf("exec refused: %v", r)
	}
	for _, w := range plan.Verdicts.Warnings() {
		req.Confirmed = append(req.Confirmed, w.Reason)
	}
	return req
}

// TestE2ERealNodeExecShellFallsBackToSh: busybox has sh and no bash; the
// shell kyyard chooses with no configured one, and with bash configured,
// is busybox's sh (the path kubectl exec's `command -v sh` prints), the
// note says why, and a session in it runs commands and returns the exit
// code of its `exit`.
func TestE2ERealNodeExecShellFallsBackToSh(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realsh")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	c := kubetest.Client(t, cfg)
	shPath, _, code := kubetest.Kubectl(t, "", "-n", ns, "exec", "shell", "--", "sh", "-c", "command -v sh")
	if code != 0 || strings.TrimSpace(shPath) == "" {
		t.Fatalf("kubectl exec command -v sh: exit %d, %q", code, shPath)
	}
	if out, _, code := kubetest.Kubectl(t, "", "-n", ns, "exec", "shell", "--", "sh", "-c", "command -v bash"); code == 0 {
		t.Fatalf("the busybox image has bash (%q): the fallback cannot be shown", out)
	}
	for _, configured := range [][]string{nil, {"bash", "-l"}} {
		req := confirmedExec(t, c, kube.ExecRequest{Namespace: ns, Pod: "shell", UID: string(p.UID), TTY: true, Shell: configured})
		s, err := c.OpenExec(context.Background(), req)
		if err != nil {
			t.Fatalf("configured %q: %v", configured, err)
		}
		if got := s.Argv(); len(got) != 1 || got[0] != strings.TrimSpace(shPath) || path.Base(got[0]) != "sh" {
			t.Fatalf("configured %q: argv %q, want [%s]", configured, got, strings.TrimSpace(shPath))
		}
		if s.Note() != "bash not found, using sh" || s.Container() != "main" {
			t.Fatalf("configured %q: note %q, container %q", configured, s.Note(), s.Container())
		}
		sizes := newPushSizes(kube.TerminalSize{Width: 80, Height: 24})
		r := startTTY(t, s, sizes)
		r.ask(`echo "shell=$0 sum=$((40+2))"`, regexp.MustCompile(`shell=\S*sh sum=42`))
		r.type1("exit 3")
		res, err := r.end()
		sizes.close()
		if err != nil || res.ExitCode != 3 || res.ExitReportedAsError != "" || res.Transport != "websocket" {
			t.Fatalf("configured %q: Run = %+v, %v; output %q", configured, res, err, r.out.String())
		}
	}
}

// TestE2ERealNodeExecTerminalResize: a TTY session given one size and
// later a second one (the terminal resized while the shell runs): `stty
// size` in the container reports the first, then the second, as rows and
// columns.
func TestE2ERealNodeExecTerminalResize(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realsize")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	c := kubetest.Client(t, cfg)
	req := confirmedExec(t, c, kube.ExecRequest{Namespace: ns, Pod: "shell", UID: string(p.UID), TTY: true})
	s, err := c.OpenExec(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	sizes := newPushSizes(kube.TerminalSize{Width: 97, Height: 31})
	defer sizes.close()
	r := startTTY(t, s, sizes)
	r.ask("stty size", regexp.MustCompile(`(?m)^31 97\r?$`))
	sizes.push(kube.TerminalSize{Width: 143, Height: 52})
	r.ask("stty size", regexp.MustCompile(`(?m)^52 143\r?$`))
	// A second resize, smaller: each one is passed on, not only the first.
	sizes.push(kube.TerminalSize{Width: 40, Height: 12})
	r.ask("stty size", regexp.MustCompile(`(?m)^12 40\r?$`))
	r.type1("exit")
	if res, err := r.end(); err != nil || res.ExitCode != 0 {
		t.Fatalf("Run = %+v, %v; output %q", res, err, r.out.String())
	}
}

// cutProxy relays TCP connections from a port of 127.0.0.1 to the API
// server, and cuts them all at once when asked: the connection lost under
// a session as a stopped API server or a broken network leaves it. The TLS
// inside is the client's and the API server's own.
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
}

// startCutProxy relays to the host of cfg and returns a copy of cfg that
// goes through it.
func startCutProxy(t *testing.T, cfg *rest.Config) (*cutProxy, *rest.Config) {
	t.Helper()
	u, err := url.Parse(cfg.Host)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: u.Host}
	go p.serve()
	t.Cleanup(func() {
		_ = ln.Close()
		p.cut()
	})
	through := rest.CopyConfig(cfg)
	through.Host = "https://" + ln.Addr().String()
	return p, through
}

func (p *cutProxy) serve() {
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		go func() { _, _ = io.Copy(out, in); _ = out.Close() }()
		go func() { _, _ = io.Copy(in, out); _ = in.Close() }()
	}
}

// cut closes every connection made so far, both sides, and returns how
// many were open.
func (p *cutProxy) cut() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close()
	}
	n := len(p.conns) / 2
	p.conns = nil
	return n
}

// waitOutput waits (at most 30 s) until out holds want.
func waitOutput(t *testing.T, out *syncBuffer, want string) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); !strings.Contains(out.String(), want); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%q not seen in 30 s; output %q", want, out.String())
		}
	}
}

// lostCommand is the remote command of the connection-lost tests: it says
// it started, then runs for longer than any test.
var lostCommand = []string{"sh", "-c", "echo started; sleep 300; echo finished"}

// TestE2ERealNodeExecConnectionLost: the TCP connection under a session is
// cut while its command runs (sleep, on the real node), as a stopped API
// server or a broken network cuts it: the session ends at once with the
// exit status unknown (ErrExecClosed), never exit 0 and never the
// server's error, over the WebSocket executor and over SPDY (where
// client-go alone takes the empty error stream for success), with and
// without a TTY. The connection of the proxy is the only one cut: the
// cluster goes on serving everyone else.
func TestE2ERealNodeExecConnectionLost(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-reallost")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	for _, tc := range []struct {
		transport string
		tty       bool
	}{{"websocket", false}, {"websocket", true}, {"spdy", false}, {"spdy", true}} {
		name := tc.transport
		if tc.tty {
			name += " tty"
		}
		t.Run(name, func(t *testing.T) {
			proxy, through := startCutProxy(t, cfg)
			c := kubetest.Client(t, through)
			if tc.transport == "spdy" {
				kube.UseSPDY(c)
			}
			req := confirmedExec(t, c, kube.ExecRequest{Namespace: ns, Pod: "shell", UID: string(p.UID), Command: lostCommand, TTY: tc.tty})
			s, err := c.OpenExec(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			out := &syncBuffer{}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			done := make(chan ttyEnd, 1)
			streams := kube.ExecStreams{Stdout: out, Stderr: out}
			if tc.tty {
				sizes := newPushSizes(kube.TerminalSize{Width: 80, Height: 24})
				defer sizes.close()
				streams.Sizes = sizes
			}
			go func() {
				res, err := s.Run(ctx, streams, kube.ExecLimits{})
				done <- ttyEnd{res, err}
			}()
			waitOutput(t, out, "started")
			if n := proxy.cut(); n == 0 {
				t.Fatal("no connection to cut")
			}
			var end ttyEnd
			select {
			case end = <-done:
			case <-time.After(30 * time.Second):
				t.Fatalf("the session did not end in 30 s after its connection was cut; output %q", out.String())
			}
			var se *kube.ExecServerError
			if end.err == nil || !errors.Is(end.err, kube.ErrExecClosed) || errors.As(end.err, &se) {
				t.Fatalf("after the cut: Run = %+v, %v; want ErrExecClosed (the exit status unknown)", end.res, end.err)
			}
			if end.res.Transport != tc.transport || strings.Contains(out.String(), "finished") {
				t.Fatalf("result %+v, output %q", end.res, out.String())
			}
			t.Logf("%s: %v", name, end.err)
		})
	}
}

// TestE2EDisruptiveRealNodeExecAPIServerStopped: the local API server is
// stopped (hack/cluster's restart-apiserver) while a command runs in a real
// container, over the WebSocket executor and over SPDY: each session ends
// with the exit status unknown (ErrExecClosed: "exit status unknown:
// connection lost" on the status line), never exit 0, and once the API
// server is back, a new session in the same container works (the remote
// sleep was not what ended the first).
func TestE2EDisruptiveRealNodeExecAPIServerStopped(t *testing.T) {
	tool := kubetest.Disruptive(t)
	cfg, cs, ns := realNode(t, "kyyard-realoutage")
	p := kubetest.RunRealNodePod(t, cs, ns, shellPod("shell"))
	type session struct {
		name string
		out  *syncBuffer
		done chan ttyEnd
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var sessions []session
	for _, transport := range []string{"websocket", "spdy"} {
		c := kubetest.Client(t, cfg)
		if transport == "spdy" {
			kube.UseSPDY(c)
		}
		req := confirmedExec(t, c, kube.ExecRequest{Namespace: ns, Pod: "shell", UID: string(p.UID), Command: lostCommand})
		s, err := c.OpenExec(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		se := session{name: transport, out: &syncBuffer{}, done: make(chan ttyEnd, 1)}
		go func() {
			res, err := s.Run(ctx, kube.ExecStreams{Stdout: se.out, Stderr: se.out}, kube.ExecLimits{})
			se.done <- ttyEnd{res, err}
		}()
		waitOutput(t, se.out, "started")
		sessions = append(sessions, se)
	}
	restart := kubetest.ClusterCommand(tool, "restart-apiserver", "--down", "8s")
	restarted := make(chan error, 1)
	var output []byte
	go func() {
		var err error
		output, err = restart.CombinedOutput()
		restarted <- err
	}()
	for _, se := range sessions {
		select {
		case end := <-se.done:
			var serr *kube.ExecServerError
			if end.err == nil || !errors.Is(end.err, kube.ErrExecClosed) || errors.As(end.err, &serr) {
				t.Errorf("%s: the API server stopped under the command: Run = %+v, %v; want ErrExecClosed (the exit status unknown)",
					se.name, end.res, end.err)
			} else {
				t.Logf("%s: %v", se.name, end.err)
			}
		case <-time.After(90 * time.Second):
			t.Errorf("%s: the session did not end while the API server was stopped; output %q", se.name, se.out.String())
		}
	}
	if err := <-restarted; err != nil {
		t.Fatalf("restart-apiserver: %v\n%s", err, output)
	}
	c := kubetest.Client(t, cfg)
	res, out, _, err := realExec(t, c, p, []string{"sh", "-c", "echo back; exit 4"}, nil)
	if err != nil || res.ExitCode != 4 || out != "back\n" {
		t.Fatalf("a session after the restart: %+v, %v, %q", res, err, out)
	}
}

// ttyPod is a busybox pod whose main process is an interactive sh, with
// stdin and a TTY: what attach joins.
func ttyPod(name string) *corev1.Pod {
	p := kubetest.RealNodePod(name, kubetest.BusyboxImage, "sh")
	p.Spec.Containers[0].Stdin, p.Spec.Containers[0].TTY = true, true
	return p
}

// containerState returns the state of the container (or ephemeral
// container) name of pod ns/pod.
func containerState(t *testing.T, cs kubernetes.Interface, ns, pod, name string) corev1.ContainerStatus {
	t.Helper()
	p, err := cs.CoreV1().Pods(ns).Get(context.Background(), pod, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range append(p.Status.ContainerStatuses, p.Status.EphemeralContainerStatuses...) {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("pod %s/%s has no status of container %s", ns, pod, name)
	return corev1.ContainerStatus{}
}

// TestE2ERealNodeAttachInteractiveAndBack: kyyard's attach (the one its
// debug containers use, pods/attach with stdin and a TTY) to the running
// sh of a container started with stdin and a TTY: what is typed reaches
// that shell and its answers come back, the terminal's size too; leaving
// the session (its context ended) detaches and leaves the container
// running, not restarted; a second attach finds the same shell, with the
// variable the first one set.
func TestE2ERealNodeAttachInteractiveAndBack(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realattach")
	kubetest.RunRealNodePod(t, cs, ns, ttyPod("tty"))
	c := kubetest.Client(t, cfg)
	before := containerState(t, cs, ns, "tty", "main")

	sizes := newPushSizes(kube.TerminalSize{Width: 101, Height: 33})
	defer sizes.close()
	first := startTTY(t, kube.AttachSession(c, ns, "tty", "main"), sizes)
	first.ask("kept=kept-$((6*7)); echo first-$((20+22))", regexp.MustCompile(`first-42`))
	first.ask("stty size", regexp.MustCompile(`(?m)^33 101\r?$`))
	first.cancel()
	if res, err := first.end(); !errors.Is(err, context.Canceled) {
		t.Fatalf("leaving the attach: Run = %+v, %v; want the session's context's end", res, err)
	}
	// The container runs on: give the kubelet a moment to notice anything
	// else, then read its status.
	time.Sleep(2 * time.Second)
	after := containerState(t, cs, ns, "tty", "main")
	if after.State.Running == nil || after.RestartCount != before.RestartCount || after.ContainerID != before.ContainerID {
		t.Fatalf("after the detach: %+v (before %+v)", after, before)
	}

	second := startTTY(t, kube.AttachSession(c, ns, "tty", "main"), newPushSizes(kube.TerminalSize{Width: 80, Height: 24}))
	second.ask(`echo "again $kept"`, regexp.MustCompile(`again kept-42`))
	second.cancel()
	if _, err := second.end(); !errors.Is(err, context.Canceled) {
		t.Fatalf("leaving the second attach: %v", err)
	}
	if st := containerState(t, cs, ns, "tty", "main"); st.State.Running == nil || st.RestartCount != before.RestartCount {
		t.Fatalf("after the second detach: %+v", st)
	}
}

// openDebug plans and opens a debug container (kyyard's busybox image)
// targeting container main of pod, confirming the plan's warnings; it
// returns the session and the progress texts.
func openDebug(t *testing.T, c *kube.Client, ns string, p *corev1.Pod) (kube.ExecSession, []string) {
	t.Helper()
	req := kube.DebugRequest{Namespace: ns, Pod: p.Name, UID: string(p.UID), Target: "main", Image: kubetest.BusyboxImage}
	vs, err := c.PlanDebug(context.Background(), req)
	if err != nil || vs.Refusal() != nil {
		t.Fatalf("plan: %+v, %v", vs, err)
	}
	for _, w := range vs.Warnings() {
		req.Confirmed = append(req.Confirmed, w.Reason)
	}
	var mu sync.Mutex
	var progress []string
	s, err := c.OpenDebug(context.Background(), req, func(text string) {
		mu.Lock()
		progress = append(progress, text)
		mu.Unlock()
	})
	if err != nil {
		t.Fatalf("open: %v (progress %q)", err, progress)
	}
	mu.Lock()
	defer mu.Unlock()
	return s, progress
}

// noShellPod is a pod of demoapp's image (no shell at all), its process
// idle.
func noShellPod(name string) *corev1.Pod {
	return kubetest.RealNodePod(name, kubetest.DemoAppImage, "/demoapp", "idle")
}

// TestE2ERealNodeDebugContainer: a shell asked for in a container whose
// image has no shell is ErrExecNoShell (containerd's own answer, the one
// kubectl exec prints, told by its cause: exec: "sh": executable file not
// found), the offer of a debug container; the debug
// container is added, its status is observed Running (kwok never reports
// one), a shell in it runs commands and sees the app's process (it joins
// its process namespace), and its exit code is the one the kubelet
// reports once it ends. The app container is untouched.
func TestE2ERealNodeDebugContainer(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realdebug")
	p := kubetest.RunRealNodePod(t, cs, ns, noShellPod("app"))
	c := kubetest.Client(t, cfg)
	req := confirmedExec(t, c, kube.ExecRequest{Namespace: ns, Pod: "app", UID: string(p.UID), TTY: true})
	_, err := c.OpenExec(context.Background(), req)
	// containerd's answer, its cause first: the program it did not find.
	if !errors.Is(err, kube.ErrExecNoShell) || !strings.Contains(err.Error(), `the server ended the session: exec: "sh": executable file not found in $PATH (`) {
		t.Fatalf("a shell in demoapp: %v; want ErrExecNoShell, containerd's cause first", err)
	}
	_, kerr, kcode := kubetest.Kubectl(t, "", "-n", ns, "exec", "app", "--", "sh")
	if kcode == 0 || !strings.Contains(kerr, "not found") {
		t.Fatalf("kubectl exec sh in demoapp: exit %d, %q", kcode, kerr)
	}
	t.Logf("kyyard: %v; kubectl: %s", err, strings.TrimSpace(kerr))

	s, progress := openDebug(t, c, ns, p)
	if last := progress[len(progress)-1]; !strings.HasSuffix(last, ": running") {
		t.Fatalf("progress %q: want it to end running", progress)
	}
	if st := containerState(t, cs, ns, "app", s.Container()); st.State.Running == nil {
		t.Fatalf("debug container %s: %+v", s.Container(), st.State)
	}
	r := startTTY(t, s, newPushSizes(kube.TerminalSize{Width: 120, Height: 40}))
	r.ask("echo debug-$((40+2))", regexp.MustCompile(`debug-42`))
	r.ask("ps", regexp.MustCompile(`/demoapp idle`))
	r.type1("exit 5")
	res, err := r.end()
	if err != nil || res.ExitCode != 5 {
		t.Fatalf("Run = %+v, %v; output %q", res, err, r.out.String())
	}
	if st := containerState(t, cs, ns, "app", s.Container()); st.State.Terminated == nil || st.State.Terminated.ExitCode != 5 {
		t.Fatalf("debug container after exit 5: %+v", st.State)
	}
	if st := containerState(t, cs, ns, "app", "main"); st.State.Running == nil || st.RestartCount != 0 {
		t.Fatalf("the app container after the debug session: %+v", st)
	}
}

// labelNamespace sets ns's pod-security.kubernetes.io/enforce label.
func labelNamespace(t *testing.T, cs kubernetes.Interface, ns, level string) {
	t.Helper()
	ctx := context.Background()
	o, err := cs.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Labels == nil {
		o.Labels = map[string]string{}
	}
	o.Labels["pod-security.kubernetes.io/enforce"] = level
	if _, err := cs.CoreV1().Namespaces().Update(ctx, o, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// restrictedNoShellPod is noShellPod made to meet the restricted level:
// non-root (uid 1000), the runtime's seccomp profile, no privilege
// escalation, every capability dropped.
func restrictedNoShellPod(name string) *corev1.Pod {
	p := noShellPod(name)
	yes, no, uid := true, false, int64(1000)
	p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: &yes, RunAsUser: &uid,
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: &no,
		Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	return p
}

// TestE2ERealNodeDebugPodSecurity: what kyyard's plan says of a debug
// container and what the API server and the kubelet do with it agree, per
// the namespace's Pod Security level. Restricted: the plan passes without
// a warning (a strict client opens it), the server admits the container
// kyyard builds and it runs as the pod's non-root user, seeing the app's
// process. Baseline: a plain container, admitted, running as root. A pod
// made before its namespace was labelled restricted: the plan warns that
// the pod does not meet the level (the server checks the whole pod), and
// the server, asked all the same, rejects the debug container with its
// own words.
func TestE2ERealNodeDebugPodSecurity(t *testing.T) {
	cfg, cs, _ := realNode(t, "kyyard-realpsa")
	strict, err := kube.NewFromConfig(cfg, kube.Options{Registry: kinds.Builtin(), Policy: kube.PolicyStrict})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(strict.Close)

	t.Run("restricted", func(t *testing.T) {
		ns := kubetest.TempNamespace(t, cs, "kyyard-realpsa-r")
		labelNamespace(t, cs, ns, "restricted")
		p := kubetest.RunRealNodePod(t, cs, ns, restrictedNoShellPod("app"))
		plan, err := strict.PlanExec(context.Background(), kube.ExecRequest{Namespace: ns, Pod: "app", UID: string(p.UID)})
		if err != nil || plan.Verdicts.Refusal() != nil || len(plan.Verdicts.Warnings()) != 0 {
			t.Fatalf("exec plan under restricted: %+v, %v", plan, err)
		}
		s, _ := openDebug(t, strict, ns, p)
		r := startTTY(t, s, newPushSizes(kube.TerminalSize{Width: 120, Height: 40}))
		r.ask(`echo "uid=$(id -u)"`, regexp.MustCompile(`uid=1000\b`))
		r.ask("ps", regexp.MustCompile(`/demoapp idle`))
		r.type1("exit")
		if res, err := r.end(); err != nil || res.ExitCode != 0 {
			t.Fatalf("Run = %+v, %v; output %q", res, err, r.out.String())
		}
	})

	t.Run("baseline", func(t *testing.T) {
		ns := kubetest.TempNamespace(t, cs, "kyyard-realpsa-b")
		labelNamespace(t, cs, ns, "baseline")
		p := kubetest.RunRealNodePod(t, cs, ns, noShellPod("app"))
		s, _ := openDebug(t, strict, ns, p)
		r := startTTY(t, s, newPushSizes(kube.TerminalSize{Width: 120, Height: 40}))
		r.ask(`echo "uid=$(id -u)"`, regexp.MustCompile(`uid=0\b`))
		r.type1("exit")
		if res, err := r.end(); err != nil || res.ExitCode != 0 {
			t.Fatalf("Run = %+v, %v; output %q", res, err, r.out.String())
		}
	})

	t.Run("pod made before the label", func(t *testing.T) {
		ns := kubetest.TempNamespace(t, cs, "kyyard-realpsa-l")
		p := kubetest.RunRealNodePod(t, cs, ns, noShellPod("app"))
		labelNamespace(t, cs, ns, "restricted")
		c := kubetest.Client(t, cfg)
		req := kube.DebugRequest{Namespace: ns, Pod: "app", UID: string(p.UID), Target: "main", Image: kubetest.BusyboxImage}
		vs, err := c.PlanDebug(context.Background(), req)
		if err != nil || vs.Refusal() != nil {
			t.Fatalf("plan: %+v, %v", vs, err)
		}
		ws := vs.Warnings()
		if len(ws) != 1 || ws[0].Reason != kube.ReasonPodSecurity || !strings.Contains(ws[0].Sentence, "does not meet it") {
			t.Fatalf("plan warnings %+v: want the pod said not to meet restricted", ws)
		}
		if vs, _ := strict.PlanDebug(context.Background(), req); vs.Refusal() == nil || vs.Refusal().Reason != kube.ReasonPodSecurity {
			t.Fatalf("strict plan: %+v", vs)
		}
		req.Confirmed = []kube.Reason{kube.ReasonPodSecurity}
		_, err = c.OpenDebug(context.Background(), req, nil)
		if kube.ReasonOf(err) != kube.ReasonAdmissionDenied || !strings.Contains(err.Error(), "violates PodSecurity") {
			t.Fatalf("the server asked all the same: %v; want its Pod Security rejection", err)
		}
		t.Logf("plan: %s; server: %v", ws[0].Sentence, err)
		got, err := cs.CoreV1().Pods(ns).Get(context.Background(), "app", metav1.GetOptions{})
		if err != nil || len(got.Spec.EphemeralContainers) != 0 {
			t.Fatalf("the pod after the rejection: %v, %d ephemeral containers", err, len(got.Spec.EphemeralContainers))
		}
	})
}
