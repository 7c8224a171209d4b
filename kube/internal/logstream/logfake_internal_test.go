package logstream

import (
	"context"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
)

// fakeLogServer plays the kubelet's pods/log for the stream logic: files
// of timestamped lines per pod/container (and previous instance), read
// with sinceTime (at second precision, as the API server takes it),
// tailLines, limitBytes and follow, and followers that can be dropped.
type fakeLogServer struct {
	mu    sync.Mutex
	files map[string]*fakeLogFile
	opens []corev1.PodLogOptions
	fail  func(pod string, o *corev1.PodLogOptions) error
}

type fakeLogFile struct {
	text    []string // lines, each "<timestamp> <text>" without newline
	changed chan struct{}
	conns   map[*fakeConn]bool
}

type fakeConn struct{ drop chan error }

func newFakeLogServer() *fakeLogServer { return &fakeLogServer{files: map[string]*fakeLogFile{}} }

func fakeKey(pod, container string, previous bool) string {
	return fmt.Sprintf("%s/%s/%v", pod, container, previous)
}

func (f *fakeLogServer) file(key string) *fakeLogFile {
	fl := f.files[key]
	if fl == nil {
		fl = &fakeLogFile{changed: make(chan struct{}), conns: map[*fakeConn]bool{}}
		f.files[key] = fl
	}
	return fl
}

// write appends a line (t, text) to a file; raw lines are written as given.
func (f *fakeLogServer) write(pod, container string, previous bool, t time.Time, text string) {
	f.writeRaw(pod, container, previous, t.UTC().Format("2006-01-02T15:04:05.000000000Z07:00")+" "+text+"\n")
}

func (f *fakeLogServer) writeRaw(pod, container string, previous bool, raw string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := f.file(fakeKey(pod, container, previous))
	fl.text = append(fl.text, raw)
	close(fl.changed)
	fl.changed = make(chan struct{})
}

// replace swaps a file for a new one (a new container instance's log);
// open followers keep reading the old one.
func (f *fakeLogServer) replace(pod, container string, previous bool, from *fakeLogFile) {
	f.mu.Lock()
	defer f.mu.Unlock()
	nf := &fakeLogFile{changed: make(chan struct{}), conns: map[*fakeConn]bool{}}
	if from != nil {
		nf.text = append(nf.text, from.text...)
	}
	f.files[fakeKey(pod, container, previous)] = nf
}

func (f *fakeLogServer) current(pod, container string) *fakeLogFile {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.file(fakeKey(pod, container, false))
}

// drop ends every open follower of a file: with EOF when err is nil (the
// kubelet ended the stream), else with err (a broken connection).
func (f *fakeLogServer) drop(pod, container string, err error) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	fl := f.file(fakeKey(pod, container, false))
	n := 0
	for c := range fl.conns {
		c.drop <- err
		delete(fl.conns, c)
		n++
	}
	return n
}

func (f *fakeLogServer) followers(pod, container string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.file(fakeKey(pod, container, false)).conns)
}

func (f *fakeLogServer) options() []corev1.PodLogOptions {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]corev1.PodLogOptions(nil), f.opens...)
}

func (f *fakeLogServer) open(ctx context.Context, ns, pod string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
	f.mu.Lock()
	f.opens = append(f.opens, *o)
	if f.fail != nil {
		if err := f.fail(pod, o); err != nil {
			f.mu.Unlock()
			return nil, err
		}
	}
	fl := f.file(fakeKey(pod, o.Container, o.Previous))
	conn := &fakeConn{drop: make(chan error, 1)}
	if o.Follow {
		fl.conns[conn] = true
	}
	start := 0
	if o.SinceTime != nil {
		since := o.SinceTime.Time.Truncate(time.Second)
		for start < len(fl.text) {
			t, _, _ := parseLogPrefix([]byte(fl.text[start]))
			if !t.Before(since) {
				break
			}
			start++
		}
	}
	if o.TailLines != nil && int(*o.TailLines) < len(fl.text)-start {
		start = len(fl.text) - int(*o.TailLines)
	}
	f.mu.Unlock()
	pr, pw := io.Pipe()
	go func() {
		left := int64(-1)
		if o.LimitBytes != nil {
			left = *o.LimitBytes
		}
		i := start
		for {
			f.mu.Lock()
			var chunk []byte
			for ; i < len(fl.text); i++ {
				chunk = append(chunk, fl.text[i]...)
			}
			changed := fl.changed
			f.mu.Unlock()
			if left >= 0 && int64(len(chunk)) > left {
				chunk = chunk[:left]
			}
			if len(chunk) > 0 {
				if _, err := pw.Write(chunk); err != nil {
					return
				}
				if left >= 0 {
					if left -= int64(len(chunk)); left == 0 {
						pw.Close()
						return
					}
				}
			}
			if !o.Follow {
				pw.Close()
				return
			}
			select {
			case <-changed:
			case err := <-conn.drop:
				pw.CloseWithError(err)
				return
			case <-ctx.Done():
				pw.CloseWithError(ctx.Err())
				return
			}
		}
	}()
	return pr, nil
}

// fakeSink records what Streamer.Logs writes.
type fakeSink struct {
	mu      sync.Mutex
	batches []LogBatch
	slow    time.Duration
}

func (s *fakeSink) Write(b LogBatch) {
	if s.slow > 0 {
		time.Sleep(s.slow)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, b)
}

// event is one line ("pod/container: text") or note ("[kind]") in order.
func (s *fakeSink) events() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, b := range s.batches {
		ni := 0
		for i := 0; i <= len(b.Lines); i++ {
			for ni < len(b.Notes) && b.Notes[ni].At == i {
				n := b.Notes[ni].Note
				tag := "[" + string(n.Kind)
				if n.Restarted {
					tag += " restarted"
				}
				out = append(out, tag+"]")
				ni++
			}
			if i < len(b.Lines) {
				l := b.Lines[i]
				s := l.Pod + "/" + l.Container + ": " + string(l.Raw)
				if l.Partial {
					s += " (partial)"
				}
				if l.Continued {
					s = "+" + s
				}
				out = append(out, s)
			}
		}
	}
	return out
}

func (s *fakeSink) notes() []LogNote {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []LogNote
	for _, b := range s.batches {
		for _, n := range b.Notes {
			out = append(out, n.Note)
		}
	}
	return out
}

func (s *fakeSink) lines() []string {
	var out []string
	for _, e := range s.events() {
		if e[0] != '[' {
			out = append(out, e)
		}
	}
	return out
}

// waitFor polls cond for up to 20 seconds (no timing is asserted: the
// bound only ends a hung test).
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func testDeps(srv *fakeLogServer) logDeps {
	return logDeps{
		open:         srv.open,
		partialFlush: 20 * time.Millisecond,
		flushEvery:   5 * time.Millisecond,
		window:       50 * time.Millisecond,
		backoff:      func(int) time.Duration { return 5 * time.Millisecond },
		poll:         20 * time.Millisecond,
	}
}

func testPod(name string, containers ...string) *corev1.Pod {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: k8stypes.UID("uid-" + name),
		Labels: map[string]string{"app": "web"}}}
	for _, c := range containers {
		p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: c})
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{Name: c,
			ContainerID: "containerd://" + name + "-" + c + "-1",
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}})
	}
	p.Spec.NodeName = "node-1"
	p.Status.Phase = corev1.PodRunning
	return p
}
