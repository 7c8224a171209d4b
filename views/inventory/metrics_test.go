package inventory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

const mi = 1024 * 1024

// metricsSource serves one snapshot and a metrics reading set by the test.
type metricsSource struct {
	staticSource
	mu    sync.Mutex
	met   kube.Metrics
	calls []kube.MetricsRequest
}

func (s *metricsSource) Metrics(_ context.Context, req kube.MetricsRequest) kube.Metrics {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, req)
	return s.met
}

func (s *metricsSource) set(met kube.Metrics) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.met = met
}

func res(name string, reqCPU, reqMem, limCPU, limMem int64) kube.ContainerResources {
	return kube.ContainerResources{Name: name, Requests: kube.Usage{CPU: reqCPU, Memory: reqMem}, Limits: kube.Usage{CPU: limCPU, Memory: limMem}}
}

const unset = kube.NotSet

func podRow(name string, containers ...kube.ContainerResources) kube.Row {
	return kube.Row{Namespace: "demo", Name: name, UID: "uid-" + name, Status: "Running",
		Cells: []kube.Cell{kube.Text(name), kube.Text(fmt.Sprintf("%d/%d", len(containers), len(containers))), kube.Text("Running"),
			kube.Text("0"), kube.Age(viewtest.Now.Add(-time.Hour)), kube.Text("10.0.0.1"), kube.Text("kwok-node-0"),
			kube.Text("<none>"), kube.Text("<none>")},
		Resources: &kube.RowResources{Containers: containers}}
}

// trend returns n samples a minute apart, ending at viewtest.Now, whose
// CPU and memory follow f.
func trend(n int, f func(i int) kube.Usage) []kube.Sample {
	out := make([]kube.Sample, n)
	for i := range out {
		out[i] = kube.Sample{At: viewtest.Now.Add(time.Duration(i-n+1) * 15 * time.Second), Usage: f(i)}
	}
	return out
}

func podUsage(name string, containers ...kube.ContainerUsage) kube.PodUsage {
	var total kube.Usage
	for _, c := range containers {
		total.CPU += c.Usage.CPU
		total.Memory += c.Usage.Memory
	}
	return kube.PodUsage{Namespace: "demo", Name: name, Timestamp: viewtest.Now, Window: 15 * time.Second,
		Containers: containers, Total: total,
		Trend: trend(12, func(i int) kube.Usage { return kube.Usage{CPU: total.CPU * int64(i+1) / 12, Memory: total.Memory} })}
}

// demoPods are hand-made cases of issue 12: full requests and limits,
// partial ones (a sidecar without any), none, limits without requests,
// and a pod without a sample yet.
func demoPods() ([]kube.Row, map[string]kube.PodUsage) {
	rows := []kube.Row{
		podRow("api-0", res("app", 100, 128*mi, 200, 256*mi)),
		podRow("bare-2", res("app", unset, unset, unset, unset)),
		podRow("lim-4", res("app", unset, unset, 500, 1024*mi)),
		podRow("new-3", res("app", 100, 64*mi, 100, 64*mi)),
		podRow("web-1", res("web", 100, 100*mi, unset, 200*mi), res("sidecar", unset, unset, unset, unset)),
	}
	pods := map[string]kube.PodUsage{
		"demo/api-0":  podUsage("api-0", kube.ContainerUsage{Name: "app", Usage: kube.Usage{CPU: 50, Memory: 64 * mi}}),
		"demo/bare-2": podUsage("bare-2", kube.ContainerUsage{Name: "app", Usage: kube.Usage{CPU: 5, Memory: 10 * mi}}),
		"demo/lim-4":  podUsage("lim-4", kube.ContainerUsage{Name: "app", Usage: kube.Usage{CPU: 250, Memory: 512 * mi}}),
		"demo/web-1": podUsage("web-1", kube.ContainerUsage{Name: "web", Usage: kube.Usage{CPU: 30, Memory: 50 * mi}},
			kube.ContainerUsage{Name: "sidecar", Usage: kube.Usage{CPU: 10, Memory: 20 * mi}}),
	}
	return rows, pods
}

