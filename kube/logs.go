package kube

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Batching of a request's lines: the sink gets what is ready every
// logFlushEvery, or at once when logBatchLines lines are ready.
const (
	logFlushEvery = 50 * time.Millisecond
	logBatchLines = 4096
)

// logDeps is what a log request reaches the cluster and the clock
// through; tests replace open (client-go's fake clientset answers every
// pods/log with "fake logs").
type logDeps struct {
	// open starts one pods/log read.
	open func(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error)
	// partialFlush, flushEvery and window are LogPartialFlush,
	// logFlushEvery and LogReorderWindow.
	partialFlush, flushEvery, window time.Duration
	// backoff is the wait before reconnection attempt n (1, 2, ...).
	backoff func(n int) time.Duration
	// poll is how often the pods are listed when they cannot be watched.
	poll time.Duration
	// stall is LogStallProbe and jump LogJumpCheck (0: never probe).
	stall, jump time.Duration
}

func (c *Client) logDeps() logDeps {
	return logDeps{
		open: func(ctx context.Context, ns, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
			return c.cs.CoreV1().Pods(ns).GetLogs(pod, opts).Stream(ctx)
		},
		partialFlush: LogPartialFlush,
		flushEvery:   logFlushEvery,
		window:       LogReorderWindow,
		backoff:      logBackoff,
		poll:         2 * time.Second,
		stall:        LogStallProbe,
		jump:         LogJumpCheck,
	}
}

// logBackoff doubles from half a second to 30 seconds.
func logBackoff(n int) time.Duration {
	d := 500 * time.Millisecond
	for i := 1; i < n && d < 30*time.Second; i++ {
		d *= 2
	}
	return min(d, 30*time.Second)
}

// Logs streams the container logs req names to sink, in batches, and
// blocks until it is done: not following, when every stream has ended;
// following, when the pod of a pod request is gone (LogNotePodGone) or
// its container terminated for good, and for a workload only when ctx is
// cancelled (pods may still join). A cancelled ctx ends it with nil.
//
// Every stream is read with timestamps=true and split into lines without
// a length limit (LogLine). While following, a stream that ends while its
// container runs, breaks, or whose container restarts (a new container ID)
// is reconnected from the last timestamp seen (sinceTime) with the lines
// already delivered from that second skipped, and marked with
// LogNoteResumed (Restarted, after reading the previous instance's last
// lines with previous=true); failed attempts back off from 0.5 s to 30 s
// (LogNoteRetrying). A followed stream quiet for LogStallProbe is checked
// against the last line of the container's current log file: a newer one
// means the kubelet stopped serving the log after a rotation of its file,
// and the stream is reconnected the same way (LogNoteResumed), with a
// LogNoteGap when the current file begins after the last line delivered. Previous reads are never followed. A workload's pods
// (its spec.selector, as kubectl logs deployment/x) are streamed up to
// MaxStreams streams, pods beyond named in LogNotePodsLeftOut and each
// streamed when a stream ends for good (LogNotePodAdmitted); new pods
// join while following (LogNotePodJoined); lines of several streams are
// merged by time within LogReorderWindow. LimitBytes counts the bytes of
// each stream, timestamp prefixes included, across reconnections.
//
// Errors, before anything is written: ErrLogKind (the kind's plugin has
// no CanLogs); a *ContainerChoiceError
// (errors.Is ErrLogContainerRequired); ErrLogNoContainer; ErrLogPodReplaced
// when req.UID is not the pod's; ErrLogNoPods; ErrLogNoPrevious when
// Options.Previous and no container asked for has a previous instance
// (those that have none are otherwise left out and named in a
// LogNoteNoPrevious); and the API server's own
// (forbidden, not found, the pod's container waiting when not following),
// which ReasonOf classifies. When every stream of a request fails at its
// first read, the first error is returned too; otherwise a stream's
// failure is a LogNoteEnded with Err.
func (c *Client) Logs(ctx context.Context, req LogRequest, sink LogSink) error {
	return c.logs(ctx, req, sink, c.logDeps())
}

