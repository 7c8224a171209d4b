// Package drain drains a Node as `kubectl drain --ignore-daemonsets` does
// (k8s.io/kubectl/pkg/drain): which of its pods are evicted and which are
// left, with kubectl's rules and reasons (Classify), and the evictions
// through the Eviction API, so that PodDisruptionBudgets are honoured: a
// pod a budget protects is retried until it may go or the drain times out,
// and each pod's progress is told as it happens (Evict).
package drain
