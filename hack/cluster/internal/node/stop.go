package node

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// cleanupTimeout bounds the removal of the pod sandboxes at Stop.
const cleanupTimeout = 90 * time.Second

// hostCleanup turns on Stop's steps outside the node's processes (mounts,
// the bridge, cgroups); the package's tests turn it off.
var hostCleanup = true

// Stop stops the node: the kubelet first (so that nothing starts pods
// again), then every pod sandbox through CRI (containers, containerd's
// shims, pod networks and mounts), then containerd; it then unmounts what is
// still mounted under the node's folder, deletes Bridge, the kubelet's
// empty kubepods cgroups and its links to the node's logs in
// ContainerLogLinks. When containerd is not running but shims of ours
// are (containerd died), it starts containerd again for the clean-up. Only
// processes that run our binaries are signalled. It prints what it did;
// the error is the first step that failed (the others still run).
func (n *Node) Stop() error {
	var firstErr error
	fail := func(err error) {
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	n.stopProcess("kubelet", fail)
	sock := n.Paths().ContainerdSocket()
	if shims := n.shimPIDs(); len(shims) > 0 && n.pid("containerd") == 0 {
		fmt.Fprintf(n.Out, "down: containerd is not running but %d shim(s) of ours are (pids %v): starting containerd to remove their pods\n", len(shims), shims)
		if _, err := os.Stat(n.Paths().ContainerdConfig()); err == nil {
			ctx, cancel := context.WithTimeout(context.Background(), containerdTimeout)
			fail(n.startProcess(ctx, "containerd", ContainerdArgs(n.Paths()), containerdTimeout, func(ctx context.Context) error { return criReady(ctx, sock) }))
			cancel()
		}
	}
	if n.pid("containerd") != 0 {
		ctx, cancel := context.WithTimeout(context.Background(), cleanupTimeout)
		start := time.Now()
		removed, err := removeSandboxes(ctx, sock)
		cancel()
		fail(err)
		if removed > 0 {
			fmt.Fprintf(n.Out, "down: removed %d pod sandbox(es) of the real node in %s\n", removed, time.Since(start).Round(10*time.Millisecond))
		}
	}
	n.stopProcess("containerd", fail)
	if left := n.shimPIDs(); len(left) > 0 {
		fail(fmt.Errorf("containerd shims still running after containerd stopped: pids %v", left))
	}
	if !hostCleanup {
		return firstErr
	}
	unmounted, err := unmountUnder(n.L.Node)
	fail(err)
	if unmounted > 0 {
		fmt.Fprintf(n.Out, "down: unmounted %d leftover mount(s) under %s\n", unmounted, n.L.Node)
	}
	if did, err := deleteBridge(); did {
		fmt.Fprintf(n.Out, "down: deleted bridge %s\n", Bridge)
	} else {
		fail(err)
	}
	removeCgroups("/sys/fs/cgroup", "kubepods")
	removeLinksInto(ContainerLogLinks, n.L.Node)
	return firstErr
}

// ContainerLogLinks is where the kubelet links every container's log file
// (a fixed path in the kubelet: /var/log/containers).
const ContainerLogLinks = "/var/log/containers"

// removeLinksInto removes the symbolic links in dir that point under
// target (the kubelet's links to the node's container logs, left when its
// pods were removed behind its back).
func removeLinksInto(dir, target string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		if dest, err := os.Readlink(p); err == nil && strings.HasPrefix(dest, filepath.Clean(target)+"/") {
			_ = os.Remove(p)
		}
	}
}

func (n *Node) pid(name string) int {
	return proc.RunningPID(n.L.PIDPath(name), n.L.BinaryPath(name))
}

func (n *Node) stopProcess(name string, fail func(error)) {
	pid := n.pid(name)
	start := time.Now()
	did, err := proc.Stop(n.L.PIDPath(name), n.L.BinaryPath(name), StopGrace)
	if err != nil {
		fail(fmt.Errorf("stop %s: %w", name, err))
	}
	if did {
		fmt.Fprintf(n.Out, "down: stopped %s (pid %d) in %s\n", name, pid, time.Since(start).Round(10*time.Millisecond))
	}
}

// shimPIDs are the processes running our containerd-shim-runc-v2.
func (n *Node) shimPIDs() []int {
	return processesOf(n.L.BinaryPath("containerd-shim-runc-v2"))
}

// processesOf lists the PIDs whose /proc/PID/exe is binary.
func processesOf(binary string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if proc.Runs(pid, binary) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// MountsUnder returns the mount points in mountinfo (the format of
// /proc/self/mountinfo) that lie strictly under dir, deepest first.
func MountsUnder(mountinfo, dir string) []string {
	dir = filepath.Clean(dir) + "/"
	var res []string
	s := bufio.NewScanner(strings.NewReader(mountinfo))
	s.Buffer(make([]byte, 64<<10), 1<<20)
	for s.Scan() {
		f := strings.Fields(s.Text())
		if len(f) < 5 {
			continue
		}
		mp := unescapeMountPath(f[4])
		if strings.HasPrefix(mp, dir) {
			res = append(res, mp)
		}
	}
	sort.SliceStable(res, func(i, j int) bool { return strings.Count(res[i], "/") > strings.Count(res[j], "/") })
	return res
}

// unescapeMountPath undoes mountinfo's octal escapes (\040 for a space).
func unescapeMountPath(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unmountUnder lazily unmounts every mount under dir (kubelet volumes,
// container root filesystems, network namespaces left by a crash).
func unmountUnder(dir string) (int, error) {
	data, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0, err
	}
	n := 0
	var firstErr error
	for _, mp := range MountsUnder(string(data), dir) {
		if err := syscall.Unmount(mp, syscall.MNT_DETACH); err != nil {
			if firstErr == nil && err != syscall.EINVAL && err != syscall.ENOENT {
				firstErr = fmt.Errorf("unmount %s: %w", mp, err)
			}
			continue
		}
		n++
	}
	return n, firstErr
}

// removeCgroups removes the empty cgroup folders named name (and below) in
// every cgroup v1 hierarchy under root, deepest first; busy ones stay.
func removeCgroups(root, name string) {
	hier, err := os.ReadDir(root)
	if err != nil {
		return
	}
	for _, h := range hier {
		top := filepath.Join(root, h.Name(), name)
		var dirs []string
		_ = filepath.WalkDir(top, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = syscall.Rmdir(dirs[i])
		}
	}
}
