package logstream

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
)

// rotate plays a kubelet log rotation that its follower misses (what a
// real node's kubelet did; see LogStallProbe): the container's lines go to
// a new current file from now on, the open followers keep waiting on the
// old one and never get another byte.
func (f *fakeLogServer) rotate(pod, container string) {
	f.replace(pod, container, false, nil)
}

// TestLogsFollowAcrossStalledRotation: the kubelet's follower stays on
// the rotated file while the container writes to the new one; the
// stream, quiet for the stall wait, asks for the current file's last line,
// finds it newer than what it delivered, reconnects from the last
// timestamp seen and delivers the new file's lines, once each, with a
// resume marker that says why; the new file begins after the last line
// delivered, so a gap note says lines may be missing there.
func TestLogsFollowAcrossStalledRotation(t *testing.T) {
	pod := testPod("p", "app")
	c, _ := newLogStreamer(t, pod)
	srv := newFakeLogServer()
	for i := 1; i <= 3; i++ {
		srv.write("p", "app", false, logAt(i*100), fmt.Sprintf("L%d", i))
	}
	deps := testDeps(srv)
	deps.stall = 30 * time.Millisecond
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", UID: string(pod.UID),
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, deps)
	waitFor(t, "L1-L3", func() bool { return len(sink.lines()) == 3 })
	srv.rotate("p", "app")
	for i := 4; i <= 6; i++ {
		srv.write("p", "app", false, logAt(i*100), fmt.Sprintf("L%d", i))
	}
	waitFor(t, "L4-L6 from the new file", func() bool { return len(sink.lines()) == 6 })
	// More lines to the new file reach the reconnected follower.
	srv.write("p", "app", false, logAt(700), "L7")
	waitFor(t, "L7", func() bool { return len(sink.lines()) == 7 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	want := []string{"[started]", "p/app: L1", "p/app: L2", "p/app: L3", "[resumed]", "[gap]", "p/app: L4", "p/app: L5", "p/app: L6", "p/app: L7"}
	if got := sink.events(); !equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for _, n := range sink.notes() {
		switch n.Kind {
		case LogNoteResumed:
			if n.Restarted || !strings.Contains(n.Text, "rotation") {
				t.Errorf("resume note %+v", n)
			}
		case LogNoteGap:
			if !n.Time.Equal(logAt(300)) || !strings.Contains(n.Text, "03:04:05.300 and 03:04:05.400 UTC may be missing") {
				t.Errorf("gap note %+v", n)
			}
		}
	}
	// The probes asked for one line's timestamp.
	probes := 0
	for _, o := range srv.options() {
		if o.LimitBytes != nil {
			probes++
			if *o.LimitBytes > 64 || o.Follow || o.Previous {
				t.Errorf("probe options %+v", o)
			}
		}
	}
	if probes == 0 {
		t.Error("no probe")
	}
}

// TestLogsQuietStreamIsNotCut: a followed stream that is quiet because
// the container writes nothing is probed (the last line is the one
// delivered) and left open: no reconnect, no note, the next line arrives
// on the same connection.
func TestLogsQuietStreamIsNotCut(t *testing.T) {
	pod := testPod("p", "app")
	c, _ := newLogStreamer(t, pod)
	srv := newFakeLogServer()
	srv.write("p", "app", false, logAt(100), "L1")
	deps := testDeps(srv)
	deps.stall = 10 * time.Millisecond
	sink := &fakeSink{}
	cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", UID: string(pod.UID),
		Options: LogOptions{Follow: true, TailLines: -1}}, sink, deps)
	waitFor(t, "L1", func() bool { return len(sink.lines()) == 1 })
	probes := func() int {
		n := 0
		for _, o := range srv.options() {
			if o.TailLines != nil && *o.TailLines == 1 {
				n++
			}
		}
		return n
	}
	waitFor(t, "three probes", func() bool { return probes() >= 3 })
	srv.write("p", "app", false, logAt(200), "L2")
	waitFor(t, "L2", func() bool { return len(sink.lines()) == 2 })
	cancel()
	if err := wait(); err != nil {
		t.Fatal(err)
	}
	if got, want := sink.events(), []string{"[started]", "p/app: L1", "p/app: L2"}; !equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	follows := 0
	for _, o := range srv.options() {
		if o.Follow {
			follows++
		}
	}
	if follows != 1 {
		t.Errorf("%d follow connections, want 1", follows)
	}
}

