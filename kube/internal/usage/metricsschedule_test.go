package usage

import (
	"testing"
	"time"
)

// TestMetricsScheduleSteps: each kind of read sets the next due time as
// metricsschedule.go says (a 15s interval, samples every 15s).
func TestMetricsScheduleSteps(t *testing.T) {
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	s := metricsSchedule{interval: 15 * time.Second}

	type read struct {
		name          string
		start, newest time.Duration // from t0
		ok            bool
		due           time.Duration // from t0
	}
	steps := []read{
		// First read at 10s gets the sample stamped 4s: 4 < D+4 <= 10, and
		// the next (19s) was not out at 10s: D > -9s. Probe in the middle of
		// (-9s, 6s] after 19s: 19 - 1.5 = 17.5s.
		{"first read: a probe", 10 * time.Second, 4 * time.Second, true, 17500 * time.Millisecond},
		// The probe finds the old sample: D > -1.5s; bracket (-1.5, 6]:
		// probe at 19 + 2.25 = 21.25s.
		{"probe misses", 17500 * time.Millisecond, 4 * time.Second, true, 21250 * time.Millisecond},
		// It finds 19s: D <= 2.25s (and D > -1.5s: the read at 17.5s did
		// not have it). The bracket (-1.5, 2.25] is 3.75 wide: probe at
		// 34 + 0.375.
		{"probe hits", 21250 * time.Millisecond, 19 * time.Second, true, 34375 * time.Millisecond},
		// Hit again: D <= 0.375; bracket (-1.5, 0.375], 1.875 wide: read at
		// 49 + 0.375 + 0.5.
		{"narrow: read at the upper bound", 34375 * time.Millisecond, 34 * time.Second, true, 49875 * time.Millisecond},
		{"steady", 49875 * time.Millisecond, 49 * time.Second, true, 64875 * time.Millisecond},
		// The sample is late: D > 0.875 > hi: backoff 2s, then 4s.
		{"late: backoff", 64875 * time.Millisecond, 49 * time.Second, true, 66875 * time.Millisecond},
		{"still late: 4s", 66875 * time.Millisecond, 49 * time.Second, true, 70875 * time.Millisecond},
		// It came: D <= 6.875, D > 66.875-64 = 2.875: 4s wide: probe at 79 + 4.875.
		{"came: a new bracket", 70875 * time.Millisecond, 64 * time.Second, true, 83875 * time.Millisecond},
		{"a failed read: the interval", 83875 * time.Millisecond, 0, false, 98875 * time.Millisecond},
	}
	for _, st := range steps {
		var newest time.Time
		if st.newest != 0 {
			newest = at(st.newest)
		}
		s.observe(at(st.start), at(st.start), newest, st.ok)
		if got := s.due.Sub(t0); got != st.due {
			t.Errorf("%s: due at %v, want %v (bracket %v..%v %v %v)", st.name, got, st.due, s.lo, s.hi, s.hasLo, s.hasHi)
		}
	}
	if r := s.resolution(); r != 15*time.Second {
		t.Errorf("resolution %v", r)
	}
}

// TestMetricsScheduleResolution: the resolution is the smallest of the
// last steps (a skipped sample's 30s does not count), the interval before
// two samples.
func TestMetricsScheduleResolution(t *testing.T) {
	s := metricsSchedule{interval: 20 * time.Second}
	if r := s.resolution(); r != 20*time.Second {
		t.Errorf("no steps: %v", r)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for i, step := range []time.Duration{0, 30, 15, 30, 60, 30, 30} {
		t0 = t0.Add(step * time.Second)
		s.observe(t0.Add(time.Second), t0.Add(time.Second), t0, true)
		want := map[int]time.Duration{0: 20, 1: 30, 2: 15, 3: 15, 4: 15, 5: 15, 6: 30}[i] * time.Second
		if r := s.resolution(); r != want {
			t.Errorf("after step %d: %v, want %v", i, r, want)
		}
	}
}

// FuzzMetricsSchedule: whatever the reads see, the next read is due at
// least metricsFloor and at most interval+metricsGrace after a read's
// start (interval after a failed or empty one).
func FuzzMetricsSchedule(f *testing.F) {
	f.Add(int64(15000), []byte{10, 4, 1, 7, 4, 1, 12, 19, 1, 3, 0, 0})
	f.Add(int64(2000), []byte{200, 100, 1, 1, 1, 1, 255, 255, 1})
	f.Fuzz(func(t *testing.T, intervalMS int64, reads []byte) {
		interval := time.Duration(intervalMS%120000+1) * time.Millisecond
		s := metricsSchedule{interval: interval}
		t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
		clock, stamp := t0, t0
		for i := 0; i+2 < len(reads); i += 3 {
			clock = clock.Add(time.Duration(reads[i]) * 100 * time.Millisecond)
			stamp = stamp.Add(time.Duration(int8(reads[i+1])) * 100 * time.Millisecond)
			ok := reads[i+2]%4 != 0
			newest := stamp
			if reads[i+2]%5 == 0 {
				newest = time.Time{}
			}
			s.observe(clock, clock.Add(time.Duration(reads[i+2]%3)*time.Millisecond), newest, ok)
			gap := s.due.Sub(clock)
			if !ok || newest.IsZero() {
				if gap != interval {
					t.Fatalf("read %d failed or empty: due after %v, want %v", i/3, gap, interval)
				}
				continue
			}
			if gap < min(metricsFloor, interval+metricsGrace) || gap > interval+metricsGrace {
				t.Fatalf("read %d: due after %v (interval %v)", i/3, gap, interval)
			}
		}
	})
}
