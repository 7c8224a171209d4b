package kube_test

import (
	"context"
	"errors"
	"fmt"
	goruntime "runtime"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsfake "k8s.io/metrics/pkg/client/clientset/versioned/fake"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// fakeClock is the metrics clock of a test: it moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

var metricsEpoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

// metricsEnv is a Client reading a fake metrics API.
type metricsEnv struct {
	c     *kube.Client
	cs    *fake.Clientset
	mcs   *metricsfake.Clientset
	clock *fakeClock
}

func newMetricsEnv(t testing.TB, opts kube.Options, objs ...runtime.Object) *metricsEnv {
	t.Helper()
	if opts.Registry == nil {
		opts.Registry = kinds.Builtin()
	}
	cs := fake.NewClientset(objs...)
	c := kube.NewFromClientset(cs, opts)
	t.Cleanup(c.Close)
	mcs := metricsfake.NewSimpleClientset()
	clock := &fakeClock{now: metricsEpoch}
	kube.SetMetricsClientset(c, mcs)
	kube.SetMetricsClock(c, clock.Now)
	return &metricsEnv{c: c, cs: cs, mcs: mcs, clock: clock}
}

var (
	podMetricsGVR  = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "pods"}
	nodeMetricsGVR = schema.GroupVersionResource{Group: "metrics.k8s.io", Version: "v1beta1", Resource: "nodes"}
)

// cu is a container's usage in a PodMetrics; "" leaves a resource out.
type cu struct{ name, cpu, mem string }

func usageList(cpu, mem string) corev1.ResourceList {
	l := corev1.ResourceList{}
	if cpu != "" {
		l[corev1.ResourceCPU] = resource.MustParse(cpu)
	}
	if mem != "" {
		l[corev1.ResourceMemory] = resource.MustParse(mem)
	}
	return l
}

func podMetrics(ns, name string, at time.Time, labels map[string]string, cs ...cu) *metricsv1beta1.PodMetrics {
	m := &metricsv1beta1.PodMetrics{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
		Timestamp: metav1.NewTime(at), Window: metav1.Duration{Duration: 15 * time.Second}}
	for _, c := range cs {
		m.Containers = append(m.Containers, metricsv1beta1.ContainerMetrics{Name: c.name, Usage: usageList(c.cpu, c.mem)})
	}
	return m
}

// setPod stores (creates or replaces) a PodMetrics in the fake API: the
// fake's tracker guesses the resource "podmetricses" from the kind, so
// objects go in under the resource the typed client reads.
func (e *metricsEnv) setPod(t testing.TB, m *metricsv1beta1.PodMetrics) {
	t.Helper()
	tr := e.mcs.Tracker()
	if _, err := tr.Get(podMetricsGVR, m.Namespace, m.Name); err == nil {
		if err := tr.Update(podMetricsGVR, m, m.Namespace); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := tr.Create(podMetricsGVR, m, m.Namespace); err != nil {
		t.Fatal(err)
	}
}

func (e *metricsEnv) deletePod(t testing.TB, ns, name string) {
	t.Helper()
	if err := e.mcs.Tracker().Delete(podMetricsGVR, ns, name); err != nil {
		t.Fatal(err)
	}
}

func (e *metricsEnv) setNode(t testing.TB, name string, at time.Time, cpu, mem string) {
	t.Helper()
	m := &metricsv1beta1.NodeMetrics{ObjectMeta: metav1.ObjectMeta{Name: name}, Timestamp: metav1.NewTime(at),
		Window: metav1.Duration{Duration: 20 * time.Second}, Usage: usageList(cpu, mem)}
	tr := e.mcs.Tracker()
	if _, err := tr.Get(nodeMetricsGVR, "", name); err == nil {
		if err := tr.Update(nodeMetricsGVR, m, ""); err != nil {
			t.Fatal(err)
		}
		return
	}
	if err := tr.Create(nodeMetricsGVR, m, ""); err != nil {
		t.Fatal(err)
	}
}

// reads counts the metrics API requests made so far.
func (e *metricsEnv) reads() int {
	n := 0
	for _, a := range e.mcs.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "get" {
			n++
		}
	}
	return n
}

