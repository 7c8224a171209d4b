package logstream

// Which containers a Logs request (logs.go) streams: each pod's container
// choice resolved (logTargets, onlyContainer), the first MaxStreams admitted
// (admitLogTargets) and the rest queued, each queued target streamed in place
// of a stream that ends for good (refill), dropped when its pod is gone
// (unqueue), new ones queued as pods join (enqueue), with the notes that say
// so.

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
)

// logTarget is one container of one pod to stream.
type logTarget struct {
	pod        *corev1.Pod
	container  string
	containers []string // the pod's, for LogNoteStarted
	dflt       string
}

// logTargets resolves req's container choice for each pod.
func logTargets(req LogRequest, pods []*corev1.Pod) ([]logTarget, error) {
	single := req.Kind == vocab.KindPods || req.Kind == vocab.KindContainers
	var out []logTarget
	for _, pod := range pods {
		names := objects.PodContainers(pod)
		dflt := objects.DefaultContainer(pod)
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
// *vocab.ContainerChoiceError listing every container.
func onlyContainer(pod *corev1.Pod, names []string, dflt string) (string, error) {
	if running := objects.RunningContainers(pod); len(running) == 1 {
		return running[0], nil
	}
	return "", &vocab.ContainerChoiceError{Namespace: pod.Namespace, Pod: pod.Name, Containers: names, DefaultContainer: dflt}
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
		Text: fmt.Sprintf("%d left out (at most %s): %s", len(names), vocab.Plural(max, "stream"), strings.Join(names, ", "))}
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
