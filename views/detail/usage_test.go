package detail_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/detail"
	"github.com/kyyard/kyyard/views/viewtest"
)

// metricsSource is a source that also reads metrics.
type metricsSource struct {
	*source
	met   kube.Metrics
	asked []kube.MetricsRequest
}

func (s *metricsSource) Metrics(_ context.Context, req kube.MetricsRequest) kube.Metrics {
	s.asked = append(s.asked, req)
	return s.met
}

// runAll runs cmd, the commands of a batch each, and hands each answer to
// the screen; it returns the commands the screen gave back.
func runAll(m *detail.Model, cmd tea.Cmd) []tea.Cmd {
	if cmd == nil {
		return nil
	}
	var next []tea.Cmd
	switch msg := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range msg {
			next = append(next, runAll(m, c)...)
		}
	default:
		_, c := m.Update(msg)
		if c != nil {
			next = append(next, c)
		}
	}
	return next
}

const mi = 1024 * 1024

func podTrend() kube.PodUsage {
	var trend []kube.Sample
	for i := range 40 {
		trend = append(trend, kube.Sample{At: viewtest.Now.Add(time.Duration(i-39) * 15 * time.Second),
			Usage: kube.Usage{CPU: int64(10 + (i*37)%90), Memory: int64(100+i) * mi}})
	}
	last := trend[len(trend)-1].Usage
	return kube.PodUsage{Namespace: "demo", Name: "web-7d9f-abcde", Timestamp: viewtest.Now, Window: 15 * time.Second,
		Containers: []kube.ContainerUsage{{Name: "web", Usage: last}}, Total: last, Trend: trend}
}

func openWithMetrics(t *testing.T, met kube.Metrics, view views.ObjectView, kind kube.Kind, name string, w, h int) (*detail.Model, *metricsSource, []tea.Cmd) {
	t.Helper()
	src := &metricsSource{source: newSource(), met: met}
	ns := "demo"
	if kind == kube.KindNodes {
		ns = ""
	}
	vc := viewtest.Context(src, w, h)
	vc.Config.RefreshInterval = time.Millisecond // the tests run the chain's ticks
	m := detail.New(vc, views.OpenObjectMsg{View: view, Kind: kind, Namespace: ns, Name: name})
	next := runAll(m, m.Init())
	return m, src, next
}

// TestDescribePodUsageChart: the describe view of a pod draws its CPU and
// memory over its trend above the text: the latest value, min and max,
// how many samples over what time.
func TestDescribePodUsageChart(t *testing.T) {
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": podTrend()}, Generation: 3, Taken: viewtest.Now}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		m, src, next := openWithMetrics(t, met, views.DescribeView, kube.KindPods, "web-7d9f-abcde", size[0], size[1])
		view := m.View()
		viewtest.Size(t, view, size[0], size[1])
		viewtest.Golden(t, fmt.Sprintf("describe-pod-usage-%dx%d", size[0], size[1]), view)
		if want := (kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-7d9f-abcde"}); len(src.asked) != 1 || src.asked[0] != want {
			t.Fatalf("asked %+v, want %+v", src.asked, want)
		}
		first := lines(view)[0]
		for _, want := range []string{"CPU 13m", "min 10m max 99m", "MEM 139Mi", "min 100Mi max 139Mi"} {
			if !strings.Contains(first, want) {
				t.Errorf("%q not in the chart's title %q", want, first)
			}
		}
		if size[0] == 200 && !strings.Contains(first, "40 samples over 9m45s") {
			t.Errorf("no span in %q", first)
		}
		if !strings.Contains(view, "█") || !strings.Contains(view, "Name:             web-7d9f-abcde") {
			t.Errorf("no chart or no text:\n%s", view)
		}
		if len(next) != 1 {
			t.Fatalf("the metrics chain is not armed: %d commands", len(next))
		}
	}
}

