package usage

import (
	"context"
	"errors"
	"strings"
	"time"

	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// This file reads the metrics API (metrics.k8s.io/v1beta1) and turns its
// PodMetrics and NodeMetrics into kyyard's types; metrics.go polls it.

// errNoMetricsClient is the answer of a read with no metrics clientset
// (Config.Client nil: a kube Client built from a clientset,
// NewFromClientset, that was handed none).
var errNoMetricsClient = errors.New("no metrics client: the client was built from a clientset without one")

// metricsReading is one read of the metrics API.
type metricsReading struct {
	pods  []PodUsage  // for a pods request, Trend empty
	nodes []NodeUsage // for a nodes request, Trend empty
}

// newest is the newest sample timestamp of the reading; zero when it has
// none.
func (r metricsReading) newest() time.Time {
	var t time.Time
	for i := range r.pods {
		if r.pods[i].Timestamp.After(t) {
			t = r.pods[i].Timestamp
		}
	}
	for i := range r.nodes {
		if r.nodes[i].Timestamp.After(t) {
			t = r.nodes[i].Timestamp
		}
	}
	return t
}

// readMetrics lists (or, for a request naming one object, gets) the
// PodMetrics or NodeMetrics of key with mc (nil: errNoMetricsClient). A
// Get the server answers with the object's own 404 (metrics-server has no
// sample of that pod or node yet) is an empty reading, not an error; a
// 404 of the resource itself (no metrics API registered) is an error.
func readMetrics(ctx context.Context, mc metricsclient.Interface, key metricsKey) (metricsReading, error) {
	if mc == nil {
		return metricsReading{}, errNoMetricsClient
	}
	api := mc.MetricsV1beta1()
	var out metricsReading
	switch key.kind {
	case vocab.KindNodes:
		var items []metricsv1beta1.NodeMetrics
		if key.name != "" {
			m, err := api.NodeMetricses().Get(ctx, key.name, metav1.GetOptions{})
			if err != nil {
				if objectMissing(err) {
					return out, nil
				}
				return out, err
			}
			items = []metricsv1beta1.NodeMetrics{*m}
		} else {
			list, err := api.NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: key.labels})
			if err != nil {
				return out, err
			}
			items = list.Items
		}
		out.nodes = make([]NodeUsage, 0, len(items))
		for i := range items {
			out.nodes = append(out.nodes, nodeUsageOf(&items[i]))
		}
	default:
		var items []metricsv1beta1.PodMetrics
		if key.name != "" {
			m, err := api.PodMetricses(key.namespace).Get(ctx, key.name, metav1.GetOptions{})
			if err != nil {
				if objectMissing(err) {
					return out, nil
				}
				return out, err
			}
			items = []metricsv1beta1.PodMetrics{*m}
		} else {
			list, err := api.PodMetricses(key.namespace).List(ctx, metav1.ListOptions{LabelSelector: key.labels})
			if err != nil {
				return out, err
			}
			items = list.Items
		}
		out.pods = make([]PodUsage, 0, len(items))
		for i := range items {
			out.pods = append(out.pods, podUsageOf(&items[i]))
		}
	}
	return out, nil
}

// notServedText is what a 404 of a path the API server does not serve says
// (k8s.io/apimachinery's NewGenericServerResponse, and the API server's
// own NotFound handler).
const notServedText = "the server could not find the requested resource"

// objectMissing reports whether err is a 404 about one object (a pod or
// node metrics-server has no sample of), not about the resource.
func objectMissing(err error) bool {
	var st apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &st) {
		return false
	}
	s := st.Status()
	return s.Details != nil && s.Details.Name != "" && !strings.Contains(s.Message, notServedText)
}

