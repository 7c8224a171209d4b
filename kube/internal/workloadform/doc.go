// Package workloadform is the workload form's adapter: it reads a
// Deployment, StatefulSet or DaemonSet into the form's picture of it
// (vocab.Workload, cut at the form's bounds), compares two pictures
// (Changes, Rebase, ConflictOf), builds the strategic merge patch of only
// the paths the person changed and proves it with the API server's own
// merge code before it is sent, and previews (DryRun) and writes
// (ApplyWorkload) it behind the guard pipeline, the fresh read of the
// object first (a moved generation or a changed field is a conflict). It
// also finds the workload a ReplicaSet or Pod row stands for (WorkloadOf).
//
// Form takes what it needs as plain inputs (a clientset, the guard
// checker, the kind resolver); package kube's Client builds one and
// delegates to it, and re-exports the names the screens use. The form's
// types live in kube/vocab, its input checks in kube/internal/validate. It
// imports the vocabulary, kube/internal/guards, kube/internal/objects and
// client-go, never package kube.
package workloadform
