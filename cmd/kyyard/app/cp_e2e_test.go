package app_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
	"github.com/kyyard/kyyard/internal/kubetest"
)

// TestE2ERealNodeCpCommand: `kyyard cp` both ways with a busybox
// container of the real node, in kubectl cp's syntax. In a namespace that
// enforces no Pod Security level the exec guard's warning refuses and
// names --yes; with --yes the file goes in (namespace/pod:path), comes
// back to a new name identical, and both copies are lines of the history
// file; a missing path exits non-zero with tar's words; --readonly sends
// nothing.
func TestE2ERealNodeCpCommand(t *testing.T) {
	kubeconfig, _ := localTools(t)
	cs := kubernetes.NewForConfigOrDie(kubetest.Local(t))
	kubetest.RequireRealNode(t, cs)
	ns := kubetest.TempNamespace(t, cs, "kyyard-cpcli")
	kubetest.RunRealNodePod(t, cs, ns, kubetest.RealNodePod("box", kubetest.BusyboxImage, "sh", "-c", "trap 'exit 0' TERM; while true; do sleep 1; done"))
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	dir := t.TempDir()
	src := filepath.Join(dir, "notes.txt")
	body := strings.Repeat("a line of notes\n", 5000)
	if err := os.WriteFile(src, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, error) {
		var out, errOut bytes.Buffer
		cmd := app.NewCommand(&out, &errOut)
		cmd.SetArgs(append([]string{"cp", "--kubeconfig", kubeconfig}, args...))
		err := cmd.Execute()
		return out.String(), errOut.String(), err
	}

	if _, _, err := run(src, ns+"/box:/tmp/"); err == nil || !strings.Contains(err.Error(), "--yes accepts this warning") {
		t.Fatalf("without --yes in a namespace of no Pod Security level: %v", err)
	}
	out, errOut, err := run("--yes", src, ns+"/box:/tmp/")
	if err != nil || !strings.Contains(out, "copied 1 file (78.1 KiB) to container main: "+ns+"/box:/tmp/notes.txt") {
		t.Fatalf("cp in: %v\n%s\n%s", err, out, errOut)
	}
	back := filepath.Join(dir, "back.txt")
	if out, errOut, err = run("--yes", "-n", ns, "box:/tmp/notes.txt", back); err != nil || !strings.Contains(out, "from container main: "+back) {
		t.Fatalf("cp out: %v\n%s\n%s", err, out, errOut)
	}
	if b, err := os.ReadFile(back); err != nil || string(b) != body {
		t.Fatalf("the file back: %d bytes, %v", len(b), err)
	}
	if _, _, err = run("--yes", "-n", ns, "box:/tmp/nope", dir); err == nil || !strings.Contains(err.Error(), "No such file or directory") {
		t.Fatalf("a missing path: %v", err)
	}
	if _, _, err = run("--readonly", "--yes", "-n", ns, "box:/tmp/notes.txt", dir); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("--readonly: %v", err)
	}
	hist, err := os.ReadFile(filepath.Join(xdg, "kyyard", "history.log"))
	if err != nil || strings.Count(string(hist), ns+"/pods/box\tcopy\tok") != 2 || !strings.Contains(string(hist), "\tcopy\tnot_found") {
		t.Fatalf("history: %v\n%s", err, hist)
	}
}
