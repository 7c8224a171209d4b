package kube_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// orderedDiscovery is client-go's fake discovery with two things it lacks:
// groups in the order of Resources (the real server lists them by
// priority; the fake's come from a map), and group/versions that fail
// (an aggregated API whose backend is down).
type orderedDiscovery struct {
	*fakediscovery.FakeDiscovery
	failing map[string]error
	down    error // the whole server fails
}

func (d *orderedDiscovery) ServerGroupsWithContext(context.Context) (*metav1.APIGroupList, error) {
	if d.down != nil {
		return nil, d.down
	}
	list := &metav1.APIGroupList{}
	index := map[string]int{}
	for _, res := range d.Resources {
		gv, err := schema.ParseGroupVersion(res.GroupVersion)
		if err != nil {
			return nil, err
		}
		v := metav1.GroupVersionForDiscovery{GroupVersion: res.GroupVersion, Version: gv.Version}
		i, ok := index[gv.Group]
		if !ok {
			index[gv.Group] = len(list.Groups)
			list.Groups = append(list.Groups, metav1.APIGroup{Name: gv.Group, PreferredVersion: v})
			i = len(list.Groups) - 1
		}
		list.Groups[i].Versions = append(list.Groups[i].Versions, v)
	}
	return list, nil
}

func (d *orderedDiscovery) ServerResourcesForGroupVersionWithContext(ctx context.Context, gv string) (*metav1.APIResourceList, error) {
	if err := d.failing[gv]; err != nil {
		return nil, err
	}
	return d.FakeDiscovery.ServerResourcesForGroupVersionWithContext(ctx, gv)
}

// discoveryClientset is the fake clientset answering Discovery() with d.
type discoveryClientset struct {
	*fake.Clientset
	d *orderedDiscovery
}

func (c discoveryClientset) Discovery() discovery.DiscoveryInterfaces { return c.d }

func listable(name, singular, kind string, namespaced bool, short ...string) metav1.APIResource {
	return metav1.APIResource{
		Name: name, SingularName: singular, Kind: kind, Namespaced: namespaced, ShortNames: short,
		Verbs: metav1.Verbs{"get", "list", "watch", "delete"},
	}
}

// discoveryClient returns a client with the built-in kinds and the default
// Table plugin over a fake discovery serving resources, with failing
// group/versions.
func discoveryClient(t *testing.T, resources []*metav1.APIResourceList, failing map[string]error) (*kube.Client, *orderedDiscovery) {
	cs := fake.NewClientset()
	d := &orderedDiscovery{FakeDiscovery: cs.Discovery().(*fakediscovery.FakeDiscovery), failing: failing}
	d.Resources = resources
	c := kube.NewFromClientset(discoveryClientset{Clientset: cs, d: d}, kube.Options{Registry: kinds.Builtin(), TablePlugin: kinds.NewTable})
	t.Cleanup(c.Close)
	return c, d
}

func clusterResources() []*metav1.APIResourceList {
	return []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			listable("pods", "pod", "Pod", true, "po"),
			{Name: "pods/log", Kind: "Pod", Namespaced: true, Verbs: metav1.Verbs{"get"}},
			listable("limitranges", "limitrange", "LimitRange", true, "limits"),
			listable("events", "event", "Event", true, "ev"),
			{Name: "bindings", SingularName: "binding", Kind: "Binding", Namespaced: true, Verbs: metav1.Verbs{"create"}},
		}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			listable("deployments", "deployment", "Deployment", true, "deploy"),
			listable("statefulsets", "statefulset", "StatefulSet", true, "sts"),
		}},
		{GroupVersion: "events.k8s.io/v1", APIResources: []metav1.APIResource{
			listable("events", "event", "Event", true, "ev"),
		}},
		{GroupVersion: "apiextensions.k8s.io/v1", APIResources: []metav1.APIResource{
			listable("customresourcedefinitions", "customresourcedefinition", "CustomResourceDefinition", false, "crd", "crds"),
		}},
		{GroupVersion: "kwok.x-k8s.io/v1alpha1", APIResources: []metav1.APIResource{
			listable("stages", "stage", "Stage", false),
			listable("clusterlogs", "clusterlogs", "ClusterLogs", false),
		}},
		// A CRD whose plural and short name clash with built-in names.
		{GroupVersion: "metrics.k8s.io/v1beta1", APIResources: []metav1.APIResource{
			{Name: "pods", SingularName: "", Kind: "PodMetrics", Namespaced: true, Verbs: metav1.Verbs{"get", "list"}},
			{Name: "nodes", SingularName: "", Kind: "NodeMetrics", Verbs: metav1.Verbs{"get", "list"}},
		}},
		// Two versions of one group: the first (preferred) version wins.
		{GroupVersion: "example.com/v2", APIResources: []metav1.APIResource{
			listable("widgets", "widget", "Widget", true, "wd", "sts"),
		}},
		{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{
			listable("widgets", "widget", "Widget", true, "wd"),
			listable("gadgets", "gadget", "Gadget", true, "wd"),
		}},
	}
}

