// Package cluster starts, checks and stops the local control plane: etcd,
// kube-apiserver, the kwok CRDs, kube-controller-manager, kube-scheduler, kwok
// and its fake nodes, all on 127.0.0.1 and all state under .cache.
package cluster

import (
	"context"
	"fmt"
	"io"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// StopGrace is how long Down waits after SIGTERM before it sends SIGKILL.
const StopGrace = 10 * time.Second

// Cluster is the local cluster described by a layout and ports.
type Cluster struct {
	// L names the state files.
	L layout.Layout
	// Ports are the listening ports.
	Ports components.Ports
	// Out receives progress messages.
	Out io.Writer
	// EtcdPrefix is the API server's key prefix in etcd; empty for
	// kube-apiserver's default, /registry (the single cluster). A fleet
	// member's names it, as its etcd is shared.
	EtcdPrefix string
	// Name names the cluster's CAs (pki.GenerateNamed); empty for
	// pki.DefaultName (the single cluster).
	Name string
}

// apiServer is the cluster's kube-apiserver command line.
func (c *Cluster) apiServer() components.Component {
	return components.APIServerWithEtcdPrefix(c.L, c.Ports, c.EtcdPrefix)
}

// caName is the name of the cluster's CAs.
func (c *Cluster) caName() string {
	if c.Name == "" {
		return pki.DefaultName
	}
	return c.Name
}

// New returns the cluster for l on the default ports, printing to out.
func New(l layout.Layout, out io.Writer) *Cluster {
	return &Cluster{L: l, Ports: components.DefaultPorts, Out: out}
}

// RunningComponent is a component process found through its PID file.
type RunningComponent struct {
	// Name is the component name.
	Name string
	// PID is its process ID.
	PID int
}

// Running returns the components whose PID file names a live process that
// runs our binary for it, in start order.
func (c *Cluster) Running() []RunningComponent {
	var res []RunningComponent
	for _, n := range components.Names {
		if pid := proc.RunningPID(c.L.PIDPath(n), c.L.BinaryPath(n)); pid != 0 {
			res = append(res, RunningComponent{Name: n, PID: pid})
		}
	}
	return res
}

// BusyPorts returns the cluster's ports that accept connections: the
// control plane's, and the kubelet's unless our kubelet runs.
func (c *Cluster) BusyPorts() []int {
	var busy []int
	ports := c.Ports.All()
	if proc.RunningPID(c.L.PIDPath("kubelet"), c.L.BinaryPath("kubelet")) == 0 {
		ports = append(ports, node.KubeletHealthzPort)
	}
	for _, p := range ports {
		if portInUse(p) {
			busy = append(busy, p)
		}
	}
	return busy
}

// Ready reports whether the API server answers /readyz with the admin
// certificate; the error says why not.
func (c *Cluster) Ready(ctx context.Context) error {
	p, err := newProber(c.L.PKIPath("ca.crt"), c.L.PKIPath("admin.crt"), c.L.PKIPath("admin.key"))
	if err != nil {
		return err
	}
	return p.check(ctx, c.apiServer())
}

// Node returns the cluster's real node: its state in c.L, its certificates
// signed by c.L's CA, registered with c's API server.
func (c *Cluster) Node() *node.Node {
	return &node.Node{L: c.L, CAPKI: c.L.PKI, Server: c.Ports.ServerURL(), AdminKubeconfig: c.L.AdminKubeconfig(), Out: c.Out}
}

// Down stops the real node (node.Node.Stop: kubelet, pods, containerd) and
// then our control-plane components in reverse start order: SIGTERM, then
// SIGKILL after StopGrace, only for PIDs whose process runs our binary. PID
// files are removed. It reports what it stopped.
func (c *Cluster) Down() error {
	stopped := 0
	nodeRan := len(c.Node().Running())
	firstErr := c.Node().Stop()
	if firstErr != nil {
		firstErr = fmt.Errorf("stop the real node: %w", firstErr)
	}
	stopped += nodeRan
	n, err := stopComponents(c.L, components.Names, c.Out)
	stopped += n
	if firstErr == nil {
		firstErr = err
	}
	if stopped == 0 {
		fmt.Fprintln(c.Out, "down: nothing of ours was running")
	}
	return firstErr
}

// stopComponents stops the components names (given in start order) of the
// layout l in reverse order: SIGTERM, then SIGKILL after StopGrace, only for
// PIDs of l's PID files whose process runs our binary; PID files are removed.
// It reports each stop on out and returns how many it stopped and the first
// error.
func stopComponents(l layout.Layout, names []string, out io.Writer) (int, error) {
	stopped := 0
	var firstErr error
	for i := len(names) - 1; i >= 0; i-- {
		n := names[i]
		pid := proc.RunningPID(l.PIDPath(n), l.BinaryPath(n))
		start := time.Now()
		did, err := proc.Stop(l.PIDPath(n), l.BinaryPath(n), StopGrace)
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("stop %s: %w", n, err)
		}
		if did {
			stopped++
			fmt.Fprintf(out, "down: stopped %s (pid %d) in %s\n", n, pid, time.Since(start).Round(10*time.Millisecond))
		}
	}
	return stopped, firstErr
}

// AdminRESTConfig loads the admin kubeconfig explicitly (never the default
// loading rules, so ~/.kube and $KUBECONFIG are not read).
func AdminRESTConfig(l layout.Layout) (*rest.Config, error) {
	return RESTConfig(l.AdminKubeconfig())
}

// RESTConfig loads the kubeconfig at path and nothing else.
func RESTConfig(path string) (*rest.Config, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", path)
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = "kyyard-hack-cluster"
	return cfg, nil
}

// RESTConfigContext loads context kubeContext of the kubeconfig at path and
// nothing else (no $KUBECONFIG, no ~/.kube), with RESTConfig's settings.
func RESTConfigContext(path, kubeContext string) (*rest.Config, error) {
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(
		&clientcmd.ClientConfigLoadingRules{ExplicitPath: path},
		&clientcmd.ConfigOverrides{CurrentContext: kubeContext},
	).ClientConfig()
	if err != nil {
		return nil, err
	}
	cfg.QPS, cfg.Burst = 200, 400
	cfg.UserAgent = "kyyard-hack-cluster"
	return cfg, nil
}

// AdminClient returns a clientset with the admin kubeconfig.
func AdminClient(l layout.Layout) (*kubernetes.Clientset, *rest.Config, error) {
	cfg, err := AdminRESTConfig(l)
	if err != nil {
		return nil, nil, err
	}
	cs, err := kubernetes.NewForConfig(cfg)
	return cs, cfg, err
}
