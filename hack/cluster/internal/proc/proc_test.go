package proc_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

func shell(t *testing.T) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	sh, err = filepath.EvalSymlinks(sh)
	if err != nil {
		t.Fatal(err)
	}
	return sh
}

func TestStartWritesPIDAndLog(t *testing.T) {
	dir := t.TempDir()
	sh := shell(t)
	p, err := proc.Start(proc.Spec{
		Name: "demo", Binary: sh, Args: []string{"-c", "echo out; echo err >&2; exit 3"},
		Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir,
		LogFile: filepath.Join(dir, "demo.log"), PIDFile: filepath.Join(dir, "demo.pid"),
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-p.Exited:
	case <-time.After(10 * time.Second):
		t.Fatal("process did not exit")
	}
	if p.Err == nil || !strings.Contains(p.Err.Error(), "exit status 3") {
		t.Errorf("Err = %v, want exit status 3", p.Err)
	}
	pid, err := proc.ReadPID(filepath.Join(dir, "demo.pid"))
	if err != nil || pid != p.PID {
		t.Errorf("PID file = %d, %v; want %d", pid, err, p.PID)
	}
	tail := proc.Tail(filepath.Join(dir, "demo.log"), 2)
	if tail != "out\nerr" {
		t.Errorf("Tail = %q", tail)
	}
	if proc.Runs(p.PID, sh) {
		t.Error("Runs reports an exited process")
	}
}

func TestStopLeavesForeignProcessesAlone(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "x.pid")
	// Our own test process: it must never be signalled, because it does not
	// run the binary named in the call.
	if err := os.WriteFile(pidFile, []byte(strconv.Itoa(os.Getpid())), 0o644); err != nil {
		t.Fatal(err)
	}
	did, err := proc.Stop(pidFile, "/nonexistent/binary", time.Second)
	if err != nil || did {
		t.Fatalf("Stop = %t, %v; want false, nil", did, err)
	}
	if _, err := os.Stat(pidFile); !os.IsNotExist(err) {
		t.Error("stale PID file not removed")
	}
}

func TestStopTerminates(t *testing.T) {
	dir := t.TempDir()
	sh := shell(t)
	p, err := proc.Start(proc.Spec{
		Name: "sleeper", Binary: sh, Args: []string{"-c", "exec sleep 60"}, Env: []string{"PATH=/usr/bin:/bin"}, Dir: dir,
		LogFile: filepath.Join(dir, "s.log"), PIDFile: filepath.Join(dir, "s.pid"),
	})
	if err != nil {
		t.Fatal(err)
	}
	// After exec the process runs sleep, not sh: Stop must refuse to touch it
	// when asked for sh, and stop it when asked for sleep.
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep")
	}
	sleep, _ = filepath.EvalSymlinks(sleep)
	deadline := time.Now().Add(5 * time.Second)
	for !proc.Runs(p.PID, sleep) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if pid := proc.RunningPID(filepath.Join(dir, "s.pid"), sleep); pid != p.PID {
		t.Fatalf("RunningPID = %d, want %d", pid, p.PID)
	}
	did, err := proc.Stop(filepath.Join(dir, "s.pid"), sleep, 5*time.Second)
	if err != nil || !did {
		t.Fatalf("Stop = %t, %v", did, err)
	}
	select {
	case <-p.Exited:
	case <-time.After(5 * time.Second):
		t.Fatal("still running after Stop")
	}
}