func TestDiscoverRegistersListableKindsWithoutAPlugin(t *testing.T) {
	c, _ := discoveryClient(t, clusterResources(), nil)
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		id         kube.Kind
		group, ver string
		namespaced bool
	}{
		{"limits", "limitranges", "", "v1", true},
		{"limitrange", "limitranges", "", "v1", true},
		{"LimitRange", "limitranges", "", "v1", true},
		{"crd", "customresourcedefinitions", "apiextensions.k8s.io", "v1", false},
		{"crds", "customresourcedefinitions", "apiextensions.k8s.io", "v1", false},
		{"customresourcedefinitions.apiextensions.k8s.io", "customresourcedefinitions", "apiextensions.k8s.io", "v1", false},
		{"stages.kwok.x-k8s.io", "stages", "kwok.x-k8s.io", "v1alpha1", false},
		{"stage", "stages", "kwok.x-k8s.io", "v1alpha1", false},
		{"clusterlogs", "clusterlogs", "kwok.x-k8s.io", "v1alpha1", false},
		// Built-ins win: "po" and "pods" stay with the pods plugin.
		{"po", "pods", "", "v1", true},
		{"pods", "pods", "", "v1", true},
		{"deploy", "deployments", "apps", "v1", true},
		// A clashing plural is reachable only as resource.group.
		{"pods.metrics.k8s.io", "pods.metrics.k8s.io", "metrics.k8s.io", "v1beta1", true},
		{"nodes.metrics.k8s.io", "nodes.metrics.k8s.io", "metrics.k8s.io", "v1beta1", false},
		{"podmetrics", "pods.metrics.k8s.io", "metrics.k8s.io", "v1beta1", true},
		// Core events came first; events.k8s.io's only by their dotted id.
		{"events", "events", "", "v1", true},
		{"ev", "events", "", "v1", true},
		{"events.events.k8s.io", "events.events.k8s.io", "events.k8s.io", "v1", true},
		// The preferred version of a group wins.
		{"widgets", "widgets", "example.com", "v2", true},
		{"wd", "widgets", "example.com", "v2", true},
		{"gadgets", "gadgets", "example.com", "v1", true},
		{"statefulsets", "statefulsets", "apps", "v1", true},
		{"sts", "statefulsets", "apps", "v1", true},
	}
	for _, tt := range tests {
		info, ok := c.Kind(tt.name)
		if !ok {
			t.Errorf("Kind(%q): not served", tt.name)
			continue
		}
		if info.ID != tt.id || info.Group != tt.group || info.Version != tt.ver || info.Namespaced != tt.namespaced {
			t.Errorf("Kind(%q) = %s %s/%s namespaced=%v, want %s %s/%s namespaced=%v",
				tt.name, info.ID, info.Group, info.Version, info.Namespaced, tt.id, tt.group, tt.ver, tt.namespaced)
		}
	}
	for _, absent := range []string{"bindings", "pods/log", "binding"} {
		if _, ok := c.Kind(absent); ok {
			t.Errorf("Kind(%q) is served; it is not listable", absent)
		}
	}
	// Names() completes discovered short names and dotted ids; each name
	// is claimed once.
	names := c.Names()
	for _, want := range []string{"limits", "crd", "crds", "stages.kwok.x-k8s.io", "wd", "sts", "po"} {
		if !slices.Contains(names, want) {
			t.Errorf("Names() lacks %q", want)
		}
	}
	crd, _ := c.Kind("crd")
	if crd.Capabilities != kube.CanDelete|kube.CanWatch || len(crd.Columns) != 2 || crd.Columns[0].Name != "NAME" || crd.Columns[1].Name != "AGE" {
		t.Errorf("crd info before the first list: %+v", crd)
	}
	// Discovered kinds appear once, next to the built-ins.
	seen := map[kube.Kind]int{}
	for _, k := range c.Kinds() {
		seen[k.ID]++
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("Kinds() lists %s %d times", id, n)
		}
	}
	if seen["limitranges"] != 1 || seen["pods"] != 1 || seen["widgets"] != 1 {
		t.Errorf("Kinds() = %v", seen)
	}
}

