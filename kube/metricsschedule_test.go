package kube_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
)

// scrapes is a fake metrics-server's samples of one pod: sample n is
// stamped phase + n·step (server clock = the test's clock) and served
// from its stamp + delay(n) on.
type scrapes struct {
	phase, step time.Duration
	delay       func(n int) time.Duration
}

func (s scrapes) stamp(n int) time.Time { return metricsEpoch.Add(s.phase + time.Duration(n)*s.step) }

// out is the newest sample served at now (-1: none).
func (s scrapes) out(now time.Time) int {
	n := -1
	for i := 0; ; i++ {
		if s.stamp(i).After(now) {
			return n
		}
		if !s.stamp(i).Add(s.delay(i)).After(now) {
			n = i
		}
	}
}

// simulation is what callers asking for demo's pods every `every` for
// `span` saw.
type simulation struct {
	reads, samples int           // reads made, samples served in the span
	first, last    int           // the first and last sample read
	trend          []kube.Sample // the last answer's trend
	worstLag       time.Duration // sample served → first read with it, after the first five
}

func simulate(t *testing.T, opts kube.Options, s scrapes, every, span time.Duration) simulation {
	t.Helper()
	opts.MetricsHistory = 200
	e := newMetricsEnv(t, opts)
	e.clock.Advance(-time.Hour) // samples from an hour before the start
	start := e.clock.Now()
	// Sample n is stamped relative to metricsEpoch: shift so that a few
	// are out at the start.
	s.phase -= time.Hour + time.Minute
	ctx := context.Background()
	sim := simulation{first: -1, last: -1}
	served := -1
	firstServed := -1
	for el := time.Duration(0); el <= span; el += every {
		now := e.clock.Now()
		if n := s.out(now); n != served {
			served = n
			if firstServed < 0 {
				firstServed = n
			}
			e.setPod(t, podMetrics("demo", "web", s.stamp(n), nil, cu{"web", fmt.Sprintf("%dm", n+1), "1Mi"}))
		}
		m := e.c.Metrics(ctx, demoPods)
		web, ok := m.Pods["demo/web"]
		if !ok {
			t.Fatalf("at %v: no pod: %+v", now.Sub(start), m)
		}
		n := int(web.Timestamp.Sub(s.stamp(0)) / s.step)
		if n != sim.last {
			if sim.first < 0 {
				sim.first = n
			} else if lag := now.Sub(s.stamp(n).Add(s.delay(n))); n-sim.first >= 5 && lag > sim.worstLag {
				sim.worstLag = lag
			}
			sim.last = n
		}
		sim.trend = web.Trend
		e.clock.Advance(every)
	}
	sim.reads, sim.samples = e.reads(), served-firstServed+1
	return sim
}

