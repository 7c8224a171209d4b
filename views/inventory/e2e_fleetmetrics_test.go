package inventory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/fleet"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fleetConn connects to a context of the local fleet's kubeconfig as
// cmd's kubeconfig does (its own credentials).
type fleetConn struct{ path string }

func (c fleetConn) Connect(name string) (views.Source, error) {
	f := genericclioptions.NewConfigFlags(true)
	f.KubeConfig, f.Context = &c.path, &name
	client, err := kube.New(f, kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	_ = client.Discover(ctx)
	return client, nil
}

// TestE2EFleetMetricsEqualKubectlTopPerContext: on the local fleet (each
// member its own metrics-server), a pods screen across kyyard-fleet-1,
// kyyard-fleet-2-viewer (may list the demo pods, not their metrics) and
// kyyard-fleet-3 shows on each pod's row the CPU and MEM `kubectl top
// --context` prints for that cluster's pod (the clusters' usages differ),
// and n/a on the viewer's rows, with one line naming that context and why.
func TestE2EFleetMetricsEqualKubectlTopPerContext(t *testing.T) {
	path := kubetest.LocalFleet(t)
	contexts := []string{"kyyard-fleet-1", "kyyard-fleet-2-viewer", "kyyard-fleet-3"}
	src := fleet.New(fleetConn{path}, contexts, "", nil)
	t.Cleanup(src.Close)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if _, ok := src.Member(contexts[0]); ok {
			break // its kinds are known
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not connected in 30s", contexts[0])
		}
	}
	m, err := inventory.New(viewtest.Context(src, 220, 40), kube.KindPods, kubetest.DemoNamespace)
	if err != nil {
		t.Fatal(err)
	}
	var diffs []string
	for attempt := 0; attempt < 15; attempt++ {
		if attempt > 0 {
			time.Sleep(3 * time.Second)
		}
		m.Update(m.Init()())
		view := m.View()
		diffs = nil
		if !strings.Contains(view, "clusters: kyyard-fleet-1 2 · kyyard-fleet-2-viewer 2 · kyyard-fleet-3 2") {
			diffs = append(diffs, "not every cluster answered")
			continue
		}
		for _, ctx := range []string{"kyyard-fleet-1", "kyyard-fleet-3"} {
			top := kubectlTopIn(t, []string{"--kubeconfig", path, "--context", ctx}, "pods", "-n", kubetest.DemoNamespace)
			if len(top) == 0 {
				diffs = append(diffs, ctx+": kubectl top lists no pod")
			}
			for pod, f := range top {
				row := rowOf(view, pod)
				if !strings.Contains(row, " "+ctx+" ") {
					diffs = append(diffs, ctx+": no row of "+pod)
					continue
				}
				if cpu, mem := cellAt(view, pod, "CPU"), cellAt(view, pod, "MEM"); cpu != f[0] || mem != f[1] {
					diffs = append(diffs, ctx+"/"+pod+": "+cpu+" "+mem+", kubectl top "+f[0]+" "+f[1])
				}
			}
		}
		viewer := 0
		for _, l := range strings.Split(view, "\n") {
			if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(l), ">")); len(f) > 1 && f[0] == "kyyard-fleet-2-viewer" {
				viewer++
				if cpu := cellAt(view, f[1], "CPU"); cpu != "n/a" {
					diffs = append(diffs, "the viewer's "+f[1]+": CPU "+cpu+", want n/a")
				}
			}
		}
		if viewer == 0 {
			diffs = append(diffs, "no row of kyyard-fleet-2-viewer")
		}
		if !strings.Contains(view, "metrics in kyyard-fleet-2-viewer: forbidden (may not list pods.metrics.k8s.io)") {
			diffs = append(diffs, "no line names the viewer's forbidden metrics")
		}
		if len(diffs) == 0 {
			return
		}
	}
	m.Update(m.Init()())
	t.Fatalf("the fleet's metrics columns differ:\n%s\n%s", strings.Join(diffs, "\n"), m.View())
}