var demoPods = kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo"}

// TestMetricsPods: a pods request answers each pod's containers (rounded
// each, kubectl top --containers) and its Total summed exactly before
// rounding, as `kubectl top pod` prints it: three containers of 333333n
// are 1m, not 3m.
func TestMetricsPods(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil,
		cu{"a", "333333n", "1Mi"}, cu{"b", "333333n", "1Mi"}, cu{"c", "333333n", "512Ki"}))
	e.setPod(t, podMetrics("demo", "db", metricsEpoch.Add(-time.Second), nil, cu{"db", "1500m", "1Gi"}))
	e.setPod(t, podMetrics("other", "x", metricsEpoch, nil, cu{"x", "1", "1Mi"}))

	m := e.c.Metrics(context.Background(), demoPods)
	if m.Truncated != nil {
		t.Fatalf("truncated: %+v", m.Truncated)
	}
	if m.Request != demoPods || m.Nodes != nil || m.Generation == 0 || !m.Taken.Equal(metricsEpoch) {
		t.Errorf("answer: request %+v, nodes %v, generation %d, taken %v", m.Request, m.Nodes, m.Generation, m.Taken)
	}
	if len(m.Pods) != 2 {
		t.Fatalf("pods: %v", m.Pods)
	}
	web := m.Pods["demo/web"]
	if web.Namespace != "demo" || web.Name != "web" || !web.Timestamp.Equal(metricsEpoch) || web.Window != 15*time.Second {
		t.Errorf("web: %+v", web)
	}
	wantContainers := []kube.ContainerUsage{
		{Name: "a", Usage: kube.Usage{CPU: 1, Memory: 1 << 20}},
		{Name: "b", Usage: kube.Usage{CPU: 1, Memory: 1 << 20}},
		{Name: "c", Usage: kube.Usage{CPU: 1, Memory: 512 << 10}},
	}
	if fmt.Sprint(web.Containers) != fmt.Sprint(wantContainers) {
		t.Errorf("containers = %+v", web.Containers)
	}
	if want := (kube.Usage{CPU: 1, Memory: 2<<20 + 512<<10}); web.Total != want {
		t.Errorf("Total = %+v, want %+v (kubectl top pod: 1m)", web.Total, want)
	}
	if kube.FormatCPU(web.Total.CPU) != "1m" || kube.FormatMemory(web.Total.Memory) != "2Mi" {
		t.Errorf("printed %s %s", kube.FormatCPU(web.Total.CPU), kube.FormatMemory(web.Total.Memory))
	}
	if len(web.Trend) != 1 || web.Trend[0] != (kube.Sample{At: metricsEpoch, Usage: web.Total}) {
		t.Errorf("trend = %+v", web.Trend)
	}
	if db := m.Pods["demo/db"]; db.Total != (kube.Usage{CPU: 1500, Memory: 1 << 30}) {
		t.Errorf("db Total = %+v", db.Total)
	}

	all := e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: "po"})
	if len(all.Pods) != 3 || all.Request.Kind != "po" {
		t.Errorf("all namespaces by alias: %d pods, request %+v", len(all.Pods), all.Request)
	}
}

