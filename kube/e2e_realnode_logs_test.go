package kube_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// The logs and port-forward tests of the real node (issue 22): a previous
// instance against kubectl logs --previous, a follow across kubelet log
// rotations (containerLogMaxSize 1Mi, hack/cluster/internal/node) against
// kubectl logs -f, the hostile writer followed, a forward to a Deployment
// whose pod is deleted, and the follow throughput benchmark.

// rlPodLines joins what a recorder got back into the bytes of the log as
// kubectl prints it: Continued pieces appended to their line, a newline
// after every line but a Partial one that nothing continued (the stream
// ended without one).
func rlPodLines(lines []kube.LogLine) []byte {
	var out bytes.Buffer
	for i, l := range lines {
		out.Write(l.Raw)
		next := i + 1
		if next < len(lines) && lines[next].Continued {
			continue
		}
		if !l.Partial {
			out.WriteByte('\n')
		}
	}
	return out.Bytes()
}

// rlWaitRestarted waits (up to 2 minutes) until the pod's only container
// has restarted at least once and runs again, and returns the pod.
func rlWaitRestarted(t *testing.T, cs kubernetes.Interface, ns, name string) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	for deadline := time.Now().Add(2 * time.Minute); time.Now().Before(deadline); time.Sleep(300 * time.Millisecond) {
		p, err := cs.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			continue
		}
		last = p
		if len(p.Status.ContainerStatuses) == 1 {
			s := p.Status.ContainerStatuses[0]
			if s.RestartCount >= 1 && s.State.Running != nil && s.LastTerminationState.Terminated != nil {
				return p
			}
		}
	}
	t.Fatalf("pod %s/%s did not restart and run again in 2 minutes: %+v", ns, name, last.Status.ContainerStatuses)
	return nil
}

// rlRead reads a pod's log through kyyard, not following, and returns what
// the recorder got.
func rlRead(t *testing.T, c *kube.Client, p *corev1.Pod, opts kube.LogOptions) *logRecorder {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rec := &logRecorder{}
	if err := c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: p.Namespace, Name: p.Name, UID: string(p.UID),
		Options: opts}, rec); err != nil {
		t.Fatalf("Logs %+v: %v", opts, err)
	}
	return rec
}