// TestMetricsReadsEverySample: callers asking every second or two for ten
// minutes, against a server whose samples come every 15s from an
// arbitrary phase and are served some delay after their stamp (steady or
// jittering), read every sample (the trend has no gap), each soon after it
// is served, with a few reads more than samples while the alignment is
// learnt and when a sample comes late. (Reading every 15s from the
// caller's phase instead skipped samples: 3 in a minute.)
func TestMetricsReadsEverySample(t *testing.T) {
	steady := func(d time.Duration) func(int) time.Duration { return func(int) time.Duration { return d } }
	jitter := func(base time.Duration) func(int) time.Duration {
		return func(n int) time.Duration { return base + time.Duration((n*7919)%13)*250*time.Millisecond } // base..base+3s
	}
	cases := []struct {
		name   string
		s      scrapes
		every  time.Duration
		extra  int // reads beyond the samples, at most
		maxLag time.Duration
	}{
		{"phase 0, delay 0.2s, calls 2s", scrapes{0, 15 * time.Second, steady(200 * time.Millisecond)}, 2 * time.Second, 8, 5 * time.Second},
		{"phase 3.7s, delay 5s, calls 1s", scrapes{3700 * time.Millisecond, 15 * time.Second, steady(5 * time.Second)}, time.Second, 8, 4 * time.Second},
		{"phase 14.9s, delay 14s, calls 2s", scrapes{14900 * time.Millisecond, 15 * time.Second, steady(14 * time.Second)}, 2 * time.Second, 8, 5 * time.Second},
		{"phase 7.3s, delay 1-4s jittering, calls 1s", scrapes{7300 * time.Millisecond, 15 * time.Second, jitter(time.Second)}, time.Second, 30, 5 * time.Second},
		{"phase 11s, delay 9-12s jittering, calls 2s", scrapes{11 * time.Second, 15 * time.Second, jitter(9 * time.Second)}, 2 * time.Second, 30, 6 * time.Second},
		{"calls every 250ms", scrapes{2 * time.Second, 15 * time.Second, steady(3 * time.Second)}, 250 * time.Millisecond, 8, 3 * time.Second},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sim := simulate(t, kube.Options{}, tc.s, tc.every, 10*time.Minute)
			t.Logf("%d samples served, %d read (%d..%d), %d reads, worst lag %v", sim.samples, sim.last-sim.first+1, sim.first, sim.last, sim.reads, sim.worstLag)
			if len(sim.trend) != sim.last-sim.first+1 {
				t.Errorf("trend of %d samples for samples %d..%d", len(sim.trend), sim.first, sim.last)
			}
			for i := 1; i < len(sim.trend); i++ {
				if step := sim.trend[i].At.Sub(sim.trend[i-1].At); step != tc.s.step {
					t.Errorf("a sample skipped: %v between trend[%d] and [%d]", step, i-1, i)
				}
			}
			if sim.samples-(sim.last-sim.first+1) > 1 {
				t.Errorf("%d samples served, %d read", sim.samples, sim.last-sim.first+1)
			}
			if sim.reads > sim.samples+tc.extra {
				t.Errorf("%d reads for %d samples: more than %d extra", sim.reads, sim.samples, tc.extra)
			}
			if sim.worstLag > tc.maxLag {
				t.Errorf("a sample read %v after it was served (at most %v)", sim.worstLag, tc.maxLag)
			}
		})
	}
}

// TestMetricsIntervalMultiple: a MetricsInterval twice the resolution reads
// every other sample, once, 30s apart (the person asked for fewer reads).
func TestMetricsIntervalMultiple(t *testing.T) {
	sim := simulate(t, kube.Options{MetricsInterval: 30 * time.Second}, scrapes{4 * time.Second, 15 * time.Second,
		func(int) time.Duration { return 2 * time.Second }}, time.Second, 10*time.Minute)
	t.Logf("%d samples served, %d reads, trend %v", sim.samples, sim.reads, sim.trend[:6])
	if sim.reads > sim.samples/2+8 {
		t.Errorf("%d reads for %d samples", sim.reads, sim.samples)
	}
	for i := 1; i < len(sim.trend); i++ {
		if step := sim.trend[i].At.Sub(sim.trend[i-1].At); step != 30*time.Second && i > 4 {
			t.Errorf("trend[%d]: %v after the previous", i, step)
		}
	}
}

// TestMetricsStalledServer: a server whose sample does not move is read
// every MetricsInterval (after a short backoff), never faster than every
// 2s.
func TestMetricsStalledServer(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{MetricsInterval: 10 * time.Second})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch.Add(-time.Minute), nil, cu{"web", "1m", "1Mi"}))
	ctx := context.Background()
	var at []time.Duration
	for el := time.Duration(0); el <= 5*time.Minute; el += 500 * time.Millisecond {
		before := e.reads()
		e.c.Metrics(ctx, demoPods)
		if e.reads() != before {
			at = append(at, el)
		}
		e.clock.Advance(500 * time.Millisecond)
	}
	for i := 1; i < len(at); i++ {
		if gap := at[i] - at[i-1]; gap < 2*time.Second || gap > 10500*time.Millisecond {
			t.Errorf("reads %d and %d: %v apart", i-1, i, gap)
		}
	}
	if len(at) > 300/10+6 {
		t.Errorf("%d reads in 5 minutes: %v", len(at), at)
	}
}