// TestLogJumps: a line stamped ahead of the one before by more than the
// clock moved between their arrivals (plus the allowance) is a leap; a
// writer's pause seen live, a first line, a Continued piece and a line
// without a time are not.
func TestLogJumps(t *testing.T) {
	at := func(ms int) time.Time { return logAt(ms) }
	wall := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	on := func(ms int) time.Time { return wall.Add(time.Duration(ms) * time.Millisecond) }
	j := logJumps{jump: time.Second}
	steps := []struct {
		line LogLine
		now  time.Time
		leap bool
	}{
		{LogLine{Time: at(0)}, on(0), false},       // the first
		{LogLine{Time: at(100)}, on(0), false},     // a backlog, close together
		{LogLine{Time: at(5100)}, on(0), true},     // 5 s ahead, read at once
		{LogLine{Time: at(9000)}, on(4000), false}, // 3.9 s ahead, 4 s later: live
		{LogLine{Time: at(9000), Continued: true}, on(4000), false},
		{LogLine{}, on(4000), false},                // no time
		{LogLine{Time: at(10500)}, on(4100), true},  // 1.5 s ahead in 0.1 s
		{LogLine{Time: at(10400)}, on(4100), false}, // older: not a leap
		{LogLine{Time: at(11400)}, on(4100), false}, // 0.9 s: within the allowance
	}
	for i, s := range steps {
		from, leap := j.check(&s.line, s.now)
		if leap != s.leap {
			t.Errorf("step %d (%v at %v): leap %v, want %v", i, s.line.Time, s.now, leap, s.leap)
		}
		if leap && !from.Before(s.line.Time) {
			t.Errorf("step %d: from %v", i, from)
		}
	}
}

// TestLogsFollowAcrossSkippedFile: the kubelet's reader, behind the
// container, goes on from the current log file and skips the file before
// it: the connection delivers L3 (0.3 s) and then, at once, L10 (10 s),
// the first line of the current file. A gap note before L10 says the
// lines written between may be missing. The same leap where the current
// file begins before it (a pause inside the file) has no note.
func TestLogsFollowAcrossSkippedFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		head time.Time
		want []string
	}{
		{"skipped", logAt(10000), []string{"[started]", "p/app: L1", "p/app: L2", "p/app: L3", "[gap]", "p/app: L10", "p/app: L11"}},
		{"pause", logAt(100), []string{"[started]", "p/app: L1", "p/app: L2", "p/app: L3", "p/app: L10", "p/app: L11"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := testPod("p", "app")
			c, _ := newLogStreamer(t, pod)
			srv := newFakeLogServer()
			for _, l := range []struct {
				ms   int
				text string
			}{{100, "L1"}, {200, "L2"}, {300, "L3"}, {10000, "L10"}, {10100, "L11"}} {
				srv.write("p", "app", false, logAt(l.ms), l.text)
			}
			deps := testDeps(srv)
			deps.jump = time.Second
			heads := 0
			deps.open = func(ctx context.Context, ns, pod string, o *corev1.PodLogOptions) (io.ReadCloser, error) {
				if !o.Follow && o.LimitBytes != nil && o.TailLines == nil {
					heads++
					return io.NopCloser(strings.NewReader(tc.head.Format(time.RFC3339Nano) + " head\n")), nil
				}
				return srv.open(ctx, ns, pod, o)
			}
			sink := &fakeSink{}
			cancel, wait := runLogs(t, c, LogRequest{Kind: vocab.KindPods, Namespace: "ns", Name: "p", UID: string(pod.UID),
				Options: LogOptions{Follow: true, TailLines: -1}}, sink, deps)
			waitFor(t, "five lines", func() bool { return len(sink.lines()) == 5 })
			cancel()
			if err := wait(); err != nil {
				t.Fatal(err)
			}
			if got := sink.events(); !equal(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
			if heads != 1 {
				t.Errorf("%d head probes, want 1", heads)
			}
			for _, n := range sink.notes() {
				if n.Kind == LogNoteGap && !strings.Contains(n.Text, "between 03:04:05.300 and 03:04:15.000 UTC may be missing") {
					t.Errorf("gap note %q", n.Text)
				}
			}
		})
	}
}