func metricsScreen(t testing.TB, kind kube.Kind, rows []kube.Row, met kube.Metrics, w, h int) (*inventory.Model, *metricsSource) {
	t.Helper()
	reg := kinds.Builtin()
	p, _ := reg.Lookup(string(kind))
	info := p.Info()
	src := &metricsSource{staticSource: staticSource{reg: reg, snap: kube.Snapshot{Namespace: "demo", Generation: 1,
		Tables: []kube.Table{{Kind: info.ID, Columns: info.Columns, Rows: rows}}}}, met: met}
	m, err := inventory.New(viewtest.Context(src, w, h), kind, "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	m.Update(m.Init()())
	return m, src
}

func podMetrics() ([]kube.Row, kube.Metrics) {
	rows, pods := demoPods()
	return rows, kube.Metrics{Request: kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo"}, Pods: pods, Generation: 1, Taken: viewtest.Now}
}

// rowOf returns the line of the view that shows name.
func rowOf(view, name string) string {
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, " "+name+" ") {
			return l
		}
	}
	return ""
}

// cellsOf returns the cells right of name on its line.
func cellsOf(view, name string) []string {
	f := strings.Fields(rowOf(view, name))
	i := slices.Index(f, name)
	if i < 0 {
		return nil
	}
	return f[i+1:]
}

// TestPodMetricsColumns: kubectl top's units, the shares per container
// summed over the containers that set the amount, "*" when some do not,
// "n/a" when none does (never a share of a limit that does not exist, the
// k9s bug of issue 12), "-" for a pod without a sample yet.
func TestPodMetricsColumns(t *testing.T) {
	rows, met := podMetrics()
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m, src := metricsScreen(t, "pods", rows, met, size[0], size[1])
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("pods-metrics-%dx%d", size[0], size[1]), view)
		if len(src.calls) == 0 || src.calls[0] != (kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo"}) {
			t.Fatalf("metrics asked %+v", src.calls)
		}
		if size[0] < 200 {
			continue
		}
		for name, want := range map[string][]string{
			"api-0":  {"50m", "64Mi", "50%", "25%", "50%", "25%"},
			"web-1":  {"40m", "70Mi", "30%*", "n/a", "50%*", "25%*"}, // the sidecar sets nothing
			"bare-2": {"5m", "10Mi", "n/a", "n/a", "n/a", "n/a"},     // no requests or limits
			"lim-4":  {"250m", "512Mi", "n/a", "50%", "n/a", "50%"},  // limits without requests
			"new-3":  {"-", "-", "-", "-", "-", "-"},                 // no sample yet
		} {
			f := cellsOf(view, name)
			if len(f) < 9 || !slices.Equal(f[3:9], want) {
				t.Errorf("%s: %q, want metrics %q", name, f, want)
			}
		}
		header := strings.Fields(strings.Split(view, "\n")[1])
		if want := []string{"NAME", "READY", "STATUS", "RESTARTS", "CPU", "MEM", "%CPU/R", "%CPU/L", "%MEM/R", "%MEM/L", "AGE"}; !slices.Equal(header, want) {
			t.Errorf("header %q, want %q", header, want)
		}
	}
}

// TestPodMetricsWideTrends: w adds a CPU and a memory sparkline of the last
// 10 samples, latest at the right, scaled per row.
func TestPodMetricsWideTrends(t *testing.T) {
	rows, met := podMetrics()
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	keys(m, "w")
	view := m.View()
	viewtest.Size(t, view, 200, 50)
	viewtest.Golden(t, "pods-metrics-wide", view)
	if !strings.Contains(view, "CPU TREND") || !strings.Contains(view, "MEM TREND") {
		t.Fatalf("no trend columns:\n%s", view)
	}
	// api-0's CPU rises over 12 samples: the last 10 end in a full block;
	// its memory is flat at its peak.
	if l := rowOf(view, "api-0"); !strings.Contains(l, "▂▃▄▄▅▆▆▇██") || !strings.Contains(l, "██████████") {
		t.Errorf("api-0's trends:\n%s", l)
	}
	if l := rowOf(view, "new-3"); strings.ContainsAny(l, "▁█") {
		t.Errorf("a pod without samples has a trend:\n%s", l)
	}
	// The trends are not sorted by: > steps over them.
	for range 20 {
		keys(m, ">")
		if v := m.View(); strings.Contains(v, "TREND↑") {
			t.Fatalf("sorted by a trend:\n%s", v)
		}
	}
}

