package cluster

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/hack/cluster/internal/build"
	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// UpOptions tune Up.
type UpOptions struct {
	// Nodes is the number of fake nodes (kwok-node-0 ... kwok-node-N-1), at least 1.
	Nodes int
	// KeepOnFail leaves started processes running when Up fails (for debugging);
	// by default they are stopped.
	KeepOnFail bool
}

// Timeouts of the start-up phases.
const (
	etcdTimeout      = 30 * time.Second
	apiServerTimeout = 90 * time.Second
	componentTimeout = 60 * time.Second
	clusterTimeout   = 90 * time.Second
)

// ErrAlreadyRunning is returned by Up when this checkout's cluster is already
// running; nothing was touched.
var ErrAlreadyRunning = errors.New("cluster already running")

// ErrPortsInUse is returned by Up when processes that are not this checkout's
// cluster (another checkout's cluster, or anything else) listen on the
// cluster's ports; nothing was touched, and no cluster of ours is up.
var ErrPortsInUse = errors.New("the cluster's ports are in use by other processes")

// Up builds the binaries if needed, creates the PKI on first use, writes the
// kubeconfigs and configuration, then starts etcd (fresh data), the API server,
// the kwok CRDs, the controller-manager, scheduler and kwok, the fake
// nodes, metrics-server behind its APIService, and the real node
// (node.Node.Start), waiting for each to be ready. When the control plane
// runs already but the real node does not (or only in part), it starts only
// what is missing of the node. When a component fails, the error names it
// and carries the tail of its log.
func (c *Cluster) Up(ctx context.Context, opt UpOptions) error {
	if opt.Nodes < 1 {
		return fmt.Errorf("--nodes must be at least 1, got %d", opt.Nodes)
	}
	nd := c.Node()
	running := c.Running()
	switch decideUp(running, nd.Running()) {
	case upNothing:
		fmt.Fprintf(c.Out, "up: already running: %s; not touching it (stop it with `make cluster-down`, or `go run . down` in hack/cluster)\n", describe(running, nd.Running()))
		return ErrAlreadyRunning
	case upNodeOnly:
		fmt.Fprintf(c.Out, "up: the control plane is running (%s); starting the real node\n", describe(running, nd.Running()))
		if err := build.Run(ctx, c.L, build.Options{Out: c.Out}); err != nil {
			return err
		}
		err := nd.Start(ctx)
		if err != nil && !opt.KeepOnFail {
			fmt.Fprintln(c.Out, "up: the real node failed; stopping it (use --keep-on-fail to keep it)")
			if derr := nd.Stop(); derr != nil {
				fmt.Fprintf(c.Out, "up: stopping the node: %v\n", derr)
			}
		}
		return err
	case upPartial:
		fmt.Fprintf(c.Out, "up: already running: %s; not touching it (stop it with `make cluster-down`, or `go run . down` in hack/cluster)\n", describe(running, nd.Running()))
		return ErrAlreadyRunning
	}
	if busy := c.BusyPorts(); len(busy) > 0 {
		return fmt.Errorf("%w: %v on 127.0.0.1 (another checkout's cluster, or another program); stop it first", ErrPortsInUse, busy)
	}
	if err := build.Run(ctx, c.L, build.Options{Out: c.Out}); err != nil {
		return err
	}
	start := time.Now()
	if err := c.prepare(); err != nil {
		return err
	}
	s := &starter{c: c}
	err := s.run(ctx, opt, start)
	if err == nil {
		err = nd.Start(ctx)
	}
	if err != nil && !opt.KeepOnFail {
		fmt.Fprintln(c.Out, "up: failed; stopping what was started (use --keep-on-fail to keep it)")
		if derr := c.Down(); derr != nil {
			fmt.Fprintf(c.Out, "up: stopping: %v\n", derr)
		}
	}
	if err == nil {
		fmt.Fprintf(c.Out, "up: cluster and real node ready %s after start\n", time.Since(start).Round(10*time.Millisecond))
	}
	return err
}

// upAction is what Up does, given what runs.
type upAction int

const (
	// upAll starts the whole cluster: none of the control plane runs.
	upAll upAction = iota
	// upNothing: the control plane and the real node run.
	upNothing
	// upNodeOnly: the control plane runs, (part of) the real node does
	// not; Up starts what is missing of the node.
	upNodeOnly
	// upPartial: part of the control plane runs; Up touches nothing
	// (down first).
	upPartial
)

// decideUp chooses Up's action from the running control-plane components
// and node processes.
func decideUp(cp []RunningComponent, nd []node.Running) upAction {
	switch {
	case len(cp) == len(components.Names) && len(nd) == len(node.Processes):
		return upNothing
	case len(cp) == len(components.Names):
		return upNodeOnly
	case len(cp) > 0:
		return upPartial
	}
	return upAll
}

// describe lists running processes as "name (pid N)".
func describe(cp []RunningComponent, nd []node.Running) string {
	var parts []string
	for _, r := range cp {
		parts = append(parts, fmt.Sprintf("%s (pid %d)", r.Name, r.PID))
	}
	for _, r := range nd {
		parts = append(parts, fmt.Sprintf("%s (pid %d)", r.Name, r.PID))
	}
	return strings.Join(parts, ", ")
}

