package kinds_test

// End-to-end tests of the networking, configuration, storage, event and
// RBAC kinds against the local cluster of hack/cluster (run alone, they
// skip; `make test` sets KYYARD_E2E_*). The oracle is the
// API server's own Table, the answer `kubectl get` prints.

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// ageColumns render relative to the time of drawing; they are compared at
// every moment of the window around the server's answer.
var ageColumns = map[string]bool{"AGE": true, "LAST SEEN": true, "FIRST SEEN": true}

// serverRows is the API server's Table of a resource: its column names
// upper-cased as kubectl prints them, and each row's cells keyed by
// namespace/name from the row's object metadata (the first cell is not
// always the name: events lead with LAST SEEN, the default StorageClass's
// name carries " (default)").
func serverRows(t *testing.T, cfg *rest.Config, group, version, resource, namespace string) (columns []string, rows map[string][]string) {
	t.Helper()
	answer := kubetest.ServerTableOf(t, cfg, group, version, resource, namespace)
	for _, c := range answer.Columns {
		columns = append(columns, strings.ToUpper(c.Name))
	}
	return columns, answer.ByKey()
}

// compareKind snapshots kind in namespace right around the server's Table
// of it and compares every column, cell by cell (age columns at each moment
// of the window the two reads spanned). Objects move (events, kwok's
// stages), so a mismatch is retried a few times before it fails. A table
// without rows fails too: it would compare nothing. It returns the table.
func compareKind(t *testing.T, c *kube.Client, cfg *rest.Config, kind kube.Kind, namespace string) kube.Table {
	t.Helper()
	info, ok := c.Kind(string(kind))
	if !ok {
		t.Fatalf("no plugin for %s", kind)
	}
	var problems []string
	for attempt := 0; attempt < 5; attempt++ {
		if attempt > 0 {
			time.Sleep(time.Second)
		}
		before := time.Now()
		snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kind}, Namespace: namespace})
		cols, rows := serverRows(t, cfg, info.Group, info.Version, info.Resource, namespace)
		after := time.Now()
		table, ok := snap.Table(kind)
		if !ok {
			t.Fatalf("snapshot of %s truncated: %+v", kind, snap.Truncated)
		}
		problems = diffRows(table, cols, rows, before, after)
		if len(problems) == 0 {
			if len(table.Rows) == 0 {
				t.Fatalf("%s in %q: no rows to compare", kind, namespace)
			}
			return table
		}
	}
	t.Fatalf("%s in %q differ from the API server's Table:\n%s", kind, namespace, strings.Join(problems, "\n"))
	return kube.Table{}
}

func diffRows(table kube.Table, serverCols []string, server map[string][]string, before, after time.Time) []string {
	var problems []string
	if len(serverCols) != len(table.Columns) {
		problems = append(problems, fmt.Sprintf("columns: kyyard %v, server %v", table.Columns, serverCols))
		return problems
	}
	for i, c := range table.Columns {
		if c.Name != serverCols[i] {
			problems = append(problems, fmt.Sprintf("column %d: kyyard %q, server %q", i, c.Name, serverCols[i]))
		}
	}
	seen := map[string]bool{}
	for _, row := range table.Rows {
		key := row.Namespace + "/" + row.Name
		seen[key] = true
		cells, ok := server[key]
		if !ok {
			problems = append(problems, key+": not in the server's Table")
			continue
		}
		for i, col := range table.Columns {
			want := cells[i]
			if ageColumns[col.Name] {
				if !rendersAs(row.Cells[i], want, before, after) {
					problems = append(problems, fmt.Sprintf("%s %s: kyyard %q..%q, server %q", key, col.Name,
						row.Cells[i].Render(before), row.Cells[i].Render(after), want))
				}
				continue
			}
			if got := row.Cells[i].Render(after); got != want {
				problems = append(problems, fmt.Sprintf("%s %s: kyyard %q, server %q", key, col.Name, got, want))
			}
		}
	}
	for key := range server {
		if !seen[key] {
			problems = append(problems, key+": in the server's Table, not in kyyard's")
		}
	}
	sort.Strings(problems)
	return problems
}

// rendersAs reports whether the cell renders as want at some moment
// between before and after (a second either side for the API server's
// rounding of creation times to seconds), in steps of 100ms.
func rendersAs(c kube.Cell, want string, before, after time.Time) bool {
	for at := before.Add(-time.Second); !at.After(after.Add(time.Second)); at = at.Add(100 * time.Millisecond) {
		if c.Render(at) == want {
			return true
		}
	}
	return false
}

