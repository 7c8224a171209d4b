package views

import (
	"context"
	"fmt"

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

// MetricsProblem says in one line why there are no metrics, for a notice
// or status line: "metrics: forbidden — <server text>" (the user may not
// read metrics.k8s.io), "metrics: not available — no metrics-server" (the
// API is not served: no metrics-server is registered through the
// aggregation layer), else "metrics: <reason> — <server text>". The
// server's text is sanitized. t nil gives "".
func MetricsProblem(t *kube.Truncation) string {
	if t == nil {
		return ""
	}
	msg := Sanitize(t.Message)
	switch t.Reason {
	case kube.ReasonForbidden:
		if msg == "" {
			msg = t.Reason.Sentence()
		}
		return "metrics: forbidden — " + msg
	case kube.ReasonNotFound:
		// The server's 404 text says no more than this.
		return "metrics: not available — no metrics-server"
	}
	if msg == "" {
		msg = t.Reason.Sentence()
	}
	return fmt.Sprintf("metrics: %s — %s", t.Reason, msg)
}