// prepare creates folders, PKI, kubeconfigs and configuration, and clears the
// previous cluster's etcd data and audit log.
func (c *Cluster) prepare() error {
	if err := c.L.Ensure(); err != nil {
		return err
	}
	made, err := pki.EnsureNamed(c.L.PKI, c.caName(), time.Now())
	if err != nil {
		return fmt.Errorf("pki: %w", err)
	}
	if made {
		fmt.Fprintf(c.Out, "up: generated PKI in %s\n", c.L.PKI)
	}
	if err := c.writeKubeconfigs(); err != nil {
		return err
	}
	if err := c.writeConfigs(); err != nil {
		return err
	}
	for _, p := range []string{components.EtcdDataDir(c.L), c.L.AuditLog()} {
		if err := os.RemoveAll(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// starter runs one start-up and remembers the processes it started.
type starter struct {
	c      *Cluster
	probe  *prober
	client *kubernetes.Clientset
}

func (s *starter) run(ctx context.Context, opt UpOptions, start time.Time) error {
	c := s.c
	var err error
	if s.probe, err = newProber(c.L.PKIPath("ca.crt"), c.L.PKIPath("admin.crt"), c.L.PKIPath("admin.key")); err != nil {
		return err
	}
	if s.client, _, err = AdminClient(c.L); err != nil {
		return err
	}
	if err := s.startAndWait(ctx, etcdTimeout, components.Etcd(c.L, c.Ports)); err != nil {
		return err
	}
	if err := s.startAndWait(ctx, apiServerTimeout, c.apiServer()); err != nil {
		return err
	}
	apiReady := time.Since(start)
	fmt.Fprintf(c.Out, "up: kube-apiserver ready %s after start\n", apiReady.Round(10*time.Millisecond))
	if err := s.installCRDs(ctx); err != nil {
		return err
	}
	if err := s.startAndWait(ctx, componentTimeout,
		components.ControllerManager(c.L, c.Ports), components.Scheduler(c.L, c.Ports), components.Kwok(c.L, c.Ports)); err != nil {
		return err
	}
	if err := s.createNodes(ctx, opt.Nodes); err != nil {
		return err
	}
	if err := s.waitClusterReady(ctx, opt.Nodes); err != nil {
		return err
	}
	if err := s.startMetrics(ctx); err != nil {
		return err
	}
	total := time.Since(start)
	fmt.Fprintf(c.Out, "up: cluster ready %s after start (kube-apiserver ready after %s; %d node(s))\n",
		total.Round(10*time.Millisecond), apiReady.Round(10*time.Millisecond), opt.Nodes)
	fmt.Fprintf(c.Out, "up: API server %s\nup: export KUBECONFIG=%s\n", c.Ports.ServerURL(), c.L.AdminKubeconfig())
	return nil
}

// startAndWait starts the components together and waits until each answers
// its readiness URL, failing early when one exits.
func (s *starter) startAndWait(ctx context.Context, timeout time.Duration, comps ...components.Component) error {
	c := s.c
	procs := make([]*proc.Process, len(comps))
	for i, comp := range comps {
		p, err := proc.Start(proc.Spec{
			Name:    comp.Name,
			Binary:  c.L.BinaryPath(comp.Name),
			Args:    comp.Args,
			Env:     c.processEnv(),
			Dir:     c.L.Cache,
			LogFile: c.L.LogPath(comp.Name),
			PIDFile: c.L.PIDPath(comp.Name),
		})
		if err != nil {
			return err
		}
		procs[i] = p
		fmt.Fprintf(c.Out, "up: started %s (pid %d, log %s)\n", comp.Name, p.PID, c.L.LogPath(comp.Name))
	}
	for i, comp := range comps {
		if err := s.waitReady(ctx, timeout, comp, procs[i]); err != nil {
			return err
		}
	}
	return nil
}

func (s *starter) waitReady(ctx context.Context, timeout time.Duration, comp components.Component, p *proc.Process) error {
	start := time.Now()
	deadline := start.Add(timeout)
	var last error
	for {
		select {
		case <-p.Exited:
			return s.failure(comp.Name, fmt.Errorf("exited before it was ready: %v", p.Err))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		last = s.probe.check(cctx, comp)
		cancel()
		if last == nil {
			fmt.Fprintf(s.c.Out, "up: %s ready in %s\n", comp.Name, time.Since(start).Round(10*time.Millisecond))
			return nil
		}
		if time.Now().After(deadline) {
			return s.failure(comp.Name, fmt.Errorf("not ready after %s: %v", timeout, last))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// failure wraps err with the component's name and the tail of its log.
func (s *starter) failure(name string, err error) error {
	return fmt.Errorf("%s %w\n--- last lines of %s ---\n%s", name, err, s.c.L.LogPath(name), proc.Tail(s.c.L.LogPath(name), 25))
}

// RestartAPIServer stops the running kube-apiserver (ours, by its PID
// file), keeps it down for the given time, then starts it again on the same
// etcd data and waits until it is ready: an outage that clients must
// survive. Errors: the API server is not running, or does not come back.
func (c *Cluster) RestartAPIServer(ctx context.Context, down time.Duration) error {
	name := c.apiServer().Name
	stopped, err := proc.Stop(c.L.PIDPath(name), c.L.BinaryPath(name), StopGrace)
	if err != nil {
		return fmt.Errorf("stop %s: %w", name, err)
	}
	if !stopped {
		return fmt.Errorf("%s is not running", name)
	}
	fmt.Fprintf(c.Out, "restart-apiserver: stopped; down for %s\n", down)
	select {
	case <-time.After(down):
	case <-ctx.Done():
		return ctx.Err()
	}
	s := &starter{c: c}
	if s.probe, err = newProber(c.L.PKIPath("ca.crt"), c.L.PKIPath("admin.crt"), c.L.PKIPath("admin.key")); err != nil {
		return err
	}
	start := time.Now()
	if err := s.startAndWait(ctx, apiServerTimeout, c.apiServer()); err != nil {
		return err
	}
	fmt.Fprintf(c.Out, "restart-apiserver: ready again %s after start\n", time.Since(start).Round(10*time.Millisecond))
	return nil
}
