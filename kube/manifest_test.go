package kube_test

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

var updateManifest = flag.Bool("update-manifest", false, "rewrite kube/testdata/manifest/*.yaml")

// operable returns the actions Operate offers per kind, as the built-in
// plugins declare them (KindInfo.Supports): their access reviews are
// computed (actions.AccessFor).
func operable() map[kube.Kind][]kube.Action {
	out := map[kube.Kind][]kube.Action{}
	for _, info := range kinds.Builtin().Kinds() {
		for _, a := range []kube.Action{kube.ActionRestart, kube.ActionScale, kube.ActionDelete, kube.ActionPause, kube.ActionResume, kube.ActionUndo} {
			if info.Supports(a) {
				out[info.ID] = append(out[info.ID], a)
			}
		}
	}
	return out
}

// builtinInfo is the built-in plugin's KindInfo of kind.
func builtinInfo(t *testing.T, kind kube.Kind) kube.KindInfo {
	t.Helper()
	p, ok := kinds.Builtin().Lookup(string(kind))
	if !ok {
		t.Fatalf("no built-in plugin for %s", kind)
	}
	return p.Info()
}

// dynamicChecks are the functions allowed to build an AccessCheck with a
// computed field, each enumerated by a test.
var dynamicChecks = map[string]string{"AccessFor": "TestManifestCoversOperate", "applyGuards": "TestManifestCoversWorkloadForm",
	"deployAccess": "TestManifestCoversDeploy", "deployRisks": "TestManifestCoversDeploy",
	"deployWriteRefusal": "TestManifestCoversDeploy", "Remove": "TestManifestCoversDeploy",
	"plan": "TestManifestCoversApply", "CreateTemplate": "TestManifestCoversApply", "editAccess": "TestManifestCoversYAMLEdit",
	"PlanHelmRollback": "TestManifestCoversHelmRollback"}

// TestManifestCoversWorkloadForm: the workload form's apply (applyGuards)
// reviews patch of objects.EditableResource(kind) for each kind it edits: granted
// by the full manifest only.
func TestManifestCoversWorkloadForm(t *testing.T) {
	reg := kinds.Builtin()
	full, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	for _, kind := range []kube.Kind{kube.KindDeployments, kube.KindStatefulSets, kube.KindDaemonSets} {
		res, err := kube.WorkloadResourceOf(kind)
		if err != nil {
			t.Fatal(err)
		}
		req := kube.AccessRequest{Verb: "patch", Group: "apps", Resource: res}
		if !kube.Grants(full, req) || kube.Grants(ro, req) {
			t.Errorf("%s: full grants %v, read-only grants %v", req, kube.Grants(full, req), kube.Grants(ro, req))
		}
	}
}

// TestManifestCoversKubeRequests: every request kube's source makes (read
// with go/ast, access_scan_test.go) is granted by the full manifest; every
// read but of Secrets by the read-only one too; the read-only one grants no
// request that writes.
func TestManifestCoversKubeRequests(t *testing.T) {
	reg := kinds.Builtin()
	full, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	var typed, checks, dynamic, rest int
	for _, r := range scanAll(t) {
		switch {
		case r.computed:
			if dynamicChecks[r.fn] == "" {
				t.Errorf("%s: an AccessCheck with a computed field in %s: use literals, or list %s in dynamicChecks with a test enumerating its answers", r.pos, r.fn, r.fn)
			}
			continue
		case r.dynamic:
			dynamic++
			if r.verb != "get" && r.verb != "list" && r.verb != "watch" && r.verb != "delete" && r.verb != "patch" {
				t.Errorf("%s: a dynamic-client %s: the manifest grants only reads of browsed kinds, delete (DeleteRules) and patch (ApplyRules); name the resource", r.pos, r.verb)
			}
			continue
		case strings.HasPrefix(r.group, "?"):
			t.Errorf("%s: unknown group accessor %s: add it to groupOf", r.pos, r.group[1:])
			continue
		case r.check:
			checks++
		case r.resource == "pods" && slices.Contains([]string{"exec", "attach", "portforward"}, r.subresource):
			rest++
		default:
			typed++
		}
		req := kube.AccessRequest{Verb: r.verb, Group: r.group, Resource: r.resource, Subresource: r.subresource}
		if !kube.Grants(full, req) {
			t.Errorf("%s (%s): %s is not granted by the manifest: add a rule to featureRules (kube/access.go)", r.pos, r.fn, req)
		}
		read := req.Verb == "get" || req.Verb == "list" || req.Verb == "watch"
		switch {
		case read && req.Resource == "secrets":
			if kube.Grants(ro, req) {
				t.Errorf("%s: the read-only manifest grants %s", r.pos, req)
			}
		case read && req.Subresource != "exec" && req.Subresource != "attach" && req.Subresource != "portforward":
			if !kube.Grants(ro, req) {
				t.Errorf("%s (%s): the read %s is not granted by the read-only manifest", r.pos, r.fn, req)
			}
		case !read && !strings.HasPrefix(req.Resource, "selfsubject"):
			if kube.Grants(ro, req) {
				t.Errorf("%s: the read-only manifest grants the write %s", r.pos, req)
			}
		}
	}
	// The scanner itself: it must see the kinds of calls kube makes today.
	if typed < 30 || dynamic == 0 || rest < 3 || checks < 4 {
		t.Errorf("the scanner found %d typed calls, %d dynamic, %d exec/attach/portforward, %d access checks: it no longer reads kube's source",
			typed, dynamic, rest, checks)
	}
}