// sortTo presses > until the header shows the column sorted ascending.
func sortTo(t *testing.T, m *inventory.Model, column string) {
	t.Helper()
	for range 30 {
		if strings.Contains(strings.Split(m.View(), "\n")[1], column+"↑") {
			return
		}
		keys(m, ">")
	}
	t.Fatalf("cannot sort by %s:\n%s", column, m.View())
}

// TestC11SortByMemoryLimitShare: %MEM/L sorts by the share as a number (the
// partial 25%* beside 25%), the pods without one (n/a, -) last in both
// directions.
func TestC11SortByMemoryLimitShare(t *testing.T) {
	rows, met := podMetrics()
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	sortTo(t, m, "%MEM/L")
	want := []string{"api-0", "web-1", "lim-4", "bare-2", "new-3"}
	if got := names(m.View()); !slices.Equal(got, want) {
		t.Fatalf("ascending %q, want %q:\n%s", got, want, m.View())
	}
	keys(m, "S")
	want = []string{"lim-4", "api-0", "web-1", "bare-2", "new-3"}
	if got := names(m.View()); !slices.Equal(got, want) {
		t.Fatalf("descending %q, want %q:\n%s", got, want, m.View())
	}
	// By MEM, quantities (10Mi < 64Mi < 70Mi < 512Mi), not text.
	sortTo(t, m, "MEM")
	want = []string{"bare-2", "api-0", "web-1", "lim-4", "new-3"}
	if got := names(m.View()); !slices.Equal(got, want) {
		t.Fatalf("by MEM %q, want %q:\n%s", got, want, m.View())
	}
}

// TestNewReadingResortsAndKeepsCursor: a new reading (a new Generation)
// redraws the cells and sorts again by a metrics column; the cursor stays
// on its pod. The same generation changes nothing.
func TestNewReadingResortsAndKeepsCursor(t *testing.T) {
	rows, met := podMetrics()
	m, src := metricsScreen(t, "pods", rows, met, 200, 50)
	sortTo(t, m, "CPU") // the cursor follows api-0, the first row before
	before := m.View()
	if !strings.HasPrefix(rowOf(before, "api-0"), ">") {
		t.Fatalf("cursor not on api-0:\n%s", before)
	}
	// Same generation, different numbers: not taken in (Generation says
	// nothing changed).
	stale := met
	stale.Pods = map[string]kube.PodUsage{"demo/api-0": podUsage("api-0", kube.ContainerUsage{Name: "app", Usage: kube.Usage{CPU: 900, Memory: 64 * mi}})}
	src.set(stale)
	m.Update(m.Init()())
	if got := m.View(); got != before {
		t.Fatalf("an unchanged generation changed the view:\n%s", got)
	}
	fresh := met
	fresh.Generation = 2
	fresh.Pods = map[string]kube.PodUsage{}
	for k, v := range met.Pods {
		fresh.Pods[k] = v
	}
	fresh.Pods["demo/api-0"] = podUsage("api-0", kube.ContainerUsage{Name: "app", Usage: kube.Usage{CPU: 900, Memory: 64 * mi}})
	src.set(fresh)
	m.Update(m.Init()())
	view := m.View()
	if got, want := names(view), []string{"bare-2", "web-1", "lim-4", "api-0", "new-3"}; !slices.Equal(got, want) {
		t.Fatalf("after the new reading %q, want %q:\n%s", got, want, view)
	}
	if l := rowOf(view, "api-0"); !strings.HasPrefix(l, ">") || !strings.Contains(l, "900m") {
		t.Fatalf("cursor or cell not following api-0:\n%s", view)
	}
}

