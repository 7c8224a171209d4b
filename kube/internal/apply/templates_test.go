package apply

import (
	"io/fs"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestTemplatesParse: every embedded template is one object of its kind,
// in the namespace asked, that Parse takes as `:create` hands it over.
func TestTemplatesParse(t *testing.T) {
	files, err := fs.Glob(templates, "templates/*.yaml")
	if err != nil || len(files) != len(templateGroups) {
		t.Fatalf("templates %v (%v), want one per templateGroups entry (%d)", files, err, len(templateGroups))
	}
	for resource, group := range templateGroups {
		gvr := schema.GroupVersionResource{Group: group, Version: "v1", Resource: resource}
		namespaced := resource != "namespaces"
		text, err := Template(gvr, schema.GroupVersionKind{}, namespaced, "team-a")
		if err != nil {
			t.Fatalf("%s: %v", resource, err)
		}
		docs, err := Parse(resource+".yaml", []byte(text))
		if err != nil || len(docs) != 1 {
			t.Fatalf("%s: %d docs, %v\n%s", resource, len(docs), err, text)
		}
		o := docs[0].Object
		if gv, _ := schema.ParseGroupVersion(o.GetAPIVersion()); gv.Group != group {
			t.Errorf("%s: apiVersion %s, want group %q", resource, o.GetAPIVersion(), group)
		}
		if want := map[bool]string{true: "team-a", false: ""}[namespaced]; o.GetNamespace() != want {
			t.Errorf("%s: namespace %q, want %q", resource, o.GetNamespace(), want)
		}
		if strings.Contains(text, namespaceMark) {
			t.Errorf("%s: the namespace mark is left in\n%s", resource, text)
		}
	}
}

// TestTemplateSkeleton: a kind without a template of its own (a CRD, or a
// built-in resource name in another group) gets apiVersion, kind and
// metadata, its namespace only when namespaced.
func TestTemplateSkeleton(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1alpha1", Kind: "Widget"}
	for _, c := range []struct {
		gvr        schema.GroupVersionResource
		namespaced bool
		namespace  string
	}{
		{schema.GroupVersionResource{Group: "example.com", Version: "v1alpha1", Resource: "widgets"}, true, "demo"},
		{schema.GroupVersionResource{Group: "example.com", Version: "v1alpha1", Resource: "jobs"}, true, "demo"},
		{schema.GroupVersionResource{Group: "example.com", Version: "v1alpha1", Resource: "widgets"}, false, ""},
	} {
		text, err := Template(c.gvr, gvk, c.namespaced, c.namespace)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := Parse("t", []byte(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		o := docs[0].Object
		if o.GetAPIVersion() != "example.com/v1alpha1" || o.GetKind() != "Widget" || o.GetName() != "my-widget" || o.GetNamespace() != c.namespace {
			t.Errorf("%s namespaced=%v: %s %s %s/%s", c.gvr, c.namespaced, o.GetAPIVersion(), o.GetKind(), o.GetNamespace(), o.GetName())
		}
	}
}

// TestTemplateNamespaceRefused: a namespace that is no DNS-1123 label
// (what a person typed after `:create cm`) is refused, never written into
// the YAML.
func TestTemplateNamespaceRefused(t *testing.T) {
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	for _, ns := range []string{"", "Team A", "a\nkind: Secret", "x/y"} {
		if text, err := Template(gvr, schema.GroupVersionKind{}, true, ns); err == nil {
			t.Errorf("namespace %q taken:\n%s", ns, text)
		}
	}
	if _, err := Template(schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, schema.GroupVersionKind{}, false, ""); err != nil {
		t.Errorf("a cluster-scoped kind needs no namespace: %v", err)
	}
}
