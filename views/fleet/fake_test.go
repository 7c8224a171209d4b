package fleet_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// fakeMember is one context's client: it answers every kind asked for
// with its rows (those of the namespace asked for, all for ""), or with
// its truncation; a namespace's gate, when set, holds its reads until
// closed (or, with honorCtx, until their context is done).
type fakeMember struct {
	views.Source // the methods a test does not use panic

	mu       sync.Mutex
	cols     []kube.Column
	rows     []kube.Row
	gen      uint64
	reading  bool
	cached   bool
	trunc    *kube.Truncation
	unread   []kube.NamespaceUnread // every table's Table.Unread
	gates    map[string]chan struct{}
	honorCtx bool
	kinds    map[string]kube.KindInfo
	ns       string // its context's namespace ("home-ns" when empty)

	calls    atomic.Int32 // Snapshot calls begun
	inflight atomic.Int32 // Snapshot calls not returned
	closes   atomic.Int32
	entered  chan struct{} // one value each time a read waits at a gate
	returned chan struct{} // one value each time a read held at a gate returns
	cancels  atomic.Int32  // reads that returned because their context was done
	rediscov atomic.Bool
}

func newFake(rows ...kube.Row) *fakeMember {
	return &fakeMember{
		cols:     []kube.Column{{Name: "NAME"}, {Name: "STATUS"}},
		rows:     rows,
		gen:      1,
		cached:   true,
		gates:    map[string]chan struct{}{},
		kinds:    map[string]kube.KindInfo{"pods": podsInfo, "po": podsInfo},
		entered:  make(chan struct{}, 16),
		returned: make(chan struct{}, 16),
	}
}

var podsInfo = kube.KindInfo{ID: "pods", Namespaced: true, Columns: []kube.Column{{Name: "NAME"}, {Name: "STATUS"}}}

// block holds the reads of namespace ns until the returned func runs
// (run at the test's end too).
func (f *fakeMember) block(t *testing.T, ns string) (release func()) {
	gate := make(chan struct{})
	f.mu.Lock()
	f.gates[ns] = gate
	f.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			f.mu.Lock()
			if f.gates[ns] == gate {
				delete(f.gates, ns)
			}
			f.mu.Unlock()
			close(gate)
		})
	}
	t.Cleanup(release)
	return release
}

// set changes the fake under its lock and moves its generation on.
func (f *fakeMember) set(change func(f *fakeMember)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	change(f)
	f.gen++
}

func (f *fakeMember) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	f.calls.Add(1)
	f.inflight.Add(1)
	defer f.inflight.Add(-1)
	f.mu.Lock()
	gate := f.gates[req.Namespace]
	honor := f.honorCtx
	f.mu.Unlock()
	if gate != nil {
		f.entered <- struct{}{}
		if honor {
			select {
			case <-gate:
			case <-ctx.Done():
				f.cancels.Add(1)
			}
		} else {
			<-gate
		}
		defer func() { f.returned <- struct{}{} }()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	snap := kube.Snapshot{Namespace: req.Namespace, Generation: f.gen, Taken: time.Unix(int64(f.gen), 0)}
	for _, k := range req.Kinds {
		if f.trunc != nil {
			tr := *f.trunc
			tr.Kind = k
			snap.Truncated = append(snap.Truncated, tr)
			continue
		}
		id := k
		if info, ok := f.kinds[string(k)]; ok {
			id = info.ID
		}
		t := kube.Table{Kind: id, Columns: f.cols, Cached: f.cached, Reading: f.reading, Unread: f.unread}
		t.Rows = f.rows // shared, as a Client's cache shares them
		if req.Namespace != "" {
			t.Rows = nil
			for _, r := range f.rows {
				if r.Namespace == req.Namespace {
					t.Rows = append(t.Rows, r)
				}
			}
		}
		snap.Tables = append(snap.Tables, t)
	}
	return snap
}

func (f *fakeMember) Kind(name string) (kube.KindInfo, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	info, ok := f.kinds[name]
	return info, ok
}

func (f *fakeMember) Names() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for n := range f.kinds {
		out = append(out, n)
	}
	return out
}

func (f *fakeMember) Rediscover(context.Context) bool { return f.rediscov.Load() }
func (f *fakeMember) Namespace() string {
	if f.ns != "" {
		return f.ns
	}
	return "home-ns"
}
func (f *fakeMember) Facts(context.Context) kube.Facts {
	return kube.Facts{ServerVersion: "v1.99.0"}
}
func (f *fakeMember) Close() { f.closes.Add(1) }

// fakeConn connects to its fakes; a context's error fails its Connects
// while set, a context's gate holds them until closed.
type fakeConn struct {
	mu      sync.Mutex
	members map[string]*fakeMember
	fail    map[string]error
	gates   map[string]chan struct{}
	calls   map[string]int
}

func newConn(members map[string]*fakeMember) *fakeConn {
	return &fakeConn{members: members, fail: map[string]error{}, gates: map[string]chan struct{}{}, calls: map[string]int{}}
}

func (c *fakeConn) Connect(name string) (views.Source, error) {
	c.mu.Lock()
	c.calls[name]++
	gate := c.gates[name]
	c.mu.Unlock()
	if gate != nil {
		<-gate
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.fail[name]; err != nil {
		return nil, err
	}
	m, ok := c.members[name]
	if !ok {
		return nil, fmt.Errorf("context %q does not exist", name)
	}
	return m, nil
}

func (c *fakeConn) count(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.calls[name]
}

func (c *fakeConn) setFail(name string, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail[name] = err
}

// block holds the Connects of name until the returned func runs (run at
// the test's end too).
func (c *fakeConn) block(t *testing.T, name string) (release func()) {
	gate := make(chan struct{})
	c.mu.Lock()
	c.gates[name] = gate
	c.mu.Unlock()
	var once sync.Once
	release = func() {
		once.Do(func() {
			c.mu.Lock()
			delete(c.gates, name)
			c.mu.Unlock()
			close(gate)
		})
	}
	t.Cleanup(release)
	return release
}

// clock is a settable clock, safe for concurrent use.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func row(ns, name string, cells ...string) kube.Row {
	r := kube.Row{Namespace: ns, Name: name}
	for _, c := range cells {
		r.Cells = append(r.Cells, kube.Text(c))
	}
	return r
}

// recv waits for one value of ch; a bound of a minute only turns a hang
// into a failure (it asserts no timing).
func recv(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(time.Minute):
		t.Fatalf("%s never happened", what)
	}
}

// until calls f until it reports true; a bound of a minute only turns a
// hang into a failure.
func until(t *testing.T, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("%s never happened", what)
		}
		time.Sleep(time.Millisecond)
	}
}