// TestE2ERealNodeLogsPreviousMatchesKubectl: the previous instance of a
// container the kubelet really restarted (it exited 3) reads back, through
// kyyard's previous-container read, byte for byte as kubectl logs
// --previous prints it: numbered lines, tabs, escape sequences, invalid
// UTF-8, a 70,000-byte line (stored by containerd as partial entries) and
// a last line without its newline; with tails too (the kubelet counts
// its file's entries); and the running instance is not mixed into it.
func TestE2ERealNodeLogsPreviousMatchesKubectl(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realprev")
	// The first instance leaves a mark in an emptyDir (which outlives the
	// container) and exits 3; the second sees it and stays, so that the
	// previous instance stays the same while the test reads it.
	script := `if [ -e /state/ran ]; then echo "second instance"; trap 'exit 0' TERM; while true; do sleep 1; done; fi
touch /state/ran
i=1; while [ $i -le 40 ]; do echo "first instance line=$i"; i=$((i+1)); done
printf 'tab\there \033[31mred\033[0m \033]0;title\007 bad \377\376 end\n'
yes x | head -c 140000 | tr -d '\n'; echo
printf 'last line without its newline'
exit 3`
	pod := kubetest.RealNodePod("prev", kubetest.BusyboxImage, "sh", "-c", script)
	pod.Spec.Volumes = []corev1.Volume{{Name: "state", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}
	pod.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "state", MountPath: "/state"}}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	p := rlWaitRestarted(t, cs, ns, "prev")
	c := kubetest.Client(t, cfg)

	kprev, kerr, kcode := kubetest.Kubectl(t, "", "-n", ns, "logs", "--previous", "prev")
	if kcode != 0 || !strings.HasPrefix(kprev, "first instance line=1\n") || !strings.HasSuffix(kprev, "last line without its newline") {
		t.Fatalf("kubectl logs --previous: exit %d, %.200q…, stderr %q", kcode, kprev, kerr)
	}
	rec := rlRead(t, c, p, kube.LogOptions{Previous: true, TailLines: -1})
	if got := rlPodLines(rec.lines); string(got) != kprev {
		t.Errorf("kyyard's previous instance (%d bytes) differs from kubectl logs --previous (%d bytes):\nkyyard  %.300q\nkubectl %.300q",
			len(got), len(kprev), got, kprev)
	}
	if n := len(rec.lines); n != 43 || !rec.lines[n-1].Partial {
		t.Errorf("%d lines, the last partial %v; want 43, the last without its newline", n, n > 0 && rec.lines[n-1].Partial)
	}
	for _, l := range rec.lines {
		if strings.Contains(string(l.Raw), "second instance") {
			t.Errorf("the running instance's line in the previous read: %q", l.Raw)
		}
	}

	// The kubelet counts the tail in its file's entries: the 70,000-byte
	// line is five (16 KiB each), so the last three are two pieces of it
	// and the last line; kyyard shows what the kubelet serves.
	for _, n := range []int{1, 3, 10} {
		ktail, _, _ := kubetest.Kubectl(t, "", "-n", ns, "logs", "--previous", "--tail="+strconv.Itoa(n), "prev")
		tail := rlRead(t, c, p, kube.LogOptions{Previous: true, TailLines: int64(n)})
		if got := rlPodLines(tail.lines); string(got) != ktail {
			t.Errorf("--tail=%d: kyyard %d lines %.100q…, kubectl %.100q…", n, len(tail.lines), got, ktail)
		}
	}

	kcur, _, _ := kubetest.Kubectl(t, "", "-n", ns, "logs", "prev")
	cur := rlRead(t, c, p, kube.LogOptions{TailLines: -1})
	if got := rlPodLines(cur.lines); string(got) != kcur || kcur != "second instance\n" {
		t.Errorf("the running instance: kyyard %q, kubectl %q", got, kcur)
	}
}

// seqRE finds demoapp's sequence number ("seq=N t=…").
var seqRE = regexp.MustCompile(`^seq=(\d+) `)

// rlSeq is the sequence number of a demoapp logs line, -1 for another.
func rlSeq(raw []byte) int {
	m := seqRE.FindSubmatch(raw)
	if m == nil {
		return -1
	}
	n, _ := strconv.Atoi(string(m[1]))
	return n
}

// seqGap is a run of sequence numbers missing between two lines read one
// after the other: from From to To, both included.
type seqGap struct{ From, To int }

// seqCheck reads sequence numbers in the order they came: the runs
// missing, the numbers seen again or out of order, and the first and
// last.
func seqCheck(seqs []int) (gaps []seqGap, repeats []int, first, last int) {
	first, last = -1, -1
	for _, s := range seqs {
		switch {
		case last < 0:
			first = s
		case s <= last:
			repeats = append(repeats, s)
			continue
		case s > last+1:
			gaps = append(gaps, seqGap{last + 1, s - 1})
		}
		last = s
	}
	return gaps, repeats, first, last
}

