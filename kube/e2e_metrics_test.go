package kube_test

// End-to-end tests of the metrics API (issue 12) against the local
// cluster's metrics-server, which scrapes kwok's emulated usage: kube's
// numbers equal `kubectl top`'s, read from the same metrics-server sample.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// e2eSampleBudget bounds the wait for a consistent pair of readings (kube's
// and kubectl's from one metrics-server sample) or for a new pod's first
// sample: metrics-server scrapes every 15 s and needs two scrapes for a
// CPU rate.
const e2eSampleBudget = 120 * time.Second

// pollingClient is a Client with the default metrics schedule;
// consistentTop brackets a kubectl run with two Fresh reads.
func pollingClient(t *testing.T, cfg *rest.Config) *kube.Client {
	t.Helper()
	c, err := kube.NewFromConfig(cfg, kube.Options{Registry: kinds.Builtin()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// kubectlTop runs the local kubectl with the admin kubeconfig (or another)
// and returns its output's lines split in fields; failed is its stderr
// when it failed.
func kubectlTop(t *testing.T, kubeconfig string, args ...string) (rows [][]string, failed string) {
	t.Helper()
	kubetest.Local(t)
	kubectl := os.Getenv(kubetest.KubectlEnv)
	if kubectl == "" {
		t.Skipf("%s is not set", kubetest.KubectlEnv)
	}
	if kubeconfig == "" {
		kubeconfig = os.Getenv(kubetest.KubeconfigEnv)
	}
	cmd := exec.Command(kubectl, append([]string{"--kubeconfig", kubeconfig, "top"}, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return nil, strings.TrimSpace(stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if f := strings.Fields(line); len(f) > 0 {
			rows = append(rows, f)
		}
	}
	return rows, ""
}

// sampleTimes are the sample times of an answer, by object.
func sampleTimes(m kube.Metrics) map[string]time.Time {
	out := map[string]time.Time{}
	for k, p := range m.Pods {
		out[k] = p.Timestamp
	}
	for k, n := range m.Nodes {
		out[k] = n.Timestamp
	}
	return out
}

func sameTimes(a, b map[string]time.Time) bool {
	if len(a) != len(b) {
		return false
	}
	for k, t := range a {
		if !b[k].Equal(t) {
			return false
		}
	}
	return true
}

// consistentTop reads req, runs kubectl top with args, and reads req
// again (both Fresh reads, over a second apart, so that the second is a
// new read), until both readings name the same samples (metrics-server
// did not scrape in between, so kubectl read them too), and returns the
// second reading and kubectl's rows; check says whether they agree, and
// the test fails with its last complaints when no consistent pair agrees
// in time.
func consistentTop(t *testing.T, c *kube.Client, req kube.MetricsRequest, args []string,
	check func(m kube.Metrics, rows [][]string) []string) {
	t.Helper()
	req.Fresh = true
	deadline := time.Now().Add(e2eSampleBudget)
	var complaints []string
	for {
		before := c.Metrics(context.Background(), req)
		if before.Truncated != nil {
			t.Fatalf("metrics truncated: %+v", before.Truncated)
		}
		rows, failed := kubectlTop(t, "", args...)
		if wait := time.Until(before.Taken.Add(1100 * time.Millisecond)); wait > 0 {
			time.Sleep(wait)
		}
		after := c.Metrics(context.Background(), req)
		if !after.Taken.After(before.Taken) {
			t.Fatalf("the second Fresh read was not a read: taken %v, then %v", before.Taken, after.Taken)
		}
		if failed == "" && len(after.Pods)+len(after.Nodes) > 0 && sameTimes(sampleTimes(before), sampleTimes(after)) {
			if complaints = check(after, rows); len(complaints) == 0 {
				return
			}
		} else if failed != "" {
			complaints = []string{"kubectl top: " + failed}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no consistent agreement with kubectl top %v within %v:\n%s", args, e2eSampleBudget, strings.Join(complaints, "\n"))
		}
		time.Sleep(time.Second)
	}
}

// TestE2EMetricsPodsEqualKubectlTop: the demo pods' CPU and memory equal
// `kubectl top pods -n demo`, and each container's `--containers`.
func TestE2EMetricsPodsEqualKubectlTop(t *testing.T) {
	c := pollingClient(t, kubetest.Local(t))
	req := kube.MetricsRequest{Kind: kube.KindPods, Namespace: kubetest.DemoNamespace}
	consistentTop(t, c, req, []string{"pods", "-n", kubetest.DemoNamespace, "--no-headers"},
		func(m kube.Metrics, rows [][]string) []string {
			var bad []string
			seen := map[string]bool{}
			for _, r := range rows {
				if len(r) != 3 {
					return []string{"a kubectl row of " + strings.Join(r, " ")}
				}
				seen[r[0]] = true
				p, ok := m.Pods[kubetest.DemoNamespace+"/"+r[0]]
				if !ok {
					bad = append(bad, "kube has no metrics of "+r[0])
					continue
				}
				if got := []string{kube.FormatCPU(p.Total.CPU), kube.FormatMemory(p.Total.Memory)}; !slices.Equal(got, r[1:]) {
					bad = append(bad, r[0]+": kube "+strings.Join(got, " ")+", kubectl "+strings.Join(r[1:], " "))
				}
			}
			for k := range m.Pods {
				if !seen[strings.TrimPrefix(k, kubetest.DemoNamespace+"/")] {
					bad = append(bad, "kubectl has no metrics of "+k)
				}
			}
			return bad
		})
	consistentTop(t, c, req, []string{"pods", "-n", kubetest.DemoNamespace, "--containers", "--no-headers"},
		func(m kube.Metrics, rows [][]string) []string {
			var bad []string
			n := 0
			for _, p := range m.Pods {
				n += len(p.Containers)
			}
			if n != len(rows) {
				bad = append(bad, "container counts differ")
			}
			for _, r := range rows {
				if len(r) != 4 {
					return []string{"a kubectl row of " + strings.Join(r, " ")}
				}
				p := m.Pods[kubetest.DemoNamespace+"/"+r[0]]
				i := slices.IndexFunc(p.Containers, func(c kube.ContainerUsage) bool { return c.Name == r[1] })
				if i < 0 {
					bad = append(bad, "kube has no container "+r[0]+"/"+r[1])
					continue
				}
				u := p.Containers[i].Usage
				if got := []string{kube.FormatCPU(u.CPU), kube.FormatMemory(u.Memory)}; !slices.Equal(got, r[2:]) {
					bad = append(bad, r[0]+"/"+r[1]+": kube "+strings.Join(got, " ")+", kubectl "+strings.Join(r[2:], " "))
				}
			}
			return bad
		})
}

// TestE2EMetricsNodesEqualKubectlTop: the nodes' CPU, %CPU, MEMORY and
// %MEMORY (of their rows' allocatable) equal `kubectl top nodes`.
func TestE2EMetricsNodesEqualKubectlTop(t *testing.T) {
	c := pollingClient(t, kubetest.Local(t))
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kube.KindNodes}})
	nodes, ok := snap.Table(kube.KindNodes)
	if !ok {
		t.Fatalf("nodes: %+v", snap.Truncated)
	}
	alloc := map[string]kube.Usage{}
	for _, r := range nodes.Rows {
		if r.Resources == nil {
			t.Fatalf("node %s has no Resources", r.Name)
		}
		alloc[r.Name] = r.Resources.Allocatable
	}
	consistentTop(t, c, kube.MetricsRequest{Kind: kube.KindNodes}, []string{"nodes", "--no-headers"},
		func(m kube.Metrics, rows [][]string) []string {
			var bad []string
			for _, r := range rows {
				n, ok := m.Nodes[r[0]]
				if !ok {
					if !slices.Contains(r, "<unknown>") {
						bad = append(bad, "kube has no metrics of node "+r[0])
					}
					continue
				}
				cpu, mem := kube.NodeUtilisation(alloc[r[0]], n.Usage)
				got := []string{r[0], kube.FormatCPU(n.Usage.CPU), cpu.String(), kube.FormatMemory(n.Usage.Memory), mem.String()}
				if !slices.Equal(got, r) {
					bad = append(bad, "kube "+strings.Join(got, " ")+", kubectl "+strings.Join(r, " "))
				}
			}
			if len(m.Nodes) == 0 {
				bad = append(bad, "no node metrics")
			}
			return bad
		})
}

// TestE2EMetricsUtilisationPartial: a pod whose containers set requests
// only, limits only (the API server defaults the requests to them) and
// nothing gives shares over the containers that set each amount, marked
// partial, from the row's resources and the pod's usage; the containers'
// usage equals `kubectl top pod --containers`.
func TestE2EMetricsUtilisationPartial(t *testing.T) {
	cfg := kubetest.Local(t)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ns := kubetest.TempNamespace(t, cs, "mkube-metrics")
	spec := kwokPodSpec("registry.example/app:1")
	spec.Containers = []corev1.Container{
		{Name: "req", Image: "registry.example/app:1", Resources: corev1.ResourceRequirements{
			Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m"), corev1.ResourceMemory: resource.MustParse("64Mi")}}},
		{Name: "lim", Image: "registry.example/app:1", Resources: corev1.ResourceRequirements{
			Limits: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("200m"), corev1.ResourceMemory: resource.MustParse("128Mi")}}},
		{Name: "none", Image: "registry.example/app:1"},
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "partial", Namespace: ns,
		Annotations: map[string]string{"kyyard.dev/usage-cpu": "80m", "kyyard.dev/usage-memory": "40Mi"}}, Spec: spec}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	c := pollingClient(t, cfg)

	// The row carries the resources as the stored pod has them.
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kube.KindPods}, Namespace: ns})
	table, ok := snap.Table(kube.KindPods)
	if !ok || len(table.Rows) != 1 || table.Rows[0].Resources == nil {
		t.Fatalf("pods of %s: %+v %+v", ns, table.Rows, snap.Truncated)
	}
	res := table.Rows[0].Resources.Containers
	unset := kube.NotSet
	want := []kube.ContainerResources{
		{Name: "req", Requests: kube.Usage{CPU: 100, Memory: 64 << 20}, Limits: kube.Usage{CPU: unset, Memory: unset}},
		{Name: "lim", Requests: kube.Usage{CPU: 200, Memory: 128 << 20}, Limits: kube.Usage{CPU: 200, Memory: 128 << 20}},
		{Name: "none", Requests: kube.Usage{CPU: unset, Memory: unset}, Limits: kube.Usage{CPU: unset, Memory: unset}},
	}
	if !slices.Equal(res, want) {
		t.Fatalf("row resources %+v\nwant %+v", res, want)
	}

	req := kube.MetricsRequest{Kind: kube.KindPods, Namespace: ns, Name: "partial"}
	deadline := time.Now().Add(e2eSampleBudget)
	var pu kube.PodUsage
	for {
		m := c.Metrics(context.Background(), req)
		if m.Truncated != nil {
			t.Fatalf("truncated: %+v", m.Truncated)
		}
		if p, ok := m.Pods[ns+"/partial"]; ok && len(p.Containers) == 3 {
			pu = p
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no metrics of %s/partial within %v", ns, e2eSampleBudget)
		}
		time.Sleep(time.Second)
	}
	usage := map[string]kube.Usage{}
	for _, c := range pu.Containers {
		usage[c.Name] = c.Usage
	}
	pct := func(used, of int64) int64 { return int64(float64(used)*100/float64(of) + 0.5) }
	u := kube.PodUtilisation(res, pu.Containers)
	wantU := kube.Utilisation{
		Usage:         kube.Usage{CPU: usage["req"].CPU + usage["lim"].CPU + usage["none"].CPU, Memory: usage["req"].Memory + usage["lim"].Memory + usage["none"].Memory},
		CPURequest:    kube.Percent{Value: pct(usage["req"].CPU+usage["lim"].CPU, 300), Set: true, Partial: true},
		CPULimit:      kube.Percent{Value: pct(usage["lim"].CPU, 200), Set: true, Partial: true},
		MemoryRequest: kube.Percent{Value: pct(usage["req"].Memory+usage["lim"].Memory, 192<<20), Set: true, Partial: true},
		MemoryLimit:   kube.Percent{Value: pct(usage["lim"].Memory, 128<<20), Set: true, Partial: true},
	}
	if u != wantU {
		t.Errorf("utilisation %+v\nwant %+v", u, wantU)
	}
	if u.CPULimit.String() != strings.TrimSuffix(u.CPULimit.String(), "*")+"*" {
		t.Errorf("%%CPU/L %q is not marked partial", u.CPULimit.String())
	}

	consistentTop(t, c, req, []string{"pod", "partial", "-n", ns, "--containers", "--no-headers"},
		func(m kube.Metrics, rows [][]string) []string {
			var bad []string
			p := m.Pods[ns+"/partial"]
			if len(rows) != len(p.Containers) {
				return []string{"container counts differ"}
			}
			for _, r := range rows {
				i := slices.IndexFunc(p.Containers, func(c kube.ContainerUsage) bool { return c.Name == r[1] })
				if i < 0 {
					bad = append(bad, "no container "+r[1])
					continue
				}
				u := p.Containers[i].Usage
				if got := []string{kube.FormatCPU(u.CPU), kube.FormatMemory(u.Memory)}; !slices.Equal(got, r[2:]) {
					bad = append(bad, r[1]+": kube "+strings.Join(got, " ")+", kubectl "+strings.Join(r[2:], " "))
				}
			}
			return bad
		})
}

