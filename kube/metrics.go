package kube

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"sort"
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
	// maxObjects, when positive (tests), replaces
	// defaultMetricsMaxObjects; full is the time of the reading that
	// found no history to drop (historyFor).
	maxObjects int
	full       time.Time
}

// defaultMetricsMaxObjects bounds how many pods' and nodes' histories a
// Client holds: twice the 10,000-pod scale the benchmarks draw, so such
// a cluster's pods, nodes and a few thousand replaced pods fit. A full
// history of 60 samples takes about 4.2 kB (its buffer holds up to 90
// samples of 40 bytes, then its map entry and key):
// BenchmarkMetricsHistoryMemory measures 42 MB for 10,000 pods, so the
// cap bounds the histories to about 85 MB.
const defaultMetricsMaxObjects = 20000

// metricsPoll is one request's reading and its read in flight.
type metricsPoll struct {
	started  time.Time       // when the last read started
	finished time.Time       // when the last read ended (Fresh's second)
	sched    metricsSchedule // when the next read is due (sched.due)
	lastUsed time.Time       // when a caller last asked
	answer   Metrics         // the last reading's answer
	read     bool            // a read has ended (answer is set)
	inflight chan struct{}
	waiting  int // callers waiting for the read in flight (tests)
}

// metricsFreshAge is how recent a reading a Fresh request takes instead
// of a new one.
const metricsFreshAge = time.Second

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
// reads are aligned to the samples' timestamps (metricsschedule.go), so
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
	fresh := req.Fresh && (!p.read || now.Sub(p.finished) >= metricsFreshAge)
	if p.read && p.inflight == nil && now.Before(p.sched.due) && !fresh {
		ans := p.answer
		st.mu.Unlock()
		ans.Request = req
		return ans
	}
	if p.inflight == nil {
		p.inflight, p.started = make(chan struct{}), now
		go c.pollMetrics(key, p, now, p.inflight)
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
func (c *Client) pollMetrics(key metricsKey, p *metricsPoll, start time.Time, done chan struct{}) {
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
		ans.Pods, ans.Nodes = st.ingest(reading, now, c.metricsHistory(), c.metricsMaxObjects())
	}
	p.sched.interval = c.metricsInterval()
	p.sched.observe(start, now, reading.newest(), err == nil)
	p.finished = now
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
// answer's maps, each object with its trend. st.mu is held. An object
// past maxObjects held histories, when none can be evicted (see
// historyFor), gets a trend of its one sample, not kept.
func (st *metricsState) ingest(r metricsReading, now time.Time, limit, maxObjects int) (map[string]PodUsage, map[string]NodeUsage) {
	trend := func(m map[string]*history, key string, s Sample) []Sample {
		h := st.historyFor(m, key, now, maxObjects)
		if h == nil {
			return []Sample{s}
		}
		h.seen = now
		return h.add(s, limit)
	}
	if r.nodes != nil {
		nodes := make(map[string]NodeUsage, len(r.nodes))
		for _, n := range r.nodes {
			n.Trend = trend(st.nodes, n.Name, Sample{At: n.Timestamp, Usage: n.Usage})
			nodes[n.Name] = n
		}
		return nil, nodes
	}
	pods := make(map[string]PodUsage, len(r.pods))
	for _, pu := range r.pods {
		key := pu.Namespace + "/" + pu.Name
		pu.Trend = trend(st.pods, key, Sample{At: pu.Timestamp, Usage: pu.Total})
		pods[key] = pu
	}
	return pods, nil
}

// historyFor is the history of key in m (st.pods or st.nodes), made when
// missing. When maxObjects histories are held already, the ones no
// reading reported for the longest are dropped first (down to 90% of
// maxObjects, so that the sort is rare), never one this reading (at now)
// reported; nil when none is left to drop. st.mu is held.
func (st *metricsState) historyFor(m map[string]*history, key string, now time.Time, maxObjects int) *history {
	if h := m[key]; h != nil {
		return h
	}
	if len(st.pods)+len(st.nodes) >= maxObjects {
		if st.full.Equal(now) {
			return nil // this reading found nothing to drop already
		}
		st.evict(now, maxObjects*9/10)
		if len(st.pods)+len(st.nodes) >= maxObjects {
			st.full = now
			return nil
		}
	}
	h := &history{}
	m[key] = h
	return h
}

// evict drops the histories reported longest ago (but not at now) until
// at most keep are held. st.mu is held.
func (st *metricsState) evict(now time.Time, keep int) {
	type held struct {
		m    map[string]*history
		key  string
		seen time.Time
	}
	var old []held
	for _, m := range []map[string]*history{st.pods, st.nodes} {
		for key, h := range m {
			if h.seen.Before(now) {
				old = append(old, held{m, key, h.seen})
			}
		}
	}
	sort.Slice(old, func(i, j int) bool { return old[i].seen.Before(old[j].seen) })
	for _, o := range old {
		if len(st.pods)+len(st.nodes) <= keep {
			return
		}
		delete(o.m, o.key)
	}
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
// and the histories of the pods and nodes no reading has reported for
// metricsRetention (deleted objects, and those no screen shows any more):
// an object's trend outlives its screen by that long, so a person who
// comes back to the pods within 15 minutes (by default) finds their
// trends, with a gap for the time no screen read them.
func (c *Client) pruneMetrics() {
	now := c.metricsNow()
	idle, keep := c.opts.CacheIdle, c.metricsRetention()
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
			if now.Sub(h.seen) > keep {
				delete(m, key)
			}
		}
	}
}

// metricsRetention is how long a pod's or node's history is kept after a
// reading last reported it: as long as a full trend spans
// (MetricsHistory × MetricsInterval, 15 minutes by default), at least
// Options.CacheIdle.
func (c *Client) metricsRetention() time.Duration {
	return max(time.Duration(c.metricsHistory())*c.metricsInterval(), c.opts.CacheIdle)
}

// metricsNow is the clock of polling and pruning: time.Now, or a test's.
func (c *Client) metricsNow() time.Time {
	if c.metricsClock != nil {
		return c.metricsClock()
	}
	return time.Now()
}

func (c *Client) metricsInterval() time.Duration { return c.MetricsInterval() }

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

func (c *Client) metricsMaxObjects() int {
	if c.metrics.maxObjects > 0 {
		return c.metrics.maxObjects
	}
	return defaultMetricsMaxObjects
}

func (c *Client) metricsHistory() int {
	if c.opts.MetricsHistory > 0 {
		return c.opts.MetricsHistory
	}
	return DefaultMetricsHistory
}
