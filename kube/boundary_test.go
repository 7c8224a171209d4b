package kube_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// foreign reports whether a package path belongs to client-go, apimachinery,
// k8s.io/api or any other k8s.io module: none of their types may leave kube.
func foreign(path string) bool {
	return strings.HasPrefix(path, "k8s.io/") || strings.HasPrefix(path, "sigs.k8s.io/")
}

// loadExported type-checks a package from the compiler's export data (go
// list -export), which is fast and needs no source parsing.
func loadExported(t *testing.T, pkg string) *types.Package {
	t.Helper()
	out, err := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", pkg).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	imp := importer.ForCompiler(token.NewFileSet(), "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	p, err := imp.Import(pkg)
	if err != nil {
		t.Fatalf("import %s: %v", pkg, err)
	}
	return p
}

// leaks returns the foreign named types a type exposes: itself, its
// elements, the results of a func type, and the exported fields of a
// struct. Parameters are allowed (a constructor may take a *rest.Config).
func leaks(t types.Type, seen map[types.Type]bool) []string {
	if seen[t] {
		return nil
	}
	seen[t] = true
	switch t := t.(type) {
	case *types.Named:
		pkg := t.Obj().Pkg()
		if pkg != nil && foreign(pkg.Path()) {
			return []string{pkg.Path() + "." + t.Obj().Name()}
		}
		if pkg == nil || !internalPart(pkg.Path()) {
			return nil // the public packages' named types are checked on their own
		}
		// A type of an internal part that the public API re-exports (an
		// alias, a field, a result) is checked through: its fields and its
		// exported methods' results.
		out := leaks(t.Underlying(), seen)
		for m := range t.Methods() {
			if m.Exported() {
				out = append(out, leaks(m.Type(), seen)...)
			}
		}
		return out
	case *types.Alias:
		return leaks(types.Unalias(t), seen)
	case *types.Pointer:
		return leaks(t.Elem(), seen)
	case *types.Slice:
		return leaks(t.Elem(), seen)
	case *types.Array:
		return leaks(t.Elem(), seen)
	case *types.Map:
		return append(leaks(t.Key(), seen), leaks(t.Elem(), seen)...)
	case *types.Chan:
		return leaks(t.Elem(), seen)
	case *types.Signature:
		var out []string
		for i := 0; i < t.Results().Len(); i++ {
			out = append(out, leaks(t.Results().At(i).Type(), seen)...)
		}
		return out
	case *types.Struct:
		var out []string
		for i := 0; i < t.NumFields(); i++ {
			if f := t.Field(i); f.Exported() {
				out = append(out, leaks(f.Type(), seen)...)
			}
		}
		return out
	}
	return nil
}

// internalPart reports whether an import path is one of the adapter's
// internal parts (kube/internal/...): Go lets only kube and its parts
// import them, so they may speak client-go among themselves.
func internalPart(path string) bool {
	return strings.HasPrefix(path, facade+"/internal/")
}

// TestNoForeignTypeLeavesKube enforces the design's rule: no client-go,
// apimachinery or k8s.io/api type is returned by an exported function or
// method of package kube or of its public parts (kube/vocab, kube/kinds),
// nor is one a field of an exported type. The internal parts
// (kube/internal/...) work on client-go's types, and the screens cannot
// import them; what of theirs the public packages re-export is checked
// through (leaks).
func TestNoForeignTypeLeavesKube(t *testing.T) {
	var found []string
	for _, path := range adapterPackages(t) {
		if !internalPart(path) {
			found = append(found, foreignExports(t, path)...)
		}
	}
	if len(found) > 0 {
		t.Fatalf("kube's exported API leaks Kubernetes types:\n%s", strings.Join(found, "\n"))
	}
}

// foreignExports returns, for the adapter package path, each exported
// name whose type, fields, results or methods expose a foreign type
// ("Name.Method exposes k8s.io/api/core/v1.Pod").
func foreignExports(t *testing.T, path string) []string {
	pkg := loadExported(t, path)
	short := strings.TrimPrefix(path, "github.com/kyyard/kyyard/")
	var found []string
	report := func(where string, ts []string) {
		for _, s := range ts {
			found = append(found, short+"."+where+" exposes "+s)
		}
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Func:
			report(name, leaks(obj.Type(), map[types.Type]bool{}))
		case *types.Var, *types.Const:
			report(name, leaks(obj.Type(), map[types.Type]bool{}))
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok {
				report(name, leaks(obj.Type(), map[types.Type]bool{}))
				continue
			}
			report(name, leaks(named.Underlying(), map[types.Type]bool{}))
			for m := range named.Methods() {
				if m.Exported() {
					report(name+"."+m.Name(), leaks(m.Type(), map[types.Type]bool{}))
				}
			}
			if iface, ok := named.Underlying().(*types.Interface); ok {
				for m := range iface.Methods() {
					if m.Exported() {
						report(name+"."+m.Name(), leaks(m.Type(), map[types.Type]bool{}))
					}
				}
			}
		}
	}
	return found
}

// TestScreensImportNoKubernetesPackage enforces that views and ui see only
// kyyard's own types: none of their packages imports a k8s.io package.
func TestScreensImportNoKubernetesPackage(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}",
		"github.com/kyyard/kyyard/views/...", "github.com/kyyard/kyyard/ui/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for _, imp := range fields[1:] {
			if foreign(imp) {
				t.Errorf("%s imports %s", fields[0], imp)
			}
		}
	}
}