// TestE2EMetricsForbidden: the read-only user may not read the metrics
// API: Truncated says forbidden with the API server's own message (the one
// kubectl top prints), never an error.
func TestE2EMetricsForbidden(t *testing.T) {
	ro := kubetest.LocalReadOnly(t)
	c := pollingClient(t, ro)
	m := c.Metrics(context.Background(), kube.MetricsRequest{Kind: kube.KindPods, Namespace: kubetest.DemoNamespace})
	if m.Truncated == nil || m.Truncated.Reason != kube.ReasonForbidden {
		t.Fatalf("read-only metrics: %+v", m)
	}
	if m.Pods == nil || len(m.Pods) != 0 {
		t.Errorf("pods %v", m.Pods)
	}
	_, failed := kubectlTop(t, os.Getenv(kubetest.ReadOnlyKubeconfigEnv), "pods", "-n", kubetest.DemoNamespace)
	server := strings.TrimPrefix(failed, "Error from server (Forbidden): ")
	if failed == "" || !strings.Contains(m.Truncated.Message, server) {
		t.Errorf("message %q does not hold the server's %q", m.Truncated.Message, server)
	}
	w := c.WorkloadUsage(context.Background(), kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: kubetest.DemoNamespace, Name: "web"})
	if w.Truncated == nil || w.Truncated.Reason != kube.ReasonForbidden {
		t.Errorf("read-only workload usage: %+v", w.Truncated)
	}
}

