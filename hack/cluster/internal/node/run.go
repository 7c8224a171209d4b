package node

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/hack/cluster/internal/images"
	"github.com/kyyard/kyyard/hack/cluster/internal/kubeconfig"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// StopGrace is how long Stop waits after SIGTERM before it sends SIGKILL.
const StopGrace = 15 * time.Second

// Timeouts of the start-up phases.
const (
	containerdTimeout = 60 * time.Second
	kubeletTimeout    = 60 * time.Second
	readyTimeout      = 2 * time.Minute
)

// Node is the real node of a cluster.
type Node struct {
	// L holds the node's state, binaries, logs and PID files.
	L layout.Layout
	// CAPKI is the folder of the cluster CA (ca.crt, ca.key) that signs the
	// kubelet's certificates and verifies its clients: the control plane's
	// PKI folder (L.PKI when the node belongs to L's own control plane).
	CAPKI string
	// Server is the API server's URL.
	Server string
	// AdminKubeconfig is a cluster-admin kubeconfig of that API server,
	// used to wait for the node to be Ready.
	AdminKubeconfig string
	// Out receives progress messages.
	Out io.Writer
}

// Running is one of the node's processes found through its PID file.
type Running struct {
	// Name is the process name (one of Processes).
	Name string
	// PID is its process ID.
	PID int
}

// Paths returns the node's paths.
func (n *Node) Paths() Paths { return PathsOf(n.L) }

// Running returns the node's processes that run, in start order.
func (n *Node) Running() []Running {
	var res []Running
	for _, name := range Processes {
		if pid := proc.RunningPID(n.L.PIDPath(name), n.L.BinaryPath(name)); pid != 0 {
			res = append(res, Running{Name: name, PID: pid})
		}
	}
	return res
}

// Preflight checks what the machine must give the node: root, Debian's runc
// and iptables (the build installs them), the built binaries and image
// archives, cgroups. The error says what is missing.
func (n *Node) Preflight() error {
	var problems []string
	if os.Geteuid() != 0 {
		problems = append(problems, "the real node runs containers and needs root (uid 0)")
	}
	for _, f := range []string{Runc, "/usr/sbin/iptables"} {
		if _, err := os.Stat(f); err != nil {
			problems = append(problems, f+" is missing (Debian packages runc and iptables; `build` installs them as root)")
		}
	}
	for _, b := range Binaries {
		if _, err := os.Stat(n.L.BinaryPath(b)); err != nil {
			problems = append(problems, n.L.BinaryPath(b)+" is missing (run `build`)")
		}
	}
	for _, b := range CNIPlugins {
		if _, err := os.Stat(filepath.Join(n.Paths().CNIBin(), b)); err != nil {
			problems = append(problems, filepath.Join(n.Paths().CNIBin(), b)+" is missing (run `build`)")
		}
	}
	for _, a := range images.ArchiveNames() {
		if _, err := os.Stat(filepath.Join(n.L.Images, a)); err != nil {
			problems = append(problems, filepath.Join(n.L.Images, a)+" is missing (run `build`)")
		}
	}
	if _, err := os.Stat("/sys/fs/cgroup"); err != nil {
		problems = append(problems, "no /sys/fs/cgroup: containers need cgroups")
	}
	if len(problems) > 0 {
		return fmt.Errorf("the real node cannot start:\n  %s", strings.Join(problems, "\n  "))
	}
	return nil
}