func TestDiscoverPartialFailureRegistersTheRestAndKeepsEarlierKinds(t *testing.T) {
	c, d := discoveryClient(t, clusterResources(), nil)
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	// metrics.k8s.io's backend goes away and kwok's CRD group too; a new
	// group appears.
	d.failing = map[string]error{
		"metrics.k8s.io/v1beta1": errors.New("the server is currently unable to handle the request"),
		"kwok.x-k8s.io/v1alpha1": errors.New("stale"),
	}
	d.Resources = append(d.Resources, &metav1.APIResourceList{GroupVersion: "new.example.com/v1", APIResources: []metav1.APIResource{
		listable("things", "thing", "Thing", true, "th"),
	}})
	err := c.Discover(context.Background())
	var partial *kube.PartialDiscoveryError
	if !errors.As(err, &partial) {
		t.Fatalf("Discover = %v, want a *PartialDiscoveryError", err)
	}
	if len(partial.Groups) != 2 || !strings.Contains(err.Error(), "metrics.k8s.io/v1beta1: the server is currently unable") ||
		!strings.Contains(err.Error(), "kwok.x-k8s.io/v1alpha1: stale") {
		t.Errorf("error %q does not name both failed groups", err)
	}
	for _, name := range []string{"th", "things", "limits", "crd", "stage", "stages.kwok.x-k8s.io", "pods.metrics.k8s.io", "podmetrics"} {
		if _, ok := c.Kind(name); !ok {
			t.Errorf("after a partial failure Kind(%q) is not served", name)
		}
	}

	// A refresh without the group drops it; a total failure keeps the set.
	d.failing = nil
	d.Resources = d.Resources[:len(d.Resources)-1]
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Kind("things"); ok {
		t.Error("a refresh kept a kind the server no longer serves")
	}
	d.down = errors.New("connection refused")
	if err := c.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("Discover over a dead server = %v", err)
	}
	if _, ok := c.Kind("crd"); !ok {
		t.Error("a failed refresh dropped the kinds found before")
	}
}

func TestDiscoverNeedsTheTablePlugin(t *testing.T) {
	c := kube.NewFromClientset(fake.NewClientset(), kube.Options{Registry: kinds.Builtin()})
	defer c.Close()
	if err := c.Discover(context.Background()); err == nil || !strings.Contains(err.Error(), "TablePlugin") {
		t.Errorf("Discover without TablePlugin = %v", err)
	}
}

// TestDiscoveredKindOverAFakeClientsetIsTruncated: the fake clientset has no
// REST client, so a discovered kind's Snapshot names it truncated instead
// of failing or panicking.
func TestDiscoveredKindOverAFakeClientsetIsTruncated(t *testing.T) {
	c, _ := discoveryClient(t, clusterResources(), nil)
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	snap := c.Snapshot(context.Background(), kube.SnapshotRequest{Kinds: []kube.Kind{"limits"}})
	tr, ok := snap.Truncation("limits")
	if !ok || !strings.Contains(tr.Message, "no discovery REST client") {
		t.Errorf("snapshot of cm over a fake clientset: %+v", snap)
	}
}
