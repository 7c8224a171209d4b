package inventory_test

import (
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// metricsClient returns a client of the local cluster (the read-only
// user's when readOnly). It reads metrics: *kube.Client is a
// views.MetricsSource, which ui/client.go checks at compile time.
func metricsClient(t *testing.T, readOnly bool) *kube.Client {
	t.Helper()
	cfg := kubetest.Local(t)
	if readOnly {
		cfg = kubetest.LocalReadOnly(t)
	}
	return kubetest.Client(t, cfg)
}

// kubectlTop returns `kubectl top <what> --no-headers` as name → fields.
func kubectlTop(t *testing.T, args ...string) map[string][]string {
	t.Helper()
	return kubectlTopIn(t, []string{"--kubeconfig", os.Getenv(kubetest.KubeconfigEnv)}, args...)
}

// kubectlTopIn is kubectlTop with the kubeconfig (and context) flags given.
func kubectlTopIn(t *testing.T, config []string, args ...string) map[string][]string {
	t.Helper()
	kubectl := os.Getenv(kubetest.KubectlEnv)
	if kubectl == "" {
		t.Skip("no " + kubetest.KubectlEnv)
	}
	out, err := exec.Command(kubectl, append(append(append(config, "top"), args...), "--no-headers")...).CombinedOutput()
	if err != nil {
		t.Fatalf("kubectl top %v: %v\n%s", args, err, out)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			rows[f[0]] = f[1:]
		}
	}
	return rows
}

// cellAt returns the cell of column header on the row of name ("" when
// either is not on screen), read at the header's position in the line
// (the header line is the first with a NAME column).
func cellAt(view, name, header string) string {
	var head []rune
	for _, l := range strings.Split(view, "\n") {
		if slices.Contains(strings.Fields(l), "NAME") {
			head = []rune(l)
			break
		}
	}
	at := -1
	for i := range head {
		if strings.HasPrefix(string(head[i:]), header+" ") && (i == 0 || head[i-1] == ' ') {
			at = i
			break
		}
	}
	row := []rune(rowOf(view, name))
	if at < 0 || at >= len(row) {
		return ""
	}
	f := strings.Fields(string(row[at:]))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// TestE2EMetricsColumnsEqualKubectlTop: the CPU and MEM of the demo pods
// and of the nodes are what `kubectl top` prints (read a few times: a
// sample may turn over between the two reads).
func TestE2EMetricsColumnsEqualKubectlTop(t *testing.T) {
	client := metricsClient(t, false)
	for _, c := range []struct {
		kind      kube.Kind
		top       []string
		tcpu, tmm int // the columns' positions in kubectl top's output after NAME
	}{
		{kube.KindPods, []string{"pods", "-n", "demo"}, 0, 1},
		{kube.KindNodes, []string{"nodes"}, 0, 2},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			m, err := inventory.New(viewtest.Context(client, 300, 80), c.kind, "demo")
			if err != nil {
				t.Fatal(err)
			}
			var diffs []string
			for attempt := 0; attempt < 12; attempt++ {
				if attempt > 0 {
					time.Sleep(5 * time.Second)
				}
				m.Update(m.Init()())
				view := m.View()
				want := kubectlTop(t, c.top...)
				diffs = nil
				compared := 0
				for name, top := range want {
					if rowOf(view, name) == "" {
						continue // below the screen (nodes other tests add to the shared cluster)
					}
					compared++
					cpu, mem := cellAt(view, name, "CPU"), cellAt(view, name, "MEM")
					tcpu, tmem := top[c.tcpu], top[c.tmm]
					if tcpu == "<unknown>" && tmem == "<unknown>" {
						tcpu, tmem = "-", "-" // kubectl top's word for no sample yet
					}
					if cpu != tcpu || mem != tmem {
						diffs = append(diffs, name+": "+cpu+" "+mem+", kubectl top "+top[c.tcpu]+" "+top[c.tmm])
					}
				}
				if compared > 0 && len(diffs) == 0 {
					return
				}
				if compared == 0 {
					diffs = []string{"no row of kubectl top is on the screen"}
				}
			}
			t.Fatalf("the metrics columns differ from kubectl top:\n%s\n%s", strings.Join(diffs, "\n"), m.View())
		})
	}
}

// TestE2EMetricsForbiddenSaysNA: a user who may list pods but not read
// metrics sees the pods, n/a in every metrics cell and why, once.
func TestE2EMetricsForbiddenSaysNA(t *testing.T) {
	client := metricsClient(t, true)
	m, err := inventory.New(viewtest.Context(client, 200, 50), kube.KindPods, "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.Update(m.Init()())
	view := m.View()
	if !strings.Contains(strings.Split(view, "\n")[0], "metrics: forbidden (may not list pods.metrics.k8s.io)") || strings.Count(view, "metrics:") != 1 {
		t.Fatalf("no reason, or said more than once:\n%s", view)
	}
	rows := names(view)
	if len(rows) == 0 {
		t.Fatalf("no pods:\n%s", view)
	}
	for _, h := range []string{"CPU", "MEM", "%CPU/R", "%CPU/L", "%MEM/R", "%MEM/L"} {
		if got := cellAt(view, rows[0], h); got != "n/a" {
			t.Fatalf("%s %s: %q, want n/a:\n%s", rows[0], h, got, view)
		}
	}
}