// kubectlFollow runs kubectl logs -f with args (the pod, options) in
// namespace ns of the local cluster until stop is called; stop returns the sequence numbers of
// the lines it printed, in order, and its stderr.
func kubectlFollow(t testing.TB, ns string, args ...string) (stop func() ([]int, string)) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, os.Getenv(kubetest.KubectlEnv), append([]string{"--kubeconfig", os.Getenv(kubetest.KubeconfigEnv),
		"-n", ns, "logs", "-f"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "KUBECONFIG=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb syncBuffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatalf("kubectl logs -f: %v", err)
	}
	var (
		mu   sync.Mutex
		seqs []int
		done = make(chan struct{})
	)
	go func() {
		defer close(done)
		r := bufio.NewReaderSize(out, 1<<20)
		for {
			line, err := r.ReadSlice('\n')
			if len(line) > 0 {
				if s := rlSeq(line); s >= 0 {
					mu.Lock()
					seqs = append(seqs, s)
					mu.Unlock()
				}
			}
			if err == bufio.ErrBufferFull {
				continue
			}
			if err != nil {
				return
			}
		}
	}()
	var once sync.Once
	stop = func() ([]int, string) {
		once.Do(func() {
			cancel()
			<-done
			_ = cmd.Wait()
		})
		mu.Lock()
		defer mu.Unlock()
		return seqs, errb.String()
	}
	t.Cleanup(func() { stop() })
	return stop
}

// seqSink is a LogSink that keeps only the sequence numbers of the lines
// it gets, the notes, and where each note fell (the index into seqs of
// the next line), so that a long fast follow costs little memory.
type seqSink struct {
	mu      sync.Mutex
	seqs    []int
	other   int // lines without a sequence number
	partial int // lines delivered Partial or Continued
	notes   []kube.LogNote
	noteAt  []int
}

func (s *seqSink) Write(b kube.LogBatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ni := 0
	for i := 0; i <= len(b.Lines); i++ {
		for ni < len(b.Notes) && b.Notes[ni].At == i {
			s.notes = append(s.notes, b.Notes[ni].Note)
			s.noteAt = append(s.noteAt, len(s.seqs))
			ni++
		}
		if i == len(b.Lines) {
			break
		}
		l := b.Lines[i]
		if l.Partial || l.Continued {
			s.partial++
		}
		if l.Continued {
			continue
		}
		if n := rlSeq(l.Raw); n >= 0 {
			s.seqs = append(s.seqs, n)
		} else {
			s.other++
		}
	}
}

func (s *seqSink) snapshot() (seqs []int, notes []kube.LogNote, noteAt []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]int(nil), s.seqs...), append([]kube.LogNote(nil), s.notes...), append([]int(nil), s.noteAt...)
}

// gapWithin reports whether every number of g is inside one of gaps.
func gapWithin(g seqGap, gaps []seqGap) bool {
	for _, o := range gaps {
		if o.From <= g.From && g.To <= o.To {
			return true
		}
	}
	return false
}

// unmarked returns the gaps of seqs that no LogNoteGap marks where the
// gap's next line came (a gap the kubelet made and kyyard said): what
// kyyard lost silently.
func unmarked(seqs []int, notes []kube.LogNote, noteAt []int) []seqGap {
	marked := map[int]bool{}
	for i, n := range notes {
		if n.Kind == kube.LogNoteGap {
			marked[noteAt[i]] = true
		}
	}
	var out []seqGap
	last := -1
	for i, s := range seqs {
		if last >= 0 && s > last+1 && !marked[i] {
			out = append(out, seqGap{last + 1, s - 1})
		}
		if s > last {
			last = s
		}
	}
	return out
}

// realLogPod is a demoapp log writer on the real node: rate lines a second
// (0: as fast as it can) of size bytes, numbered.
func realLogPod(name string, rate, size int) *corev1.Pod {
	p := kubetest.RealNodePod(name, kubetest.DemoAppImage, "/demoapp", "logs", "-rate="+strconv.Itoa(rate), "-size="+strconv.Itoa(size))
	p.Spec.Containers[0].Resources = corev1.ResourceRequirements{}
	return p
}

// currentFileFirst is the sequence number of the first line of the log
// file the kubelet serves now (kubectl logs reads only the current file):
// it grows at each rotation.
func currentFileFirst(t testing.TB, ns, pod string) int {
	out, _, code := kubetest.Kubectl(t, "", "-n", ns, "logs", "--limit-bytes=300", pod)
	if code != 0 {
		return -1
	}
	return rlSeq([]byte(out))
}