// Start starts what of the node is not running: it writes the kubelet's
// certificates (signed by CAPKI's CA) and kubeconfig, containerd's, CNI's and
// the kubelet's configuration, creates Bridge, starts containerd and waits
// for its CRI runtime to be ready, imports the images, starts the kubelet,
// and waits until the node is Ready in the API. On failure the error names
// the step and carries the tail of the failing process's log; what was
// started keeps running (Stop stops it).
func (n *Node) Start(ctx context.Context) error {
	start := time.Now()
	if err := n.Preflight(); err != nil {
		return err
	}
	if err := n.prepare(); err != nil {
		return err
	}
	if err := ensureBridge(ctx); err != nil {
		return err
	}
	p := n.Paths()
	if err := n.startProcess(ctx, "containerd", ContainerdArgs(p), containerdTimeout, func(ctx context.Context) error {
		return criReady(ctx, p.ContainerdSocket())
	}); err != nil {
		return err
	}
	var archives []images.Archive
	for _, ref := range images.Refs() {
		archives = append(archives, images.Archive{Ref: ref, Path: filepath.Join(n.L.Images, images.ArchiveName(ref))})
	}
	if err := images.Import(ctx, n.L.BinaryPath("ctr"), p.ContainerdSocket(), archives, n.Out); err != nil {
		return err
	}
	if err := n.startProcess(ctx, "kubelet", KubeletArgs(p), kubeletTimeout, kubeletHealthy); err != nil {
		return err
	}
	if err := n.waitReady(ctx); err != nil {
		return err
	}
	fmt.Fprintf(n.Out, "node: %s Ready %s after start (InternalIP %s, kubelet https://%s:%d, taint %s=%s:NoSchedule)\n",
		Name, time.Since(start).Round(10*time.Millisecond), IP, IP, KubeletPort, TaintKey, TaintValue)
	return nil
}

// prepare writes the node's folders, certificates and configuration.
func (n *Node) prepare() error {
	p := n.Paths()
	for _, d := range []string{p.Root(), p.ContainerdRoot(), p.ContainerdState(), p.KubeletRoot(), p.PodLogs(), p.CNIConf(), p.CNIIPAM(), n.L.Logs, n.L.Run, n.L.Home, n.L.Kubeconfig} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	wrote, err := pki.EnsureLeaves(n.CAPKI, n.L.PKI, pki.NodeLeaves(Name, NodeIP()), time.Now())
	if err != nil {
		return fmt.Errorf("node certificates: %w", err)
	}
	if len(wrote) > 0 {
		fmt.Fprintf(n.Out, "node: issued %s in %s\n", strings.Join(wrote, ", "), n.L.PKI)
	}
	caFile := filepath.Join(n.CAPKI, "ca.crt")
	if err := kubeconfig.WriteFile(p.KubeletKubeconfig(), kubeconfig.Config{
		Server:     n.Server,
		CAFile:     caFile,
		User:       "kubelet",
		ClientCert: n.L.PKIPath("kubelet-client.crt"),
		ClientKey:  n.L.PKIPath("kubelet-client.key"),
	}); err != nil {
		return err
	}
	cni, err := CNIConfig(p)
	if err != nil {
		return err
	}
	kc, err := KubeletConfiguration(p, caFile, n.L.PKI)
	if err != nil {
		return err
	}
	for file, data := range map[string][]byte{
		p.ContainerdConfig():                      []byte(ContainerdConfig(p)),
		filepath.Join(p.CNIConf(), CNIConfigFile): cni,
		p.KubeletConfig():                         kc,
	} {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// env is the node processes' environment: ours without KUBECONFIG, HOME in
// the cache, and the bin folder first on PATH (containerd finds its shim
// there).
func (n *Node) env() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") || strings.HasPrefix(kv, "HOME=") || strings.HasPrefix(kv, "PATH=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+n.L.Home, "PATH="+n.L.Bin+":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin")
}

