package usage

import (
	"time"

	"github.com/kyyard/kyyard/kube/vocab"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"
)

// Config is what a Poller reads with and how, handed in by its owner on
// every call (package kube's Client builds it from its Options): a read
// keeps the Config of the call that started it.
type Config struct {
	// Client is the metrics.k8s.io clientset; nil answers every read
	// with a Truncation of vocab.ReasonNotFound (a kube Client built
	// from a clientset handed no metrics clientset).
	Client metricsclient.Interface
	// Now is the clock of polling and pruning; nil means time.Now.
	Now func() time.Time
	// Interval is the longest time between two reads of one request
	// asked for (kube's Options.MetricsInterval, defaulted); > 0.
	Interval time.Duration
	// History is how many samples a Trend keeps (kube's
	// Options.MetricsHistory, defaulted); >= 1.
	History int
	// ListTimeout bounds one read of the metrics API (kube's
	// Options.ListTimeout).
	ListTimeout time.Duration
	// CacheIdle is how long a request no caller asked for is kept, and
	// the least a history is kept after a reading last reported its
	// object (kube's Options.CacheIdle).
	CacheIdle time.Duration
	// KindInfo answers what a plugin id or alias names: a request's kind
	// is its ID (a KindInfo with ID the kind itself, or no ID, for a kind
	// it does not know). nil takes every kind as given.
	KindInfo func(vocab.Kind) vocab.KindInfo
	// Generation returns the generation of the content hash of the
	// request key names: unchanged when hash is key's last, else the
	// next number of the owner's one sequence (shared with its other
	// answers). Required. It is called with the Poller's lock held and
	// must not call the Poller.
	Generation func(key string, hash uint64) uint64
	// Waiting, when set, is called before a caller waits for a read
	// (kube starts its janitor there, which calls Prune).
	Waiting func()
}

// now is the clock of polling and pruning: cfg.Now, or time.Now.
func (cfg *Config) now() time.Time {
	if cfg.Now != nil {
		return cfg.Now()
	}
	return time.Now()
}
