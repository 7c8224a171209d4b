package kube

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/labels"
)

// metricsKey names one polled request: the kind, the namespace (always ""
// for nodes), the name and the label selector.
type metricsKey struct {
	kind                    Kind
	namespace, name, labels string
}

// metricsState is a Client's polled metrics: one poll per request, and the
// history of every pod and node some reading reported, shared by the
// requests (a pod's describe view and the pods list draw the same trend).
type metricsState struct {
	mu    sync.Mutex
	polls map[metricsKey]*metricsPoll
	pods  map[string]*history // by "namespace/name"
	nodes map[string]*history // by name
}

// metricsPoll is one request's reading and its read in flight.
type metricsPoll struct {
	started  time.Time // when the last read started: the next waits Options.MetricsInterval
	lastUsed time.Time // when a caller last asked
	answer   Metrics   // the last reading's answer
	read     bool      // a read has ended (answer is set)
	inflight chan struct{}
	waiting  int // callers waiting for the read in flight (tests)
}

// Metrics answers the CPU and memory usage of the pods or nodes req names,
// with each one's recent Trend (see the Metrics type).
//
// The metrics API is polled, not watched: the first caller of a request
// starts a read (a list of PodMetrics or NodeMetrics, or a get when req
// names one object, bounded by Options.ListTimeout), callers of the same
// request while it is in flight wait for that one read, and callers
// within Options.MetricsInterval of its start get its answer without a
// request. A caller whose ctx ends first gets the previous answer (with
// no reading yet: Truncated with ctx's reason).
//
// It never fails: a request it cannot answer says why in Truncated (see
// metricsTruncation): not_found when no metrics API is served,
// forbidden, unavailable (metrics-server registered but down), timeout,
// invalid (a malformed label selector, a pod named without its
// namespace), unknown_kind (a kind but pods and nodes). A failed read
// keeps the previous reading's Pods or Nodes, so a screen can still draw
// their trends, and says why in Truncated: the numbers are then as old as
// their Timestamp.
func (c *Client) Metrics(ctx context.Context, req MetricsRequest) Metrics {
	key, trunc := c.metricsKeyOf(req)
	if trunc != nil {
		h := fnv.New64a()
		hashString(h, string(trunc.Reason), trunc.Message)
		return Metrics{Request: req, Truncated: trunc, Taken: c.metricsNow(),
			Generation: c.nextGeneration(metricsGenerationKey(key), h.Sum64())}
	}
	now := c.metricsNow()
	st := &c.metrics
	st.mu.Lock()
	if st.polls == nil {
		st.polls, st.pods, st.nodes = map[metricsKey]*metricsPoll{}, map[string]*history{}, map[string]*history{}
	}
	p := st.polls[key]
	if p == nil {
		p = &metricsPoll{}
		st.polls[key] = p
	}
	p.lastUsed = now
	if p.read && p.inflight == nil && now.Sub(p.started) < c.metricsInterval() {
		ans := p.answer
		st.mu.Unlock()
		ans.Request = req
		return ans
	}
	if p.inflight == nil {
		p.inflight, p.started = make(chan struct{}), now
		go c.pollMetrics(key, p, p.inflight)
	}
	done := p.inflight
	p.waiting++
	st.mu.Unlock()
	c.startJanitor()

	var cancelled error
	select {
	case <-done:
	case <-ctx.Done():
		cancelled = ctx.Err()
	}
	st.mu.Lock()
	p.waiting--
	ans, read := p.answer, p.read
	st.mu.Unlock()
	if !read {
		ans = Metrics{Truncated: &Truncation{Kind: key.kind, Reason: ReasonOf(cancelled), Message: fmt.Sprint(cancelled)}, Taken: now}
	}
	ans.Request = req
	return ans
}

// metricsKeyOf normalises a request (a kind by its aliases, no namespace
// for nodes) and checks it before any request is sent.
func (c *Client) metricsKeyOf(req MetricsRequest) (metricsKey, *Truncation) {
	key := metricsKey{kind: req.Kind, namespace: req.Namespace, name: req.Name, labels: req.Labels}
	if p, ok := c.Lookup(string(req.Kind)); ok {
		key.kind = p.Info().ID
	}
	switch key.kind {
	case KindPods:
		if key.name != "" && key.namespace == "" {
			return key, &Truncation{Kind: req.Kind, Reason: ReasonInvalid,
				Message: fmt.Sprintf("pod %q: a pod is named within a namespace", key.name)}
		}
	case KindNodes:
		key.namespace = ""
	default:
		return key, &Truncation{Kind: req.Kind, Reason: ReasonUnknownKind,
			Message: fmt.Sprintf("the metrics API serves pods and nodes, not %q", req.Kind)}
	}
	if key.labels != "" {
		if _, err := labels.Parse(key.labels); err != nil {
			return key, &Truncation{Kind: req.Kind, Reason: ReasonInvalid, Message: fmt.Sprintf("label selector %q: %v", key.labels, err)}
		}
	}
	return key, nil
}

