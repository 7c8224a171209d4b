package views_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeCalls are the methods through which a screen sends a write or an
// exec (the screens' small interfaces: operate.Operator, workload.Editor,
// deploy.Deployer and Remover, exec.Execer and Debugger).
var writeCalls = map[string]bool{"Operate": true, "ApplyWorkload": true, "Deploy": true, "Remove": true, "OpenExec": true, "OpenDebug": true, "ApplyYAMLEdit": true}

// answered are the names whose use in the function that sends a write
// says its answer comes back as a views.AnswerMsg (views.Answer itself,
// or the helper of a screen that builds one around it).
var answered = []string{"views.Answer", "AnswerMsg", "debugAnswer", "startRun"}

// TestEveryWriteIsAnswered makes forgetting the history hard: every call
// of a write or an exec in a screen's package is made in a function that
// answers with a views.AnswerMsg, whose outcomes the root records whether
// or not the screen is still shown (answer.go). A write whose answer went
// to the screen alone would be lost when the person leaves it first.
func TestEveryWriteIsAnswered(t *testing.T) {
	dirs, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, d := range dirs {
		if !d.IsDir() || d.Name() == "testdata" {
			continue
		}
		files, _ := filepath.Glob(filepath.Join(d.Name(), "*.go"))
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			src, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, path, src, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range f.Decls {
				fn, ok := decl.(*ast.FuncDecl)
				if !ok || fn.Body == nil {
					continue
				}
				body := string(src[fset.Position(fn.Body.Pos()).Offset:fset.Position(fn.Body.End()).Offset])
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					call, ok := n.(*ast.CallExpr)
					if !ok {
						return true
					}
					sel, ok := call.Fun.(*ast.SelectorExpr)
					if !ok || !writeCalls[sel.Sel.Name] || len(call.Args) == 0 {
						return true
					}
					if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "os" {
						return true // os.Remove of a file, not a write to the cluster
					}
					calls++
					for _, a := range answered {
						if strings.Contains(body, a) {
							return true
						}
					}
					t.Errorf("%s: %s sends %s but does not answer with a views.AnswerMsg: its outcome is lost when the person leaves the screen first",
						fset.Position(call.Pos()), fn.Name.Name, sel.Sel.Name)
					return true
				})
			}
		}
	}
	if calls < len(writeCalls) {
		t.Fatalf("found %d write calls; the scan no longer sees the screens' writes", calls)
	}
}
