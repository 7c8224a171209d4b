package inventory

import (
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// TestReadingRefreshFollowsItsCost: while a kind's first list is still
// arriving the screen refreshes every 250 ms, but never spends more than a
// tenth of the time doing so (at 100,000 pods each refresh indexes every
// row so far), and never waits longer than the refresh interval.
func TestReadingRefreshFollowsItsCost(t *testing.T) {
	for _, tc := range []struct {
		cost, want time.Duration
	}{
		{0, readingRefresh},
		{time.Millisecond, readingRefresh},
		{25 * time.Millisecond, readingRefresh},
		{60 * time.Millisecond, 600 * time.Millisecond},
		{150 * time.Millisecond, 1500 * time.Millisecond},
		{time.Second, 2 * time.Second},
	} {
		m := &Model{vc: &views.Context{Config: views.Config{RefreshInterval: 2 * time.Second}}, loaded: true,
			table: kube.Table{Reading: true}, readCost: tc.cost}
		m.backoff()
		if m.delay != tc.want {
			t.Errorf("a refresh costing %s: next in %s, want %s", tc.cost, m.delay, tc.want)
		}
		m.table.Reading = false
		m.backoff()
		if m.delay != 2*time.Second {
			t.Errorf("read: next in %s, want the interval", m.delay)
		}
	}
}
