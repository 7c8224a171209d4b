package usage

import (
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
)

// This file is the contract of resource metrics (issue 12): what kyyard reads
// from the metrics API (metrics.k8s.io, served by metrics-server through the
// API server's aggregation layer) and the arithmetic the screens show.

// Sample is one metrics reading of a pod or node.
type Sample struct {
	// At is the sample's timestamp (the end of its window, as the metrics
	// API reports it).
	At time.Time
	// Usage is the pod's total (sum of its containers) or the node's usage.
	Usage vocab.Usage
}

// ContainerUsage is one container's usage in a PodMetrics.
type ContainerUsage struct {
	// Name is the container's name.
	Name string
	// Usage is the container's CPU (millicores) and memory (working set
	// bytes) over the sample's window.
	Usage vocab.Usage
}

// PodUsage is the latest PodMetrics of one pod, with its recent history.
type PodUsage struct {
	// Namespace and Name name the pod.
	Namespace, Name string
	// Timestamp and Window are the sample's end and length, as the metrics
	// API reports them.
	Timestamp time.Time
	Window    time.Duration
	// Containers are the containers metrics-server reported, in its order.
	Containers []ContainerUsage
	// Total is the sum over Containers, added up exactly before rounding
	// (the API reports nanocores), so it is what `kubectl top pod` prints
	// and may be less than the sum of the rounded Containers' CPU.
	Total vocab.Usage
	// Trend is the pod's recent samples, oldest first, one per distinct
	// Timestamp, at most kube's Options.MetricsHistory (Config.History)
	// of them. Shared: read only.
	Trend []Sample
}

// NodeUsage is the latest NodeMetrics of one node, with its recent history.
type NodeUsage struct {
	// Name names the node.
	Name string
	// Timestamp and Window are the sample's end and length.
	Timestamp time.Time
	Window    time.Duration
	// Usage is the node's CPU and memory usage (what `kubectl top node`
	// prints).
	Usage vocab.Usage
	// Trend is the node's recent samples, oldest first, at most
	// kube's Options.MetricsHistory of them. Shared: read only.
	Trend []Sample
}

// MetricsRequest says whose metrics a screen wants.
type MetricsRequest struct {
	// Kind is KindPods ("pods") or KindNodes ("nodes"); other kinds are
	// answered with a Truncation of ReasonUnknownKind.
	Kind vocab.Kind
	// Namespace scopes pods; "" means all namespaces. Ignored for nodes.
	Namespace string
	// Name, when set, asks for one pod or node only (a describe view).
	Name string
	// Labels is a label selector sent to the metrics API ("" for all).
	Labels string
	// Fresh asks for a new reading now, whatever the interval, unless one
	// finished less than a second ago (the person asked for a refresh).
	// Fresh is not part of the request's identity: it shares the cache
	// and history of the same request without it.
	Fresh bool
}

// Metrics is the answer to a MetricsRequest.
//
// The metrics API cannot be watched, so it is polled, per request (kind,
// namespace, name, labels) and only while some caller asks for it:
// Poller.Metrics (kube's Client.Metrics) reads a request when its next
// read is due and answers from the last reading in between, however often
// screens ask. Reads are aligned to the server's samples (each new sample
// read once, soon after metrics-server publishes it; a few extra reads
// while the alignment is learnt or a sample is late), at least 2s apart
// and at most kube's Options.MetricsInterval (plus half a second) apart
// while asked for; MetricsRequest.Fresh reads at once. Nothing is read
// for a request no screen shows: a node's samples are taken only while
// the nodes list or its describe view is open, a pod's while a list or
// view that shows it is. Every reading adds its samples to the per-object
// history the Trend fields show, shared by the requests; a history is
// kept Options.MetricsHistory × Options.MetricsInterval (15 minutes by
// default, at least Options.CacheIdle) after a reading last reported its
// object, so a trend outlives its screen, and at most 20,000 objects'
// histories are held (those reported longest ago dropped first).
type Metrics struct {
	// Request is the request this answers.
	Request MetricsRequest
	// Pods holds the pods' usage by "namespace/name" (nil for nodes); a
	// reading merged over several contexts keys by Key(context, namespace,
	// name).
	Pods map[string]PodUsage
	// Nodes holds the nodes' usage by name (nil for pods); a reading
	// merged over several contexts keys by Key(context, "", name).
	Nodes map[string]NodeUsage
	// Unread is set only in a reading merged over several contexts (a
	// fleet's, views/fleet): why each context whose own reading has a
	// Truncated has no metrics (or, for a transient reason, only its last
	// good samples), by context name. Truncated is then nil unless every
	// context's reading failed. Nil in one cluster's reading.
	Unread map[string]*vocab.Truncation
	// Truncated, when not nil, says why there are no metrics: the metrics
	// API is not served (ReasonNotFound: no metrics-server registered),
	// the user may not read it (ReasonForbidden), or it failed
	// (ReasonUnavailable, ReasonTimeout, ...), with the server's message.
	// The screens then show "n/a" and the reason, never an error over the
	// table. A pod or node the API has no sample for yet is simply absent.
	// When a read fails after a good one, Pods or Nodes still hold the
	// good one's samples (as old as their Timestamp), so trends stay
	// drawable; they are empty when no read has succeeded yet.
	Truncated *vocab.Truncation
	// Generation changes only when the samples or the truncation changed
	// since the previous answer to the same request (so an idle screen
	// does no work); it is at least 1 once read.
	Generation uint64
	// Taken is when the metrics API was read (not when this answer was
	// given from that reading).
	Taken time.Time
}