// TestMetricsNodes: a nodes request answers each node's usage; its
// namespace is ignored.
func TestMetricsNodes(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setNode(t, "n1", metricsEpoch, "1250m", "2Gi")
	e.setNode(t, "n2", metricsEpoch, "2", "512Mi")
	m := e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindNodes, Namespace: "ignored"})
	if m.Truncated != nil || m.Pods != nil || len(m.Nodes) != 2 {
		t.Fatalf("answer: %+v", m)
	}
	n1 := m.Nodes["n1"]
	if n1.Name != "n1" || n1.Usage != (kube.Usage{CPU: 1250, Memory: 2 << 30}) || n1.Window != 20*time.Second || len(n1.Trend) != 1 {
		t.Errorf("n1 = %+v", n1)
	}
	// The same request without the namespace is the same poll: no read.
	before := e.reads()
	e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: "nodes"})
	if e.reads() != before {
		t.Error("a nodes request with another namespace was read again")
	}
	one := e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: "no", Name: "n2"})
	if len(one.Nodes) != 1 || one.Nodes["n2"].Usage.CPU != 2000 {
		t.Errorf("one node: %+v", one.Nodes)
	}
}

// TestMetricsInterval: callers before a request's next read is due get the
// answer read, with the same Generation and no request; reads are at
// least 2s and at most MetricsInterval (and a half second) apart; a new
// sample moves the Generation, the same sample again does not; another
// request is polled on its own.
func TestMetricsInterval(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{MetricsInterval: 10 * time.Second})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	ctx := context.Background()
	first := e.c.Metrics(ctx, demoPods)
	e.clock.Advance(time.Second)
	second := e.c.Metrics(ctx, demoPods)
	if got := e.reads(); got != 1 {
		t.Fatalf("two calls a second apart made %d reads", got)
	}
	if second.Generation != first.Generation || !second.Taken.Equal(first.Taken) {
		t.Errorf("from the reading: generation %d -> %d, taken %v", first.Generation, second.Generation, second.Taken)
	}
	// Another request is polled on its own.
	e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web"})
	if got := e.reads(); got != 2 {
		t.Fatalf("another request: %d reads", got)
	}

	// The same sample until 9s: reads (if any) keep the Generation.
	var reads []time.Duration
	last := first
	for el := 1500 * time.Millisecond; el <= 30*time.Second; el += 500 * time.Millisecond {
		e.clock.Advance(500 * time.Millisecond)
		if el == 9*time.Second {
			e.setPod(t, podMetrics("demo", "web", metricsEpoch.Add(9*time.Second), nil, cu{"web", "20m", "1Mi"}))
		}
		before := e.reads()
		m := e.c.Metrics(ctx, demoPods)
		if e.reads() == before {
			if m.Generation != last.Generation {
				t.Errorf("at %v: generation moved without a read", el)
			}
			continue
		}
		reads = append(reads, el)
		web := m.Pods["demo/web"]
		switch {
		case el < 9*time.Second && (m.Generation != first.Generation || web.Total.CPU != 10):
			t.Errorf("at %v, the same sample: generation %d -> %d, cpu %d", el, first.Generation, m.Generation, web.Total.CPU)
		case el >= 9*time.Second && last.Pods["demo/web"].Total.CPU == 10 && (m.Generation == last.Generation || web.Total.CPU != 20 || len(web.Trend) != 2):
			t.Errorf("at %v, a new sample: generation %d -> %d, %+v", el, last.Generation, m.Generation, web)
		}
		if !m.Taken.Equal(metricsEpoch.Add(el)) {
			t.Errorf("Taken = %v at %v", m.Taken, el)
		}
		last = m
	}
	prev := time.Duration(0)
	for _, at := range reads {
		if gap := at - prev; gap < 2*time.Second || gap > 10500*time.Millisecond {
			t.Errorf("reads at %v: %v apart", reads, gap)
		}
		prev = at
	}
	if last.Pods["demo/web"].Total.CPU != 20 {
		t.Errorf("the new sample was never read: reads at %v", reads)
	}
}

