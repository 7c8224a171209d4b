package kube

// What a Client's caches (cache.go) give back, and when: the janitor that
// stops the informers no Snapshot needed for Options.CacheIdle, and the
// memory policy that returns free memory to the operating system after a big
// first list (releaseWhenSynced) or a burst of row changes (changeBurst).

import (
	"runtime/debug"
	"time"
)

// releaseWhenSynced returns a big first list's memory to the operating
// system once the informer has taken the list in (its rows may be
// complete before: put), rather than as the runtime's scavenger slowly
// would: at 100,000 pods the heap peaks at three times what the rows
// hold. One collection, unless the cache stops first.
func (kc *kindCache) releaseWhenSynced() {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for !kc.synced() {
		select {
		case <-kc.stop:
			return
		case <-tick.C:
		}
	}
	kc.memory.release()
}

// memoryPolicy is when a Client returns free memory to the operating
// system: after a first list of at least rows rows (releaseWhenSynced),
// and after a burst of at least rows row changes (changeBurst); release
// does it. It is the Client's, copied into each cache and the janitor,
// so that a test sets its own without racing the goroutines of another
// test's Client.
type memoryPolicy struct {
	rows    int
	release func()
}

// defaultMemoryPolicy returns memory after 10,000 rows, with
// debug.FreeOSMemory (a forced collection, then the free pages returned).
var defaultMemoryPolicy = memoryPolicy{rows: 10000, release: debug.FreeOSMemory}

// startJanitor starts the janitor unless it runs or the Client is closed.
func (c *Client) startJanitor() {
	c.mu.Lock()
	c.startJanitorLocked()
	c.mu.Unlock()
}

// startJanitorLocked is startJanitor with c.mu held.
func (c *Client) startJanitorLocked() {
	if c.janitorStop == nil && !c.closed.Load() {
		c.janitorStop = make(chan struct{})
		go c.janitor(c.janitorStop)
	}
}

// janitor stops the informers no Snapshot has needed for Options.CacheIdle,
// drops the metrics no screen asked for as long (pruneMetrics), and
// returns the memory a burst of changes left once it is over
// (changeBurst).
func (c *Client) janitor(stop chan struct{}) {
	period := c.opts.CacheIdle / 4
	if period < 10*time.Millisecond {
		period = 10 * time.Millisecond
	}
	tick := time.NewTicker(period)
	defer tick.Stop()
	c.mu.Lock()
	burst := changeBurst{memory: c.memory}
	c.mu.Unlock()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			burst.tick(c.revisions.Load())
			c.mu.Lock()
			var idle []cacheKey
			for key, kc := range c.caches {
				kc.mu.Lock()
				if now.Sub(kc.lastUsed) > c.opts.CacheIdle {
					idle = append(idle, key)
				}
				kc.mu.Unlock()
			}
			c.mu.Unlock()
			for _, key := range idle {
				c.mu.Lock()
				kc := c.caches[key]
				c.mu.Unlock()
				if kc != nil {
					c.dropCache(key, kc, time.Time{})
				}
			}
			c.pruneMetrics()
		}
	}
}

// changeBurst follows the rows' changes from one janitor tick to the next,
// to return the memory a burst of them left once it is over: while rows
// change, the Go runtime lets the heap grow to twice what is live before
// it collects, and keeps what it grew to; at 100,000 pods a minute of
// churn left RSS 40% above what it was after sync.
type changeBurst struct {
	memory memoryPolicy // its rows is the size of a burst
	rev    uint64       // the change counter at the last tick
	since  uint64       // changes since the memory was last returned
}

// tick takes the change counter now (Client.revisions): once at least
// memory.rows changes came and the last period saw fewer than 1% as many,
// the memory is returned (memory.release, off the caller) and the count
// starts again.
func (b *changeBurst) tick(rev uint64) {
	n := rev - b.rev
	if b.rev == 0 {
		n = 0 // the first tick: the rows read so far are no burst
	}
	b.rev = rev
	b.since += n
	if b.since >= uint64(b.memory.rows) && n*100 < uint64(b.memory.rows) {
		b.since = 0
		go b.memory.release()
	}
}
