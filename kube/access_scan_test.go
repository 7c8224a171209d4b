package kube_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The requests kube's own source makes, read from it (go/ast) so that a
// request added to kube or to a kind plugin without its rule in the
// manifest's table (access.go) fails TestManifestCoversKubeRequests. It
// finds:
//   - AccessCheck{...} literals (kube/internal/guards), also as the elided elements of
//     []AccessCheck{{...}} (the guards' access reviews) whose fields are
//     string literals; a literal with a computed field must be inside a
//     function listed in dynamicChecks, whose answers a test enumerates;
//   - typed clientset calls: <x>.<Group>V<n>().<Resource>(…).<Verb>(…),
//     also when the group or the resource client went through a local
//     variable first (apps := c.cs.AppsV1(); apps.Deployments(ns).Get);
//   - REST calls on a subresource: .Post()/.Get()….Resource("pods")….
//     SubResource("exec");
//   - dynamic client calls: <dyn>.Resource(x)….Get/List/Watch: a read of
//     whatever kind a person browses (only reads are allowed there).
//
// A call the scanner cannot resolve (a clientset method reached through a
// struct field other than the group accessor) is missed: the e2e test's
// use of kyyard as the ServiceAccount is the backstop.

// scannedRequest is one request found in the source.
type scannedRequest struct {
	verb, group, resource, subresource string
	// check: an AccessCheck literal (a guard's access review).
	check bool
	// dynamic: a dynamic-client call on any browsed kind (resource "").
	dynamic bool
	// computed: an AccessCheck literal with a field that is not a
	// literal; fn is its function.
	computed bool
	fn       string
	pos      string
}

// groupAccessor matches a typed clientset's group accessor ("CoreV1",
// "AppsV1", "AutoscalingV2", "NetworkingV1beta1").
var groupAccessor = regexp.MustCompile(`^([A-Z][A-Za-z]*?)V\d+((alpha|beta)\d+)?$`)

// groupOf maps a group accessor's name part to the API group.
var groupOf = map[string]string{
	"Core": "", "Apps": "apps", "Batch": "batch", "Autoscaling": "autoscaling", "Policy": "policy",
	"Networking": "networking.k8s.io", "Discovery": "discovery.k8s.io", "Storage": "storage.k8s.io",
	"Rbac": "rbac.authorization.k8s.io", "Authorization": "authorization.k8s.io",
	"Authentication": "authentication.k8s.io", "Events": "events.k8s.io", "Coordination": "coordination.k8s.io",
	"Metrics": "metrics.k8s.io",
}

// typedResources maps a typed resource client whose name is not its
// resource's to the resource: k8s.io/metrics' PodMetricses and
// NodeMetricses read the metrics.k8s.io resources pods and nodes.
var typedResources = map[string]string{"metrics.k8s.io/podmetricses": "pods", "metrics.k8s.io/nodemetricses": "nodes"}

// typedVerbs maps a typed resource client's methods to the RBAC verb and
// subresource they use.
var typedVerbs = map[string][2]string{
	"Get": {"get", ""}, "List": {"list", ""}, "Watch": {"watch", ""}, "Create": {"create", ""},
	"Update": {"update", ""}, "UpdateStatus": {"update", "status"}, "Patch": {"patch", ""},
	"Apply": {"patch", ""}, "Delete": {"delete", ""}, "DeleteCollection": {"deletecollection", ""},
	"UpdateScale": {"update", "scale"}, "GetScale": {"get", "scale"}, "GetLogs": {"get", "log"},
	"Evict": {"create", "eviction"}, "EvictV1": {"create", "eviction"}, "UpdateEphemeralContainers": {"update", "ephemeralcontainers"},
}

// restVerbs maps a REST request's method to its RBAC verb.
var restVerbs = map[string]string{"Get": "get", "Post": "create", "Put": "update", "Patch": "patch", "Delete": "delete"}

// scanRequests parses the non-test Go files of dir and returns the
// requests they make.
func scanRequests(t *testing.T, dir string) []scannedRequest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []scannedRequest
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			s := funcScan{assigned: map[string]ast.Expr{}}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
					for i, l := range as.Lhs {
						if id, ok := l.(*ast.Ident); ok {
							s.assigned[id.Name] = as.Rhs[i]
						}
					}
				}
				return true
			})
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if n == nil {
					return false
				}
				pos := fset.Position(n.Pos()).String()
				switch n := n.(type) {
				case *ast.CompositeLit:
					if isAccessCheck(n.Type) {
						r := accessLiteral(n)
						r.fn, r.pos = fn.Name.Name, pos
						out = append(out, r)
					}
					// []AccessCheck{{...}, ...}: the elements' type is elided.
					if at, ok := n.Type.(*ast.ArrayType); ok {
						if isAccessCheck(at.Elt) {
							for _, e := range n.Elts {
								if lit, ok := e.(*ast.CompositeLit); ok && lit.Type == nil {
									r := accessLiteral(lit)
									r.fn, r.pos = fn.Name.Name, fset.Position(lit.Pos()).String()
									out = append(out, r)
								}
							}
						}
					}
				case *ast.CallExpr:
					if r, ok := s.call(n); ok {
						r.fn, r.pos = fn.Name.Name, pos
						out = append(out, r)
					}
				}
				return true
			})
		}
	}
	return out
}

// funcScan resolves local variables within one function.
type funcScan struct {
	assigned map[string]ast.Expr
}

// isAccessCheck reports whether a literal's type is the guards' access
// review: guards.AccessCheck, or AccessCheck inside kube/internal/guards.
func isAccessCheck(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name == "AccessCheck"
	case *ast.SelectorExpr:
		return e.Sel.Name == "AccessCheck"
	}
	return false
}

