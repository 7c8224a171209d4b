package inventory_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestNativeSidecarMetricsSayNA: a native sidecar (an init container with
// restartPolicy: Always) said "-" (no sample yet) forever: metrics-server
// never reports it. Its cells say "n/a" and the line above the table says
// why, at 80x24 and 200x50; an ordinary init container still running
// without a sample keeps "-".
func TestNativeSidecarMetricsSayNA(t *testing.T) {
	info := kinds.Containers{}.Info()
	crow := func(name, init string, r kube.ContainerResources) kube.Row {
		r.NativeSidecar = init == "sidecar"
		return kube.Row{Namespace: "demo", Name: name, UID: "uid-web-1/" + name, Status: "Running",
			Cells: []kube.Cell{kube.Text(name), kube.Text("registry.local/" + name + ":1"), kube.Text("true"), kube.Text("Running"),
				kube.Text(init), kube.Text("0"), kube.Text("8080/TCP"), kube.Age(viewtest.Now.Add(-time.Hour))},
			Resources: &kube.RowResources{Containers: []kube.ContainerResources{r}}}
	}
	rows := []kube.Row{
		crow("mesh", "sidecar", res("mesh", 10, 10*mi, unset, unset)),
		crow("setup", "true", res("setup", unset, unset, unset, unset)),
		crow("web", "false", res("web", 100, 100*mi, unset, 200*mi)),
	}
	_, pods := demoPods()
	met := kube.Metrics{Pods: map[string]kube.PodUsage{"demo/web-1": pods["demo/web-1"]}, Generation: 1}
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		src := &metricsSource{staticSource: staticSource{reg: kinds.Builtin(), snap: kube.Snapshot{Namespace: "demo", Generation: 1,
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
		viewtest.Golden(t, fmt.Sprintf("containers-sidecar-metrics-%dx%d", size[0], size[1]), view)
		if !strings.Contains(strings.Split(view, "\n")[0], views.SidecarUsage[:30]) {
			t.Fatalf("%dx%d: the line above the table does not say why:\n%s", size[0], size[1], view)
		}
		if size[0] < 200 {
			continue
		}
		if !strings.Contains(view, views.SidecarUsage) {
			t.Fatalf("the reason is cut:\n%s", view)
		}
		for name, want := range map[string]string{"mesh": "n/a", "setup": "-", "web": "30m"} {
			if got := cellAt(view, name, "CPU"); got != want {
				t.Errorf("%s CPU %q, want %q", name, got, want)
			}
		}
	}
}
