package kube_test

// End-to-end tests of Discover and the default Table plugin against the
// local cluster (kwok's CRDs are installed there, with ClusterLogs and
// ClusterExecs objects); run alone, they skip.

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// discoveredClient connects to the local cluster with the built-in kinds and
// the default Table plugin, and runs Discover.
func discoveredClient(t *testing.T, cfg *rest.Config) *kube.Client {
	t.Helper()
	c, err := kube.NewFromConfig(cfg, kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := c.Discover(ctx); err != nil {
		t.Fatalf("Discover: %v", err)
	}
	return c
}

// anyServerTable returns the API server's Table of any resource: the
// column names upper-cased, " (wide)" after those -o wide adds, and each
// row's cells as text, by name.
func anyServerTable(t *testing.T, cfg *rest.Config, group, version, resource, namespace string) ([]string, map[string][]string) {
	t.Helper()
	answer := kubetest.ServerTableOf(t, cfg, group, version, resource, namespace)
	var cols []string
	for _, d := range answer.Columns {
		name := strings.ToUpper(d.Name)
		if d.Priority > 0 {
			name += " (wide)"
		}
		cols = append(cols, name)
	}
	return cols, answer.ByFirstCell()
}

func TestE2EDiscoveredKindsEqualTheServersTable(t *testing.T) {
	cfg := kubetest.Local(t)
	c := discoveredClient(t, cfg)
	tests := []struct {
		name                     string
		group, version, resource string
		namespace                string
		minRows                  int
	}{
		{"clusterlogs.kwok.x-k8s.io", "kwok.x-k8s.io", "v1alpha1", "clusterlogs", "", 1},
		{"clusterexecs.kwok.x-k8s.io", "kwok.x-k8s.io", "v1alpha1", "clusterexecs", "", 1},
		{"crd", "apiextensions.k8s.io", "v1", "customresourcedefinitions", "", 8},
		{"customresourcedefinitions", "apiextensions.k8s.io", "v1", "customresourcedefinitions", "", 8},
		{"priorityclasses", "scheduling.k8s.io", "v1", "priorityclasses", "", 2},
		// Built-in kinds without a plugin, with wide columns.
		{"svc", "", "v1", "services", kubetest.DemoNamespace, 2},
		{"rs", "apps", "v1", "replicasets", kubetest.DemoNamespace, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			info, ok := c.Kind(tt.name)
			if !ok || info.Resource != tt.resource || info.Group != tt.group {
				t.Fatalf("Kind(%q) = %+v, %v", tt.name, info, ok)
			}
			// The cache and the server's answer are two reads: while an
			// object is going (a CRD another test deleted), they may differ
			// for a moment, so both are read until they name the same rows.
			var (
				table kube.Table
				now   time.Time
				cols  []string
				rows  map[string][]string
			)
			for attempt := 0; ; attempt++ {
				snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{kube.Kind(tt.name)}, Namespace: tt.namespace})
				now = time.Now()
				var ok bool
				if table, ok = snap.Table(info.ID); !ok {
					t.Fatalf("truncated: %+v", snap.Truncated)
				}
				cols, rows = anyServerTable(t, cfg, tt.group, tt.version, tt.resource, tt.namespace)
				same := len(table.Rows) == len(rows)
				for _, r := range table.Rows {
					if _, ok := rows[r.Name]; !ok {
						same = false
					}
				}
				if same || attempt == 20 {
					break
				}
				time.Sleep(500 * time.Millisecond)
			}
			if _, builtin := c.Registry().Lookup(tt.name); !builtin && !table.Cached {
				t.Errorf("a discovered kind the server watches was listed, not cached (capabilities %b)", info.Capabilities)
			}
			if len(table.Columns) != len(cols) {
				t.Fatalf("columns %+v, server's %v", table.Columns, cols)
			}
			for i, col := range table.Columns {
				name := col.Name
				if col.Wide {
					name += " (wide)"
				}
				if name != cols[i] {
					t.Errorf("column %d = %q, server's %q", i, col.Name, cols[i])
				}
			}
			if len(table.Rows) < tt.minRows || len(table.Rows) != len(rows) {
				t.Fatalf("%d rows, server's %d (want at least %d)", len(table.Rows), len(rows), tt.minRows)
			}
			for _, row := range table.Rows {
				server, ok := rows[row.Name]
				if !ok {
					t.Errorf("row %q not in the server's Table", row.Name)
					continue
				}
				if row.UID == "" || row.Created.IsZero() {
					t.Errorf("%s: no metadata: %+v", row.Name, row)
				}
				for i, col := range table.Columns {
					if col.Name == "AGE" {
						if row.Cells[i].Since.IsZero() {
							t.Errorf("%s: AGE is not live", row.Name)
						}
						continue
					}
					if got := row.Cells[i].Render(now); got != server[i] {
						t.Errorf("%s %s = %q, server's %q", row.Name, col.Name, got, server[i])
					}
				}
			}
		})
	}
}

