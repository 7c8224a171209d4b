package kube

// The metrics concern lives in package kube/internal/usage (the polled
// metrics API, the trends' history, a workload's usage and the arithmetic
// the screens show); kube re-exports its types and delegates the Client's
// methods to the Client's usage.Poller, handing it the Client's metrics
// clientset, clock and options (usageConfig). Each name below is usage's,
// the same type or value: see its documentation there.

import (
	"context"
	"encoding/binary"
	"hash/fnv"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube/internal/usage"
	"github.com/kyyard/kyyard/kube/vocab"
)

// The metrics types (aliases of kube/internal/usage's).
type (
	// ContainerUsage is usage.ContainerUsage.
	ContainerUsage = usage.ContainerUsage
	// ContainerUsageSummary is usage.ContainerUsageSummary.
	ContainerUsageSummary = usage.ContainerUsageSummary
	// Metrics is usage.Metrics.
	Metrics = usage.Metrics
	// MetricsRequest is usage.MetricsRequest.
	MetricsRequest = usage.MetricsRequest
	// NodeUsage is usage.NodeUsage.
	NodeUsage = usage.NodeUsage
	// Percent is usage.Percent.
	Percent = usage.Percent
	// PodUsage is usage.PodUsage.
	PodUsage = usage.PodUsage
	// Sample is usage.Sample.
	Sample = usage.Sample
	// Utilisation is usage.Utilisation.
	Utilisation = usage.Utilisation
	// WorkloadUsage is usage.WorkloadUsage.
	WorkloadUsage = usage.WorkloadUsage
)

// Defaults of the metrics options.
const (
	// DefaultMetricsHistory is usage.DefaultMetricsHistory.
	DefaultMetricsHistory = usage.DefaultMetricsHistory
	// DefaultMetricsInterval is usage.DefaultMetricsInterval.
	DefaultMetricsInterval = usage.DefaultMetricsInterval
)

// FormatCPU is usage.FormatCPU.
func FormatCPU(milli int64) string { return usage.FormatCPU(milli) }

// FormatMemory is usage.FormatMemory.
func FormatMemory(bytes int64) string { return usage.FormatMemory(bytes) }

// UsageKey is usage.Key: the key of an object's usage in Metrics.Pods or
// Metrics.Nodes, the context first in a reading merged over contexts.
func UsageKey(context, namespace, name string) string { return usage.Key(context, namespace, name) }

// NodeUtilisation is usage.NodeUtilisation.
func NodeUtilisation(allocatable, use Usage) (cpu, memory Percent) {
	return usage.NodeUtilisation(allocatable, use)
}

// PodUtilisation is usage.PodUtilisation.
func PodUtilisation(res []ContainerResources, use []ContainerUsage) Utilisation {
	return usage.PodUtilisation(res, use)
}

// metricsState is the Client's polled metrics (its metrics field).
type metricsState = usage.Poller