// TestMetricsTruncated: a user who may not read metrics, or a cluster
// without metrics-server: every metrics cell says n/a, the notice line
// says why once, and the table stays.
func TestMetricsTruncated(t *testing.T) {
	rows, _ := demoPods()
	for _, c := range []struct {
		name   string
		trunc  kube.Truncation
		notice string
	}{
		{"forbidden", kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden,
			Message: `pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "demo"`},
			`metrics: forbidden (may not list pods.metrics.k8s.io)`},
		{"not-found", kube.Truncation{Kind: "pods", Reason: kube.ReasonNotFound, Message: "the server could not find the requested resource"},
			"metrics: not available — no metrics-server"},
		{"unavailable", kube.Truncation{Kind: "pods", Reason: kube.ReasonUnavailable, Message: "the server is currently unable to handle the request"},
			"metrics: unavailable — the server is currently unable to handle the request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range [][2]int{{80, 24}, {200, 50}} {
				m, _ := metricsScreen(t, "pods", rows, kube.Metrics{Truncated: &c.trunc, Generation: 1}, size[0], size[1])
				view := m.View()
				viewtest.Size(t, view, size[0], size[1])
				if c.name == "forbidden" {
					viewtest.Golden(t, fmt.Sprintf("pods-metrics-forbidden-%dx%d", size[0], size[1]), view)
				}
				lines := strings.Split(view, "\n")
				if size[0] == 200 && !strings.Contains(lines[0], c.notice) {
					t.Errorf("notice %q, want %q", lines[0], c.notice)
				}
				if strings.Count(view, "metrics:") != 1 {
					t.Errorf("the reason is not said once:\n%s", view)
				}
				if got := names(view); len(got) != 5 {
					t.Errorf("rows %q:\n%s", got, view)
				}
				if f := cellsOf(view, "api-0"); len(f) < 5 || f[3] != "n/a" || f[4] != "n/a" || slices.Contains(f, "50m") {
					t.Errorf("metrics cells are not n/a: %q", f)
				}
			}
		})
	}
}

// TestMetricsWithoutMetricsSource: a client that reads no metrics gives
// n/a cells and says so, never a crash.
func TestMetricsWithoutMetricsSource(t *testing.T) {
	rows, _ := demoPods()
	info := kinds.Pods{}.Info()
	src := staticSource{reg: kinds.Builtin(), snap: kube.Snapshot{Namespace: "demo", Generation: 1,
		Tables: []kube.Table{{Kind: info.ID, Columns: info.Columns, Rows: rows}}}}
	m, err := inventory.New(viewtest.Context(src, 200, 10), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(m.Init()())
	view := m.View()
	if !strings.Contains(view, "metrics: not available — this connection reads no metrics") || !strings.Contains(rowOf(view, "api-0"), "n/a") {
		t.Fatalf("no reason or no n/a:\n%s", view)
	}
}

func nodeRow(name string, alloc *kube.Usage) kube.Row {
	r := kube.Row{Name: name, UID: "uid-" + name, Status: "Ready",
		Cells: []kube.Cell{kube.Text(name), kube.Text("Ready"), kube.Text("agent"), kube.Age(viewtest.Now.Add(-48 * time.Hour)),
			kube.Text("v1.37.2"), kube.Text("10.0.0.2"), kube.Text("<none>"), kube.Text("kwok"), kube.Text("kwok"), kube.Text("kwok")}}
	if alloc != nil {
		r.Resources = &kube.RowResources{Allocatable: *alloc}
	}
	return r
}

// TestNodeMetricsColumns: CPU, %CPU, MEM, %MEM of allocatable as kubectl
// top node prints them; a node without allocatable shows usage and n/a
// shares, one without a sample "-".
func TestNodeMetricsColumns(t *testing.T) {
	rows := []kube.Row{
		nodeRow("node-a", &kube.Usage{CPU: 4000, Memory: 8192 * mi}),
		nodeRow("node-b", &kube.Usage{CPU: 2000, Memory: 4096 * mi}),
		nodeRow("node-c", nil),
	}
	node := func(name string, cpu, mem int64) kube.NodeUsage {
		return kube.NodeUsage{Name: name, Timestamp: viewtest.Now, Window: 15 * time.Second, Usage: kube.Usage{CPU: cpu, Memory: mem},
			Trend: trend(10, func(i int) kube.Usage { return kube.Usage{CPU: cpu * int64(10-i) / 10, Memory: mem * int64(i%3+1) / 3} })}
	}
	met := kube.Metrics{Nodes: map[string]kube.NodeUsage{"node-a": node("node-a", 1000, 2048*mi), "node-c": node("node-c", 300, 512*mi)}, Generation: 1}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m, src := metricsScreen(t, "nodes", rows, met, size[0], size[1])
		if size[0] == 200 {
			keys(m, "w")
		}
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("nodes-metrics-%dx%d", size[0], size[1]), view)
		if src.calls[0].Kind != kube.KindNodes {
			t.Fatalf("asked %+v", src.calls[0])
		}
		if size[0] < 200 {
			continue
		}
		for name, want := range map[string][]string{
			"node-a": {"1000m", "25%", "2048Mi", "25%"},
			"node-b": {"-", "-", "-", "-"},
			"node-c": {"300m", "n/a", "512Mi", "n/a"},
		} {
			f := cellsOf(view, name)
			if len(f) < 8 || !slices.Equal(f[4:8], want) {
				t.Errorf("%s: %q, want %q", name, f, want)
			}
		}
	}
}