// pollMetrics reads the metrics of key once and stores the answer in p.
// It runs on its own goroutine with its own deadline, so a caller that
// gives up does not cancel the read the others wait for.
func (c *Client) pollMetrics(key metricsKey, p *metricsPoll, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), c.opts.ListTimeout)
	defer cancel()
	reading, err := c.readMetrics(ctx, key)
	now := c.metricsNow()

	st := &c.metrics
	st.mu.Lock()
	ans := p.answer
	ans.Taken = now
	ans.Truncated = nil
	if err != nil {
		ans.Truncated = metricsTruncation(key.kind, err)
		if !p.read {
			// Nothing to keep: say so with empty maps a screen can range.
			ans.Pods, ans.Nodes = c.emptyUsage(key.kind)
		}
	} else {
		ans.Pods, ans.Nodes = st.ingest(reading, now, c.metricsHistory())
	}
	// Lock order: st.mu, then the Client's (nextGeneration); nothing
	// takes st.mu under the Client's lock.
	ans.Generation = c.nextGeneration(metricsGenerationKey(key), ans.contentHash())
	p.answer, p.read, p.inflight = ans, true, nil
	st.mu.Unlock()
	close(done)
}

func (c *Client) emptyUsage(kind Kind) (map[string]PodUsage, map[string]NodeUsage) {
	if kind == KindNodes {
		return nil, map[string]NodeUsage{}
	}
	return map[string]PodUsage{}, nil
}

// ingest adds a reading's samples to the histories and returns the
// answer's maps, each object with its trend. st.mu is held.
func (st *metricsState) ingest(r metricsReading, now time.Time, limit int) (map[string]PodUsage, map[string]NodeUsage) {
	if r.nodes != nil {
		nodes := make(map[string]NodeUsage, len(r.nodes))
		for _, n := range r.nodes {
			h := st.nodes[n.Name]
			if h == nil {
				h = &history{}
				st.nodes[n.Name] = h
			}
			h.seen = now
			n.Trend = h.add(Sample{At: n.Timestamp, Usage: n.Usage}, limit)
			nodes[n.Name] = n
		}
		return nil, nodes
	}
	pods := make(map[string]PodUsage, len(r.pods))
	for _, pu := range r.pods {
		key := pu.Namespace + "/" + pu.Name
		h := st.pods[key]
		if h == nil {
			h = &history{}
			st.pods[key] = h
		}
		h.seen = now
		pu.Trend = h.add(Sample{At: pu.Timestamp, Usage: pu.Total}, limit)
		pods[key] = pu
	}
	return pods, nil
}

// contentHash hashes what a screen draws from the answer: every sample's
// time, window and usage (the pods' containers too) and the truncation.
// Objects' hashes are added up, not chained, so the order the API lists
// them in does not matter.
func (m *Metrics) contentHash() uint64 {
	var sum uint64
	var buf [8]byte
	num := func(h hash.Hash64, vs ...int64) {
		for _, v := range vs {
			binary.LittleEndian.PutUint64(buf[:], uint64(v))
			h.Write(buf[:])
		}
	}
	for key, p := range m.Pods {
		h := fnv.New64a()
		hashString(h, key)
		num(h, p.Timestamp.UnixNano(), int64(p.Window), p.Total.CPU, p.Total.Memory)
		for _, c := range p.Containers {
			hashString(h, c.Name)
			num(h, c.Usage.CPU, c.Usage.Memory)
		}
		sum += h.Sum64()
	}
	for name, n := range m.Nodes {
		h := fnv.New64a()
		hashString(h, name)
		num(h, n.Timestamp.UnixNano(), int64(n.Window), n.Usage.CPU, n.Usage.Memory)
		sum += h.Sum64()
	}
	h := fnv.New64a()
	num(h, int64(sum), int64(len(m.Pods)), int64(len(m.Nodes)))
	if t := m.Truncated; t != nil {
		hashString(h, string(t.Reason), t.Message)
	}
	return h.Sum64()
}

// metricsGenerationKey is the request's key among the Client's
// generations, apart from every Snapshot's.
func metricsGenerationKey(k metricsKey) string {
	return "metrics\x00" + string(k.kind) + "\x00" + k.namespace + "\x00" + k.name + "\x00" + k.labels
}

// pruneMetrics drops the polls no caller asked for in Options.CacheIdle,
// and the histories of the pods and nodes no reading has reported for as
// long (deleted objects, and those only a dropped poll read): the memory
// of metrics stays bounded by what the screens show now.
func (c *Client) pruneMetrics() {
	now := c.metricsNow()
	idle := c.opts.CacheIdle
	st := &c.metrics
	st.mu.Lock()
	defer st.mu.Unlock()
	for key, p := range st.polls {
		if p.inflight == nil && now.Sub(p.lastUsed) > idle {
			delete(st.polls, key)
		}
	}
	for _, m := range []map[string]*history{st.pods, st.nodes} {
		for key, h := range m {
			if now.Sub(h.seen) > idle {
				delete(m, key)
			}
		}
	}
}

// metricsNow is the clock of polling and pruning: time.Now, or a test's.
func (c *Client) metricsNow() time.Time {
	if c.metricsClock != nil {
		return c.metricsClock()
	}
	return time.Now()
}

func (c *Client) metricsInterval() time.Duration {
	if c.opts.MetricsInterval > 0 {
		return c.opts.MetricsInterval
	}
	return DefaultMetricsInterval
}

func (c *Client) metricsHistory() int {
	if c.opts.MetricsHistory > 0 {
		return c.opts.MetricsHistory
	}
	return DefaultMetricsHistory
}