// TestE2ERealNodeLogsFollowAcrossRotation: a container writes numbered
// lines (1,000 a second of 250 bytes: 1Mi in about 4 s) while kyyard
// follows it for 45 s, across several kubelet rotations of its log file
// (containerLogMaxSize 1Mi, checked every containerLogMonitorInterval, 10 s
// by default; hack/cluster/internal/node). Every line from the first
// kyyard read to the last comes once and in order; a run the kubelet
// itself did not serve is marked where it falls (no silent loss). kubectl
// logs -f follows the same container meanwhile: its own runs missing are
// the kubelet's, and are logged beside kyyard's.
func TestE2ERealNodeLogsFollowAcrossRotation(t *testing.T) {
	first, last := followRotating(t, "kyyard-realrotate", 1000, 45*time.Second)
	if first != 1 || last < 30000 {
		t.Errorf("kyyard followed lines %d..%d, want from 1 and at least 30,000 (45 s of 1,000 a second)", first, last)
	}
}

// TestE2ERealNodeLogsFollowBehindRotation: the same with a writer faster
// than the kubelet serves a follower on this machine (5,000 lines a second
// of 250 bytes for 60 s: files of about 12 MB): the readers fall more than a
// file behind, and when the kubelet's reader reaches the end of its file
// it goes on from the file current then, skipping those in between. Each
// such run kyyard did not get is marked where it falls (LogNoteGap); no
// line comes twice. kubectl logs -f, beside it, loses its runs silently.
func TestE2ERealNodeLogsFollowBehindRotation(t *testing.T) {
	followRotating(t, "kyyard-realbehind", 5000, 60*time.Second)
}

// followRotating runs a demoapp writer of rate 250-byte lines a second on
// the real node and follows it with kyyard and kubectl logs -f for d,
// while the kubelet rotates its log (at least twice); it fails on a line
// kyyard repeats, reorders or loses without a marker, and returns the
// first and last numbers kyyard got.
func followRotating(t *testing.T, prefix string, rate int, d time.Duration) (first, last int) {
	cfg, cs, ns := realNode(t, prefix)
	p := kubetest.RunRealNodePod(t, cs, ns, realLogPod("writer", rate, 250))
	c := kubetest.Client(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sink := &seqSink{}
	done := make(chan error, 1)
	go func() {
		done <- c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "writer", UID: string(p.UID),
			Options: kube.LogOptions{Follow: true, TailLines: -1}}, sink)
	}()
	stopKubectl := kubectlFollow(t, ns, "writer")
	firsts := map[int]bool{}
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(2 * time.Second) {
		if f := currentFileFirst(t, ns, "writer"); f > 1 {
			firsts[f] = true
		}
		select {
		case err := <-done:
			t.Fatalf("the follow ended: %v", err)
		default:
		}
	}
	kseqs, kerr := stopKubectl()
	cancel()
	<-done
	seqs, notes, noteAt := sink.snapshot()
	gaps, repeats, first, last := seqCheck(seqs)
	kgaps, krepeats, kfirst, klast := seqCheck(kseqs)
	t.Logf("kyyard: %d lines, %d..%d, gaps %v, repeats %d, notes %d; kubectl logs -f: %d lines, %d..%d, gaps %v, repeats %d (stderr %q); rotations seen %d",
		len(seqs), first, last, gaps, len(repeats), len(notes), len(kseqs), kfirst, klast, kgaps, len(krepeats), kerr, len(firsts))
	for i, n := range notes {
		t.Logf("note before line %d: %s %s %v", noteAt[i], n.Kind, n.Text, n.Err)
	}
	if len(firsts) < 2 {
		t.Errorf("the kubelet rotated the log %d times during the follow, want at least 2 (current files begin at %v)", len(firsts), firsts)
	}
	if len(repeats) > 0 {
		t.Errorf("kyyard repeated or reordered %d lines: %v", len(repeats), repeats[:min(len(repeats), 20)])
	}
	// A run the kubelet itself did not serve (kubectl logs -f, following
	// beside kyyard, misses the very same lines) is the kubelet's loss at a
	// rotation, which no client can see in the stream; every other gap must
	// carry kyyard's marker.
	var ours, kubelets []seqGap
	for _, g := range unmarked(seqs, notes, noteAt) {
		if gapWithin(g, kgaps) {
			kubelets = append(kubelets, g)
		} else {
			ours = append(ours, g)
		}
	}
	if len(kubelets) > 0 {
		t.Logf("the kubelet's follow did not serve %v (kubectl logs -f lost the same lines): its loss at a rotation, not kyyard's", kubelets)
	}
	if len(ours) > 0 {
		t.Errorf("kyyard lost lines silently (no marker at the gap): %v; kubectl logs -f lost %v", ours, kgaps)
	}
	if sink.other > 0 {
		t.Errorf("%d lines without a sequence number", sink.other)
	}
	return first, last
}

