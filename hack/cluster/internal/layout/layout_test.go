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

// TestFleetPart: a fleet part's state lives in its own folder under
// .cache/fleet, never in the single cluster's folders; the binaries and
// images are shared.
func TestFleetPart(t *testing.T) {
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if l.FleetKubeconfig() != filepath.Join(l.Cache, "fleet", "kubeconfig") {
		t.Errorf("fleet kubeconfig %s", l.FleetKubeconfig())
	}
	p := l.FleetPart("kyyard-fleet-2")
	root := filepath.Join(l.Cache, "fleet", "kyyard-fleet-2")
	if p.Cache != root || p.ModuleDir != l.ModuleDir || p.Bin != l.Bin || p.Images != l.Images {
		t.Errorf("part %+v", p)
	}
	if p.BinaryPath("kube-apiserver") != l.BinaryPath("kube-apiserver") {
		t.Errorf("binary %s", p.BinaryPath("kube-apiserver"))
	}
	single := map[string]bool{l.PKI: true, l.Kubeconfig: true, l.Data: true, l.Logs: true, l.Run: true, l.Etc: true,
		l.PodLogs: true, l.ExecRoot: true, l.Home: true, l.Node: true}
	for _, d := range []string{p.PKI, p.Kubeconfig, p.Data, p.Logs, p.Run, p.Etc, p.PodLogs, p.ExecRoot, p.Home, p.Node} {
		if single[d] || filepath.Dir(d) != root {
			t.Errorf("fleet part folder %s is not its own under %s", d, root)
		}
	}
	if p.PIDPath("kwok") == l.PIDPath("kwok") || p.AdminKubeconfig() == l.AdminKubeconfig() {
		t.Error("a fleet part shares PID files or kubeconfigs with the single cluster")
	}
	if l.FleetPart("kyyard-fleet-1").PIDPath("kwok") == p.PIDPath("kwok") {
		t.Error("two fleet parts share PID files")
	}
}