// TestUsageChartRefreshes: the chain reads the metrics again; a new
// Generation redraws the chart, the same one changes nothing.
func TestUsageChartRefreshes(t *testing.T) {
	pu := podTrend()
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": pu}, Generation: 3}
	m, src, next := openWithMetrics(t, met, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 80, 24)
	before := m.View()
	// Same generation, other numbers: not taken in.
	changed := pu
	changed.Total = kube.Usage{CPU: 777, Memory: 5 * mi}
	src.met = kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": changed}, Generation: 3}
	next = runAll(m, next[0]) // the tick: a read
	next = runAll(m, next[0]) // the reading
	if got := m.View(); got != before {
		t.Fatalf("an unchanged generation redrew the chart:\n%s", got)
	}
	src.met.Generation = 4
	next = runAll(m, next[0])
	runAll(m, next[0])
	if got := lines(m.View())[0]; !strings.Contains(got, "CPU 777m") || !strings.Contains(got, "MEM 5Mi") {
		t.Fatalf("a new reading is not drawn: %q", got)
	}
	if len(src.asked) != 3 {
		t.Fatalf("%d reads, want 3", len(src.asked))
	}
}

// TestUsageChartNotAvailable: forbidden metrics say "n/a" and why on one
// line above the text; a pod without a sample says so.
func TestUsageChartNotAvailable(t *testing.T) {
	forbidden := kube.Metrics{Generation: 1, Truncated: &kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden,
		Message: `pods.metrics.k8s.io "web-7d9f-abcde" is forbidden: User "viewer" cannot get resource "pods" in API group "metrics.k8s.io"`}}
	m, _, _ := openWithMetrics(t, forbidden, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 200, 50)
	view := m.View()
	viewtest.Golden(t, "describe-pod-usage-forbidden", view)
	if first := lines(view)[0]; !strings.HasPrefix(first, "usage n/a: forbidden — pods.metrics.k8s.io") {
		t.Fatalf("first line %q", first)
	}
	m, _, _ = openWithMetrics(t, kube.Metrics{Generation: 1}, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 80, 24)
	if first := lines(m.View())[0]; !strings.HasPrefix(first, "usage: no sample yet") {
		t.Fatalf("first line %q", first)
	}
}

// TestNodeUsageChart: a node's describe view charts the node's usage.
func TestNodeUsageChart(t *testing.T) {
	pu := podTrend()
	met := kube.Metrics{Nodes: map[string]kube.NodeUsage{"kwok-node-0": {Name: "kwok-node-0", Timestamp: viewtest.Now,
		Usage: kube.Usage{CPU: 1500, Memory: 2048 * mi}, Trend: pu.Trend}}, Generation: 1}
	m, src, _ := openWithMetrics(t, met, views.DescribeView, kube.KindNodes, "kwok-node-0", 80, 24)
	if want := (kube.MetricsRequest{Kind: kube.KindNodes, Name: "kwok-node-0"}); src.asked[0] != want {
		t.Fatalf("asked %+v", src.asked[0])
	}
	if first := lines(m.View())[0]; !strings.Contains(first, "CPU 1500m") || !strings.Contains(first, "MEM 2048Mi") {
		t.Fatalf("first line %q", first)
	}
}

// TestYAMLHasNoUsageChart: the YAML view stays as it was, metrics or not;
// so does the describe view of a kind without metrics.
func TestYAMLHasNoUsageChart(t *testing.T) {
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": podTrend()}, Generation: 1}
	plain := open(t, newSource(), views.YAMLView, 80, 24).View()
	for _, c := range []struct {
		view views.ObjectView
		kind kube.Kind
	}{{views.YAMLView, "deployments"}, {views.YAMLView, kube.KindPods}, {views.DescribeView, "deployments"}} {
		m, src, next := openWithMetrics(t, met, c.view, c.kind, "web", 80, 24)
		if len(src.asked) != 0 || len(next) != 0 {
			t.Fatalf("%v %s read metrics", c.view, c.kind)
		}
		if c.view == views.YAMLView && c.kind == "deployments" && m.View() != plain {
			t.Fatalf("the YAML view changed:\n%s", m.View())
		}
	}
}