// TestManifestCoversOperate: every access review Operate and Permissions
// make (actions.AccessFor, computed from the kind and the action) is granted by the
// full manifest and by no read-only one.
func TestManifestCoversOperate(t *testing.T) {
	reg := kinds.Builtin()
	full, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	for kind, actions := range operable() {
		for _, a := range actions {
			req := kube.AccessOfOperation(kube.Operation{Action: a, Ref: kube.ObjectRef{Kind: kind, Namespace: "ns"}}, builtinInfo(t, kind))
			if !kube.Grants(full, req) {
				t.Errorf("%s of %s needs %s: not granted", a, kind, req)
			}
			if kube.Grants(ro, req) {
				t.Errorf("%s of %s: the read-only manifest grants %s", a, kind, req)
			}
		}
	}
}

// TestManifestRulesUsed: every verb a feature rule grants is a request kube
// makes, except those named here with the reason — the manifest grants
// exactly what kyyard uses.
func TestManifestRulesUsed(t *testing.T) {
	notInSource := map[string]string{
		"get /pods/exec":        "the WebSocket upgrade (GET) on API servers before 1.31",
		"get /pods/attach":      "the WebSocket upgrade (GET) on API servers before 1.31",
		"get /pods/portforward": "the WebSocket upgrade (GET) on API servers before 1.31",
		"list /limitranges":     "kubectl's NamespaceDescriber (kube/describe.go)",
		"list /resourcequotas":  "kubectl's NamespaceDescriber (kube/describe.go)",
		"watch /secrets":        "the secrets view's informer (kube/cache.go, from the registry)",
		"list /secrets":         "the secrets view (kube/kinds/config.go)",
	}
	used := map[string]bool{}
	for _, r := range scanAll(t) {
		req := kube.AccessRequest{Verb: r.verb, Group: r.group, Resource: r.resource, Subresource: r.subresource}
		used[req.String()] = true
	}
	for kind, actions := range operable() {
		for _, a := range actions {
			used[kube.AccessOfOperation(kube.Operation{Action: a, Ref: kube.ObjectRef{Kind: kind}}, builtinInfo(t, kind)).String()] = true
		}
	}
	for _, req := range applyRequests() {
		used[req.String()] = true
	}
	deploy := hasDeployCode(t)
	for _, r := range kube.AccessRules(kinds.Builtin(), false) {
		if r.Feature == "browse" || (!deploy && strings.Contains(r.Source, "deploy*.go")) {
			continue
		}
		for _, res := range r.Resources {
			name, sub, _ := strings.Cut(res, "/")
			for _, v := range r.Verbs {
				req := kube.AccessRequest{Verb: v, Group: r.Group, Resource: name, Subresource: sub}
				if !used[req.String()] && notInSource[req.String()] == "" {
					t.Errorf("rule %q grants %s, which kube's source never asks for: drop it, or say why in notInSource", r.Feature, req)
				}
			}
		}
	}
}