// TestE2ERealNodeLogsHostileFollowed: the hostile writer followed (not
// only read): its 200,000-byte line, which containerd stores as partial
// entries and the follower may deliver in pieces (Partial, then
// Continued), rebuilds whole, and every line equals kubectl logs' bytes.
func TestE2ERealNodeLogsHostileFollowed(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realhostile")
	p := kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("hostile", kubetest.DemoAppImage, "/demoapp", "hostile", "-every=1h"))
	c := kubetest.Client(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	rec := &logRecorder{}
	done := make(chan error, 1)
	go func() {
		done <- c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "hostile", UID: string(p.UID),
			Options: kube.LogOptions{Follow: true, TailLines: -1}}, rec)
	}()
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		rec.mu.Lock()
		got := rlPodLines(rec.lines)
		rec.mu.Unlock()
		if bytes.HasSuffix(got, []byte("hostile: done with the first round\n")) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first round not followed in 30 s: %d bytes", len(got))
		}
	}
	cancel()
	<-done
	kout, _, _ := kubetest.Kubectl(t, "", "-n", ns, "logs", "hostile")
	rec.mu.Lock()
	got := rlPodLines(rec.lines)
	rec.mu.Unlock()
	if string(got) != kout {
		t.Errorf("the followed log (%d bytes) differs from kubectl logs (%d bytes)", len(got), len(kout))
	}
	whole := 0
	for _, l := range strings.Split(string(got), "\n") {
		if strings.HasPrefix(l, "long-line-start ") && strings.HasSuffix(l, " long-line-end") {
			whole = len(l)
		}
	}
	if whole != 200000 {
		t.Errorf("the long line rebuilt has %d bytes, want 200000", whole)
	}
}

