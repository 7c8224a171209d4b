package inventory_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fakeFleetMetrics is a fakeFleet that reads metrics: one merged reading
// (views/fleet's shape: keys with the context, Unread by context).
type fakeFleetMetrics struct {
	*fakeFleet
	met kube.Metrics
}

func (f *fakeFleetMetrics) Metrics(context.Context, kube.MetricsRequest) kube.Metrics { return f.met }

// A pods screen across clusters whose fleet reads metrics has the CPU and
// MEM columns; each row's cells are its own cluster's pod's (the same
// namespace/name in two clusters), and a cluster whose metrics were not
// read says n/a on its rows and why above the table.
func TestFleetMetricsCellsPerContext(t *testing.T) {
	f := newFakeFleet(t, map[string][]runtime.Object{
		"prod-eu": {testPod("demo", "web-1", time.Hour, run, true, 0)},
		"prod-us": {testPod("demo", "web-1", 2*time.Hour, run, true, 0)},
		"lab":     {testPod("demo", "web-1", 3*time.Hour, run, true, 0)},
	}, nil, "prod-eu", "prod-us", "lab")
	fm := &fakeFleetMetrics{fakeFleet: f, met: kube.Metrics{Generation: 1, Taken: viewtest.Now,
		Pods: map[string]kube.PodUsage{
			kube.UsageKey("prod-eu", "demo", "web-1"): {Namespace: "demo", Name: "web-1", Timestamp: viewtest.Now, Total: kube.Usage{CPU: 12, Memory: 20 * mi}},
			kube.UsageKey("prod-us", "demo", "web-1"): {Namespace: "demo", Name: "web-1", Timestamp: viewtest.Now, Total: kube.Usage{CPU: 345, Memory: 700 * mi}},
		},
		Unread: map[string]*kube.Truncation{"lab": {Reason: kube.ReasonNotFound, Message: "the server could not find the requested resource"}},
	}}
	vc := viewtest.Context(fm, 110, 9)
	m, err := inventory.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	refresh(t, m, m.Init())
	view := m.View()
	viewtest.Size(t, view, 110, 9)
	viewtest.Golden(t, "fleet-pods-metrics", view)
	cells := map[string][]string{"prod-eu": {"12m", "20Mi"}, "prod-us": {"345m", "700Mi"}, "lab": {"n/a", "n/a"}}
	seen := 0
	for _, line := range strings.Split(view, "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), ">"))
		if len(fields) < 2 || fields[1] != "web-1" {
			continue
		}
		want, ok := cells[fields[0]]
		if !ok {
			t.Fatalf("row of an unknown context: %q", line)
		}
		seen++
		if !strings.Contains(line, " "+want[0]+" ") || !strings.Contains(line, " "+want[1]+" ") {
			t.Errorf("%s's row lacks its metrics %v: %q", fields[0], want, line)
		}
	}
	if seen != 3 {
		t.Fatalf("%d rows of web-1, want one per context:\n%s", seen, view)
	}
	if !strings.Contains(view, "metrics in lab: not available — no metrics-server") {
		t.Errorf("no line says which cluster's metrics were not read:\n%s", view)
	}
}

// A fleet that reads no metrics has no metrics columns.
func TestFleetWithoutMetricsHasNoMetricsColumns(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	if v := m.View(); strings.Contains(v, "CPU") || strings.Contains(v, "MEM") {
		t.Fatalf("metrics columns on a fleet that reads none:\n%s", v)
	}
	var _ views.MetricsSource = (*fakeFleetMetrics)(nil)
}

// r, e and s on marked rows of one Deployment in several contexts ask for
// one change applied cluster by cluster, in the fleet's order (r: the
// restart's plan); marks of different Deployments are still refused.
func TestFleetMarkedWorkloadAcrossContextsChangesClusterByCluster(t *testing.T) {
	f := newFakeFleet(t, map[string][]runtime.Object{
		"prod-eu": {opDeployment("web", 2), opDeployment("api", 1)},
		"prod-us": {opDeployment("web", 3)},
	}, nil, "prod-eu", "prod-us")
	m, err := inventory.New(viewtest.Context(f, 120, 10), "deployments", "demo")
	if err != nil {
		t.Fatal(err)
	}
	refresh(t, m, m.Init())
	// Rows: api@prod-eu, web@prod-eu, web@prod-us.
	press(m, "j", " ", " ")
	for _, k := range []string{"r", "e", "s"} {
		msg, ok := press(m, k)().(views.OpenChangeAcrossMsg)
		want := views.OpenChangeAcrossMsg{Ref: kube.WorkloadRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web"}, Restart: k == "r"}
		if !ok || msg.Ref != want.Ref || msg.Restart != want.Restart || strings.Join(msg.Contexts, ",") != "prod-eu,prod-us" {
			t.Fatalf("%s on web marked in two contexts sent %+v", k, msg)
		}
	}
	press(m, "k", "k", " ") // api@prod-eu marked too: two workloads
	if st, ok := press(m, "r")().(views.StatusMsg); !ok || !st.Error {
		t.Fatalf("r on two workloads in two contexts was not refused")
	}
}

// Contexts whose metrics fail for the same reason are named together on
// the line; when every context fails, the line still names them.
func TestFleetMetricsProblemNamesContextsTogether(t *testing.T) {
	forbidden := &kube.Truncation{Reason: kube.ReasonForbidden, Message: `pods.metrics.k8s.io is forbidden: User "v" cannot list resource "pods" in API group "metrics.k8s.io"`}
	f := newFakeFleet(t, map[string][]runtime.Object{
		"a-viewer": {testPod("demo", "web-1", time.Hour, run, true, 0)},
		"b-viewer": {testPod("demo", "web-2", time.Hour, run, true, 0)},
	}, nil, "a-viewer", "b-viewer")
	fm := &fakeFleetMetrics{fakeFleet: f, met: kube.Metrics{Generation: 1, Truncated: forbidden,
		Unread: map[string]*kube.Truncation{"a-viewer": forbidden, "b-viewer": forbidden}}}
	m, err := inventory.New(viewtest.Context(fm, 120, 8), "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	refresh(t, m, m.Init())
	if v := m.View(); !strings.Contains(v, "metrics in a-viewer, b-viewer: forbidden (may not list pods.metrics.k8s.io)") {
		t.Fatalf("the line does not name the contexts together:\n%s", v)
	}
}