// TestManifestBrowseFromRegistry: browsing's reads come from the registry's
// kinds: each kind's resource with get, list and watch, cluster-scoped ones
// apart, Secrets never.
func TestManifestBrowseFromRegistry(t *testing.T) {
	reg := kinds.Builtin()
	rules := kube.BrowseRules(reg)
	for _, info := range reg.Kinds() {
		req := kube.AccessRequest{Verb: "watch", Group: info.Group, Resource: info.Resource}
		if info.Resource == "secrets" {
			if kube.Grants(rules, req) {
				t.Error("browse grants secrets")
			}
			continue
		}
		if !kube.Grants(rules, req) {
			t.Errorf("kind %s: %s not granted", info.ID, req)
		}
	}
	for _, r := range rules {
		cluster := slices.Contains(r.Resources, "nodes") || slices.Contains(r.Resources, "clusterroles") || slices.Contains(r.Resources, "storageclasses")
		if cluster != (r.Scope == kube.ScopeCluster) {
			t.Errorf("rule %v: scope %s", r.Resources, r.Scope)
		}
	}
	if !kube.Grants(kube.BrowseRules(nil), kube.AccessRequest{Verb: "list", Resource: "events"}) {
		t.Error("events are not granted without a registry")
	}
}

// manifestCases are the golden manifests.
var manifestCases = []struct {
	file string
	opts kube.ManifestOptions
}{
	{"full-namespaces.yaml", kube.ManifestOptions{Namespaces: []string{"team-a", "team-b"}}},
	{"readonly-namespace.yaml", kube.ManifestOptions{Name: "viewer", Namespaces: []string{"team-a"}, ReadOnly: true}},
	{"full-all-namespaces.yaml", kube.ManifestOptions{Namespaces: []string{"kyyard"}, AllNamespaces: true}},
	{"readonly-all-namespaces.yaml", kube.ManifestOptions{Namespaces: []string{"kyyard"}, AllNamespaces: true, ReadOnly: true}},
}

// TestManifestGolden compares Manifest's YAML with testdata/manifest
// (-update-manifest rewrites them), and checks each document's shape.
func TestManifestGolden(t *testing.T) {
	for _, tc := range manifestCases {
		t.Run(tc.file, func(t *testing.T) {
			got, err := kube.Manifest(kinds.Builtin(), tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "manifest", tc.file)
			if *updateManifest {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./kube -run TestManifestGolden -update-manifest)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("manifest differs from %s (run with -update-manifest and review the diff):\n%s", path, got)
			}
			checkManifestShape(t, tc.opts, got)
		})
	}
}

// checkManifestShape parses the YAML and checks the objects: the
// ServiceAccount and its token Secret in the first namespace, a Role and
// binding per namespace (or none with all namespaces), the bindings'
// subject, no write verb and no Secret in a read-only manifest.
func checkManifestShape(t *testing.T, o kube.ManifestOptions, doc []byte) {
	t.Helper()
	name := o.Name
	if name == "" {
		name = kube.DefaultManifestName
	}
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(doc), 4096)
	kindsSeen := map[string]int{}
	for {
		var u unstructured.Unstructured
		if err := dec.Decode(&u.Object); err != nil {
			break
		}
		if u.Object == nil {
			continue
		}
		kindsSeen[u.GetKind()]++
		switch u.GetKind() {
		case "ServiceAccount":
			if u.GetName() != name || u.GetNamespace() != o.Namespaces[0] {
				t.Errorf("ServiceAccount %s/%s", u.GetNamespace(), u.GetName())
			}
		case "Secret":
			typ, _, _ := unstructured.NestedString(u.Object, "type")
			if typ != "kubernetes.io/service-account-token" || u.GetAnnotations()["kubernetes.io/service-account.name"] != name ||
				u.GetName() != kube.TokenSecretName(name) {
				t.Errorf("token Secret: %v", u.Object)
			}
		case "Role", "ClusterRole":
			rules, _, _ := unstructured.NestedSlice(u.Object, "rules")
			for _, r := range rules {
				m := r.(map[string]any)
				verbs, _, _ := unstructured.NestedStringSlice(m, "verbs")
				res, _, _ := unstructured.NestedStringSlice(m, "resources")
				for _, v := range verbs {
					if o.ReadOnly && v != "get" && v != "list" && v != "watch" && !strings.HasPrefix(res[0], "selfsubject") {
						t.Errorf("%s %s grants %s on %v in a read-only manifest", u.GetKind(), u.GetName(), v, res)
					}
				}
				if o.ReadOnly && (slices.Contains(res, "secrets") || slices.Contains(res, "*") || slices.Contains(verbs, "*")) {
					t.Errorf("%s grants %v %v in a read-only manifest", u.GetKind(), verbs, res)
				}
			}
		case "RoleBinding", "ClusterRoleBinding":
			subjects, _, _ := unstructured.NestedSlice(u.Object, "subjects")
			want := map[string]any{"kind": rbacv1.ServiceAccountKind, "name": name, "namespace": o.Namespaces[0]}
			if len(subjects) != 1 || !equalMaps(subjects[0].(map[string]any), want) {
				t.Errorf("%s subjects %v", u.GetKind(), subjects)
			}
		}
	}
	roles := len(o.Namespaces)
	if o.AllNamespaces {
		roles = 0
	}
	want := map[string]int{"ServiceAccount": 1, "Secret": 1, "ClusterRole": 1, "ClusterRoleBinding": 1, "Role": roles, "RoleBinding": roles}
	for k, n := range want {
		if kindsSeen[k] != n {
			t.Errorf("%d %s, want %d (saw %v)", kindsSeen[k], k, n, kindsSeen)
		}
	}
}