// TestMetricsSharedRead: callers of a request while its read is in flight
// wait for that one read and all get its answer.
func TestMetricsSharedRead(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	release := make(chan struct{})
	e.mcs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return false, nil, nil
	})
	const callers = 8
	answers := make(chan kube.Metrics, callers)
	for range callers {
		go func() { answers <- e.c.Metrics(context.Background(), demoPods) }()
	}
	for kube.MetricsWaiting(e.c, demoPods) < callers {
		goruntime.Gosched() // until every caller waits: no time passes in the test
	}
	close(release)
	var gen uint64
	for range callers {
		m := <-answers
		if m.Truncated != nil || len(m.Pods) != 1 {
			t.Errorf("answer: %+v", m)
		}
		if gen != 0 && m.Generation != gen {
			t.Errorf("generations differ: %d, %d", gen, m.Generation)
		}
		gen = m.Generation
	}
	if got := e.reads(); got != 1 {
		t.Errorf("%d callers made %d reads", callers, got)
	}
}

// TestMetricsCallerGivesUp: a caller whose context ends before the first
// read does gets a truncation, not a hang; the read goes on for the next.
func TestMetricsCallerGivesUp(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	release := make(chan struct{})
	e.mcs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		<-release
		return false, nil, nil
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := e.c.Metrics(ctx, demoPods)
	if m.Truncated == nil || m.Request != demoPods {
		t.Fatalf("a cancelled caller: %+v", m)
	}
	close(release)
	m = e.c.Metrics(context.Background(), demoPods)
	if m.Truncated != nil || len(m.Pods) != 1 || e.reads() != 1 {
		t.Errorf("the next caller: %+v, %d reads", m, e.reads())
	}
}

// TestMetricsTruncated: a metrics API that is not served, forbidden,
// unavailable or slow is named in Truncated with a reason and a message
// a person can act on (the server's own text kept), never an error.
func TestMetricsTruncated(t *testing.T) {
	gr := schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}
	cases := []struct {
		name   string
		err    error
		reason kube.Reason
		says   []string
	}{
		{"not served", apierrors.NewGenericServerResponse(404, "list", gr, "", "", 0, false), kube.ReasonNotFound,
			[]string{"metrics-server", "metrics.k8s.io", "could not find the requested resource"}},
		{"forbidden", apierrors.NewForbidden(gr, "", errors.New(`User "viewer" cannot list resource "pods" in API group "metrics.k8s.io"`)),
			kube.ReasonForbidden, []string{`User "viewer" cannot list resource "pods" in API group "metrics.k8s.io"`}},
		{"service unavailable", apierrors.NewServiceUnavailable("the backend is down"), kube.ReasonUnavailable,
			[]string{"metrics-server", "the backend is down"}},
		{"server timeout", apierrors.NewTimeoutError("took too long", 1), kube.ReasonTimeout, []string{"did not answer in time", "took too long"}},
		{"deadline", fmt.Errorf("list: %w", context.DeadlineExceeded), kube.ReasonTimeout, []string{"did not answer in time"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newMetricsEnv(t, kube.Options{})
			e.mcs.PrependReactor("*", "*", func(k8stesting.Action) (bool, runtime.Object, error) { return true, nil, tc.err })
			m := e.c.Metrics(context.Background(), demoPods)
			if m.Truncated == nil {
				t.Fatal("not truncated")
			}
			if m.Truncated.Reason != tc.reason || m.Truncated.Kind != kube.KindPods {
				t.Errorf("truncation %+v, want reason %s", m.Truncated, tc.reason)
			}
			for _, s := range tc.says {
				if !strings.Contains(m.Truncated.Message, s) {
					t.Errorf("message %q does not say %q", m.Truncated.Message, s)
				}
			}
			if m.Pods == nil || len(m.Pods) != 0 || m.Generation == 0 {
				t.Errorf("pods %v, generation %d", m.Pods, m.Generation)
			}
		})
	}
	t.Run("no metrics client", func(t *testing.T) {
		c := kube.NewFromClientset(fake.NewClientset(), kube.Options{Registry: kinds.Builtin()})
		defer c.Close()
		m := c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindNodes})
		if m.Truncated == nil || m.Truncated.Reason != kube.ReasonNotFound || m.Nodes == nil {
			t.Errorf("answer %+v", m)
		}
	})
}

