package inventory_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// headerOf returns the column header line of a view (the line under the
// notice).
func headerOf(view string) string {
	lines := strings.Split(view, "\n")
	if len(lines) < 2 {
		return ""
	}
	return lines[1]
}

// hasHeader reports whether header line h shows column name whole: set off
// by spaces (or the line's end) on both sides, an arrow allowed after it.
func hasHeader(h, name string) bool {
	for _, suffix := range []string{" ", "↑", "↓"} {
		if strings.Contains(h+" ", " "+name+suffix) {
			return true
		}
	}
	return false
}

// walkRight presses → until the view stops changing (at most 64 times) and
// returns the header line at every scroll position, the first unscrolled.
func walkRight(m *inventory.Model) []string {
	headers := []string{headerOf(m.View())}
	last := m.View()
	for range 64 {
		keys(m, "right")
		v := m.View()
		if v == last {
			break
		}
		last = v
		headers = append(headers, headerOf(v))
	}
	return headers
}

// TestEveryPodColumnReachable: at every width from 40 to 200 cells, in the
// wide and the plain pods view, each column (kubectl's and the metrics
// columns) shows whole at some position of → (the fresh user's finding: at
// 80x24 the wide view scrolled past the metrics columns without ever
// showing them).
func TestEveryPodColumnReachable(t *testing.T) {
	rows, met := podMetrics()
	plain := []string{"NAME", "READY", "STATUS", "RESTARTS", "CPU", "MEM", "%CPU/R", "%CPU/L", "%MEM/R", "%MEM/L", "AGE"}
	wide := append(slices.Clone(plain), "CPU TREND", "MEM TREND", "IP", "NODE", "NOMINATED NODE", "READINESS GATES")
	for _, isWide := range []bool{false, true} {
		want := plain
		if isWide {
			want = wide
		}
		for w := 40; w <= 200; w++ {
			m, _ := metricsScreen(t, "pods", rows, met, w, 24)
			if isWide {
				keys(m, "w")
			}
			headers := walkRight(m)
			for _, name := range want {
				if !slices.ContainsFunc(headers, func(h string) bool { return hasHeader(h, name) }) {
					t.Errorf("wide %v, %d cells: %s never shows whole; headers by scroll position:\n%s", isWide, w, name, strings.Join(headers, "\n"))
				}
			}
		}
	}
}

// TestMetricsColumnsCutAsGroups: unscrolled, at every width from 40 to 200
// cells, the metrics columns that show are whole groups: CPU with MEM
// (never a CPU beside AGE with no MEM: "34m" beside "34m"), the four
// shares all or none, both trends or neither.
func TestMetricsColumnsCutAsGroups(t *testing.T) {
	rows, met := podMetrics()
	groups := [][]string{{"CPU", "MEM"}, {"%CPU/R", "%CPU/L", "%MEM/R", "%MEM/L"}, {"CPU TREND", "MEM TREND"}}
	for _, isWide := range []bool{false, true} {
		for w := 40; w <= 200; w++ {
			m, _ := metricsScreen(t, "pods", rows, met, w, 24)
			if isWide {
				keys(m, "w")
			}
			h := headerOf(m.View())
			for _, g := range groups {
				n := 0
				for _, name := range g {
					if hasHeader(h, name) {
						n++
					}
				}
				if n != 0 && n != len(g) {
					t.Errorf("wide %v, %d cells: %d of %q show: %q", isWide, w, n, g, h)
				}
			}
			if hasHeader(h, "%CPU/R") && !hasHeader(h, "CPU") {
				t.Errorf("wide %v, %d cells: shares without the usage: %q", isWide, w, h)
			}
		}
	}
}

// TestScrolledHintSaysArrowOnly: scrolled to the right end, the notice
// names ← (h does not scroll), as the other states do.
func TestScrolledHintSaysArrowOnly(t *testing.T) {
	rows, met := podMetrics()
	m, _ := metricsScreen(t, "pods", rows, met, 80, 24)
	keys(m, "w")
	walkRight(m)
	notice := strings.Split(m.View(), "\n")[0]
	if !strings.Contains(notice, "scrolled (←)") || strings.Contains(notice, "h/") {
		t.Fatalf("notice %q", notice)
	}
}

// TestWidePodsAt80ScrollsToMetrics is the fresh user's repro: at 80x24 in
// the wide pods view, → brings CPU and MEM in at once (they follow
// RESTARTS), then the shares and the trends.
func TestWidePodsAt80ScrollsToMetrics(t *testing.T) {
	rows, met := podMetrics()
	m, _ := metricsScreen(t, "pods", rows, met, 80, 24)
	keys(m, "w", "right")
	view := m.View()
	viewtest.Size(t, view, 80, 24)
	viewtest.Golden(t, "pods-metrics-wide-80x24-scrolled", view)
	if h := headerOf(view); !hasHeader(h, "CPU") || !hasHeader(h, "MEM") {
		t.Fatalf("one → does not show CPU and MEM:\n%s", view)
	}
	keys(m, "right", "right", "right", "right")
	if h := headerOf(m.View()); !hasHeader(h, "CPU TREND") {
		t.Fatalf("the trends are not reached:\n%s", m.View())
	}
}
