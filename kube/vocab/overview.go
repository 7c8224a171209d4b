package vocab

import "time"

// ClusterOverview is one cluster's health at a glance, for the clusters
// overview (Client.Overview): one row per kubeconfig context.
type ClusterOverview struct {
	// Version is the API server's gitVersion ("v1.37.2"), "" when the
	// server did not answer; Latency is the round trip of that /version
	// request.
	Version string
	Latency time.Duration
	// Reason and Message say why the cluster could not be read at all
	// (unreachable, unauthorized, timeout): "" when it answered.
	Reason  Reason
	Message string
	// NodesReady counts the Nodes whose STATUS (kubectl's column) is
	// Ready (cordoned ones too: "Ready,SchedulingDisabled"), NodesTotal
	// all of them.
	NodesReady, NodesTotal int
	// PodsRunning, PodsPending and PodsFailed count the Pods of every
	// namespace by status.phase (as `kubectl get pods -A --field-selector
	// status.phase=Running` counts them); PodsTotal counts all of them
	// (Succeeded and Unknown too).
	PodsRunning, PodsPending, PodsFailed, PodsTotal int
	// Namespace is "" when the Pods and events counted are every
	// namespace's; when the account may not list Pods in every namespace,
	// it is the context's namespace, whose Pods and events are counted
	// instead (and MayList and MayWatch are asked there).
	Namespace string
	// Warnings counts the Warning events of every namespace last seen in
	// the hour before Answered (a repeated event once).
	Warnings int
	// Used is the Nodes' summed CPU (millicores) and memory (bytes) usage
	// from the metrics API, Allocatable their summed status.allocatable;
	// Metrics is false when the metrics API gave no reading (Used is then
	// zero; MetricsReason says why).
	Used, Allocatable Usage
	Metrics           bool
	MetricsReason     Reason
	// MayList, MayWatch and MayWrite are the SelfSubjectAccessReviews of
	// list and watch pods in every namespace (in Namespace when it is set)
	// and of patch deployments in the context's namespace; ReadOnly says kyyard refuses every write
	// there (--readonly, the configuration file).
	MayList, MayWatch, MayWrite, ReadOnly bool
	// Unread names the parts that could not be read, with their reason
	// ("pods: forbidden"): their counts are zero.
	Unread []string
	// Reading is set while a list counted (Nodes, Pods, events) is still
	// arriving: the counts are those so far (a cache's first list).
	Reading bool
	// Answered is when this overview was read; zero when the cluster did
	// not answer (Reason set).
	Answered time.Time
}

// Reachable reports whether the cluster answered at all (its version
// was read).
func (o ClusterOverview) Reachable() bool { return o.Reason == "" && o.Version != "" }
