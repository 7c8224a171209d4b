// Package rollouts reads where a workload's rollout stands: a
// Deployment's, StatefulSet's or DaemonSet's phase as `kubectl rollout
// status` judges it (with the failures kubectl does not look for: pods that
// cannot start, a ReplicaSet that cannot create its pods), its new and old
// revisions and its pods with kubectl's READY and STATUS (Reader.Status),
// and the cheaper two-request Inspection behind `kyyard inspect`
// (Reader.Inspect). Reader takes what it needs as plain inputs (a
// clientset, the kind resolver, the plugin lookup); package kube's Client
// builds one and delegates RolloutStatus and Inspect to it. It imports the
// vocabulary (kube/vocab), kube/internal/objects and client-go, never
// package kube.
package rollouts
