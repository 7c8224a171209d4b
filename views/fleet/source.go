// Package fleet is a views.FleetSource over several kubeconfig contexts:
// one Source whose Snapshot merges the rows of every context of a fleet,
// each Row carrying its Context, while each context is connected and read
// in goroutines of its own, so that one slow, unreachable or forbidden
// context never holds back or blanks the others (its state is in the
// parts FleetSnapshot returns). Reads of one object (Describe, YAML,
// DrillDown) are a member's: a screen asks Member for the row's context.
//
// The files: source.go (the Source, its members' connections and the
// Source methods that are not Snapshot), snapshot.go (the reads of each
// request and the state of each member), merge.go (one merged Table per
// kind).
package fleet

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Connector connects to a kubeconfig context; views.Kubeconfig is one.
// Connect may block (the real one runs API discovery, up to ~15 s): the
// Source calls it in a goroutine of its own, one call at a time per
// context, and gives up waiting after the connect timeout
// (DefaultConnectTimeout).
type Connector interface {
	// Connect returns a client of the named context. Errors: the context
	// cannot be used (kube.ReasonOf classifies them; an unclassified
	// error is shown with kube.ReasonError).
	Connect(context string) (views.Source, error)
}

// Defaults of the options.
const (
	// DefaultGatherWindow is how long FleetSnapshot waits for the members'
	// reads before it merges what has answered (WithGatherWindow).
	DefaultGatherWindow = 150 * time.Millisecond
	// DefaultStaleAfter is how long a member that answered before may
	// take over its next read before it is ClusterStale (WithStaleAfter).
	DefaultStaleAfter = 5 * time.Second
	// DefaultRetryAfter is the shortest time between a failed Connect and
	// the next attempt, made by the next Snapshot (WithRetryAfter).
	DefaultRetryAfter = 5 * time.Second
	// DefaultConnectTimeout bounds a Connect: past it the member is
	// ClusterFailed with kube.ReasonTimeout (WithConnectTimeout); the
	// clusters overview's bound.
	DefaultConnectTimeout = 30 * time.Second
	// DefaultReadTimeout bounds one member's Snapshot: its context's
	// deadline, and past it a read that ignores its context counts as
	// timed out (WithReadTimeout).
	DefaultReadTimeout = 30 * time.Second
	// DefaultKeepRequests is how many requests (kinds, namespace,
	// selector) the Source remembers the answers of (WithKeepRequests);
	// the oldest is dropped first.
	DefaultKeepRequests = 2
)

// Option changes a new Source.
type Option func(*Source)

// WithGatherWindow sets how long FleetSnapshot waits for the members'
// reads (DefaultGatherWindow); d <= 0 keeps the default.
func WithGatherWindow(d time.Duration) Option {
	return func(s *Source) { setPositive(&s.gatherWindow, d) }
}

// WithStaleAfter sets how long a read may be under way before a member
// that answered before is ClusterStale (DefaultStaleAfter); d <= 0 keeps
// the default.
func WithStaleAfter(d time.Duration) Option {
	return func(s *Source) { setPositive(&s.staleAfter, d) }
}

// WithRetryAfter sets the shortest time between a failed Connect and the
// next (DefaultRetryAfter); d <= 0 keeps the default.
func WithRetryAfter(d time.Duration) Option {
	return func(s *Source) { setPositive(&s.retryAfter, d) }
}

// WithConnectTimeout sets the bound of a Connect (DefaultConnectTimeout);
// d <= 0 keeps the default.
func WithConnectTimeout(d time.Duration) Option {
	return func(s *Source) { setPositive(&s.connectTimeout, d) }
}

// WithReadTimeout sets the bound of one member's read
// (DefaultReadTimeout); d <= 0 keeps the default.
func WithReadTimeout(d time.Duration) Option {
	return func(s *Source) { setPositive(&s.readTimeout, d) }
}

// WithKeepRequests sets how many requests' answers are remembered
// (DefaultKeepRequests); n < 1 keeps the default.
func WithKeepRequests(n int) Option {
	return func(s *Source) {
		if n >= 1 {
			s.keep = n
		}
	}
}

// WithHomeNamespace sets the home member's own namespace, which a request
// for views.OwnNamespaces reads there: its context's own (its
// kubeconfig's), when homeSource's namespace was chosen otherwise
// (kubectl's -n on the command line). "" keeps homeSource.Namespace().
func WithHomeNamespace(ns string) Option {
	return func(s *Source) { s.homeNS = ns }
}

// WithClock makes the Source read the time from now (tests): the parts'
// Since, the stale, retry and timeout rules. now must be safe for
// concurrent use. The gather window and the reads' context deadlines
// stay on the real clock.
func WithClock(now func() time.Time) Option {
	return func(s *Source) {
		if now != nil {
			s.now = now
		}
	}
}

func setPositive(dst *time.Duration, d time.Duration) {
	if d > 0 {
		*dst = d
	}
}