// accessLiteral reads an AccessCheck{...} literal.
func accessLiteral(lit *ast.CompositeLit) scannedRequest {
	r := scannedRequest{check: true}
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			r.computed = true
			continue
		}
		key := strings.ToLower(kv.Key.(*ast.Ident).Name)
		if key == "namespace" {
			continue
		}
		bl, ok := kv.Value.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			r.computed = true
			continue
		}
		v, _ := strconv.Unquote(bl.Value)
		switch key {
		case "verb":
			r.verb = v
		case "group":
			r.group = v
		case "resource":
			r.resource = v
		case "subresource":
			r.subresource = v
		}
	}
	return r
}

// resolve follows a local variable to the expression assigned to it.
func (s funcScan) resolve(e ast.Expr) ast.Expr {
	for i := 0; i < 5; i++ {
		id, ok := e.(*ast.Ident)
		if !ok {
			return e
		}
		next, ok := s.assigned[id.Name]
		if !ok {
			return e
		}
		e = next
	}
	return e
}

// method splits a call x.M(args) into x and M.
func method(e ast.Expr) (recv ast.Expr, name string, call *ast.CallExpr, ok bool) {
	call, ok = e.(*ast.CallExpr)
	if !ok {
		return nil, "", nil, false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return nil, "", nil, false
	}
	return sel.X, sel.Sel.Name, call, true
}

// call recognises a typed, REST or dynamic client call.
func (s funcScan) call(c *ast.CallExpr) (scannedRequest, bool) {
	recv, name, _, ok := method(c)
	if !ok {
		return scannedRequest{}, false
	}
	if name == "SubResource" && len(c.Args) == 1 {
		return s.restCall(c)
	}
	vs, ok := typedVerbs[name]
	if !ok {
		return scannedRequest{}, false
	}
	// The resource client: <group>.<Resource>(…), or the dynamic
	// <dyn>.Resource(gvr)[.Namespace(ns)].
	rc := s.resolve(recv)
	gx, res, _, ok := method(rc)
	if !ok {
		return scannedRequest{}, false
	}
	if res == "Namespace" {
		if inner, n, _, ok := method(s.resolve(gx)); ok && n == "Resource" {
			gx, res = inner, n
		}
	}
	if res == "Resource" {
		return scannedRequest{verb: vs[0], dynamic: true}, true
	}
	_, accessor, _, ok := method(s.resolve(gx))
	if !ok {
		return scannedRequest{}, false
	}
	m := groupAccessor.FindStringSubmatch(accessor)
	if m == nil {
		return scannedRequest{}, false
	}
	group, known := groupOf[m[1]]
	if !known {
		group = "?" + m[1] // fails the test: add the group to groupOf
	}
	r := scannedRequest{verb: vs[0], group: group, resource: strings.ToLower(res), subresource: vs[1]}
	if name, ok := typedResources[group+"/"+r.resource]; ok {
		r.resource = name
	}
	if name == "Patch" || name == "Update" || name == "Get" {
		// The typed clients' last variadic argument names a subresource
		// ("ephemeralcontainers").
		if n := len(c.Args); n >= 5 && name == "Patch" || n >= 4 && name != "Patch" {
			if bl, ok := c.Args[n-1].(*ast.BasicLit); ok && bl.Kind == token.STRING {
				r.subresource, _ = strconv.Unquote(bl.Value)
			}
		}
	}
	return r, true
}

// restCall reads a REST request chain ending in SubResource("x").
func (s funcScan) restCall(c *ast.CallExpr) (scannedRequest, bool) {
	sub, ok := c.Args[0].(*ast.BasicLit)
	if !ok {
		return scannedRequest{}, false
	}
	r := scannedRequest{}
	r.subresource, _ = strconv.Unquote(sub.Value)
	var e ast.Expr = c.Fun.(*ast.SelectorExpr).X
	for {
		recv, name, call, ok := method(s.resolve(e))
		if !ok {
			break
		}
		switch {
		case name == "Resource" && len(call.Args) == 1:
			if bl, ok := call.Args[0].(*ast.BasicLit); ok {
				r.resource, _ = strconv.Unquote(bl.Value)
			}
		case restVerbs[name] != "" && len(call.Args) == 0:
			r.verb = restVerbs[name]
		case groupAccessor.MatchString(name):
			m := groupAccessor.FindStringSubmatch(name)
			r.group = groupOf[m[1]]
		}
		e = recv
	}
	return r, r.verb != "" && r.resource != ""
}

// scanAll scans the directory of every adapter package (adapterPackages:
// kube and every package under it but the test support), so a request
// moved into a new sub-package is still covered by the manifest.
func scanAll(t *testing.T) []scannedRequest {
	var all []scannedRequest
	for _, d := range adapterDirs(t) {
		all = append(all, scanRequests(t, d)...)
	}
	if len(all) == 0 {
		t.Fatal("the scanner found no request in kube's source")
	}
	return all
}

// hasDeployCode reports whether kube/internal/release/deploy*.go holds
// more than the contract's types (deploytypes.go): then the deploy rules
// must be used.
func hasDeployCode(t *testing.T) bool {
	dir := filepath.Join("internal", "release")
	files, _ := filepath.Glob(filepath.Join(dir, "deploy*.go"))
	for _, f := range files {
		if base := filepath.Base(f); !strings.HasSuffix(base, "_test.go") && base != "deploytypes.go" {
			return true
		}
	}
	_, err := os.Stat(filepath.Join(dir, "deploytypes.go"))
	if err != nil {
		t.Logf("no deploytypes.go: %v", err)
	}
	return false
}