// TestE2EEveryDiscoveredKindSnapshots lists every kind the client serves,
// in all namespaces, at once: none panics, none is truncated but for
// forbidden or not_found, and every row has one cell per column.
func TestE2EEveryDiscoveredKindSnapshots(t *testing.T) {
	cfg := kubetest.Local(t)
	c := discoveredClient(t, cfg)
	var req kube.SnapshotRequest
	for _, k := range c.Kinds() {
		req.Kinds = append(req.Kinds, k.ID)
	}
	if len(req.Kinds) < 40 {
		t.Fatalf("only %d kinds served: %v", len(req.Kinds), req.Kinds)
	}
	snap := c.Snapshot(context.Background(), req)
	for _, tr := range snap.Truncated {
		if tr.Reason != kube.ReasonForbidden && tr.Reason != kube.ReasonNotFound {
			t.Errorf("%s truncated: %s: %s", tr.Kind, tr.Reason, tr.Message)
		}
	}
	rows := 0
	for _, table := range snap.Tables {
		for _, row := range table.Rows {
			rows++
			if len(row.Cells) != len(table.Columns) {
				t.Errorf("%s %s/%s: %d cells, %d columns", table.Kind, row.Namespace, row.Name, len(row.Cells), len(table.Columns))
			}
		}
	}
	t.Logf("%d kinds, %d tables, %d rows, %d truncated", len(req.Kinds), len(snap.Tables), rows, len(snap.Truncated))

	names := c.Names()
	for _, want := range []string{"crd", "crds", "cm", "svc", "sa", "pvc", "pv", "sts", "ds", "cj", "ev",
		"clusterlogs.kwok.x-k8s.io", "events.events.k8s.io", "po", "deploy"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() lacks %q", want)
		}
	}
	// Core events keep their plural; events.k8s.io's are reachable by
	// their dotted id (kubectl resolves "events" to the core group too).
	if info, _ := c.Kind("events"); info.Group != "" {
		t.Errorf("events resolve to group %q", info.Group)
	}
}

// TestE2EDiscoverAsReadOnlyUser: the demo namespace's read-only account
// discovers the same kinds, and lists it may not do are named forbidden.
func TestE2EDiscoverAsReadOnlyUser(t *testing.T) {
	cfg := kubetest.LocalReadOnly(t)
	c := discoveredClient(t, cfg)
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"crd", "cm"}, Namespace: kubetest.DemoNamespace})
	tr, ok := snap.Truncation("crd")
	if !ok || tr.Reason != kube.ReasonForbidden {
		t.Errorf("crd as the read-only user: %+v", snap.Truncated)
	}
	if _, ok := snap.Table("configmaps"); !ok {
		t.Errorf("configmaps in demo as the read-only user: %+v", snap.Truncated)
	}
	var partial *kube.PartialDiscoveryError
	if errors.As(c.Discover(context.Background()), &partial) {
		t.Errorf("partial discovery on a healthy cluster: %v", partial)
	}
}