func equalMaps(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestManifestInvalidOptions: bad names and namespaces are refused with
// ErrInvalidManifest, naming the flag.
func TestManifestInvalidOptions(t *testing.T) {
	cases := []struct {
		opts kube.ManifestOptions
		want string
	}{
		{kube.ManifestOptions{}, "no namespace"},
		{kube.ManifestOptions{Namespaces: []string{"Bad_NS"}}, "--namespace"},
		{kube.ManifestOptions{Namespaces: []string{"a", "a"}}, "named twice"},
		{kube.ManifestOptions{Name: "a.b", Namespaces: []string{"a"}}, "--name"},
		{kube.ManifestOptions{Name: strings.Repeat("x", 64), Namespaces: []string{"a"}}, "--name"},
	}
	for _, tc := range cases {
		_, err := kube.Manifest(kinds.Builtin(), tc.opts)
		if !errors.Is(err, kube.ErrInvalidManifest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want ErrInvalidManifest with %q", tc.opts, err, tc.want)
		}
	}
}

// FuzzManifestOptions: any name and namespaces either fail with
// ErrInvalidManifest or give YAML whose objects parse and have the shape
// checkManifestShape wants.
func FuzzManifestOptions(f *testing.F) {
	f.Add("kyyard", "demo,other", false, false)
	f.Add("", "a", true, true)
	f.Add("x-", "a,,b", false, true)
	f.Add("viewer", "ns\nkind: ClusterRole", true, false)
	reg := kinds.Builtin()
	f.Fuzz(func(t *testing.T, name, namespaces string, readOnly, all bool) {
		o := kube.ManifestOptions{Name: name, Namespaces: strings.Split(namespaces, ","), ReadOnly: readOnly, AllNamespaces: all}
		got, err := kube.Manifest(reg, o)
		if err != nil {
			if !errors.Is(err, kube.ErrInvalidManifest) {
				t.Fatalf("error not ErrInvalidManifest: %v", err)
			}
			return
		}
		checkManifestShape(t, o, got)
	})
}

// sourceFile finds the kube source files an access rule's Source names
// ("kube/internal/logstream/logs.go (GetLogs)").
var sourceFile = regexp.MustCompile(`\bkube/[A-Za-z0-9_/]+\.go\b`)

// TestAccessRuleSourcesExist: every kube file an access rule's Source
// names exists, so the manifest (kyyard manifest, its goldens) never
// points a reader at a file that moved (issue 23 moved most of them).
func TestAccessRuleSourcesExist(t *testing.T) {
	named := 0
	for _, r := range kube.AccessRules(kinds.Builtin(), false) {
		for _, f := range sourceFile.FindAllString(r.Source, -1) {
			named++
			if _, err := os.Stat(filepath.Join("..", f)); err != nil {
				t.Errorf("rule %q names %s: %v", r.Feature, f, err)
			}
		}
	}
	if named < 10 {
		t.Fatalf("only %d source files named: the rules name where their requests are made", named)
	}
}