func (c *Client) logs(ctx context.Context, req LogRequest, sink LogSink, deps logDeps) error {
	if req.Options.Previous {
		req.Options.Follow = false
	}
	max := req.MaxStreams
	if max <= 0 {
		max = DefaultMaxLogStreams
	}
	var (
		pods    []*corev1.Pod
		tracker *podTracker
		err     error
	)
	switch {
	case !c.kindInfo(req.Kind).Capabilities.Has(CanLogs):
		return fmt.Errorf("%w: %s", ErrLogKind, req.Kind)
	case req.Kind == KindPods || req.Kind == KindContainers:
		pods, tracker, err = c.logPod(ctx, req)
	default:
		pods, tracker, err = c.workloadLogPods(ctx, req)
	}
	if err != nil {
		return err
	}
	targets, err := logTargets(req, pods)
	if err != nil {
		return err
	}
	var first LogBatch
	if req.Options.Previous {
		with, without := splitPrevious(targets, req.Kind == KindPods || req.Kind == KindContainers)
		if len(with) == 0 {
			return noPreviousError(req, without)
		}
		if len(without) > 0 {
			first.Notes = append(first.Notes, PlacedLogNote{Note: noPreviousNote(req.Namespace, without, len(targets))})
		}
		targets = with
	}
	run := &logRun{
		c: c, req: req, deps: deps, sink: sink, max: max,
		events: make(chan logEvent, 64),
		merger: newLogMerger(deps.window),
		pods:   map[string]*logPod{},
	}
	admitted, leftOut := admitLogTargets(targets, max)
	run.queue = slices.Clone(targets[len(admitted):])
	run.known = map[string]bool{}
	for _, p := range pods {
		run.known[string(p.UID)] = true
	}
	run.ctx, run.cancel = context.WithCancel(ctx)
	defer run.cancel()
	if len(leftOut) > 0 {
		run.merger.addNote(-1, leftOutNote(req.Namespace, leftOut, len(run.queue), max), &first)
	}
	var starts []chan error
	for _, t := range admitted {
		starts = append(starts, run.start(t))
	}
	// Wait for every stream's first read, so that a request none of whose
	// streams could be read is an error the caller gets, not a note.
	run.merger.ensure(len(admitted) - 1)
	var firstErr error
	failed := 0
	for i, ch := range starts {
		if err := <-ch; err != nil {
			failed++
			if firstErr == nil {
				firstErr = err
			}
			t := admitted[i]
			run.merger.addNote(-1, LogNote{Kind: LogNoteEnded, Namespace: t.pod.Namespace, Pod: t.pod.Name,
				Container: t.container, Time: time.Now(), Err: err, Text: "could not read the log"}, &first)
		}
	}
	if failed == len(starts) && firstErr != nil && len(leftOut) == 0 {
		run.cancel()
		run.wg.Wait()
		if len(starts) > 1 {
			return fmt.Errorf("no container log could be read: %w", firstErr)
		}
		return firstErr
	}
	if tracker != nil && req.Options.Follow {
		tracker.ctx, tracker.cancel = context.WithCancel(run.ctx)
		run.mu.Lock()
		run.tracker = tracker
		if run.active == 0 && !tracker.workload {
			tracker.cancel()
		}
		run.mu.Unlock()
		run.wg.Add(1)
		go func() {
			defer run.wg.Done()
			tracker.run(run)
		}()
	}
	go func() {
		run.wg.Wait()
		close(run.events)
	}()
	run.collect(first)
	run.cancel()
	run.wg.Wait()
	return nil
}

// logTarget is one container of one pod to stream.
type logTarget struct {
	pod        *corev1.Pod
	container  string
	containers []string // the pod's, for LogNoteStarted
	dflt       string
}

// logTargets resolves req's container choice for each pod.
func logTargets(req LogRequest, pods []*corev1.Pod) ([]logTarget, error) {
	single := req.Kind == KindPods || req.Kind == KindContainers
	var out []logTarget
	for _, pod := range pods {
		names := podContainers(pod)
		dflt := podDefaultContainer(pod)
		add := func(c string) {
			out = append(out, logTarget{pod: pod, container: c, containers: names, dflt: dflt})
		}
		switch {
		case req.AllContainers:
			for _, n := range names {
				add(n)
			}
		case req.Container != "":
			if slices.Contains(names, req.Container) {
				add(req.Container)
			} else if single {
				return nil, fmt.Errorf("%w: %q in pod %s/%s (containers: %s)", ErrLogNoContainer, req.Container,
					pod.Namespace, pod.Name, strings.Join(names, ", "))
			}
		case single:
			c, err := onlyContainer(pod, names, dflt)
			if err != nil {
				return nil, err
			}
			add(c)
		default:
			if dflt != "" {
				add(dflt)
			}
		}
	}
	if len(out) == 0 && req.Container != "" {
		return nil, fmt.Errorf("%w: no pod of %s/%s has a container %q", ErrLogNoContainer, req.Namespace, req.Name, req.Container)
	}
	if len(out) == 0 {
		return nil, ErrLogNoPods
	}
	return out, nil
}