// metricsTruncation classifies a failed read of the metrics API with
// ReasonOf, saying in words what a screen shows beside "n/a": a 404 means
// the metrics API is not served (no metrics-server registered through the
// aggregation layer), a 503 that it is registered but its backend does
// not answer; other messages (forbidden, timeout) are the server's.
func metricsTruncation(kind vocab.Kind, err error) *vocab.Truncation {
	if errors.Is(err, errNoMetricsClient) {
		return &vocab.Truncation{Kind: kind, Reason: vocab.ReasonNotFound, Message: "the metrics API (metrics.k8s.io) is not available: " + err.Error()}
	}
	t := &vocab.Truncation{Kind: kind, Reason: vocab.ReasonOf(err), Message: err.Error()}
	switch t.Reason {
	case vocab.ReasonNotFound:
		t.Message = "the metrics API (metrics.k8s.io) is not served: is metrics-server installed? (" + err.Error() + ")"
	case vocab.ReasonUnavailable:
		if apierrors.IsServiceUnavailable(err) {
			t.Message = "the metrics API (metrics.k8s.io) is registered but does not answer: is metrics-server running? (" + err.Error() + ")"
		}
	case vocab.ReasonTimeout:
		t.Message = "the metrics API (metrics.k8s.io) did not answer in time: " + err.Error()
	}
	return t
}

// podUsageOf turns a PodMetrics into a PodUsage (no Trend). The containers'
// usage is rounded each (MilliValue, Value); Total adds the quantities up
// exactly first, as `kubectl top pod` does (k8s.io/kubectl/pkg/metricsutil),
// so it may be less than the sum of the rounded containers.
func podUsageOf(m *metricsv1beta1.PodMetrics) PodUsage {
	u := PodUsage{Namespace: m.Namespace, Name: m.Name, Timestamp: m.Timestamp.Time, Window: m.Window.Duration,
		Containers: make([]ContainerUsage, 0, len(m.Containers))}
	var cpu, mem resource.Quantity
	var hasCPU, hasMem, badCPU, badMem bool
	for _, c := range m.Containers {
		cu := ContainerUsage{Name: c.Name, Usage: usageOf(c.Usage)}
		u.Containers = append(u.Containers, cu)
		if q, ok := c.Usage[corev1.ResourceCPU]; ok {
			if cu.Usage.CPU == vocab.NotSet {
				badCPU = true
			} else {
				cpu.Add(q)
				hasCPU = true
			}
		}
		if q, ok := c.Usage[corev1.ResourceMemory]; ok {
			if cu.Usage.Memory == vocab.NotSet {
				badMem = true
			} else {
				mem.Add(q)
				hasMem = true
			}
		}
	}
	u.Total = vocab.Usage{CPU: vocab.NotSet, Memory: vocab.NotSet}
	if hasCPU && !badCPU {
		u.Total.CPU = milli(cpu)
	}
	if hasMem && !badMem {
		u.Total.Memory = whole(mem)
	}
	return u
}

// nodeUsageOf turns a NodeMetrics into a NodeUsage (no Trend).
func nodeUsageOf(m *metricsv1beta1.NodeMetrics) NodeUsage {
	return NodeUsage{Name: m.Name, Timestamp: m.Timestamp.Time, Window: m.Window.Duration, Usage: usageOf(m.Usage)}
}

// usageOf reads cpu and memory of a ResourceList: NotSet when missing or
// malformed (negative, or too large for an int64).
func usageOf(list corev1.ResourceList) vocab.Usage {
	u := vocab.Usage{CPU: vocab.NotSet, Memory: vocab.NotSet}
	if q, ok := list[corev1.ResourceCPU]; ok {
		u.CPU = milli(q)
	}
	if q, ok := list[corev1.ResourceMemory]; ok {
		u.Memory = whole(q)
	}
	return u
}

// maxMilli is the largest quantity whose MilliValue fits an int64.
var maxMilli = resource.NewMilliQuantity(1<<63-1, resource.DecimalSI)

// milli is q's MilliValue (rounded up), or NotSet when q is negative or
// its millis overflow an int64.
func milli(q resource.Quantity) int64 {
	if q.Sign() < 0 || q.Cmp(*maxMilli) > 0 {
		return vocab.NotSet
	}
	return q.MilliValue()
}

// whole is q's Value (rounded up), or NotSet when q is negative or
// overflows an int64.
func whole(q resource.Quantity) int64 {
	if q.Sign() < 0 {
		return vocab.NotSet
	}
	v, ok := q.AsInt64()
	if ok {
		return v
	}
	if q.Cmp(*resource.NewQuantity(1<<63-1, resource.DecimalSI)) > 0 {
		return vocab.NotSet
	}
	return q.Value()
}
