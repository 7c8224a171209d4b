// Package logstream streams container logs as kubectl logs reads them
// (pods/log with timestamps=true): one container, every container of a
// pod, or the pods a workload's spec.selector selects, split into lines
// without a length limit, merged across streams by time, and handed to a
// LogSink in batches with notes (a reconnection, a pod joining or gone,
// streams left out, a gap after a log rotation). While following, a
// stream is reconnected from the last timestamp seen when it ends,
// breaks, stalls behind a rotation of the kubelet's log file or its
// container restarts.
//
// A Streamer reads through a kubernetes.Interface and asks the kinds'
// plugins (a func returning a vocab.KindInfo) whether a kind has logs.
// The package imports the vocabulary (kube/vocab), the workload and
// container reads (kube/internal/objects) and client-go, never package
// kube: the facade, kube.Client.Logs, delegates to it and re-exports its
// types under the same names.
package logstream
