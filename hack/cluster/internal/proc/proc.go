// Package proc starts the cluster's components as detached processes and stops
// them again, identifying them only by PID files whose process still runs the
// expected binary (/proc/PID/exe), so nothing else on the machine is signalled.
package proc

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Spec describes a process to start.
type Spec struct {
	// Name is the component name, used in messages.
	Name string
	// Binary is the absolute path of the executable.
	Binary string
	// Args are the command-line arguments (without the program name).
	Args []string
	// Env is the complete environment.
	Env []string
	// Dir is the working directory.
	Dir string
	// LogFile receives stdout and stderr, appended.
	LogFile string
	// PIDFile receives the process's PID.
	PIDFile string
}

// Process is a started component.
type Process struct {
	// Spec is what was started.
	Spec Spec
	// PID is the process ID of the binary itself (no wrapper shell).
	PID int
	// Exited is closed when the process exits while this program still runs;
	// Err then holds the wait error.
	Exited chan struct{}
	// Err is the process's exit error, valid after Exited is closed.
	Err error
}

// Start launches s in a new session with stdin from /dev/null and its output
// appended to s.LogFile, then writes s.PIDFile. The process outlives this
// program.
func Start(s Spec) (*Process, error) {
	logf, err := os.OpenFile(s.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "\n===== %s start %s\n", time.Now().UTC().Format(time.RFC3339), s.Binary)
	cmd := exec.Command(s.Binary, s.Args...)
	cmd.Env = s.Env
	cmd.Dir = s.Dir
	cmd.Stdin = nil // os/exec connects /dev/null
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", s.Name, err)
	}
	p := &Process{Spec: s, PID: cmd.Process.Pid, Exited: make(chan struct{})}
	go func() {
		p.Err = cmd.Wait()
		close(p.Exited)
	}()
	if err := os.WriteFile(s.PIDFile, []byte(strconv.Itoa(p.PID)+"\n"), 0o644); err != nil {
		_ = cmd.Process.Kill()
		return nil, err
	}
	return p, nil
}

// ReadPID returns the PID in file, or 0 when the file does not exist.
func ReadPID(file string) (int, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 0 {
		return 0, fmt.Errorf("%s: bad PID %q", file, strings.TrimSpace(string(data)))
	}
	return pid, nil
}

// Runs reports whether process pid is alive and executes binary, judged by
// /proc/PID/exe (a binary replaced on disk reads "PATH (deleted)" and still
// counts). Zombies have no exe link and do not count.
func Runs(pid int, binary string) bool {
	exe, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/exe")
	if err != nil {
		return false
	}
	return strings.TrimSuffix(exe, " (deleted)") == binary
}

// RunningPID returns the PID from pidFile if that process runs binary, else 0.
func RunningPID(pidFile, binary string) int {
	pid, err := ReadPID(pidFile)
	if err != nil || pid == 0 || !Runs(pid, binary) {
		return 0
	}
	return pid
}

// Stop sends SIGTERM to the process in pidFile if it runs binary, waits up to
// grace for it to exit, then sends SIGKILL; it removes pidFile. It reports
// whether a process was signalled. A PID file naming any other process is
// removed without signalling anything.
func Stop(pidFile, binary string, grace time.Duration) (bool, error) {
	pid, err := ReadPID(pidFile)
	if err != nil {
		_ = os.Remove(pidFile)
		return false, err
	}
	if pid == 0 {
		return false, nil
	}
	if !Runs(pid, binary) {
		return false, removeIfExists(pidFile)
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && !errors.Is(err, syscall.ESRCH) {
		return true, err
	}
	deadline := time.Now().Add(grace)
	for Runs(pid, binary) && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if Runs(pid, binary) {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil && !errors.Is(err, syscall.ESRCH) {
			return true, err
		}
		for i := 0; i < 50 && Runs(pid, binary); i++ {
			time.Sleep(100 * time.Millisecond)
		}
	}
	return true, removeIfExists(pidFile)
}

// RSS returns the resident set size of pid in KiB (VmRSS in /proc/PID/status).
func RSS(pid int) (int, error) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, fmt.Errorf("no VmRSS for PID %d", pid)
}

// Tail returns the last n lines of file (for error messages).
func Tail(file string, n int) string {
	data, err := os.ReadFile(file)
	if err != nil {
		return fmt.Sprintf("(cannot read %s: %v)", file, err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func removeIfExists(file string) error {
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