// TestMetricsRefusedBeforeReading: a kind the metrics API does not serve
// and a malformed label selector are truncated without a request.
func TestMetricsRefusedBeforeReading(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	cases := []struct {
		req    kube.MetricsRequest
		reason kube.Reason
	}{
		{kube.MetricsRequest{Kind: "deployments"}, kube.ReasonUnknownKind},
		{kube.MetricsRequest{Kind: "widgets"}, kube.ReasonUnknownKind},
		{kube.MetricsRequest{Kind: kube.KindPods, Labels: "app in (a"}, kube.ReasonInvalid},
		{kube.MetricsRequest{Kind: kube.KindPods, Name: "web"}, kube.ReasonInvalid},
	}
	for _, tc := range cases {
		m := e.c.Metrics(context.Background(), tc.req)
		if m.Truncated == nil || m.Truncated.Reason != tc.reason || m.Truncated.Kind != tc.req.Kind || m.Generation == 0 {
			t.Errorf("%+v: %+v", tc.req, m)
		}
	}
	if e.reads() != 0 {
		t.Errorf("%d reads", e.reads())
	}
}

// TestMetricsKeepsLastReading: a read that fails after a good one keeps
// the good one's pods (their trends stay drawable) and says why; the
// generation moves both ways.
func TestMetricsKeepsLastReading(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	ctx := context.Background()
	good := e.c.Metrics(ctx, demoPods)
	fail := true
	e.mcs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
		if fail {
			return true, nil, apierrors.NewServiceUnavailable("down")
		}
		return false, nil, nil
	})
	e.clock.Advance(kube.DefaultMetricsInterval)
	bad := e.c.Metrics(ctx, demoPods)
	if bad.Truncated == nil || bad.Truncated.Reason != kube.ReasonUnavailable {
		t.Fatalf("truncated %+v", bad.Truncated)
	}
	if len(bad.Pods) != 1 || bad.Pods["demo/web"].Total != good.Pods["demo/web"].Total || bad.Generation == good.Generation {
		t.Errorf("after a failed read: pods %v, generation %d -> %d", bad.Pods, good.Generation, bad.Generation)
	}
	fail = false
	e.clock.Advance(kube.DefaultMetricsInterval)
	back := e.c.Metrics(ctx, demoPods)
	if back.Truncated != nil || back.Generation == bad.Generation || len(back.Pods) != 1 {
		t.Errorf("recovered: %+v", back)
	}
}

// TestMetricsOnePod: a request naming a pod gets it; one metrics-server
// has no sample of yet is absent, not an error.
func TestMetricsOnePod(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "10m", "1Mi"}))
	m := e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "web"})
	if m.Truncated != nil || len(m.Pods) != 1 {
		t.Errorf("web: %+v", m)
	}
	m = e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Name: "new"})
	if m.Truncated != nil || m.Pods == nil || len(m.Pods) != 0 {
		t.Errorf("a pod without a sample: %+v", m)
	}
	if e.reads() != 2 {
		t.Errorf("%d reads", e.reads())
	}
}

// TestMetricsLabels: the label selector goes to the API.
func TestMetricsLabels(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "web-1", metricsEpoch, map[string]string{"app": "web"}, cu{"web", "10m", "1Mi"}))
	e.setPod(t, podMetrics("demo", "db-1", metricsEpoch, map[string]string{"app": "db"}, cu{"db", "10m", "1Mi"}))
	m := e.c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: "demo", Labels: "app=web"})
	if len(m.Pods) != 1 || m.Pods["demo/web-1"].Name != "web-1" {
		t.Errorf("pods %v", m.Pods)
	}
	for _, a := range e.mcs.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok && l.GetListRestrictions().Labels.String() != "app=web" {
			t.Errorf("listed with labels %q", l.GetListRestrictions().Labels)
		}
	}
}

