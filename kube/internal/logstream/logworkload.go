package logstream

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// workloadLogPods reads a workload and lists the pods its spec.selector
// selects (what kubectl logs deployment/x reads, for every pod rather than
// one), sorted by name, with a tracker that watches the same selector.
// Errors: the API server's (not found, forbidden), a selector that selects
// nothing, ErrLogPodReplaced when req.UID is not the workload's, and
// ErrLogNoPods.
func (c *Streamer) workloadLogPods(ctx context.Context, req LogRequest) ([]*corev1.Pod, *podTracker, error) {
	ns, name := req.Namespace, req.Name
	wo, err := objects.Read(ctx, c.cs, req.Kind, ns, name)
	if errors.Is(err, objects.ErrNotPodOwner) {
		return nil, nil, fmt.Errorf("%w: %s", ErrLogKind, req.Kind)
	}
	if err != nil {
		return nil, nil, err
	}
	sel, uid := wo.Selector, string(wo.Meta.UID)
	if req.UID != "" && uid != req.UID {
		return nil, nil, fmt.Errorf("%w: %s %s/%s", ErrLogPodReplaced, req.Kind, ns, name)
	}
	if sel == nil || (len(sel.MatchLabels) == 0 && len(sel.MatchExpressions) == 0) {
		return nil, nil, fmt.Errorf("%s/%s: %w", req.Kind, name, vocab.ErrSelectsNothing)
	}
	ls, err := objects.SelectorOf(sel)
	if err != nil {
		return nil, nil, err
	}
	list, err := c.cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: ls.String()})
	if err != nil {
		return nil, nil, err
	}
	pods := make([]*corev1.Pod, 0, len(list.Items))
	for i := range list.Items {
		pods = append(pods, &list.Items[i])
	}
	sort.Slice(pods, func(i, j int) bool { return pods[i].Name < pods[j].Name })
	if len(pods) == 0 {
		return nil, nil, fmt.Errorf("%w: %s %s/%s", ErrLogNoPods, req.Kind, ns, name)
	}
	t := &podTracker{namespace: ns, labels: ls.String(), rv: list.ResourceVersion, workload: true}
	return pods, t, nil
}

// podTracker follows the pods of a followed request: a pod deleted or
// replaced (another UID under its name) ends its streams with
// LogNotePodGone; a container's new instance (a restart) makes its stream
// reconnect at once (a kubelet ends the old stream by itself, other
// servers may not); for a workload, a new pod joins (LogNotePodJoined)
// while fewer than MaxStreams streams run, else it is named in a
// LogNotePodsLeftOut. It watches the pods; when it may not, it lists them
// every poll.
type podTracker struct {
	namespace      string
	labels, fields string
	rv             string // of the list the request started from
	workload       bool

	// ctx ends the tracking: with the request, or, for a pod request,
	// when its streams are over.
	ctx    context.Context
	cancel context.CancelFunc
}

func (t *podTracker) opts(rv string) metav1.ListOptions {
	return metav1.ListOptions{LabelSelector: t.labels, FieldSelector: t.fields, ResourceVersion: rv}
}

// run tracks the pods until the request ends.
func (t *podTracker) run(r *logRun) {
	pods := r.c.cs.CoreV1().Pods(t.namespace)
	rv := t.rv
	attempt := 0
	for t.ctx.Err() == nil {
		if rv == "" {
			list, err := pods.List(t.ctx, t.opts(""))
			if err != nil {
				attempt++
				if !sleepCtx(t.ctx, r.deps.backoff(attempt)) {
					return
				}
				continue
			}
			t.observeList(r, list.Items)
			rv = list.ResourceVersion
		}
		w, err := pods.Watch(t.ctx, t.opts(rv))
		if err != nil {
			if apierrors.IsForbidden(err) || apierrors.IsMethodNotSupported(err) {
				t.poll(r)
				return
			}
			attempt++
			rv = ""
			if !sleepCtx(t.ctx, r.deps.backoff(attempt)) {
				return
			}
			continue
		}
		attempt = 0
		t.consume(r, w)
		w.Stop()
		rv = "" // list again: the watch may have missed a deletion
		if !sleepCtx(t.ctx, r.deps.poll/4) {
			return
		}
	}
}