// Key is the key of an object's usage in Metrics.Pods ("namespace/name")
// or Metrics.Nodes ("name", namespace ""); with a context (a reading
// merged over several contexts) the context comes first:
// "context/namespace/name", "context/name". Namespace and object names
// hold no "/" (they are DNS labels and subdomains), so a key names one
// object whatever the context's name holds.
func Key(context, namespace, name string) string {
	key := name
	if namespace != "" {
		key = namespace + "/" + name
	}
	if context != "" {
		key = context + "/" + key
	}
	return key
}

// Percent is a usage as a share of requests, limits or allocatable.
type Percent struct {
	// Value is the percentage, rounded to the nearest integer (kubectl top
	// node's %CPU and %MEMORY truncate instead: NodeUtilisation follows it).
	Value int64
	// Set is false when no container (or the node) sets the amount the
	// share is of: the column shows "n/a", never 0% or a division by zero.
	Set bool
	// Partial is true when some containers with usage set the amount and
	// others do not: Value is over the containers that set it only, and
	// the screens mark it.
	Partial bool
}

// Utilisation is a pod's (or one container's) usage against its requests
// and limits.
type Utilisation struct {
	// Usage is the total usage over the containers.
	Usage vocab.Usage
	// CPURequest, CPULimit, MemoryRequest and MemoryLimit are %CPU/R,
	// %CPU/L, %MEM/R and %MEM/L: the usage of the containers that set the
	// request (limit) divided by the sum of those requests (limits).
	CPURequest, CPULimit, MemoryRequest, MemoryLimit Percent
}

// ContainerUsageSummary is one container's usage over the pods of a
// workload, for the workload form (next to its request and limit inputs).
type ContainerUsageSummary struct {
	// Name is the container's name in the pod template.
	Name string
	// Pods is how many of the workload's pods reported this container.
	Pods int
	// Min, Max and Mean are over those pods' latest samples.
	Min, Max, Mean vocab.Usage
}

// WorkloadUsage is the latest usage of a workload's containers.
type WorkloadUsage struct {
	// Containers are in the order of the pod template's containers
	// (containers the metrics did not report are absent).
	Containers []ContainerUsageSummary
	// Truncated, when not nil, says why there are none (as Metrics).
	Truncated *vocab.Truncation
	// Taken is when the metrics were read.
	Taken time.Time
}

// Defaults of the metrics options.
const (
	// DefaultMetricsInterval is the longest time between two reads of a
	// request asked for: the metric resolution metrics-server's own
	// manifests deploy it with (--metric-resolution=15s); reads are
	// aligned to the samples within it (see Metrics).
	DefaultMetricsInterval = 15 * time.Second
	// DefaultMetricsHistory is how many samples a Trend keeps: 15 minutes
	// at the default interval.
	DefaultMetricsHistory = 60
)

// Serves reports whether the metrics API (metrics.k8s.io/v1beta1) serves
// kind: pods and nodes (its PodMetrics and NodeMetrics); a container's
// usage is read through its pod's.
func Serves(kind vocab.Kind) bool { return kind == vocab.KindPods || kind == vocab.KindNodes }
