package kube_test

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

var crdGVR = kubetest.CRDResource

func widget(gvr schema.GroupVersionResource, name, color string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvr.GroupVersion().String(), "kind": "Widget" + strings.TrimPrefix(gvr.Resource, "widgets"),
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"color": color, "since": "2020-01-02T03:04:05Z"},
	}}
}

// widgetW1 installs a widgets CRD of its own (widgetCRD) and creates, in a
// temporary namespace named after prefix, the widget w1 (color red). It
// returns a dynamic client, the CRD's resource and the namespace.
func widgetW1(t *testing.T, cfg *rest.Config, prefix string) (dynamic.Interface, schema.GroupVersionResource, string) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	gvr := kubetest.WidgetCRD(t, dyn)
	ns := kubetest.TempNamespace(t, admin, prefix)
	if _, err := dyn.Resource(gvr).Namespace(ns).Create(context.Background(), widget(gvr, "w1", "red"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return dyn, gvr, ns
}

// TestE2EDiscoveredKindIsCachedAndFollowsChanges: a CRD's objects come from
// an informer over the API server's Table (list, then a Table watch), which
// follows creations, changes and deletions with no list after it synced
// (the audit log is the oracle). The date column keeps ageing as kubectl
// would print it.
func TestE2EDiscoveredKindIsCachedAndFollowsChanges(t *testing.T) {
	cfg := kubetest.Local(t)
	dyn, widgetGVR, ns := widgetW1(t, cfg, "kyyard-e2e-crdcache")
	widgets := dyn.Resource(widgetGVR).Namespace(ns)
	ctx := context.Background()

	agent := fmt.Sprintf("kyyard-e2e-crdcache-%d", time.Now().UnixNano())
	withAgent := *cfg
	withAgent.UserAgent = agent
	c := discoveredClient(t, &withAgent)
	info, ok := c.Kind(widgetGVR.Resource + "." + widgetGVR.Group)
	if !ok || !info.Capabilities.Has(kube.CanWatch) {
		t.Fatalf("widgets: %+v, %v", info, ok)
	}
	req := kube.SnapshotRequest{Kinds: []kube.Kind{info.ID}, Namespace: ns}
	first := waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return hasRow(s, info.ID, "w1") })
	table := mustTable(t, first, info.ID)
	if !table.Cached {
		t.Fatalf("widgets were listed, not cached")
	}
	// The cells equal the server's Table, the date column included, and
	// that one is an age, not frozen text.
	cols, rows := anyServerTable(t, cfg, widgetGVR.Group, widgetGVR.Version, widgetGVR.Resource, ns)
	now := time.Now()
	for i, col := range table.Columns {
		if col.Name != cols[i] {
			t.Fatalf("columns %+v, server's %v", table.Columns, cols)
		}
		if col.Name == "AGE" {
			continue
		}
		if got := table.Rows[0].Cells[i].Render(now); got != rows["w1"][i] {
			t.Errorf("w1 %s = %q, server's %q", col.Name, got, rows["w1"][i])
		}
		if col.Name == "SINCE" && table.Rows[0].Cells[i].Since.IsZero() {
			t.Errorf("SINCE is text %q, not an age", table.Rows[0].Cells[i].Text)
		}
	}

	synced := time.Now()
	if _, err := widgets.Create(ctx, widget(widgetGVR, "w2", "green"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return hasRow(s, info.ID, "w2") })
	blue := widget(widgetGVR, "w1", "blue")
	got, err := widgets.Get(ctx, "w1", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	blue.SetResourceVersion(got.GetResourceVersion())
	if _, err := widgets.Update(ctx, blue, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	color := slices.IndexFunc(table.Columns, func(c kube.Column) bool { return c.Name == "COLOR" })
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool {
		tb, _ := s.Table(info.ID)
		for _, r := range tb.Rows {
			if r.Name == "w1" {
				return r.Cells[color].Text == "blue"
			}
		}
		return false
	})
	if err := widgets.Delete(ctx, "w2", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	last := waitSnapshot(t, c, req, func(s kube.Snapshot) bool { return !hasRow(s, info.ID, "w2") })
	if tb := mustTable(t, last, info.ID); !tb.Cached || len(tb.Rows) != 1 {
		t.Errorf("after the deletion: cached %v, %d rows", tb.Cached, len(tb.Rows))
	}

	logPath := os.Getenv(kubetest.AuditLogEnv)
	if logPath == "" {
		t.Fatalf("%s is not set", kubetest.AuditLogEnv)
	}
	watched := false
	for _, e := range readAuditAfter(t, logPath, agent, synced.Add(-time.Minute)) {
		if e.ObjectRef == nil || e.ObjectRef.Resource != widgetGVR.Resource {
			continue
		}
		if e.Verb == "watch" {
			watched = true
		}
		if e.Verb == "list" && !e.Received.Before(synced) {
			t.Errorf("a list of widgets after the cache synced")
		}
	}
	if !watched {
		t.Error("the audit log shows no watch of widgets")
	}
}

// TestE2ECRDInstalledAfterDiscoveryIsFound: a CRD installed after the
// Client read discovery is found by Rediscover (what the `:` prompt does
// for an unknown name), and once it is deleted, a Snapshot of it starts a
// new discovery read by itself, after which the kind is gone.
func TestE2ECRDInstalledAfterDiscoveryIsFound(t *testing.T) {
	cfg := kubetest.Local(t)
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c := discoveredClient(t, cfg)
	gvr := kubetest.WidgetCRD(t, dyn)
	name := gvr.Resource + "." + gvr.Group
	if _, ok := c.Kind(name); ok {
		t.Fatalf("%s known before discovery was read again", name)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		if changed := c.Rediscover(context.Background()); changed {
			if _, ok := c.Kind(name); ok {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s not found by Rediscover", name)
		}
		time.Sleep(time.Second)
	}
	info, _ := c.Kind(name)
	req := kube.SnapshotRequest{Kinds: []kube.Kind{info.ID}, Namespace: "default"}
	if s := c.Snapshot(context.Background(), req); len(s.Truncated) != 0 {
		t.Fatalf("the new kind: %+v", s.Truncated)
	}
	if err := dyn.Resource(crdGVR).Delete(context.Background(), name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	deadline = time.Now().Add(40 * time.Second)
	for {
		s := c.Snapshot(context.Background(), req)
		if tr, ok := s.Truncation(info.ID); ok && tr.Reason == kube.ReasonUnknownKind {
			break // discovery was read again: the kind is no longer served
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deleted CRD's kind is still served: %+v", s.Truncated)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// TestE2EEditedPrinterColumnsReachTheCache: when a CRD's printer columns
// are edited, the API server ends the watches of its objects; the cache
// then sees the new columns and lists again, although no object changed.
func TestE2EEditedPrinterColumnsReachTheCache(t *testing.T) {
	cfg := kubetest.Local(t)
	dyn, gvr, ns := widgetW1(t, cfg, "kyyard-e2e-columns")
	c := discoveredClient(t, cfg)
	info, ok := c.Kind(gvr.Resource + "." + gvr.Group)
	if !ok {
		t.Fatal("the CRD's kind is not discovered")
	}
	req := kube.SnapshotRequest{Kinds: []kube.Kind{info.ID}, Namespace: ns}
	waitSnapshot(t, c, req, func(s kube.Snapshot) bool {
		tb, ok := s.Table(info.ID)
		return ok && tb.Cached && hasRow(s, info.ID, "w1")
	})
	patch := []byte(`[{"op":"add","path":"/spec/versions/0/additionalPrinterColumns/-","value":{"name":"Shade","type":"string","jsonPath":".spec.color"}}]`)
	if _, err := dyn.Resource(crdGVR).Patch(context.Background(), gvr.Resource+"."+gvr.Group, types.JSONPatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	eventually(t, c, req, 90*time.Second, 500*time.Millisecond, func(s kube.Snapshot) bool {
		tb, ok := s.Table(info.ID)
		return ok && tb.Cached && slices.ContainsFunc(tb.Columns, func(col kube.Column) bool { return col.Name == "SHADE" })
	})
	t.Logf("the new column reached the cache after %s", time.Since(start).Round(time.Second))
}
