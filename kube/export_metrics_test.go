package kube

import (
	"time"

	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// SetMetricsClientset hands c the metrics clientset its Metrics read (the
// k8s.io/metrics fake in tests; NewFromClientset builds none).
func SetMetricsClientset(c *Client, cs metricsclient.Interface) { c.metricsCS = cs }

// SetMetricsClock makes now the clock of c's metrics polling and pruning.
func SetMetricsClock(c *Client, now func() time.Time) { c.metricsClock = now }

// PruneMetrics runs the janitor's metrics pass now (by the metrics clock).
func PruneMetrics(c *Client) { c.pruneMetrics() }

// MetricsWaiting is how many callers of req wait for its read in flight.
func MetricsWaiting(c *Client, req MetricsRequest) int {
	return c.metrics.Waiting(c.usageConfig(), req)
}

// MetricsHeld counts what c keeps of metrics: polled requests, and pods
// and nodes with a history.
func MetricsHeld(c *Client) (polls, pods, nodes int) { return c.metrics.Held() }

// SetMetricsMaxObjects bounds how many pods' and nodes' histories c holds.
func SetMetricsMaxObjects(c *Client, n int) { c.metrics.SetMaxObjects(n) }