// TestE2EWorkloadUsage: the demo web Deployment's container usage over its
// pods equals what `kubectl top pods -l <its selector> --containers`
// shows of the same sample.
func TestE2EWorkloadUsage(t *testing.T) {
	cfg := kubetest.Local(t)
	c := pollingClient(t, cfg)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d, err := cs.AppsV1().Deployments(kubetest.DemoNamespace).Get(context.Background(), "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sel := metav1.FormatLabelSelector(d.Spec.Selector)
	ref := kube.WorkloadRef{Kind: "deploy", Namespace: kubetest.DemoNamespace, Name: "web"}
	req := kube.MetricsRequest{Kind: kube.KindPods, Namespace: kubetest.DemoNamespace, Labels: sel}
	consistentTop(t, c, req, []string{"pods", "-n", kubetest.DemoNamespace, "-l", sel, "--containers", "--no-headers"},
		func(_ kube.Metrics, rows [][]string) []string {
			w := c.WorkloadUsage(context.Background(), ref)
			if w.Truncated != nil {
				return []string{"truncated: " + w.Truncated.Message}
			}
			if len(w.Containers) != 1 || w.Containers[0].Name != "web" {
				return []string{"containers " + strings.Join(containerNames(w), ",")}
			}
			s := w.Containers[0]
			var cpus []int64
			for _, r := range rows {
				q := resource.MustParse(r[2])
				cpus = append(cpus, q.MilliValue())
			}
			if s.Pods != len(rows) || s.Pods != int(*d.Spec.Replicas) {
				return []string{fmt.Sprintf("pods: kube %d, kubectl %v, replicas %d", s.Pods, rowNames(rows), *d.Spec.Replicas)}
			}
			var sum int64
			for _, v := range cpus {
				sum += v
			}
			n := int64(len(cpus))
			got := []int64{s.Min.CPU, s.Max.CPU, s.Mean.CPU}
			want := []int64{slices.Min(cpus), slices.Max(cpus), (sum + n/2) / n}
			if !slices.Equal(got, want) {
				return []string{"cpu min/max/mean: kube " + strings.Join(fmtAll(got), " ") + ", kubectl " + strings.Join(fmtAll(want), " ")}
			}
			if !(s.Min.Memory <= s.Mean.Memory && s.Mean.Memory <= s.Max.Memory && s.Min.Memory > 0) {
				return []string{"memory min/mean/max out of order"}
			}
			return nil
		})
}

func containerNames(w kube.WorkloadUsage) []string {
	var out []string
	for _, c := range w.Containers {
		out = append(out, c.Name)
	}
	return out
}

func rowNames(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, r[0])
	}
	return out
}

