package fleet

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The metrics of a fleet: each connected member's own reading (its
// kube.Client polls the metrics API at its own interval and answers from
// its cache in between), merged into one kube.Metrics keyed with the
// context (kube.UsageKey), so that a screen across several clusters has
// CPU and MEM columns as one cluster's has.

var _ views.MetricsSource = (*Source)(nil)

// keepMetrics bounds the merged readings remembered (one per request a
// screen asks for; the oldest is dropped first).
const keepMetrics = 8

// noMetricsClient is a member whose client reads no metrics (it is not a
// views.MetricsSource).
var noMetricsClient = &kube.Truncation{Reason: kube.ReasonError, Message: views.NoMetricsClient}

// metricsPart is one member's reading as a merged reading was made from:
// the merge is made again only when some member's Generation changed, or
// the members connected did.
type metricsPart struct {
	context    string
	generation uint64
}

// mergedMetrics is the merged answer to one request.
type mergedMetrics struct {
	req    kube.MetricsRequest
	parts  []metricsPart
	answer kube.Metrics
}

// namedSource is a connected member.
type namedSource struct {
	name string
	src  views.Source
}

// connectedNamed returns the connected members, in fleet order (none once
// closed).
func (s *Source) connectedNamed() []namedSource {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	var out []namedSource
	for _, m := range s.members {
		if m.src != nil {
			out = append(out, namedSource{m.name, m.src})
		}
	}
	return out
}

// Metrics answers req in every connected member, in parallel (each its
// own kube.Client.Metrics: polled at that context's interval, cached in
// between, ctx bounding the wait as there; views.OwnNamespaces read as
// each member's own namespace), merged: Pods keyed by
// kube.UsageKey(context, namespace, name), Nodes by kube.UsageKey(context,
// "", name); a member whose reading has a Truncated is in Unread with it
// (its last good samples, if any, still merged), and the merged Truncated
// is set only when every member's is (the first's). A member whose
// client reads no metrics is Unread with views.NoMetricsClient. Taken is
// the oldest Taken of the members read. Generation changes only when some
// member's Generation changed or the members connected did, and the
// merge (O(samples)) is made only then: an idle screen asking every
// refresh gets the remembered answer. No member connected yet: an answer
// with no samples, no Truncated and Generation 0.
func (s *Source) Metrics(ctx context.Context, req kube.MetricsRequest) kube.Metrics {
	members := s.connectedNamed()
	req0 := req
	req0.Fresh = false
	if len(members) == 0 {
		return kube.Metrics{Request: req0}
	}
	readings := make([]kube.Metrics, len(members))
	read := make([]bool, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		ms, ok := m.src.(views.MetricsSource)
		if !ok {
			continue
		}
		read[i] = true
		mreq := req
		if mreq.Namespace == views.OwnNamespaces {
			mreq.Namespace = s.ownNamespace(m.src)
		}
		wg.Go(func() { readings[i] = ms.Metrics(ctx, mreq) })
	}
	wg.Wait()
	parts := make([]metricsPart, len(members))
	for i, m := range members {
		parts[i] = metricsPart{context: m.name, generation: readings[i].Generation}
		if !read[i] {
			readings[i].Truncated = noMetricsClient
		}
	}
	s.metMu.Lock()
	defer s.metMu.Unlock()
	i := slices.IndexFunc(s.metrics, func(c *mergedMetrics) bool { return c.req == req0 })
	var gen uint64 = 1
	if i >= 0 {
		c := s.metrics[i]
		if slices.Equal(c.parts, parts) {
			return c.answer
		}
		gen = c.answer.Generation + 1
		s.metrics = slices.Delete(s.metrics, i, i+1)
	}
	answer := mergeMetrics(req0, members, readings)
	answer.Generation = gen
	s.metrics = append(s.metrics, &mergedMetrics{req: req0, parts: parts, answer: answer})
	if n := len(s.metrics); n > keepMetrics {
		s.metrics = slices.Delete(s.metrics, 0, n-keepMetrics)
	}
	return answer
}

// mergeMetrics merges the members' readings (readings[i] is members[i]'s)
// as Metrics documents; Generation is left to the caller.
func mergeMetrics(req kube.MetricsRequest, members []namedSource, readings []kube.Metrics) kube.Metrics {
	out := kube.Metrics{Request: req}
	var pods, nodes int
	for i := range readings {
		pods += len(readings[i].Pods)
		nodes += len(readings[i].Nodes)
	}
	if req.Kind == kube.KindNodes || nodes > 0 {
		out.Nodes = make(map[string]kube.NodeUsage, nodes)
	}
	if req.Kind != kube.KindNodes || pods > 0 {
		out.Pods = make(map[string]kube.PodUsage, pods)
	}
	failed := 0
	var oldest time.Time
	for i, m := range members {
		r := &readings[i]
		// A member's keys are kube.UsageKey("", namespace, name):
		// the context before them makes kube.UsageKey(context, …).
		for k, v := range r.Pods {
			out.Pods[m.name+"/"+k] = v
		}
		for k, v := range r.Nodes {
			out.Nodes[m.name+"/"+k] = v
		}
		if r.Truncated != nil {
			if out.Unread == nil {
				out.Unread = make(map[string]*kube.Truncation)
			}
			out.Unread[m.name] = r.Truncated
			if failed == 0 {
				out.Truncated = r.Truncated
			}
			failed++
			continue
		}
		if !r.Taken.IsZero() && (oldest.IsZero() || r.Taken.Before(oldest)) {
			oldest = r.Taken
		}
	}
	if failed < len(members) {
		out.Truncated = nil
	}
	out.Taken = oldest
	return out
}
