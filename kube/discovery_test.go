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
	if crd.Capabilities != kube.CanWatch|kube.CanDelete || len(crd.Columns) != 2 || crd.Columns[0].Name != "NAME" || crd.Columns[1].Name != "AGE" {
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

// TestLookupTakesGroupQualifiedNames: as kubectl, every name of a kind may
// be followed by ".group" or ".version.group", built-in kinds' too, and
// only the kind's own group (and served version) matches.
func TestLookupTakesGroupQualifiedNames(t *testing.T) {
	c, _ := discoveryClient(t, clusterResources(), nil)
	served := map[string]kube.Kind{
		"deployments.apps": "deployments", "deployment.apps": "deployments", "Deployment.apps": "deployments",
		"deploy.apps": "deployments", "DEPLOYMENTS.apps": "deployments", "deployments.v1.apps": "deployments",
		"Deployment.v1.apps": "deployments", " deployments.apps ": "deployments",
		"cronjobs.batch": "cronjobs", "cj.batch": "cronjobs", "ingresses.networking.k8s.io": "ingresses",
		"ing.v1.networking.k8s.io": "ingresses", "horizontalpodautoscalers.v2.autoscaling": "horizontalpodautoscalers",
		"services.v1.": "services", "svc.v1.": "services", "pods.": "pods",
	}
	notServed := []string{
		"deployments.extensions", "deployments.v1beta1.apps", "deployments.batch", "deployments.v1", "services.v1",
		"pods.apps", "containers.", "containers.v1.", "deployments.apps.", ".apps", "deployments..apps",
	}
	check := func(when string) {
		t.Helper()
		for name, want := range served {
			if info, ok := c.Kind(name); !ok || info.ID != want {
				t.Errorf("%s: Kind(%q) = %q, %v; want %q", when, name, info.ID, ok, want)
			}
		}
		for _, name := range notServed {
			if info, ok := c.Kind(name); ok {
				t.Errorf("%s: Kind(%q) = %q; want none", when, name, info.ID)
			}
		}
	}
	check("before Discover")
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("after Discover")
	// Discovered kinds take the same forms.
	for name, want := range map[string]kube.Kind{
		"stages.kwok.x-k8s.io": "stages", "stage.kwok.x-k8s.io": "stages", "Stage.v1alpha1.kwok.x-k8s.io": "stages",
		"pods.v1beta1.metrics.k8s.io": "pods.metrics.k8s.io", "podmetrics.metrics.k8s.io": "pods.metrics.k8s.io",
		"limits.": "limitranges", "limitranges.v1.": "limitranges", "crd.apiextensions.k8s.io": "customresourcedefinitions",
		// gadgets lost "wd" to widgets, but keep it within their group.
		"wd.example.com": "widgets", "wd.v1.example.com": "gadgets", "widgets.v2.example.com": "widgets",
	} {
		if info, ok := c.Kind(name); !ok || info.ID != want {
			t.Errorf("Kind(%q) = %q, %v; want %q", name, info.ID, ok, want)
		}
	}
	// Completion is not flooded with the qualified forms of built-ins.
	for _, n := range c.Names() {
		if n == "deployments.apps" || n == "deploy.v1.apps" {
			t.Errorf("Names() holds %q", n)
		}
	}
	// The built-in registry alone (kyyard --command) takes them too.
	if p, ok := kinds.Builtin().Lookup("deployments.apps"); !ok || p.Info().ID != "deployments" {
		t.Errorf("Builtin().Lookup(deployments.apps) = %v", ok)
	}
}

// TestDiscoverNamesClashingPluralsByGroup: two CRDs of one plural in two
// groups both get "resource.group" ids, so that neither screen hides which
// group it shows; the first (in discovery's order) keeps the bare plural
// and a shared short name, and the other is reached by its group.
func TestDiscoverNamesClashingPluralsByGroup(t *testing.T) {
	resources := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{
			listable("limitranges", "limitrange", "LimitRange", true, "limits"),
		}},
		{GroupVersion: "a.example/v1", APIResources: []metav1.APIResource{
			listable("widgets", "widget", "Widget", true, "wdg"),
		}},
		{GroupVersion: "b.example/v1", APIResources: []metav1.APIResource{
			listable("widgets", "widget", "Widget", false, "wdg"),
			listable("limitranges", "limitrange", "LimitRange", true, "limits"),
		}},
		{GroupVersion: "c.example/v1", APIResources: []metav1.APIResource{
			listable("gizmos", "gizmo", "Gizmo", true, "wdg"),
		}},
	}
	c, d := discoveryClient(t, resources, nil)
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	want := map[string]kube.Kind{
		"widgets": "widgets.a.example", "widget": "widgets.a.example", "wdg": "widgets.a.example",
		"widgets.a.example": "widgets.a.example", "widgets.b.example": "widgets.b.example",
		"wdg.b.example": "widgets.b.example", "Widget.v1.b.example": "widgets.b.example",
		"gizmos": "gizmos", "wdg.c.example": "gizmos",
		// A core kind keeps its plural: it has no other name.
		"limitranges": "limitranges", "limits": "limitranges", "limitranges.b.example": "limitranges.b.example",
		"limits.b.example": "limitranges.b.example",
	}
	check := func(when string) {
		t.Helper()
		for name, id := range want {
			if info, ok := c.Kind(name); !ok || info.ID != id {
				t.Errorf("%s: Kind(%q) = %q, %v; want %q", when, name, info.ID, ok, id)
			}
		}
		var ids []string
		for _, k := range c.Kinds() {
			if strings.Contains(string(k.ID), "widgets") || strings.Contains(string(k.ID), "limitranges") {
				ids = append(ids, string(k.ID))
			}
		}
		if got := strings.Join(ids, " "); got != "limitranges limitranges.b.example widgets.a.example widgets.b.example" {
			t.Errorf("%s: Kinds() ids %q", when, got)
		}
	}
	check("Discover")
	// The outcome does not depend on anything but discovery's order.
	if err := c.Discover(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("a second Discover")
	// A group that is briefly down keeps its names, the lost ones too.
	d.failing = map[string]error{"b.example/v1": errors.New("down")}
	var partial *kube.PartialDiscoveryError
	if err := c.Discover(context.Background()); !errors.As(err, &partial) {
		t.Fatalf("Discover = %v", err)
	}
	check("a partial Discover")
}