// TestE2EResourceKindsMatchServerTableInDemo compares the kinds the seeded
// demo namespace holds, and the cluster-scoped ones.
func TestE2EResourceKindsMatchServerTableInDemo(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	t.Cleanup(c.Close)
	for _, kind := range []kube.Kind{"services", "endpointslices", "configmaps", "secrets", "serviceaccounts",
		"persistentvolumeclaims", "events", "roles", "rolebindings"} {
		t.Run(string(kind), func(t *testing.T) { compareKind(t, c, cfg, kind, kubetest.DemoNamespace) })
	}
	for _, kind := range []kube.Kind{"persistentvolumes", "storageclasses", "clusterroles", "clusterrolebindings"} {
		t.Run(string(kind), func(t *testing.T) { compareKind(t, c, cfg, kind, "") })
	}
	for _, kind := range []kube.Kind{"services", "configmaps", "secrets", "events"} {
		t.Run(string(kind)+"/all-namespaces", func(t *testing.T) { compareKind(t, c, cfg, kind, "") })
	}
}

// TestE2EDemoResourceStates checks what the seeded demo must show: PVCs
// bound to the demo PVs, secrets counted by keys, the viewer's RoleBinding,
// warning events.
func TestE2EDemoResourceStates(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	t.Cleanup(c.Close)
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{
		Kinds: []kube.Kind{"pvc", "rolebindings", "ev"}, Namespace: kubetest.DemoNamespace})
	pvcs, _ := snap.Table("persistentvolumeclaims")
	for _, r := range pvcs.Rows {
		if r.Status != "Bound" || r.Health != kube.HealthOK {
			t.Errorf("PVC %s: %s/%v, want Bound/ok", r.Name, r.Status, r.Health)
		}
	}
	if len(pvcs.Rows) == 0 {
		t.Error("no PVCs in demo")
	}
	bindings, _ := snap.Table("rolebindings")
	found := false
	for _, r := range bindings.Rows {
		if r.Name == "viewer" && r.Cells[5].Text == "demo/viewer" {
			found = true
		}
	}
	if !found {
		t.Error("no RoleBinding viewer for ServiceAccount demo/viewer")
	}
	events, _ := snap.Table("events")
	warnings := 0
	for _, r := range events.Rows {
		if r.Status == corev1.EventTypeWarning {
			warnings++
			if r.Health != kube.HealthWarning {
				t.Errorf("event %s: health %v", r.Name, r.Health)
			}
		}
	}
	if warnings == 0 {
		t.Error("no Warning events in demo (crashy and badimage should produce some)")
	}
}

// TestE2EServiceDrillDown: opening a Service shows exactly the pods the
// API server selects with the Service's spec.selector.
func TestE2EServiceDrillDown(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	t.Cleanup(c.Close)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	svc, err := cs.CoreV1().Services(kubetest.DemoNamespace).Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := c.DrillDown(ctx, "services", kubetest.DemoNamespace, "web")
	if err != nil {
		t.Fatal(err)
	}
	for attempt := 0; ; attempt++ {
		snap := c.Snapshot(ctx, req)
		table, ok := snap.Table("pods")
		if !ok {
			t.Fatalf("no pods: %+v", snap.Truncated)
		}
		list, err := cs.CoreV1().Pods(kubetest.DemoNamespace).List(ctx, metav1.ListOptions{
			LabelSelector: labels.SelectorFromSet(svc.Spec.Selector).String()})
		if err != nil {
			t.Fatal(err)
		}
		var got, want []string
		for _, r := range table.Rows {
			got = append(got, r.Name)
		}
		for _, p := range list.Items {
			want = append(want, p.Name)
		}
		sort.Strings(want)
		if len(want) == 0 {
			t.Fatal("service web selects no pods in demo")
		}
		if strings.Join(got, " ") == strings.Join(want, " ") {
			break
		}
		if attempt == 4 {
			t.Fatalf("drill-down into service web: %v, the API server selects %v", got, want)
		}
		time.Sleep(time.Second)
	}
	if _, err := c.DrillDown(ctx, "services", "default", "kubernetes"); err == nil {
		t.Error("service default/kubernetes has no selector, yet it opened pods")
	}
}