// TestMetricsMalformedQuantities: usage the API reports negative or too
// large for an int64 is NotSet (shown n/a), and so is a Total it would
// enter; a resource a container leaves out is NotSet for it alone.
func TestMetricsMalformedQuantities(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{})
	e.setPod(t, podMetrics("demo", "neg", metricsEpoch, nil, cu{"a", "-5m", "1Mi"}, cu{"b", "5m", "1Mi"}))
	e.setPod(t, podMetrics("demo", "huge", metricsEpoch, nil, cu{"a", "100E", "100E"}))
	e.setPod(t, podMetrics("demo", "partial", metricsEpoch, nil, cu{"a", "5m", ""}, cu{"b", "", "2Mi"}))
	e.setPod(t, podMetrics("demo", "empty", metricsEpoch, nil))
	m := e.c.Metrics(context.Background(), demoPods)
	unset := kube.NotSet
	want := map[string]kube.Usage{
		"neg":     {CPU: unset, Memory: 2 << 20},
		"huge":    {CPU: unset, Memory: unset},
		"partial": {CPU: 5, Memory: 2 << 20},
		"empty":   {CPU: unset, Memory: unset},
	}
	for name, w := range want {
		p := m.Pods["demo/"+name]
		if p.Total != w {
			t.Errorf("%s: Total %+v, want %+v", name, p.Total, w)
		}
		for _, c := range p.Containers {
			if c.Usage.CPU < unset || c.Usage.Memory < unset {
				t.Errorf("%s/%s: %+v", name, c.Name, c.Usage)
			}
		}
	}
	if got := m.Pods["demo/neg"].Containers[0].Usage.CPU; got != unset {
		t.Errorf("negative cpu = %d", got)
	}
	if got := m.Pods["demo/partial"].Containers[1].Usage; got != (kube.Usage{CPU: unset, Memory: 2 << 20}) {
		t.Errorf("a container without cpu: %+v", got)
	}
}

// TestMetricsHistory: a trend keeps one sample per distinct timestamp, at
// most MetricsHistory, oldest first.
func TestMetricsHistory(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{MetricsHistory: 5, MetricsInterval: time.Second})
	ctx := context.Background()
	var last kube.Metrics
	for i := range 12 {
		at := metricsEpoch.Add(time.Duration(i/2) * 15 * time.Second) // each sample read twice
		e.setPod(t, podMetrics("demo", "web", at, nil, cu{"web", fmt.Sprintf("%dm", i/2+1), "1Mi"}))
		e.setNode(t, "n1", at, fmt.Sprintf("%dm", i/2+1), "1Mi")
		last = e.c.Metrics(ctx, demoPods)
		e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindNodes})
		e.clock.Advance(time.Second)
	}
	for what, trend := range map[string][]kube.Sample{
		"pod":  last.Pods["demo/web"].Trend,
		"node": e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindNodes}).Nodes["n1"].Trend,
	} {
		if len(trend) != 5 {
			t.Fatalf("%s: %d samples", what, len(trend))
		}
		for i, s := range trend {
			if want := metricsEpoch.Add(time.Duration(i+1) * 15 * time.Second); !s.At.Equal(want) || s.Usage.CPU != int64(i+2) {
				t.Errorf("%s sample %d: %+v, want at %v", what, i, s, want)
			}
		}
	}
}