// ErrNeedsContext is wrapped (with kube.ErrInvalid, so kube.ReasonOf says
// kube.ReasonInvalid) by the reads of one object a Source is asked for:
// an object is read in its own context, which the screen chooses with
// Member.
var ErrNeedsContext = errors.New("the object's context must be chosen first: a fleet reads one object through the member of its row's context")

// errClosed is every member's failure once the Source is closed.
var errClosed = errors.New("closed: the fleet's connections were closed")

// member is one context of the fleet.
type member struct {
	name string
	// src is the member's client, nil until connected.
	src views.Source
	// own is set when this Source connected src (Close closes it).
	own bool
	// connecting is set while a Connect is under way (since connStart).
	connecting bool
	connStart  time.Time
	// connErr is the last Connect's error (at connFailed), nil after a
	// success.
	connErr    error
	connFailed time.Time
}

// Source is a views.FleetSource over several kubeconfig contexts. Make it
// with New; it is safe for concurrent use. Close it when done.
type Source struct {
	conn         Connector
	home         views.Source
	homeIsMember bool
	homeNS       string // WithHomeNamespace

	gatherWindow   time.Duration
	staleAfter     time.Duration
	retryAfter     time.Duration
	connectTimeout time.Duration
	readTimeout    time.Duration
	keep           int
	now            func() time.Time

	// base is the parent of every read's context; Close cancels it.
	base   context.Context
	cancel context.CancelFunc

	mu      sync.Mutex
	members []*member
	// reqs are the requests remembered, the most recent last.
	reqs []*request
	// gen is the last Generation given to a merged Snapshot.
	gen uint64
	// changed is closed (and replaced) whenever a connect or a read ends.
	changed chan struct{}
	closed  bool

	// metMu guards metrics, the merged readings remembered (metrics.go).
	metMu   sync.Mutex
	metrics []*mergedMetrics
}

var _ views.FleetSource = (*Source)(nil)

