package usage

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash"
	"hash/fnv"
	"sort"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/apimachinery/pkg/labels"
)

// metricsKey names one polled request: the kind, the namespace (always ""
// for nodes), the name and the label selector.
type metricsKey struct {
	kind                    vocab.Kind
	namespace, name, labels string
}

// Poller is one owner's polled metrics (package kube's Client holds one):
// one poll per request, and the history of every pod and node some
// reading reported, shared by the requests (a pod's describe view and the
// pods list draw the same trend). The zero value is ready; what it reads
// with comes with each call (Config).
type Poller struct {
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
// Poller holds: twice the 10,000-pod scale the benchmarks draw, so such
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
// with each one's recent Trend (see the Metrics type), read with cfg (the
// contract of kube's Client.Metrics).
//
// The metrics API is polled, not watched, and only on demand: a request
// is read when some caller asks for it and its next read is due (nothing
// is read in the background, so a pod's or node's samples are taken only
// while some screen shows it: a list, a describe chart, a workload form).
// The first caller of a request starts a read (a list of PodMetrics or
// NodeMetrics, or a get when req names one object, bounded by
// cfg.ListTimeout); callers of the same request while it is in
// flight wait for that one read; callers before the next read is due get
// its answer without a request. A caller whose ctx ends first gets the
// previous answer (with no reading yet: Truncated with ctx's reason).
//
// The next read is due when the server is expected to have a new sample:
// reads are aligned to the samples' timestamps (metricsschedule.go), so
// that a request asked for continuously reads each new sample once, soon
// after metrics-server publishes it, with a few extra reads while the
// alignment is learnt or when a sample comes late. Reads of one request
// are at least 2s apart (unless cfg.Interval is shorter), and at most
// cfg.Interval (plus half a second) apart while callers ask; an Interval
// that is a multiple of the server's resolution (30s against 15s) reads
// every second (third, ...) sample only. A failed read, or one with no
// sample, is read again cfg.Interval after it started.
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
func (st *Poller) Metrics(ctx context.Context, cfg Config, req MetricsRequest) Metrics {
	key, trunc := keyOf(&cfg, req)
	if trunc != nil {
		h := fnv.New64a()
		vocab.HashStrings(h, string(trunc.Reason), trunc.Message)
		return Metrics{Request: req, Truncated: trunc, Taken: cfg.now(),
			Generation: cfg.Generation(metricsGenerationKey(key), h.Sum64())}
	}
	now := cfg.now()
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
		go st.poll(cfg, key, p, now, p.inflight)
	}
	done := p.inflight
	p.waiting++
	st.mu.Unlock()
	if cfg.Waiting != nil {
		cfg.Waiting()
	}

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
		ans = Metrics{Truncated: &vocab.Truncation{Kind: key.kind, Reason: vocab.ReasonOf(cancelled), Message: fmt.Sprint(cancelled)}, Taken: now}
	}
	ans.Request = req
	return ans
}

// keyOf normalises a request (a kind by its aliases, cfg.KindInfo's ID;
// no namespace for nodes) and checks it before any request is sent.
func keyOf(cfg *Config, req MetricsRequest) (metricsKey, *vocab.Truncation) {
	key := metricsKey{kind: req.Kind, namespace: req.Namespace, name: req.Name, labels: req.Labels}
	if cfg.KindInfo != nil {
		if id := cfg.KindInfo(req.Kind).ID; id != "" {
			key.kind = id
		}
	}
	switch key.kind {
	case vocab.KindPods:
		if key.name != "" && key.namespace == "" {
			return key, &vocab.Truncation{Kind: req.Kind, Reason: vocab.ReasonInvalid,
				Message: fmt.Sprintf("pod %q: a pod is named within a namespace", key.name)}
		}
	case vocab.KindNodes:
		key.namespace = ""
	default:
		return key, &vocab.Truncation{Kind: req.Kind, Reason: vocab.ReasonUnknownKind,
			Message: fmt.Sprintf("the metrics API serves pods and nodes, not %q", req.Kind)}
	}
	if key.labels != "" {
		if _, err := labels.Parse(key.labels); err != nil {
			return key, &vocab.Truncation{Kind: req.Kind, Reason: vocab.ReasonInvalid, Message: fmt.Sprintf("label selector %q: %v", key.labels, err)}
		}
	}
	return key, nil
}