// TestMetricsTrendImmutable: a trend handed out never changes, however
// many samples come after, and a caller appending to it changes no other.
func TestMetricsTrendImmutable(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{MetricsHistory: 4, MetricsInterval: time.Second})
	ctx := context.Background()
	var kept [][]kube.Sample
	var copies [][]kube.Sample
	for i := range 20 {
		e.setPod(t, podMetrics("demo", "web", metricsEpoch.Add(time.Duration(i)*time.Second), nil, cu{"web", fmt.Sprintf("%dm", i+1), "1Mi"}))
		trend := e.c.Metrics(ctx, demoPods).Pods["demo/web"].Trend
		kept = append(kept, trend)
		copies = append(copies, append([]kube.Sample(nil), trend...))
		_ = append(trend, kube.Sample{At: time.Unix(1, 0)}) // a careless caller
		e.clock.Advance(time.Second)
	}
	for i := range kept {
		if fmt.Sprint(kept[i]) != fmt.Sprint(copies[i]) {
			t.Errorf("trend %d changed:\n%v\nwas\n%v", i, kept[i], copies[i])
		}
	}
}

// TestMetricsPrune: the janitor drops the polls no caller asked for in
// CacheIdle and the histories of objects no reading reported as long; a
// request still asked for keeps its objects but those gone from it.
func TestMetricsPrune(t *testing.T) {
	e := newMetricsEnv(t, kube.Options{CacheIdle: time.Minute, MetricsInterval: time.Second})
	ctx := context.Background()
	e.setPod(t, podMetrics("demo", "web", metricsEpoch, nil, cu{"web", "1m", "1Mi"}))
	e.setPod(t, podMetrics("demo", "gone", metricsEpoch, nil, cu{"gone", "1m", "1Mi"}))
	e.setNode(t, "n1", metricsEpoch, "1", "1Mi")
	e.c.Metrics(ctx, demoPods)
	e.c.Metrics(ctx, kube.MetricsRequest{Kind: kube.KindNodes})
	if polls, pods, nodes := kube.MetricsHeld(e.c); polls != 2 || pods != 2 || nodes != 1 {
		t.Fatalf("held: %d polls, %d pods, %d nodes", polls, pods, nodes)
	}
	e.deletePod(t, "demo", "gone")
	for range 4 { // demo's pods asked for every 30s; nodes not
		e.clock.Advance(30 * time.Second)
		e.c.Metrics(ctx, demoPods)
		kube.PruneMetrics(e.c)
	}
	if polls, pods, nodes := kube.MetricsHeld(e.c); polls != 1 || pods != 1 || nodes != 0 {
		t.Errorf("after two idle minutes: %d polls, %d pods, %d nodes; want 1, 1, 0", polls, pods, nodes)
	}
	if m := e.c.Metrics(ctx, demoPods); len(m.Pods) != 1 || len(m.Pods["demo/web"].Trend) != 1 {
		t.Errorf("the request asked for: %+v", m.Pods)
	}
}

