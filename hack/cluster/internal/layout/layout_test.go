package layout_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
)

func TestFind(t *testing.T) {
	root := t.TempDir()
	mod := filepath.Join(root, "hack", "cluster")
	if err := os.MkdirAll(filepath.Join(mod, "internal", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/kyyard/kyyard\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(mod, "go.mod"), []byte("module "+layout.ModulePath+"\n\ngo 1.26.0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, start := range []string{root, mod, filepath.Join(mod, "internal", "x")} {
		l, err := layout.Find(start)
		if err != nil {
			t.Fatalf("Find(%s): %v", start, err)
		}
		if l.ModuleDir != mod || l.Cache != filepath.Join(mod, ".cache") {
			t.Errorf("Find(%s) = %s, %s", start, l.ModuleDir, l.Cache)
		}
		if l.AdminKubeconfig() != filepath.Join(mod, ".cache", "kubeconfig", "admin.kubeconfig") {
			t.Errorf("admin kubeconfig %s", l.AdminKubeconfig())
		}
	}
	if _, err := layout.Find(t.TempDir()); err == nil {
		t.Error("Find outside the repository succeeded")
	}
}