// poll reads the metrics of key once and stores the answer in p. It runs
// on its own goroutine with its own deadline (cfg.ListTimeout), so a
// caller that gives up does not cancel the read the others wait for.
func (st *Poller) poll(cfg Config, key metricsKey, p *metricsPoll, start time.Time, done chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), cfg.ListTimeout)
	defer cancel()
	reading, err := readMetrics(ctx, cfg.Client, key)
	now := cfg.now()

	st.mu.Lock()
	ans := p.answer
	ans.Taken = now
	ans.Truncated = nil
	if err != nil {
		ans.Truncated = metricsTruncation(key.kind, err)
		if !p.read {
			// Nothing to keep: say so with empty maps a screen can range.
			ans.Pods, ans.Nodes = emptyUsage(key.kind)
		}
	} else {
		ans.Pods, ans.Nodes = st.ingest(reading, now, cfg.History, st.maxHeld())
	}
	p.sched.interval = cfg.Interval
	p.sched.observe(start, now, reading.newest(), err == nil)
	p.finished = now
	// Lock order: st.mu, then the owner's (cfg.Generation); nothing
	// takes st.mu under the owner's lock.
	ans.Generation = cfg.Generation(metricsGenerationKey(key), ans.contentHash())
	p.answer, p.read, p.inflight = ans, true, nil
	st.mu.Unlock()
	close(done)
}

// emptyUsage is the empty maps of an answer of kind with no reading.
func emptyUsage(kind vocab.Kind) (map[string]PodUsage, map[string]NodeUsage) {
	if kind == vocab.KindNodes {
		return nil, map[string]NodeUsage{}
	}
	return map[string]PodUsage{}, nil
}

// ingest adds a reading's samples to the histories and returns the
// answer's maps, each object with its trend. st.mu is held. An object
// past maxObjects held histories, when none can be evicted (see
// historyFor), gets a trend of its one sample, not kept.
func (st *Poller) ingest(r metricsReading, now time.Time, limit, maxObjects int) (map[string]PodUsage, map[string]NodeUsage) {
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
func (st *Poller) historyFor(m map[string]*history, key string, now time.Time, maxObjects int) *history {
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
func (st *Poller) evict(now time.Time, keep int) {
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
		vocab.HashStrings(h, key)
		num(h, p.Timestamp.UnixNano(), int64(p.Window), p.Total.CPU, p.Total.Memory)
		for _, c := range p.Containers {
			vocab.HashStrings(h, c.Name)
			num(h, c.Usage.CPU, c.Usage.Memory)
		}
		sum += h.Sum64()
	}
	for name, n := range m.Nodes {
		h := fnv.New64a()
		vocab.HashStrings(h, name)
		num(h, n.Timestamp.UnixNano(), int64(n.Window), n.Usage.CPU, n.Usage.Memory)
		sum += h.Sum64()
	}
	h := fnv.New64a()
	num(h, int64(sum), int64(len(m.Pods)), int64(len(m.Nodes)))
	if t := m.Truncated; t != nil {
		vocab.HashStrings(h, string(t.Reason), t.Message)
	}
	return h.Sum64()
}

// metricsGenerationKey is the request's key among the owner's
// generations (cfg.Generation), apart from every kube Snapshot's.
func metricsGenerationKey(k metricsKey) string {
	return "metrics\x00" + string(k.kind) + "\x00" + k.namespace + "\x00" + k.name + "\x00" + k.labels
}

// Prune drops the polls no caller asked for in cfg.CacheIdle, and the
// histories of the pods and nodes no reading has reported for the
// retention (deleted objects, and those no screen shows any more): an
// object's trend outlives its screen by that long, so a person who comes
// back to the pods within 15 minutes (by default) finds their trends,
// with a gap for the time no screen read them. kube's janitor calls it.
func (st *Poller) Prune(cfg Config) {
	now := cfg.now()
	idle, keep := cfg.CacheIdle, retention(&cfg)
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

// retention is how long a pod's or node's history is kept after a
// reading last reported it: as long as a full trend spans
// (cfg.History × cfg.Interval, 15 minutes by default), at least
// cfg.CacheIdle.
func retention(cfg *Config) time.Duration {
	return max(time.Duration(cfg.History)*cfg.Interval, cfg.CacheIdle)
}

// maxHeld is how many pods' and nodes' histories st holds at most. st.mu
// is held.
func (st *Poller) maxHeld() int {
	if st.maxObjects > 0 {
		return st.maxObjects
	}
	return defaultMetricsMaxObjects
}

// SetMaxObjects bounds how many pods' and nodes' histories st holds (n >
// 0; 0 restores the default of 20,000). For tests: a full cap is met
// without 20,000 objects.
func (st *Poller) SetMaxObjects(n int) {
	st.mu.Lock()
	st.maxObjects = n
	st.mu.Unlock()
}

// Held counts what st keeps: polled requests, and pods and nodes with a
// history.
func (st *Poller) Held() (polls, pods, nodes int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	return len(st.polls), len(st.pods), len(st.nodes)
}

// Waiting is how many callers of req (normalised with cfg, as Metrics
// does) wait for its read in flight: 0 when none is.
func (st *Poller) Waiting(cfg Config, req MetricsRequest) int {
	key, _ := keyOf(&cfg, req)
	st.mu.Lock()
	defer st.mu.Unlock()
	if p := st.polls[key]; p != nil {
		return p.waiting
	}
	return 0
}
