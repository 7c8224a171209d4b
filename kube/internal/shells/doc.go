// Package shells runs sessions in containers: exec (`kubectl exec -it`,
// in-process: the guards, the choice of a shell by one probe, the session
// over the WebSocket executor with kubectl's fallback to SPDY, its limits
// and its exit status) and ephemeral debug containers (`kubectl debug -it
// --target`: the guards, the pods/ephemeralcontainers patch with a
// securityContext the namespace's Pod Security level admits, the wait for
// the container to run and the attach to it).
//
// A Shells takes what it needs as plain inputs (a clientset, the REST
// config streams are made with, the guard pipeline of
// kube/internal/guards, the configured shell, and for tests the stream
// builders). The package imports the vocabulary (kube/vocab, which holds
// ExecRequest, DebugRequest, ExecSession and most exec errors;
// ErrExecServer and ErrDebugNotStarted are this package's),
// kube/internal/guards, kube/internal/objects, kube/internal/validate and
// client-go, never package kube: the facade's PlanExec, OpenExec,
// PlanDebug and OpenDebug delegate to it, and kube re-exports its exported
// types and values under the same names.
package shells