// TestUsageReasonReadWhole: a forbidden reason the inventory's notice line
// says in short ("may not list pods.metrics.k8s.io") is wrapped here whole
// at 80 cells, the server's words to the end, above the text.
func TestUsageReasonReadWhole(t *testing.T) {
	msg := `pods.metrics.k8s.io "web-7d9f-abcde" is forbidden: User "system:serviceaccount:team-a:viewer" cannot get resource "pods" in API group "metrics.k8s.io" in the namespace "demo"`
	forbidden := kube.Metrics{Generation: 1, Truncated: &kube.Truncation{Kind: "pods", Reason: kube.ReasonForbidden, Message: msg}}
	m, _, _ := openWithMetrics(t, forbidden, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 80, 24)
	view := m.View()
	viewtest.Size(t, view, 80, 24)
	viewtest.Golden(t, "describe-pod-usage-forbidden-80x24", view)
	joined := strings.Join(strings.Fields(view), " ")
	if !strings.Contains(joined, "usage n/a: forbidden — "+msg) {
		t.Fatalf("the server's words are not whole:\n%s", view)
	}
	if !strings.Contains(view, "Name:             web-7d9f-abcde") {
		t.Fatalf("no text under the reason:\n%s", view)
	}
}

// TestUsageNotRunning: a pod opened from a row that was not running
// (Completed, Pending) says it is not running, not that a sample is yet
// to come; a chart still shows when a sample does come.
func TestUsageNotRunning(t *testing.T) {
	src := &metricsSource{source: newSource(), met: kube.Metrics{Generation: 1}}
	vc := viewtest.Context(src, 80, 24)
	vc.Config.RefreshInterval = time.Millisecond
	m := detail.New(vc, views.OpenObjectMsg{View: views.DescribeView, Kind: kube.KindPods, Namespace: "demo", Name: "web-7d9f-abcde", NotRunning: true})
	next := runAll(m, m.Init())
	if first := lines(m.View())[0]; first != "usage: "+views.NotRunningUsage {
		t.Fatalf("first line %q", first)
	}
	src.met = kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": podTrend()}, Generation: 2}
	next = runAll(m, next[0])
	runAll(m, next[0])
	if first := lines(m.View())[0]; !strings.Contains(first, "CPU 13m") {
		t.Fatalf("a sample is not drawn: %q", first)
	}
}

// TestUsageRefreshIsFresh: ctrl+r reads the describe text and a new
// metrics reading (kube.MetricsRequest.Fresh); the chain's own ticks do
// not ask for one.
func TestUsageRefreshIsFresh(t *testing.T) {
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": podTrend()}, Generation: 3}
	m, src, next := openWithMetrics(t, met, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 80, 24)
	next = runAll(m, next[0]) // the tick
	runAll(m, next[0])
	for i, r := range src.asked {
		if r.Fresh {
			t.Fatalf("read %d asked fresh without ctrl+r", i)
		}
	}
	_, cmd := m.Update(viewtest.Key("ctrl+r"))
	runAll(m, cmd)
	last := src.asked[len(src.asked)-1]
	if want := (kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web-7d9f-abcde", Fresh: true}); last != want {
		t.Fatalf("ctrl+r asked %+v, want %+v", last, want)
	}
}

// TestUsageChartFewSamples: with a few samples the bars sit under their
// titles at the left of each half, the latest the rightmost drawn.
func TestUsageChartFewSamples(t *testing.T) {
	pu := podTrend()
	pu.Trend = pu.Trend[len(pu.Trend)-3:]
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-7d9f-abcde": pu}, Generation: 1}
	m, _, _ := openWithMetrics(t, met, views.DescribeView, kube.KindPods, "web-7d9f-abcde", 80, 24)
	view := m.View()
	viewtest.Golden(t, "describe-pod-usage-few-80x24", view)
	half := (80 - 3) / 2
	for _, l := range lines(view)[1:4] {
		cpu, mem := []rune(l)[:half], []rune(l)[half+3:]
		if strings.TrimSpace(string(cpu[3:])) != "" || len([]rune(strings.TrimRight(string(mem), " "))) > 3 {
			t.Fatalf("bars not under their titles:\n%s", view)
		}
	}
}