// TestE2ERealNodePortForwardDeploymentMoves: forwards to a Deployment's
// web server on the real node (HTTP and the TCP echo) carry bytes both
// ways; its pod deleted (the kubelet stops it with its grace period),
// both forwards say so (moving, why), go to the ReplicaSet's new pod on
// the same local ports, and bytes flow again, answered by the new pod; a
// connection open across the delete ends rather than hangs.
func TestE2ERealNodePortForwardDeploymentMoves(t *testing.T) {
	cfg, cs, ns := realNode(t, "kyyard-realpfmove")
	ctx := context.Background()
	tmpl := kubetest.RealNodePod("web", kubetest.DemoAppImage, "/demoapp", "web", "-addr=:8080", "-echo-addr=:9000")
	tmpl.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}, {Name: "echo", ContainerPort: 9000}}
	labels := map[string]string{"app": "web"}
	one := int32(1)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: ns}, Spec: appsv1.DeploymentSpec{
		Replicas: &one, Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: tmpl.Spec}}}
	d, err := cs.AppsV1().Deployments(ns).Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first := pfReadyPod(t, cs, ns, "app=web", "")
	c := kubetest.Client(t, cfg)
	start := func(port int32) kube.ForwardStatus {
		st, err := c.StartPortForward(ctx, kube.PortForwardRequest{Kind: kube.KindDeployments, Namespace: ns, Name: "web",
			UID: string(d.UID), RemotePort: port})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.StopPortForward(st.ID) })
		if st.Pod != first.Name || st.State != kube.ForwardActive {
			t.Fatalf("forward to port %d: %+v, want active to %s", port, st, first.Name)
		}
		return st
	}
	web, echo := start(8080), start(9000)
	if host := kubetest.GetThrough(t, web.LocalPort, "/before"); host != first.Name {
		t.Fatalf("answered by %q, want %q", host, first.Name)
	}
	payload := make([]byte, 128*1024)
	for i := range payload {
		payload[i] = byte(i * 13)
	}
	kubetest.EchoThrough(t, echo.LocalPort, payload)

	// A connection open across the delete.
	open, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(int(echo.LocalPort)), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer open.Close()
	if _, err := open.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	pong := make([]byte, 4)
	_ = open.SetReadDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.ReadFull(open, pong); err != nil || string(pong) != "ping" {
		t.Fatalf("the open connection: %q, %v", pong, err)
	}

	if err := cs.CoreV1().Pods(ns).Delete(ctx, first.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	status := func(id int) kube.ForwardStatus {
		for _, st := range c.PortForwards() {
			if st.ID == id {
				return st
			}
		}
		t.Fatalf("forward %d is gone", id)
		return kube.ForwardStatus{}
	}
	// Both forwards watched at once from the delete on: each says it is
	// moving, and why, until it is active on another pod.
	whys := map[int][]string{}
	moved := func(f kube.ForwardStatus) bool {
		st := status(f.ID)
		if w := whys[f.ID]; st.State == kube.ForwardMoving && (len(w) == 0 || w[len(w)-1] != st.Err) {
			whys[f.ID] = append(w, st.Err)
		}
		return st.State == kube.ForwardActive && st.Pod != first.Name
	}
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		a, b := moved(web), moved(echo)
		if a && b {
			break
		}
	}
	second := pfReadyPod(t, cs, ns, "app=web", first.Name)
	for _, f := range []kube.ForwardStatus{web, echo} {
		last, whys := status(f.ID), whys[f.ID]
		if last.State != kube.ForwardActive || last.Pod != second.Name || last.LocalPort != f.LocalPort {
			t.Fatalf("forward to port %d after the delete: %+v, want active to %s on the same local port", f.Request.RemotePort, last, second.Name)
		}
		said := false
		for _, w := range whys {
			said = said || strings.Contains(w, "pod "+first.Name+" was deleted")
		}
		// "(terminating)" is said when the pod was seen terminating; a
		// pod gone between two reads (a loaded machine) is "was deleted".
		if !strings.HasPrefix(last.LastMove, "pod "+first.Name+" was deleted") || !strings.HasSuffix(last.LastMove, "now pod "+second.Name) {
			t.Errorf("forward to port %d: the move is not kept once active: %d, %q", f.Request.RemotePort, last.Moves, last.LastMove)
		}
		if !said {
			t.Errorf("forward to port %d: the move was not said (moving with why %q); status %+v", f.Request.RemotePort, whys, last)
		}
		t.Logf("forward to port %d: moving %q, now %+v", f.Request.RemotePort, whys, last)
	}
	// The connection open across the delete ended.
	_ = open.SetReadDeadline(time.Now().Add(30 * time.Second))
	if n, err := open.Read(pong); err == nil {
		t.Errorf("the connection open across the delete still reads (%d bytes)", n)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Errorf("the connection open across the delete hangs: %v", err)
	}
	if host := kubetest.GetThrough(t, web.LocalPort, "/after"); host != second.Name {
		t.Errorf("after the move answered by %q, want %q", host, second.Name)
	}
	kubetest.EchoThrough(t, echo.LocalPort, payload)
}