// onlyContainer is the container of a pod read without a container name:
// its only one, counting the containers that run alongside (spec.containers
// and native sidecars, init containers with restartPolicy Always) but not
// the init containers that ran before them; several are refused with a
// *ContainerChoiceError listing every container.
func onlyContainer(pod *corev1.Pod, names []string, dflt string) (string, error) {
	if running := runningContainers(pod); len(running) == 1 {
		return running[0], nil
	}
	return "", &ContainerChoiceError{Namespace: pod.Namespace, Pod: pod.Name, Containers: names, DefaultContainer: dflt}
}

// admitLogTargets keeps the first max targets and names what is left out:
// a pod left out whole by its name, one streamed in part as pod/container.
func admitLogTargets(targets []logTarget, max int) (admitted []logTarget, leftOut []string) {
	if len(targets) <= max {
		return targets, nil
	}
	admitted = targets[:max]
	in := map[string]bool{}
	for _, t := range admitted {
		in[t.pod.Name] = true
	}
	for _, t := range targets[max:] {
		if in[t.pod.Name] {
			leftOut = append(leftOut, t.pod.Name+"/"+t.container)
		} else if len(leftOut) == 0 || leftOut[len(leftOut)-1] != t.pod.Name {
			leftOut = append(leftOut, t.pod.Name)
		}
	}
	return admitted, leftOut
}

// leftOutNote names the targets just left out (names); total is how many
// wait in the queue now.
func leftOutNote(ns string, names []string, total, max int) LogNote {
	return LogNote{Kind: LogNotePodsLeftOut, Namespace: ns, Count: total, Names: names, Time: time.Now(),
		Text: fmt.Sprintf("%d left out (at most %s): %s", len(names), Plural(max, "stream"), strings.Join(names, ", "))}
}

// refill starts the first target left out, when one waits and the request
// goes on, in place of a stream that ended for good (LogNotePodAdmitted);
// a first read that fails is a LogNoteEnded with Err, as at the start.
func (r *logRun) refill() {
	r.queueMu.Lock()
	r.mu.Lock()
	if len(r.queue) == 0 || r.ctx.Err() != nil {
		r.mu.Unlock()
		r.queueMu.Unlock()
		return
	}
	t := r.queue[0]
	r.queue = r.queue[1:]
	left := len(r.queue)
	r.mu.Unlock()
	who := t.pod.Name
	if r.req.AllContainers {
		who += "/" + t.container
	}
	r.note(-1, LogNote{Kind: LogNotePodAdmitted, Namespace: t.pod.Namespace, Pod: t.pod.Name, Container: t.container,
		Count: left, Names: []string{who}, Text: who + " streamed in place of a stream that ended"})
	r.queueMu.Unlock()
	first := r.start(t)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := <-first; err != nil {
			r.note(-1, LogNote{Kind: LogNoteEnded, Namespace: t.pod.Namespace, Pod: t.pod.Name, Container: t.container,
				Err: err, Text: "could not read the log"})
		}
	}()
}

// unqueue drops the targets of a pod gone from the queue and says so in a
// LogNotePodsLeftOut note with how many are left, when it dropped any.
func (r *logRun) unqueue(name string) {
	r.queueMu.Lock()
	defer r.queueMu.Unlock()
	r.mu.Lock()
	n := len(r.queue)
	r.queue = slices.DeleteFunc(r.queue, func(t logTarget) bool { return t.pod.Name == name })
	left := len(r.queue)
	r.mu.Unlock()
	if left != n {
		r.note(-1, LogNote{Kind: LogNotePodsLeftOut, Namespace: r.req.Namespace, Pod: name, Count: left,
			Text: "pod " + name + " is gone"})
	}
}

// enqueue appends targets left out to the queue and names them (names) in
// a LogNotePodsLeftOut note with how many wait now.
func (r *logRun) enqueue(ns string, targets []logTarget, names []string) {
	r.queueMu.Lock()
	defer r.queueMu.Unlock()
	r.mu.Lock()
	r.queue = append(r.queue, targets...)
	total := len(r.queue)
	r.mu.Unlock()
	r.note(-1, leftOutNote(ns, names, total, r.max))
}

