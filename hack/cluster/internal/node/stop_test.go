package node_test

import (
	"io"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// fakeBinaries copies sleep into l's bin folder under each node process's
// name, so a started copy runs "our" binary (/proc/PID/exe).
func fakeBinaries(t *testing.T, l layout.Layout) {
	t.Helper()
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Ensure(); err != nil {
		t.Fatal(err)
	}
	for _, b := range append(node.Processes, "containerd-shim-runc-v2") {
		if err := os.WriteFile(l.BinaryPath(b), data, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func start(t *testing.T, l layout.Layout, name string) int {
	t.Helper()
	p, err := proc.Start(proc.Spec{Name: name, Binary: l.BinaryPath(name), Args: []string{"300"}, Dir: l.Cache,
		LogFile: l.LogPath(name), PIDFile: l.PIDPath(name)})
	if err != nil {
		t.Fatal(err)
	}
	return p.PID
}

// TestStopStopsTheNodesProcessesAndNothingElse: Stop signals the kubelet
// and containerd it started (found by PID file and binary), removes their
// PID files, and leaves alone a process a PID file names that does not run
// our binary. The CRI clean-up fails against a fake containerd and says so.
func TestStopStopsTheNodesProcessesAndNothingElse(t *testing.T) {
	node.NoHostCleanup()
	l, err := layout.New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	fakeBinaries(t, l)
	kubelet, containerd := start(t, l, "kubelet"), start(t, l, "containerd")
	n := &node.Node{L: l, Out: io.Discard}
	if got := n.Running(); len(got) != 2 || got[0].Name != "containerd" || got[1].PID != kubelet {
		t.Fatalf("Running() = %+v", got)
	}
	stranger := exec.Command("sleep", "300")
	if err := stranger.Start(); err != nil {
		t.Fatal(err)
	}
	defer stranger.Process.Kill()
	_ = n.Stop()
	for _, pid := range []int{kubelet, containerd} {
		if proc.Runs(pid, l.BinaryPath("kubelet")) || proc.Runs(pid, l.BinaryPath("containerd")) {
			t.Errorf("pid %d still runs", pid)
		}
	}
	for _, f := range []string{l.PIDPath("kubelet"), l.PIDPath("containerd")} {
		if _, err := os.Stat(f); err == nil {
			t.Errorf("%s is left", f)
		}
	}
	if len(n.Running()) != 0 {
		t.Errorf("Running() after Stop = %+v", n.Running())
	}

	// A PID file naming a process that is not ours: not signalled.
	if err := os.WriteFile(l.PIDPath("kubelet"), []byte(strconv.Itoa(stranger.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_ = n.Stop()
	time.Sleep(100 * time.Millisecond)
	if err := syscall.Kill(stranger.Process.Pid, 0); err != nil {
		t.Errorf("a process that is not ours was stopped: %v", err)
	}
}
