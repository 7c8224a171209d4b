// Package usage is kyyard's reading of resource metrics: the CPU and
// memory usage of pods and nodes from the metrics API (metrics.k8s.io,
// served by metrics-server through the API server's aggregation layer),
// polled on demand and aligned to the server's samples (Poller), the
// recent history of each pod and node the trends draw, a workload's
// usage per container for the workload form (Poller.WorkloadUsage), and
// the arithmetic the screens show (PodUtilisation, NodeUtilisation,
// FormatCPU, FormatMemory).
//
// It takes what it reads with as plain inputs (Config: a metrics
// clientset, a clock, the intervals, the kind lookup and the generation
// sequence of its owner) and imports the vocabulary (kube/vocab), the
// workload reads (kube/internal/objects) and client-go, never package
// kube: the Client there is the facade that owns a Poller, delegates to
// it and re-exports this package's types for the screens.
package usage