// TestWorkloadUsage: a Deployment's containers' latest usage over the pods
// its selector selects, in the pod template's order (containers, then
// sidecars), with the Min, Max and Mean over the pods that reported each.
func TestWorkloadUsage(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	one := int32(3)
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "demo", Name: "web"}, Spec: appsv1.DeploymentSpec{
		Replicas: &one,
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}}, Spec: corev1.PodSpec{
			InitContainers: []corev1.Container{{Name: "setup"}, {Name: "log-shipper", RestartPolicy: &always}},
			Containers:     []corev1.Container{{Name: "web"}, {Name: "proxy"}, {Name: "idle"}},
		}},
	}}
	e := newMetricsEnv(t, kube.Options{}, d)
	web := map[string]string{"app": "web"}
	e.setPod(t, podMetrics("demo", "web-1", metricsEpoch, web, cu{"log-shipper", "5m", "8Mi"}, cu{"proxy", "10m", "10Mi"}, cu{"web", "100m", "100Mi"}))
	e.setPod(t, podMetrics("demo", "web-2", metricsEpoch, web, cu{"proxy", "20m", "20Mi"}, cu{"web", "201m", "200Mi"}))
	e.setPod(t, podMetrics("demo", "web-3", metricsEpoch, web, cu{"web", "300m", "300Mi"}, cu{"stray", "1", "1Gi"}))
	e.setPod(t, podMetrics("demo", "db-0", metricsEpoch, map[string]string{"app": "db"}, cu{"web", "9", "9Gi"}))

	got := e.c.WorkloadUsage(context.Background(), kube.WorkloadRef{Kind: "deploy", Namespace: "demo", Name: "web"})
	if got.Truncated != nil || !got.Taken.Equal(metricsEpoch) {
		t.Fatalf("truncated %+v, taken %v", got.Truncated, got.Taken)
	}
	u := func(cpu, mem int64) kube.Usage { return kube.Usage{CPU: cpu, Memory: mem << 20} }
	want := []kube.ContainerUsageSummary{
		{Name: "web", Pods: 3, Min: u(100, 100), Max: u(300, 300), Mean: u(200, 200)},
		{Name: "proxy", Pods: 2, Min: u(10, 10), Max: u(20, 20), Mean: u(15, 15)},
		{Name: "log-shipper", Pods: 1, Min: u(5, 8), Max: u(5, 8), Mean: u(5, 8)},
	}
	if fmt.Sprint(got.Containers) != fmt.Sprint(want) {
		t.Errorf("containers:\n%+v\nwant\n%+v", got.Containers, want)
	}
	// The selector went to the metrics API.
	var labels []string
	for _, a := range e.mcs.Actions() {
		if l, ok := a.(k8stesting.ListAction); ok {
			labels = append(labels, l.GetListRestrictions().Labels.String())
		}
	}
	if fmt.Sprint(labels) != "[app=web]" {
		t.Errorf("metrics lists: %v", labels)
	}

	t.Run("truncated", func(t *testing.T) {
		cases := []struct {
			ref    kube.WorkloadRef
			setup  func(e *metricsEnv)
			kind   kube.Kind
			reason kube.Reason
		}{
			{kube.WorkloadRef{Kind: "deployments", Namespace: "demo", Name: "nope"}, nil, "deployments", kube.ReasonNotFound},
			{kube.WorkloadRef{Kind: "pods", Namespace: "demo", Name: "web-1"}, nil, "pods", kube.ReasonInvalid},
			{kube.WorkloadRef{Kind: "deployments", Namespace: "demo", Name: "web"}, func(e *metricsEnv) {
				e.mcs.PrependReactor("list", "pods", func(k8stesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewForbidden(schema.GroupResource{Group: "metrics.k8s.io", Resource: "pods"}, "", errors.New("no"))
				})
			}, kube.KindPods, kube.ReasonForbidden},
		}
		for _, tc := range cases {
			e := newMetricsEnv(t, kube.Options{}, d)
			if tc.setup != nil {
				tc.setup(e)
			}
			got := e.c.WorkloadUsage(context.Background(), tc.ref)
			if got.Truncated == nil || got.Truncated.Reason != tc.reason || got.Truncated.Kind != tc.kind || len(got.Containers) != 0 {
				t.Errorf("%v: %+v (truncated %+v)", tc.ref, got, got.Truncated)
			}
		}
	})
}

// BenchmarkMetricsCached measures Metrics answered from the poll's reading
// (within the interval) at 10,000 pods: what every screen refresh costs.
func BenchmarkMetricsCached(b *testing.B) {
	e := newMetricsEnv(b, kube.Options{})
	for i := range 10000 {
		e.setPod(b, podMetrics(fmt.Sprintf("ns-%d", i%10), fmt.Sprintf("web-%05d", i), metricsEpoch, nil,
			cu{"app", "123456789n", "100Mi"}, cu{"proxy", "2345678n", "20Mi"}))
	}
	req := kube.MetricsRequest{Kind: kube.KindPods}
	if m := e.c.Metrics(context.Background(), req); len(m.Pods) != 10000 {
		b.Fatalf("%d pods", len(m.Pods))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		e.c.Metrics(context.Background(), req)
	}
}