// Metrics answers the CPU and memory usage of the pods or nodes req names,
// with each one's recent Trend (see the Metrics type).
//
// The metrics API is polled, not watched, and only on demand: a request
// is read when some caller asks for it and its next read is due (nothing
// is read in the background, so a pod's or node's samples are taken only
// while some screen shows it: a list, a describe chart, a workload form).
// The first caller of a request starts a read (a list of PodMetrics or
// NodeMetrics, or a get when req names one object, bounded by
// Options.ListTimeout); callers of the same request while it is in
// flight wait for that one read; callers before the next read is due get
// its answer without a request. A caller whose ctx ends first gets the
// previous answer (with no reading yet: Truncated with ctx's reason).
//
// The next read is due when the server is expected to have a new sample:
// reads are aligned to the samples' timestamps (usage/metricsschedule.go), so
// that a request asked for continuously reads each new sample once, soon
// after metrics-server publishes it, with a few extra reads while the
// alignment is learnt or when a sample comes late. Reads of one request
// are at least 2s apart (unless MetricsInterval is shorter), and at most
// Options.MetricsInterval (plus half a second) apart while callers ask; a MetricsInterval that is a
// multiple of the server's resolution (30s against 15s) reads every
// second (third, ...) sample only. A failed read, or one with no sample,
// is read again MetricsInterval after it started.
//
// req.Fresh reads now, whatever is due, unless a read of the request
// ended less than a second ago (its answer is given) or one is in flight
// (the caller waits for it): concurrent Fresh callers share one read,
// and its samples go to the same history.
//
// It never fails: a request it cannot answer says why in Truncated (see
// usage's metricsTruncation): not_found when no metrics API is served,
// forbidden, unavailable (metrics-server registered but down), timeout,
// invalid (a malformed label selector, a pod named without its
// namespace), unknown_kind (a kind but pods and nodes). A failed read
// keeps the previous reading's Pods or Nodes, so a screen can still draw
// their trends, and says why in Truncated: the numbers are then as old as
// their Timestamp.
//
// Pods of several namespaces (req.Namespace "a,b", vocab.SplitNamespaces)
// are read namespace by namespace, each its own polled request, at once,
// and their samples put together; a namespace whose read fails leaves its
// pods without samples, and Truncated is set only when every namespace's
// read failed (the first's reason).
func (c *Client) Metrics(ctx context.Context, req MetricsRequest) Metrics {
	nss := vocab.SplitNamespaces(req.Namespace)
	if len(nss) < 2 || c.kindInfo(req.Kind).ID != KindPods {
		return c.metrics.Metrics(ctx, c.usageConfig(), req)
	}
	parts := make([]Metrics, len(nss))
	var wg sync.WaitGroup
	for i, ns := range nss {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one := req
			one.Namespace = ns
			parts[i] = c.metrics.Metrics(ctx, c.usageConfig(), one)
		}()
	}
	wg.Wait()
	out := Metrics{Request: req, Pods: map[string]PodUsage{}}
	h := fnv.New64a()
	var buf [8]byte
	failed := 0
	for _, m := range parts {
		binary.LittleEndian.PutUint64(buf[:], m.Generation)
		h.Write(buf[:])
		if m.Truncated != nil {
			failed++
			if out.Truncated == nil {
				out.Truncated = m.Truncated
			}
		}
		for k, u := range m.Pods {
			out.Pods[k] = u
		}
		if m.Taken.After(out.Taken) {
			out.Taken = m.Taken
		}
	}
	if failed < len(parts) {
		out.Truncated = nil
	}
	out.Generation = h.Sum64() | 1
	return out
}

// WorkloadUsage answers the latest usage of a Deployment's, StatefulSet's
// or DaemonSet's containers over its pods, for the workload form: one get
// of the workload (its selector and pod template), then Metrics of the
// pods its selector selects in its namespace (a polled request like any
// other: see Metrics), so the pods are those Inspect counts — the label
// selector's, as `kubectl get pods -l` lists them.
//
// ref.Kind is a plugin id or alias of deployments, statefulsets or
// daemonsets. It never fails: a workload that cannot be read (not_found,
// forbidden, ...) or another kind (invalid) is named in Truncated with
// the workload's kind; metrics that cannot be read, as Metrics names them.
func (c *Client) WorkloadUsage(ctx context.Context, ref WorkloadRef) WorkloadUsage {
	return c.metrics.WorkloadUsage(ctx, c.usageConfig(), c.cs, c.workloadKind, ref)
}

// MetricsInterval is the longest time between two reads of the metrics API
// for one request: Options.MetricsInterval (--metrics-interval, or the
// context's metricsInterval), DefaultMetricsInterval when unset. Screens
// use it to tell a stale reading from a recent one.
func (c *Client) MetricsInterval() time.Duration {
	if c.opts.MetricsInterval > 0 {
		return c.opts.MetricsInterval
	}
	return DefaultMetricsInterval
}

// pruneMetrics drops the metrics polls and histories no screen needs any
// more (usage.Poller.Prune); the janitor calls it.
func (c *Client) pruneMetrics() { c.metrics.Prune(c.usageConfig()) }

// usageConfig is what the Client's metrics are read with: its metrics
// clientset (nil for a clientset handed in without one), its clock
// (metricsClock, or time.Now), its options with their defaults, its kinds
// and its one generation sequence; a poll that waits starts the janitor.
func (c *Client) usageConfig() usage.Config {
	history := c.opts.MetricsHistory
	if history <= 0 {
		history = DefaultMetricsHistory
	}
	return usage.Config{
		Client:      c.metricsCS,
		Now:         c.metricsClock,
		Interval:    c.MetricsInterval(),
		History:     history,
		ListTimeout: c.opts.ListTimeout,
		CacheIdle:   c.opts.CacheIdle,
		KindInfo:    c.kindInfo,
		Generation:  c.nextGeneration,
		Waiting:     c.startJanitor,
	}
}

// ServesMetrics reports whether the metrics API serves kind (pods and
// nodes; usage.Serves): the kinds whose describe view charts usage and
// whose metrics.k8s.io resource a refusal names.
func ServesMetrics(kind Kind) bool { return usage.Serves(kind) }
