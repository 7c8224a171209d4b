package inventory_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestNotRunningPodsSayNA: a pod that is not running (Completed,
// Pending in ImagePullBackOff, Failed) never gets a sample from
// metrics-server, so its cells say "n/a", not "-" (no sample yet, which
// stays for a running pod); describe is told so.
func TestNotRunningPodsSayNA(t *testing.T) {
	rows, met := podMetrics()
	phase := func(r kube.Row, p, status string) kube.Row {
		r.Fields = map[string]string{"status.phase": p}
		r.Status = status
		r.Cells = slices.Clone(r.Cells)
		r.Cells[2] = kube.Text(status)
		return r
	}
	rows = append(rows,
		phase(podRow("done-5", res("app", 100, 64*mi, 100, 64*mi)), "Succeeded", "Completed"),
		phase(podRow("pull-6", res("app", 100, 64*mi, 100, 64*mi)), "Pending", "ImagePullBackOff"),
		phase(podRow("oom-7", res("app", 100, 64*mi, 100, 64*mi)), "Failed", "OOMKilled"))
	rows[3] = phase(rows[3], "Running", "Running") // new-3: running, no sample yet
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	keys(m, "w")
	view := m.View()
	for name, want := range map[string]string{"done-5": "n/a", "pull-6": "n/a", "oom-7": "n/a", "new-3": "-"} {
		f := cellsOf(view, name)
		if len(f) < 11 || slices.ContainsFunc(f[3:11], func(c string) bool { return c != want }) {
			t.Errorf("%s: %q, want metrics cells %q", name, f, want)
		}
	}
	// d on a pod that is not running tells describe so.
	for i := range 10 {
		if strings.HasPrefix(rowOf(m.View(), "done-5"), ">") {
			break
		}
		if i == 9 {
			t.Fatal("the cursor never reached done-5")
		}
		keys(m, "j")
	}
	msg, ok := keys(m, "d")().(views.OpenObjectMsg)
	if !ok || !msg.NotRunning || msg.Name != "done-5" {
		t.Fatalf("d gave %#v", msg)
	}
}

// TestRefreshAsksFreshMetrics: ctrl+r asks kube for a new metrics reading
// (kube.MetricsRequest.Fresh); the refresh chain's own reads do not.
func TestRefreshAsksFreshMetrics(t *testing.T) {
	rows, met := podMetrics()
	m, src := metricsScreen(t, "pods", rows, met, 80, 24)
	if len(src.calls) != 1 || src.calls[0].Fresh {
		t.Fatalf("the first read: %+v", src.calls)
	}
	m.Update(keys(m, "ctrl+r")())
	if len(src.calls) != 2 || !src.calls[1].Fresh {
		t.Fatalf("ctrl+r read: %+v", src.calls)
	}
	_, next := m.Update(m.Init()())
	_ = next
	if last := src.calls[len(src.calls)-1]; last.Fresh {
		t.Fatalf("a read after ctrl+r's asked fresh again: %+v", last)
	}
}

// TestStaleMetricsSaysHowOld: metrics read more than twice the interval
// ago say how old they are on the notice line; recent ones say nothing.
func TestStaleMetricsSaysHowOld(t *testing.T) {
	rows, met := podMetrics()
	met.Taken = viewtest.Now.Add(-20 * time.Second)
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	if notice := strings.Split(m.View(), "\n")[0]; strings.Contains(notice, "metrics read") {
		t.Fatalf("recent metrics said stale: %q", notice)
	}
	met.Taken = viewtest.Now.Add(-45 * time.Second)
	m, _ = metricsScreen(t, "pods", rows, met, 200, 50)
	if notice := strings.Split(m.View(), "\n")[0]; !strings.Contains(notice, "metrics read 45s ago") {
		t.Fatalf("stale metrics not said: %q", notice)
	}
}

// TestMetricsColumnsKeepTheirPlace: a value gaining a digit (93m → 105m,
// 999Mi → 1000Mi) moves no column: the metrics columns have least widths.
func TestMetricsColumnsKeepTheirPlace(t *testing.T) {
	rows, met := podMetrics()
	m, src := metricsScreen(t, "pods", rows, met, 200, 50)
	keys(m, "w")
	before := headerOf(m.View())
	_, pods := demoPods()
	api := pods["demo/api-0"]
	api.Total = kube.Usage{CPU: 1000, Memory: 1000 * mi}
	api.Containers = []kube.ContainerUsage{{Name: "app", Usage: api.Total}}
	pods["demo/api-0"] = api
	src.set(kube.Metrics{Request: met.Request, Pods: pods, Generation: 2, Taken: viewtest.Now})
	m.Update(m.Init()())
	view := m.View()
	if !strings.Contains(rowOf(view, "api-0"), "1000m") || !strings.Contains(rowOf(view, "api-0"), "1000Mi") {
		t.Fatalf("the new reading is not shown:\n%s", view)
	}
	if after := headerOf(view); after != before {
		t.Fatalf("the columns moved:\n%s\n%s", before, after)
	}
}

// TestTrendsAlignWithTheirHeaders: a sparkline of a few samples starts
// under its header's first letter, as every cell does.
func TestTrendsAlignWithTheirHeaders(t *testing.T) {
	rows, met := podMetrics()
	api := met.Pods["demo/api-0"]
	api.Trend = api.Trend[len(api.Trend)-3:]
	met.Pods["demo/api-0"] = api
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	keys(m, "w")
	view := m.View()
	h, row := []rune(headerOf(view)), []rune(rowOf(view, "api-0"))
	col := slices.Index(h, 'C')
	for i := col + 1; i < len(h); i++ { // "CPU TREND", after "CPU", "%CPU/R" …
		if string(h[i:min(i+9, len(h))]) == "CPU TREND" {
			col = i
			break
		}
	}
	if !strings.ContainsRune("▁▂▃▄▅▆▇█", row[col]) || row[col-1] != ' ' {
		t.Fatalf("the trend does not start under its header:\n%s\n%s", string(h), string(row))
	}
}
