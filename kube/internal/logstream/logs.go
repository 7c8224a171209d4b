package logstream

// Container logs (Streamer.Logs): what a request reaches the cluster and the
// clock through (logDeps), the reconnection backoff, and the request itself:
// its kind checked, its pod or workload's pods read, its targets chosen
// (logtargets.go) and their streams run (logrun.go, one logStream each in
// logfollow.go) until the request is over.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
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

func (c *Streamer) logDeps() logDeps {
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

// Streamer reads container logs (Logs) through a clientset: each
// request's kind checked against its plugin's KindInfo, its pod or its
// workload's pods read, listed and watched, and its containers' pods/log
// read.
type Streamer struct {
	cs       kubernetes.Interface
	kindInfo func(vocab.Kind) vocab.KindInfo
}

// New returns a Streamer that reads through cs and asks kindInfo what a
// request's kind supports (the KindInfo of its plugin, for CanLogs; a
// kind no plugin serves answers a KindInfo without capabilities).
func New(cs kubernetes.Interface, kindInfo func(vocab.Kind) vocab.KindInfo) *Streamer {
	return &Streamer{cs: cs, kindInfo: kindInfo}
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
// no CanLogs); a *vocab.ContainerChoiceError
// (errors.Is vocab.ErrLogContainerRequired); ErrLogNoContainer; ErrLogPodReplaced
// when req.UID is not the pod's; ErrLogNoPods; ErrLogNoPrevious when
// Options.Previous and no container asked for has a previous instance
// (those that have none are otherwise left out and named in a
// LogNoteNoPrevious); and the API server's own
// (forbidden, not found, the pod's container waiting when not following),
// which vocab.ReasonOf classifies. When every stream of a request fails at its
// first read, the first error is returned too; otherwise a stream's
// failure is a LogNoteEnded with Err.
func (c *Streamer) Logs(ctx context.Context, req LogRequest, sink LogSink) error {
	return c.logs(ctx, req, sink, c.logDeps())
}

func (c *Streamer) logs(ctx context.Context, req LogRequest, sink LogSink, deps logDeps) error {
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
	case !c.kindInfo(req.Kind).Capabilities.Has(vocab.CanLogs):
		return fmt.Errorf("%w: %s", ErrLogKind, req.Kind)
	case req.Kind == vocab.KindPods || req.Kind == vocab.KindContainers:
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
		with, without := splitPrevious(targets, req.Kind == vocab.KindPods || req.Kind == vocab.KindContainers)
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

// logPod reads the pod of a pod or container request.
func (c *Streamer) logPod(ctx context.Context, req LogRequest) ([]*corev1.Pod, *podTracker, error) {
	if req.Kind == vocab.KindContainers && req.Container == "" && !req.AllContainers {
		return nil, nil, fmt.Errorf("%w: a container row names no container", vocab.ErrInvalid)
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

var errLogPodGone = errors.New("the pod is gone")