// startProcess starts name unless it runs already, then waits until ready
// answers nil, failing early when the process exits.
func (n *Node) startProcess(ctx context.Context, name string, args []string, timeout time.Duration, ready func(context.Context) error) error {
	if pid := proc.RunningPID(n.L.PIDPath(name), n.L.BinaryPath(name)); pid != 0 {
		fmt.Fprintf(n.Out, "node: %s already running (pid %d)\n", name, pid)
		return waitFor(ctx, name, timeout, nil, ready, n.L.LogPath(name))
	}
	pr, err := proc.Start(proc.Spec{
		Name:    name,
		Binary:  n.L.BinaryPath(name),
		Args:    args,
		Env:     n.env(),
		Dir:     n.L.Node,
		LogFile: n.L.LogPath(name),
		PIDFile: n.L.PIDPath(name),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(n.Out, "node: started %s (pid %d, log %s)\n", name, pr.PID, n.L.LogPath(name))
	t := time.Now()
	if err := waitFor(ctx, name, timeout, pr, ready, n.L.LogPath(name)); err != nil {
		return err
	}
	fmt.Fprintf(n.Out, "node: %s ready in %s\n", name, time.Since(t).Round(10*time.Millisecond))
	return nil
}

func waitFor(ctx context.Context, name string, timeout time.Duration, pr *proc.Process, ready func(context.Context) error, logFile string) error {
	deadline := time.Now().Add(timeout)
	var exited <-chan struct{}
	if pr != nil {
		exited = pr.Exited
	}
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := ready(cctx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before it was ready: %v\n--- last lines of %s ---\n%s", name, pr.Err, logFile, proc.Tail(logFile, 25))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s: %v\n--- last lines of %s ---\n%s", name, timeout, err, logFile, proc.Tail(logFile, 25))
		}
	}
}

// kubeletHealthy asks the kubelet's /healthz.
func kubeletHealthy(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/healthz", KubeletHealthzPort), nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("/healthz: %s %s", resp.Status, strings.TrimSpace(string(body)))
	}
	return nil
}

// waitReady waits until the node's Ready condition is True.
func (n *Node) waitReady(ctx context.Context) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", n.AdminKubeconfig)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	start := time.Now()
	deadline := start.Add(readyTimeout)
	for {
		problem := ""
		node, err := cs.CoreV1().Nodes().Get(ctx, Name, metav1.GetOptions{})
		switch {
		case err != nil:
			problem = err.Error()
		default:
			problem = "no Ready condition"
			for _, c := range node.Status.Conditions {
				if c.Type == corev1.NodeReady {
					if c.Status == corev1.ConditionTrue {
						fmt.Fprintf(n.Out, "node: %s registered and Ready in %s\n", Name, time.Since(start).Round(10*time.Millisecond))
						return nil
					}
					problem = fmt.Sprintf("Ready=%s: %s %s", c.Status, c.Reason, c.Message)
				}
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("node %s not Ready after %s: %s\n--- last lines of %s ---\n%s", Name, readyTimeout, problem, n.L.LogPath("kubelet"), proc.Tail(n.L.LogPath("kubelet"), 25))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// ensureBridge creates Bridge with IP/24 and brings it up, unless it exists
// with that address.
func ensureBridge(ctx context.Context) error {
	ip := func(args ...string) (string, error) {
		out, err := exec.CommandContext(ctx, "ip", args...).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if _, err := ip("link", "show", Bridge); err != nil {
		if out, err := ip("link", "add", Bridge, "type", "bridge"); err != nil {
			return fmt.Errorf("ip link add %s type bridge: %v: %s", Bridge, err, out)
		}
	}
	addrs, err := ip("-o", "-4", "addr", "show", "dev", Bridge)
	if err != nil {
		return fmt.Errorf("ip addr show %s: %v: %s", Bridge, err, addrs)
	}
	if !strings.Contains(addrs, " "+IP+"/") {
		if out, err := ip("addr", "add", IP+"/24", "dev", Bridge); err != nil {
			return fmt.Errorf("ip addr add %s/24 dev %s: %v: %s", IP, Bridge, err, out)
		}
	}
	if out, err := ip("link", "set", Bridge, "up"); err != nil {
		return fmt.Errorf("ip link set %s up: %v: %s", Bridge, err, out)
	}
	return nil
}

// deleteBridge removes Bridge if it exists; it reports whether it did.
func deleteBridge() (bool, error) {
	if err := exec.Command("ip", "link", "show", Bridge).Run(); err != nil {
		return false, nil
	}
	if out, err := exec.Command("ip", "link", "del", Bridge).CombinedOutput(); err != nil {
		return false, fmt.Errorf("ip link del %s: %v: %s", Bridge, err, strings.TrimSpace(string(out)))
	}
	return true, nil
}
