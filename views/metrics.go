package views

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/kyyard/kyyard/kube"
)

// MetricsSource reads resource metrics (metrics.k8s.io, served by
// metrics-server): the inventory's metrics columns and the describe view's
// chart. *kube.Client is one. Screens type-assert Context.Client to it; a
// client that is not one shows "n/a" in every metrics cell.
type MetricsSource interface {
	// Metrics returns the latest reading for req (see kube.Client.Metrics):
	// the metrics API is polled at its own interval inside kube, so calling
	// it on every refresh is cheap and answers from the cached reading;
	// Metrics.Generation changes only when the samples changed.
	Metrics(ctx context.Context, req kube.MetricsRequest) kube.Metrics
}

// WorkloadUsageSource reads the latest usage of a workload's containers,
// for the workload form (see kube.Client.WorkloadUsage). *kube.Client is
// one.
type WorkloadUsageSource interface {
	// WorkloadUsage returns each container's usage over the workload's
	// pods; WorkloadUsage.Truncated says why there is none.
	WorkloadUsage(ctx context.Context, ref kube.WorkloadRef) kube.WorkloadUsage
}

// NoMetricsClient is the reason shown when the client reads no metrics at
// all (it does not implement MetricsSource).
const NoMetricsClient = "this connection reads no metrics"

// MetricsProblem says in one short line why there are no metrics, for a
// notice or status line: "metrics: forbidden (may not list
// pods.metrics.k8s.io)" (the user may not read metrics.k8s.io; the verb
// and resource are the API server's, from its message), "metrics: not
// available — no metrics-server" (the API is not served: no
// metrics-server is registered through the aggregation layer), else
// "metrics: <reason> — <server text>". MetricsDetail gives the server's
// whole text. t nil gives "".
func MetricsProblem(t *kube.Truncation) string {
	if t == nil {
		return ""
	}
	switch t.Reason {
	case kube.ReasonForbidden:
		verb, resource := "read", "metrics.k8s.io"
		if kube.ServesMetrics(t.Kind) {
			resource = string(t.Kind) + "." + resource
		}
		if s := forbiddenText.FindStringSubmatch(t.Message); s != nil {
			group := s[3]
			if group == "" {
				group = "metrics.k8s.io"
			}
			verb, resource = s[1], s[2]+"."+group
		}
		return Sanitize(fmt.Sprintf("metrics: forbidden (may not %s %s)", verb, resource))
	case kube.ReasonNotFound:
		// The server's 404 text says no more than this.
		return "metrics: not available — no metrics-server"
	}
	return MetricsDetail(t)
}

// forbiddenText finds the verb, resource and group in the API server's
// forbidden message ("pods.metrics.k8s.io is forbidden: User "u" cannot
// list resource "pods" in API group "metrics.k8s.io" in the namespace
// "demo"", k8s.io/apiserver's authorization filter).
var forbiddenText = regexp.MustCompile(`cannot (\S+) resource "([^"]+)"(?: in API group "([^"]*)")?`)

// MetricsDetail says in full why there are no metrics, the server's text
// whole (sanitized), for a place that wraps it (the describe view's usage
// line): "metrics: <reason> — <server text>" ("metrics: not available —
// no metrics-server" for a metrics API that is not served); the reason's
// sentence when the server gave no text. t nil gives "".
func MetricsDetail(t *kube.Truncation) string {
	if t == nil {
		return ""
	}
	if t.Reason == kube.ReasonNotFound {
		return "metrics: not available — no metrics-server"
	}
	msg := Sanitize(t.Message)
	if msg == "" {
		msg = t.Reason.Sentence()
	}
	return fmt.Sprintf("metrics: %s — %s", t.Reason, msg)
}

// IntervalSource is implemented by a Source that knows how often it reads
// the metrics API (*kube.Client: the context's --metrics-interval).
type IntervalSource interface {
	MetricsInterval() time.Duration
}

// MetricsIntervalOf returns how often vc's client reads metrics: its own
// IntervalSource answer, else vc.Config.MetricsInterval (0 means
// kube.DefaultMetricsInterval to MetricsAge).
func MetricsIntervalOf(vc *Context) time.Duration {
	if s, ok := vc.Client.(IntervalSource); ok {
		return s.MetricsInterval()
	}
	return vc.Config.MetricsInterval
}

// MetricsAge says how old the metrics shown are, "metrics read 45s ago",
// when the reading was taken (kube.Metrics.Taken) more than twice interval
// (0: kube.DefaultMetricsInterval) before now: a metrics API that answers
// slowly or not at all leaves the previous reading on the screen. A
// reading that is recent enough, or none (taken zero), gives "".
func MetricsAge(taken, now time.Time, interval time.Duration) string {
	if interval <= 0 {
		interval = kube.DefaultMetricsInterval
	}
	age := now.Sub(taken)
	if taken.IsZero() || age <= 2*interval {
		return ""
	}
	return "metrics read " + age.Round(time.Second).String() + " ago"
}

// NotRunning reports whether row (of kind) is a pod whose status.phase
// (Row.Fields["status.phase"], as the pods plugin fills it) is known and
// not Running (Pending, Succeeded, Failed: a Completed pod, one waiting in
// ImagePullBackOff), or a container row whose state is not Running
// ("Waiting:…", "Terminated:…"). metrics-server reports running
// containers only, so such a row never gets a sample: the screens say
// "n/a", not "-" (no sample yet). Other kinds, and rows without a phase,
// are not known to be not running.
func NotRunning(kind kube.Kind, row *kube.Row) bool {
	switch kind {
	case kube.KindPods:
		phase := row.Fields["status.phase"]
		return phase != "" && phase != "Running"
	case kube.KindContainers:
		return row.Status != "" && !strings.HasPrefix(row.Status, "Running")
	}
	return false
}

// NativeSidecar reports whether row (of kind) is a container row of a
// native sidecar (kube.ContainerResources.NativeSidecar): metrics-server
// never reports its usage, so the screens say "n/a" and SidecarUsage, not
// "-" (no sample yet) forever.
func NativeSidecar(kind kube.Kind, row *kube.Row) bool {
	return kind == kube.KindContainers && row.Resources != nil && len(row.Resources.Containers) == 1 &&
		row.Resources.Containers[0].NativeSidecar
}

// SidecarUsage says why a native sidecar's metrics are "n/a".
const SidecarUsage = "sidecar metrics n/a: metrics-server does not report native sidecars"

// NotRunningUsage is what a pod's usage says when the pod is not running.
const NotRunningUsage = "not running — metrics-server reports running containers only"