// logPod reads the pod of a pod or container request.
func (c *Client) logPod(ctx context.Context, req LogRequest) ([]*corev1.Pod, *podTracker, error) {
	if req.Kind == KindContainers && req.Container == "" && !req.AllContainers {
		return nil, nil, fmt.Errorf("%w: a container row names no container", errInvalid)
	}
	pod, err := c.cs.CoreV1().Pods(req.Namespace).Get(ctx, req.Name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	if req.UID != "" && string(pod.UID) != req.UID {
		return nil, nil, fmt.Errorf("%w: %s/%s", ErrLogPodReplaced, req.Namespace, req.Name)
	}
	t := &podTracker{namespace: req.Namespace, fields: "metadata.name=" + req.Name, rv: pod.ResourceVersion}
	return []*corev1.Pod{pod}, t, nil
}

// logRun is one Logs call: its streams, the pods they read and the
// collector that merges their lines and writes them to the sink.
type logRun struct {
	c    *Client
	req  LogRequest
	deps logDeps
	sink LogSink
	max  int

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	events chan logEvent
	merger *logMerger // the collector's

	// queueMu orders each change of the queue with its note (taken before
	// mu): the counts the notes carry arrive in the order they were taken.
	queueMu sync.Mutex

	mu     sync.Mutex
	pods   map[string]*logPod // by pod name
	active int                // streams running
	known  map[string]bool    // UIDs of the pods a workload request has met
	// tracker follows the pods while following; nil otherwise.
	tracker *podTracker
	// queue holds the targets left out (MaxStreams), in order: each takes
	// the place of a stream that ends for good.
	queue  []logTarget
	nextID int
}

// logPod is a pod being streamed: its UID and its streams.
type logPod struct {
	uid     string
	streams []*logStream
}

// logEvent is what a stream hands the collector: lines and notes placed
// among them, of stream id (-1: the request's).
type logEvent struct {
	id    int
	batch LogBatch
	end   bool // the stream ended for good
}

// send hands an event to the collector; false when the request is over.
func (r *logRun) send(ev logEvent) bool {
	select {
	case r.events <- ev:
		return true
	case <-r.ctx.Done():
		return false
	}
}

// note sends one note of stream id (-1: the request's).
func (r *logRun) note(id int, n LogNote) bool {
	if n.Time.IsZero() {
		n.Time = time.Now()
	}
	return r.send(logEvent{id: id, batch: LogBatch{Notes: []PlacedLogNote{{Note: n}}}})
}

// start launches the stream of one target and returns the channel its
// first read's error (nil once it reads) arrives on.
func (r *logRun) start(t logTarget) chan error {
	r.mu.Lock()
	id := r.nextID
	r.nextID++
	r.active++
	p := r.pods[t.pod.Name]
	if p == nil {
		p = &logPod{uid: string(t.pod.UID)}
		r.pods[t.pod.Name] = p
	}
	s := newLogStream(r, id, t)
	p.streams = append(p.streams, s)
	r.mu.Unlock()
	first := make(chan error, 1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		s.run(first)
		r.refill()
		r.mu.Lock()
		r.active--
		if r.active == 0 && r.tracker != nil && !r.tracker.workload {
			r.tracker.cancel() // a pod request is over with its streams
		}
		if p := r.pods[t.pod.Name]; p != nil {
			p.streams = slices.DeleteFunc(p.streams, func(o *logStream) bool { return o == s })
			if len(p.streams) == 0 {
				delete(r.pods, t.pod.Name)
			}
		}
		r.mu.Unlock()
		r.send(logEvent{id: id, end: true})
	}()
	return first
}

// collect merges the streams' events and writes batches to the sink until
// every producer is done or the request is cancelled.
func (r *logRun) collect(batch LogBatch) {
	tick := time.NewTicker(r.deps.flushEvery)
	defer tick.Stop()
	write := func() {
		if len(batch.Lines) == 0 && len(batch.Notes) == 0 {
			return
		}
		r.sink.Write(batch)
		batch = LogBatch{}
	}
	for {
		select {
		case ev, ok := <-r.events:
			if !ok {
				r.merger.release(time.Now(), true, &batch)
				write()
				return
			}
			r.apply(ev, &batch)
			if r.merger.pending() >= logBatchLines {
				r.merger.release(time.Now(), false, &batch)
			}
			if len(batch.Lines) >= logBatchLines {
				write()
			}
		case <-tick.C:
			r.merger.release(time.Now(), false, &batch)
			write()
		case <-r.ctx.Done():
			// The caller is gone: drop what is left; the producers see
			// the cancelled ctx and stop.
			go func() {
				for range r.events {
				}
			}()
			return
		}
	}
}

// apply queues an event's lines and notes in the merger.
func (r *logRun) apply(ev logEvent, batch *LogBatch) {
	if ev.id < 0 {
		for _, n := range ev.batch.Notes {
			r.merger.addNote(-1, n.Note, batch)
		}
		return
	}
	r.merger.ensure(ev.id)
	now := time.Now()
	at := 0
	for _, n := range ev.batch.Notes {
		if n.At > at {
			r.merger.addLines(ev.id, ev.batch.Lines[at:n.At], now)
			at = n.At
		}
		r.merger.addNote(ev.id, n.Note, batch)
	}
	if at < len(ev.batch.Lines) {
		r.merger.addLines(ev.id, ev.batch.Lines[at:], now)
	}
	if ev.end {
		r.merger.end(ev.id)
	}
}

var errLogPodGone = errors.New("the pod is gone")