func fmtAll(vs []int64) []string {
	var out []string
	for _, v := range vs {
		out = append(out, kube.FormatCPU(v))
	}
	return out
}

// TestE2EMetricsReadsEverySample: a screen asking for the demo pods'
// metrics every 500ms for 65s reads every sample the local metrics-server
// publishes (the trend's steps are all its resolution: none skipped),
// with a few reads more than samples while the schedule learns the
// server's phase.
func TestE2EMetricsReadsEverySample(t *testing.T) {
	cfg := rest.CopyConfig(kubetest.Local(t))
	var mu sync.Mutex
	reads := 0
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper {
		return roundTripFunc(func(r *http.Request) (*http.Response, error) {
			if strings.HasPrefix(r.URL.Path, "/apis/metrics.k8s.io/") {
				mu.Lock()
				reads++
				mu.Unlock()
			}
			return rt.RoundTrip(r)
		})
	})
	c := pollingClient(t, cfg)
	req := kube.MetricsRequest{Kind: kube.KindPods, Namespace: kubetest.DemoNamespace}
	var last kube.Metrics
	for end := time.Now().Add(65 * time.Second); time.Now().Before(end); time.Sleep(500 * time.Millisecond) {
		last = c.Metrics(context.Background(), req)
		if last.Truncated != nil {
			t.Fatalf("truncated: %+v", last.Truncated)
		}
	}
	// The pod with the longest trend (one that ran all along).
	var trend []kube.Sample
	for _, p := range last.Pods {
		if len(p.Trend) > len(trend) {
			trend = p.Trend
		}
	}
	if len(trend) < 4 {
		t.Fatalf("trend of %d samples in 65s", len(trend))
	}
	var steps []time.Duration
	res := time.Duration(0)
	for i := 1; i < len(trend); i++ {
		step := trend[i].At.Sub(trend[i-1].At)
		steps = append(steps, step)
		if res == 0 || step < res {
			res = step
		}
	}
	mu.Lock()
	n := reads
	mu.Unlock()
	t.Logf("%d samples, steps %v, %d reads", len(trend), steps, n)
	for i, s := range steps {
		// A step may differ from the resolution by the scrape's jitter,
		// never by a whole sample.
		if s > res+res/2 {
			t.Errorf("sample skipped between trend[%d] and [%d]: %v (resolution %v)", i, i+1, s, res)
		}
	}
	if n > len(trend)+8 {
		t.Errorf("%d reads for %d samples", n, len(trend))
	}
}