// New returns the Source of the fleet contexts (its members, in that
// order; a name given twice counts once), connected through conn. home is
// the context kyyard runs in and homeSource its client, already
// connected: when home is a member, that member is homeSource (never
// connected again, never closed by Close); homeSource also answers Kind,
// Names, Namespace and Facts, at once and while the members connect. Every
// other member is connected in a goroutine of its own, started here. conn
// may be nil when every member is home (the others then fail);
// homeSource may be nil (home, if a member, is then connected like the
// others; Kind and Names know only the members' kinds, Namespace is ""
// and Facts empty).
func New(conn Connector, contexts []string, home string, homeSource views.Source, opts ...Option) *Source {
	s := &Source{
		conn: conn, home: homeSource,
		gatherWindow: DefaultGatherWindow, staleAfter: DefaultStaleAfter, retryAfter: DefaultRetryAfter,
		connectTimeout: DefaultConnectTimeout, readTimeout: DefaultReadTimeout, keep: DefaultKeepRequests,
		now:     time.Now,
		changed: make(chan struct{}),
	}
	for _, o := range opts {
		o(s)
	}
	s.base, s.cancel = context.WithCancel(context.Background())
	seen := make(map[string]bool, len(contexts))
	for _, name := range contexts {
		if seen[name] {
			continue
		}
		seen[name] = true
		m := &member{name: name}
		if name == home && homeSource != nil {
			m.src, s.homeIsMember = homeSource, true
		}
		s.members = append(s.members, m)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.members {
		if m.src == nil {
			s.connect(m)
		}
	}
	return s
}

// connect starts m's Connect in a goroutine; s.mu is held. Without a
// Connector the member fails at once.
func (s *Source) connect(m *member) {
	now := s.now()
	if s.conn == nil {
		m.connErr, m.connFailed = fmt.Errorf("no connector to reach context %s", m.name), now
		return
	}
	m.connecting, m.connStart = true, now
	conn, name := s.conn, m.name
	go func() {
		src, err := conn.Connect(name)
		if err == nil && src == nil {
			err = fmt.Errorf("connecting to context %s returned no client", name)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		m.connecting = false
		defer s.notify()
		if s.closed {
			if err == nil {
				go views.CloseSource(src) // a connection that came after Close
			}
			return
		}
		if err != nil {
			m.connErr, m.connFailed = err, s.now()
			return
		}
		m.src, m.own, m.connErr = src, true, nil
		// The most recent request's rows are read at once, ready for
		// the next Snapshot.
		if n := len(s.reqs); n > 0 {
			rq := s.reqs[n-1]
			if i := s.index(m); i >= 0 && !rq.slots[i].inflight {
				s.read(rq, i)
			}
		}
	}()
}

// retry starts the Connect of every member whose last one failed at
// least retryAfter ago; s.mu is held.
func (s *Source) retry(now time.Time) {
	if s.conn == nil {
		return
	}
	for _, m := range s.members {
		if m.src == nil && !m.connecting && m.connErr != nil && now.Sub(m.connFailed) >= s.retryAfter {
			s.connect(m)
		}
	}
}

// notify wakes every FleetSnapshot waiting for an answer; s.mu is held.
func (s *Source) notify() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// index returns m's position in the fleet, -1 when it is none.
func (s *Source) index(m *member) int {
	return slices.Index(s.members, m)
}

// connected returns the members' clients, in fleet order, that are
// connected (none once closed).
func (s *Source) connected() []views.Source {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	out := make([]views.Source, 0, len(s.members))
	for _, m := range s.members {
		if m.src != nil {
			out = append(out, m.src)
		}
	}
	return out
}

// Member returns the client of one context of the fleet; false when the
// context is not a member, is not connected (yet), or the Source is
// closed.
func (s *Source) Member(context string) (views.Source, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, false
	}
	for _, m := range s.members {
		if m.name == context && m.src != nil {
			return m.src, true
		}
	}
	return nil, false
}

// Contexts names the fleet's contexts, in order (a new slice).
func (s *Source) Contexts() []string {
	out := make([]string, len(s.members))
	for i, m := range s.members {
		out[i] = m.name
	}
	return out
}

// Kind describes the kind a name (id or alias) stands for: the first
// connected member's, in fleet order, that knows it, else homeSource's.
func (s *Source) Kind(name string) (kube.KindInfo, bool) {
	for _, src := range s.connected() {
		if info, ok := src.Kind(name); ok {
			return info, true
		}
	}
	if s.home != nil {
		return s.home.Kind(name)
	}
	return kube.KindInfo{}, false
}

// Names returns every kind id and alias any connected member or
// homeSource knows, sorted, each once.
func (s *Source) Names() []string {
	var out []string
	for _, src := range s.connected() {
		out = append(out, src.Names()...)
	}
	if s.home != nil {
		out = append(out, s.home.Names()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// Rediscover reads the API server's kinds again in every connected member
// (and homeSource when it is not one), in parallel, and reports whether
// any changed.
func (s *Source) Rediscover(ctx context.Context) bool {
	srcs := s.connected()
	if s.home != nil && !s.homeIsMember {
		srcs = append(srcs, s.home)
	}
	var changed atomic.Bool
	var wg sync.WaitGroup
	for _, src := range srcs {
		wg.Go(func() {
			if src.Rediscover(ctx) {
				changed.Store(true)
			}
		})
	}
	wg.Wait()
	return changed.Load()
}

// Namespace returns homeSource's namespace ("" without one).
func (s *Source) Namespace() string {
	if s.home == nil {
		return ""
	}
	return s.home.Namespace()
}

// Facts returns homeSource's facts (empty without one).
func (s *Source) Facts(ctx context.Context) kube.Facts {
	if s.home == nil {
		return kube.Facts{}
	}
	return s.home.Facts(ctx)
}

// ownNamespace is member src's own namespace, which views.OwnNamespaces
// reads there: WithHomeNamespace's for the home member, else its
// Namespace().
func (s *Source) ownNamespace(src views.Source) string {
	if s.homeNS != "" && s.homeIsMember && src == s.home {
		return s.homeNS
	}
	return src.Namespace()
}

// needsContext is the error of a read of one object.
func needsContext(kind kube.Kind, namespace, name string) error {
	obj := string(kind) + "/" + name
	if namespace != "" {
		obj = string(kind) + " " + namespace + "/" + name
	}
	return fmt.Errorf("%w: %w (%s)", kube.ErrInvalid, ErrNeedsContext, obj)
}

// DrillDown returns an error wrapping kube.ErrInvalid and ErrNeedsContext
// (kube.ReasonOf: kube.ReasonInvalid): an object is opened in its row's
// context, through Member.
func (s *Source) DrillDown(_ context.Context, kind kube.Kind, namespace, name string) (kube.SnapshotRequest, error) {
	return kube.SnapshotRequest{}, needsContext(kind, namespace, name)
}

// Describe returns an error wrapping kube.ErrInvalid and ErrNeedsContext
// (kube.ReasonOf: kube.ReasonInvalid): an object is described in its row's
// context, through Member.
func (s *Source) Describe(_ context.Context, kind kube.Kind, namespace, name string) (string, error) {
	return "", needsContext(kind, namespace, name)
}

// YAML returns an error wrapping kube.ErrInvalid and ErrNeedsContext
// (kube.ReasonOf: kube.ReasonInvalid): an object is read in its row's
// context, through Member.
func (s *Source) YAML(_ context.Context, kind kube.Kind, namespace, name string, _ kube.YAMLOptions) (string, error) {
	return "", needsContext(kind, namespace, name)
}

// Close closes every member client this Source connected (those with a
// Close method; never homeSource), and one whose Connect answers later;
// it cancels the reads under way. Later Snapshots answer every member
// ClusterFailed ("closed: ..."), Member answers false. Safe to call more
// than once.
func (s *Source) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	s.cancel()
	var own []views.Source
	for _, m := range s.members {
		if m.own && m.src != nil {
			own = append(own, m.src)
		}
	}
	s.reqs = nil
	s.notify()
	s.mu.Unlock()
	for _, src := range own {
		views.CloseSource(src)
	}
}