// TestContainerMetricsColumns: a pod's containers show each one's usage
// and shares from the pod's reading, by container name; a container the
// metrics do not report (an init container) shows "-".
func TestContainerMetricsColumns(t *testing.T) {
	info := kinds.Containers{}.Info()
	crow := func(name, init string, r kube.ContainerResources) kube.Row {
		return kube.Row{Namespace: "demo", Name: name, UID: "uid-web-1/" + name, Status: "Running",
			Cells: []kube.Cell{kube.Text(name), kube.Text("registry.local/" + name + ":1"), kube.Text("true"), kube.Text("Running"),
				kube.Text(init), kube.Text("0"), kube.Text("8080/TCP"), kube.Age(viewtest.Now.Add(-time.Hour))},
			Resources: &kube.RowResources{Containers: []kube.ContainerResources{r}}}
	}
	rows := []kube.Row{
		crow("setup", "true", res("setup", unset, unset, unset, unset)),
		crow("web", "false", res("web", 100, 100*mi, unset, 200*mi)),
		crow("sidecar", "false", res("sidecar", unset, unset, unset, unset)),
	}
	_, pods := demoPods()
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-1": pods["demo/web-1"]}, Generation: 1}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		reg := kinds.Builtin()
		src := &metricsSource{staticSource: staticSource{reg: reg, snap: kube.Snapshot{Namespace: "demo", Generation: 1,
			Tables: []kube.Table{{Kind: info.ID, Columns: info.Columns, Rows: rows}}}}, met: met}
		m, err := inventory.New(viewtest.Context(src, size[0], size[1]), "containers", "demo")
		if err != nil {
			t.Fatal(err)
		}
		m.Narrow(kube.Selector{Fields: "metadata.name=web-1"}, "pods/web-1")
		m.SetClock(func() time.Time { return viewtest.Now })
		m.Update(m.Init()())
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("containers-metrics-%dx%d", size[0], size[1]), view)
		if want := (kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-1"}); src.calls[0] != want {
			t.Fatalf("asked %+v, want %+v", src.calls[0], want)
		}
		if size[0] < 200 {
			continue
		}
		for name, want := range map[string][]string{
			"web":     {"30m", "50Mi", "30%", "n/a", "50%", "25%"},
			"sidecar": {"10m", "20Mi", "n/a", "n/a", "n/a", "n/a"},
			"setup":   {"-", "-", "-", "-", "-", "-"},
		} {
			f := cellsOf(view, name)
			if len(f) < 11 || !slices.Equal(f[5:11], want) {
				t.Errorf("%s: %q, want %q", name, f, want)
			}
		}
	}
}

// TestCellAt checks the e2e tests' reader of a cell by its column.
func TestCellAt(t *testing.T) {
	rows, met := podMetrics()
	rows[0].Cells[3] = kube.Text("3 (5m ago)") // RESTARTS of several words
	m, _ := metricsScreen(t, "pods", rows, met, 200, 50)
	view := m.View()
	for _, c := range [][3]string{{"api-0", "CPU", "50m"}, {"api-0", "MEM", "64Mi"}, {"web-1", "%CPU/R", "30%*"}, {"lim-4", "%MEM/L", "50%"}, {"nope", "CPU", ""}, {"api-0", "NOPE", ""}} {
		if got := cellAt(view, c[0], c[1]); got != c[2] {
			t.Errorf("cellAt(%s, %s) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
}
