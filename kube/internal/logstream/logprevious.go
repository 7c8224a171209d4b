package logstream

import (
	"fmt"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// What a previous=true read (`p`) may read: only a container that has a
// previous instance. The kubelet answers others with "previous terminated
// container ... not found", and some servers (kwok) with an unrelated
// file error: both are read as ErrLogNoPrevious.

// logTextError is an error whose text is written for people and which
// errors.Is finds as err.
type logTextError struct {
	text string
	err  error
}

func (e *logTextError) Error() string { return e.text }
func (e *logTextError) Unwrap() error { return e.err }

// hasPrevious reports whether a container has a previous (terminated)
// instance to read: it restarted (restartCount > 0) or the kubelet reports
// its last termination (lastState.terminated).
func hasPrevious(pod *corev1.Pod, container string) bool {
	st := containerStatus(pod, container)
	return st != nil && (st.RestartCount > 0 || st.LastTerminationState.Terminated != nil)
}

// splitPrevious keeps the targets whose container has a previous instance
// and names the others: "pod" for a workload's pod, "container" for the
// containers of one pod (single).
func splitPrevious(targets []logTarget, single bool) (with []logTarget, without []string) {
	for _, t := range targets {
		switch {
		case hasPrevious(t.pod, t.container):
			with = append(with, t)
		case single:
			without = append(without, t.container)
		default:
			without = append(without, t.pod.Name+"/"+t.container)
		}
	}
	return with, without
}

// noPreviousError is the request's error when no target has a previous
// instance: "no previous instance of container web (it has not restarted)".
func noPreviousError(req LogRequest, without []string) error {
	var text string
	switch {
	case len(without) == 1 && (req.Kind == vocab.KindPods || req.Kind == vocab.KindContainers):
		text = "no previous instance of container " + without[0] + " (it has not restarted)"
	case req.Kind == vocab.KindPods || req.Kind == vocab.KindContainers:
		text = "no previous instance of any container of pod " + req.Name + " (none has restarted)"
	default:
		text = fmt.Sprintf("no previous container instance in any of the %d pods of %s/%s (none has restarted)",
			len(without), req.Kind, req.Name)
	}
	return &logTextError{text: text, err: ErrLogNoPrevious}
}

// noPreviousNote names the targets left out of a previous read because
// they have no previous instance.
func noPreviousNote(ns string, without []string, total int) LogNote {
	return LogNote{Kind: LogNoteNoPrevious, Namespace: ns, Count: len(without), Names: without, Time: time.Now(),
		Text: fmt.Sprintf("%d of %d have no previous instance (not restarted): %s", len(without), total,
			strings.Join(without, ", "))}
}

// previousReadErr reads the kubelet's refusal of a previous read as
// ErrLogNoPrevious; other errors are returned as they are.
func previousReadErr(err error, container string) error {
	if err != nil && apierrors.IsBadRequest(err) && strings.Contains(err.Error(), "previous terminated container") {
		return &logTextError{text: "no previous instance of container " + container + " (it has not restarted)", err: ErrLogNoPrevious}
	}
	return err
}