// consume handles a watch's events until it ends (an error event, such
// as an expired resourceVersion, ends it too) or the tracking does.
func (t *podTracker) consume(r *logRun, w watch.Interface) {
	for {
		select {
		case <-t.ctx.Done():
			return
		case ev, ok := <-w.ResultChan():
			if !ok {
				return
			}
			pod, isPod := ev.Object.(*corev1.Pod)
			switch {
			case ev.Type == watch.Error:
				return
			case !isPod:
			case ev.Type == watch.Deleted:
				r.podGone(pod.Name, string(pod.UID))
			case ev.Type == watch.Added || ev.Type == watch.Modified:
				t.observe(r, pod)
			}
		}
	}
}

// poll lists the pods every r.deps.poll, for a user who may not watch.
func (t *podTracker) poll(r *logRun) {
	for sleepCtx(t.ctx, r.deps.poll) {
		list, err := r.c.cs.CoreV1().Pods(t.namespace).List(t.ctx, t.opts(""))
		if err == nil {
			t.observeList(r, list.Items)
		}
	}
}

// observeList takes a full list: pods tracked and not listed are gone.
func (t *podTracker) observeList(r *logRun, items []corev1.Pod) {
	listed := map[string]string{}
	for i := range items {
		listed[items[i].Name] = string(items[i].UID)
	}
	r.mu.Lock()
	var gone []string
	for name := range r.pods {
		if _, ok := listed[name]; !ok {
			gone = append(gone, name)
		}
	}
	r.mu.Unlock()
	for _, name := range gone {
		r.podGone(name, "")
	}
	sort.Slice(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	for i := range items {
		t.observe(r, &items[i])
	}
}

// observe takes one pod as it is now.
func (t *podTracker) observe(r *logRun, pod *corev1.Pod) {
	r.mu.Lock()
	p := r.pods[pod.Name]
	var streams []*logStream
	if p != nil {
		streams = append(streams, p.streams...)
	}
	replaced := p != nil && p.uid != string(pod.UID)
	r.mu.Unlock()
	if replaced {
		r.podGone(pod.Name, "")
		p = nil
	}
	if p != nil {
		for _, s := range streams {
			s.observe(pod)
		}
		return
	}
	if !t.workload || pod.DeletionTimestamp != nil || t.seen(r, pod) {
		return
	}
	t.join(r, pod)
}

// seen reports whether the pod was part of the request before (streamed
// and ended, or left out): a pod joins only once.
func (t *podTracker) seen(r *logRun, pod *corev1.Pod) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known == nil {
		r.known = map[string]bool{}
	}
	key := string(pod.UID)
	if r.known[key] {
		return true
	}
	r.known[key] = true
	return false
}

// join starts the streams of a new pod of the workload.
func (t *podTracker) join(r *logRun, pod *corev1.Pod) {
	targets, err := logTargets(LogRequest{Kind: r.req.Kind, Container: r.req.Container, AllContainers: r.req.AllContainers},
		[]*corev1.Pod{pod})
	if err != nil {
		return // the pod lacks the named container
	}
	r.mu.Lock()
	room := r.max - r.active
	if len(r.queue) > 0 {
		room = 0 // those left out before go first
	}
	r.mu.Unlock()
	admitted, leftOut := admitLogTargets(targets, max(room, 0))
	if len(admitted) > 0 {
		r.note(-1, LogNote{Kind: LogNotePodJoined, Namespace: pod.Namespace, Pod: pod.Name,
			Text: "pod " + pod.Name + " joined"})
		for _, tg := range admitted {
			if err := <-r.start(tg); err != nil {
				r.note(-1, LogNote{Kind: LogNoteEnded, Namespace: pod.Namespace, Pod: pod.Name, Container: tg.container,
					Err: err, Text: "could not read the log"})
			}
		}
	}
	if len(admitted) == 0 {
		leftOut = []string{pod.Name}
	}
	if len(leftOut) > 0 {
		r.enqueue(pod.Namespace, targets[len(admitted):], leftOut)
	}
}

// podGone ends the streams of pod name (of UID uid, "" for any), or takes
// it out of the queue of those left out.
func (r *logRun) podGone(name, uid string) {
	r.unqueue(name)
	r.mu.Lock()
	p := r.pods[name]
	if p == nil || (uid != "" && p.uid != uid) {
		r.mu.Unlock()
		return
	}
	streams := append([]*logStream(nil), p.streams...)
	r.mu.Unlock()
	for _, s := range streams {
		s.cancel(errLogPodGone)
	}
}

// sleepCtx waits d; false when ctx ends first.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