// BenchmarkE2ERealNodeFollow: a container on the real node writes numbered
// 100-byte lines as fast as it can; kyyard's follower and kubectl logs -f
// read it side by side for $KYYARD_FOLLOW_SECONDS (10 by default). It
// reports each one's lines a second (kyyard-lines/s, kubectl-lines/s), the
// lines kyyard lost without a marker (silent-lost: must be 0, else the
// benchmark fails) and the runs missing from each stream (the kubelet's
// rotations while its reader lags). Run with KYYARD_E2E=1 and the local
// cluster's variables:
//
//	go test -run '^$' -bench BenchmarkE2ERealNodeFollow -benchtime 1x ./kube/
func BenchmarkE2ERealNodeFollow(b *testing.B) {
	cfg := kubetest.Local(b)
	cs := kubernetes.NewForConfigOrDie(cfg)
	kubetest.RequireRealNode(b, cs)
	ns := kubetest.TempNamespace(b, cs, "kyyard-realbench")
	p := kubetest.RunRealNodePod(b, cs, ns, realLogPod("writer", 0, 100))
	c := kubetest.Client(b, cfg)
	secs := 10
	if s, err := strconv.Atoi(os.Getenv("KYYARD_FOLLOW_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	for i := 0; i < b.N; i++ {
		ctx, cancel := context.WithCancel(context.Background())
		sink := &seqSink{}
		done := make(chan error, 1)
		// Both from the line written when they start, so that neither
		// reads a backlog first.
		begin := time.Now()
		go func() {
			done <- c.Logs(ctx, kube.LogRequest{Kind: kube.KindPods, Namespace: ns, Name: "writer", UID: string(p.UID),
				Options: kube.LogOptions{Follow: true, TailLines: 0}}, sink)
		}()
		stopKubectl := kubectlFollowTail(b, ns, "writer")
		time.Sleep(time.Duration(secs) * time.Second)
		kseqs, _ := stopKubectl()
		cancel()
		<-done
		elapsed := time.Since(begin).Seconds()
		seqs, notes, noteAt := sink.snapshot()
		gaps, repeats, first, last := seqCheck(seqs)
		kgaps, _, kfirst, klast := seqCheck(kseqs)
		silent := 0
		for _, g := range unmarked(seqs, notes, noteAt) {
			silent += g.To - g.From + 1
		}
		b.ReportMetric(float64(len(seqs))/elapsed, "kyyard-lines/s")
		b.ReportMetric(float64(len(kseqs))/elapsed, "kubectl-lines/s")
		b.ReportMetric(float64(silent), "silent-lost")
		b.ReportMetric(float64(missing(gaps)), "kyyard-missing")
		b.ReportMetric(float64(missing(kgaps)), "kubectl-missing")
		b.Logf("%.1f s: kyyard %d lines (%d..%d, %d runs missing, %d repeats, %d notes); kubectl %d lines (%d..%d, %d runs missing)",
			elapsed, len(seqs), first, last, len(gaps), len(repeats), len(notes), len(kseqs), kfirst, klast, len(kgaps))
		if silent > 0 || len(repeats) > 0 {
			b.Errorf("kyyard lost %d lines silently, repeated %d", silent, len(repeats))
		}
	}
}

// missing counts the numbers of gaps.
func missing(gaps []seqGap) int {
	n := 0
	for _, g := range gaps {
		n += g.To - g.From + 1
	}
	return n
}

// kubectlFollowTail is kubectlFollow from the newest line (--tail=0).
func kubectlFollowTail(t testing.TB, ns, pod string) func() ([]int, string) {
	return kubectlFollow(t, ns, "--tail=0", pod)
}
