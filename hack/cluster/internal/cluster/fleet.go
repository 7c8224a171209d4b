package cluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/pki"
	"github.com/kyyard/kyyard/hack/cluster/internal/proc"
)

// Fleet is the local fleet of the hack/cluster module L: the members of
// package fleet on their shared etcd, each a Cluster of its own (its own
// PKI, kubeconfigs, API server, controller-manager, scheduler, kwok with
// fake nodes, and metrics-server behind the metrics.k8s.io APIService; no
// real node). Its state lives in
// L.FleetDir(), so it runs beside the single cluster without touching it.
type Fleet struct {
	// L is the module's layout (the fleet's parts are L.FleetPart(...)).
	L layout.Layout
	// Out receives progress messages.
	Out io.Writer
}

// FleetUpOptions tune Fleet.Up.
type FleetUpOptions struct {
	// Clusters is the number of members, 1 to fleet.MaxClusters.
	Clusters int
	// Nodes is the number of fake nodes of each member, at least 1.
	Nodes int
	// KeepOnFail leaves what this Up started running when it fails.
	KeepOnFail bool
}

// fleetBinaries are the binaries the fleet runs.
var fleetBinaries = append([]string{"etcd"}, fleet.MemberComponents...)

// Member returns member m as a Cluster printing to out.
func (f *Fleet) Member(m fleet.Member, out io.Writer) *Cluster {
	return &Cluster{L: m.L, Ports: m.Ports, Out: out, EtcdPrefix: m.EtcdPrefix, Name: m.Name}
}

// MemberRunning returns member m's processes whose PID file names a live
// process of our binary, in start order.
func MemberRunning(m fleet.Member) []RunningComponent {
	var res []RunningComponent
	for _, n := range fleet.MemberComponents {
		if pid := proc.RunningPID(m.L.PIDPath(n), m.L.BinaryPath(n)); pid != 0 {
			res = append(res, RunningComponent{Name: n, PID: pid})
		}
	}
	return res
}

// EtcdPID returns the PID of the fleet's etcd, or 0 when it does not run.
func (f *Fleet) EtcdPID() int {
	el := fleet.EtcdLayout(f.L)
	return proc.RunningPID(el.PIDPath("etcd"), el.BinaryPath("etcd"))
}

// Up starts what of the fleet does not run, and waits until every member's
// API server answers, its fake nodes are Ready, its default ServiceAccount
// exists and its metrics APIService is Available: the shared etcd (from
// empty data when it does not run; members left running without it are
// stopped and started again),
// then the members side by side. A member that runs and is ready is left
// alone. It then records the fleet's size and writes the fleet kubeconfig.
// Errors: bad options, a member above opt.Clusters running, a missing
// binary, a port in use by another program, a component that fails (named,
// with the tail of its log); on failure what this Up started is stopped
// unless opt.KeepOnFail.
func (f *Fleet) Up(ctx context.Context, opt FleetUpOptions) error {
	if opt.Nodes < 1 {
		return fmt.Errorf("--nodes must be at least 1, got %d", opt.Nodes)
	}
	members, err := fleet.Members(f.L, opt.Clusters)
	if err != nil {
		return err
	}
	for i := opt.Clusters + 1; i <= fleet.MaxClusters; i++ {
		if m := fleet.NewMember(f.L, i); len(MemberRunning(m)) > 0 {
			return fmt.Errorf("%s runs, outside --clusters %d: run `fleet down` first, or `fleet up --clusters %d`", m.Name, opt.Clusters, i)
		}
	}
	for _, b := range fleetBinaries {
		if _, err := os.Stat(f.L.BinaryPath(b)); err != nil {
			return fmt.Errorf("%s is missing: run `build` first", f.L.BinaryPath(b))
		}
	}
	start := time.Now()
	var mu sync.Mutex
	etcdStarted, err := f.upEtcd(ctx, prefixed(&mu, f.Out, "[etcd] "))
	if err != nil {
		if etcdStarted && !opt.KeepOnFail {
			_, _ = stopComponents(fleet.EtcdLayout(f.L), []string{"etcd"}, f.Out)
		}
		return err
	}
	started := make([][]string, len(members))
	errs := make([]error, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			started[i], errs[i] = f.upMember(ctx, m, opt.Nodes, prefixed(&mu, f.Out, "["+m.Name+"] "))
			if errs[i] != nil {
				errs[i] = fmt.Errorf("%s: %w", m.Name, errs[i])
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		if !opt.KeepOnFail {
			fmt.Fprintln(f.Out, "fleet up: failed; stopping what was started (use --keep-on-fail to keep it)")
			for i, m := range members {
				_, _ = stopComponents(m.L, started[i], prefixed(&mu, f.Out, "["+m.Name+"] "))
			}
			if etcdStarted {
				_, _ = stopComponents(fleet.EtcdLayout(f.L), []string{"etcd"}, prefixed(&mu, f.Out, "[etcd] "))
			}
		}
		return err
	}
	if err := fleet.WriteSize(f.L, opt.Clusters); err != nil {
		return err
	}
	if err := fleet.WriteKubeconfig(f.L, members); err != nil {
		return fmt.Errorf("fleet kubeconfig: %w", err)
	}
	tokens, err := fleet.Tokens(members)
	if err != nil {
		return err
	}
	fmt.Fprintf(f.Out, "fleet up: %d cluster(s) ready %s after start\n", len(members), time.Since(start).Round(10*time.Millisecond))
	for _, m := range members {
		viewer := fleet.ViewerContext(m.Index)
		if tokens[m.Name] == "" {
			viewer += " after `fleet seed`"
		}
		fmt.Fprintf(f.Out, "fleet up: %s  API server %s  contexts %s, %s\n", m.Name, m.ServerURL(), m.Name, viewer)
	}
	fmt.Fprintf(f.Out, "fleet up: kubeconfig %s\n", f.L.FleetKubeconfig())
	return nil
}

// upEtcd starts the shared etcd when it does not run, from empty data, and
// reports whether it started it. Members still running are stopped first
// (their store is gone), and their read-only tokens removed (they die with
// the data).
func (f *Fleet) upEtcd(ctx context.Context, out io.Writer) (bool, error) {
	el := fleet.EtcdLayout(f.L)
	if pid := f.EtcdPID(); pid != 0 {
		fmt.Fprintf(out, "up: etcd already running (pid %d)\n", pid)
		return false, nil
	}
	for i := 1; i <= fleet.MaxClusters; i++ {
		m := fleet.NewMember(f.L, i)
		if len(MemberRunning(m)) > 0 {
			fmt.Fprintf(out, "up: %s runs without its etcd; stopping it to start it again on a fresh etcd\n", m.Name)
			if _, err := stopComponents(m.L, fleet.MemberComponents, out); err != nil {
				return false, err
			}
		}
		if err := os.Remove(m.TokenPath()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, err
		}
	}
	var busy []int
	for _, p := range []int{fleet.EtcdPorts.Etcd, fleet.EtcdPorts.EtcdPeer} {
		if portInUse(p) {
			busy = append(busy, p)
		}
	}
	if len(busy) > 0 {
		return false, fmt.Errorf("%w: %v on 127.0.0.1 (the fleet's etcd); stop what listens there first", ErrPortsInUse, busy)
	}
	for _, d := range []string{el.Data, el.Logs, el.Run, el.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return false, err
		}
	}
	if err := os.RemoveAll(components.EtcdDataDir(el)); err != nil {
		return false, err
	}
	s := &starter{c: &Cluster{L: el, Ports: fleet.EtcdPorts, Out: out}, probe: newPlainProber()}
	return true, s.startAndWait(ctx, etcdTimeout, fleet.Etcd(f.L))
}

// upMember starts what of member m does not run, waits for it, creates its
// fake nodes and waits until they are Ready, then starts its metrics-server
// as the single cluster's Up does (startMetrics: its RBAC and Service, the
// APIService, Available) unless it runs; it returns the names of the
// components it started (to stop them when the fleet's Up fails).
func (f *Fleet) upMember(ctx context.Context, m fleet.Member, nodes int, out io.Writer) ([]string, error) {
	start := time.Now()
	c := f.Member(m, out)
	running := map[string]bool{}
	for _, r := range MemberRunning(m) {
		running[r.Name] = true
	}
	comps := m.Components()
	if len(running) == len(comps) {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := c.Ready(cctx)
		cancel()
		if err == nil {
			fmt.Fprintf(out, "up: already running and ready: %s\n", describe(MemberRunning(m), nil))
			return nil, nil
		}
	}
	var busy []int
	for i, comp := range comps {
		if !running[comp.Name] && portInUse(m.ListenPorts()[i]) {
			busy = append(busy, m.ListenPorts()[i])
		}
	}
	if len(busy) > 0 {
		return nil, fmt.Errorf("%w: %v on 127.0.0.1; stop what listens there first", ErrPortsInUse, busy)
	}
	if err := c.prepareMember(!running[comps[0].Name]); err != nil {
		return nil, err
	}
	s := &starter{c: c}
	var err error
	if s.probe, err = newProber(c.L.PKIPath("ca.crt"), c.L.PKIPath("admin.crt"), c.L.PKIPath("admin.key")); err != nil {
		return nil, err
	}
	if s.client, _, err = AdminClient(c.L); err != nil {
		return nil, err
	}
	var started []string
	if !running[comps[0].Name] {
		started = append(started, comps[0].Name)
		if err := s.startAndWait(ctx, apiServerTimeout, comps[0]); err != nil {
			return started, err
		}
	} else {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := c.Ready(cctx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("kube-apiserver runs but is not ready (%v): run `fleet down`, then `fleet up`", err)
		}
	}
	if err := s.installCRDs(ctx); err != nil {
		return started, err
	}
	metrics := c.metricsServer()
	var rest []components.Component
	for _, comp := range comps[1:] {
		if !running[comp.Name] && comp.Name != metrics.Name {
			rest = append(rest, comp)
			started = append(started, comp.Name)
		}
	}
	if len(rest) > 0 {
		if err := s.startAndWait(ctx, componentTimeout, rest...); err != nil {
			return started, err
		}
	}
	if err := s.createNodes(ctx, nodes); err != nil {
		return started, err
	}
	if err := s.waitClusterReady(ctx, nodes); err != nil {
		return started, err
	}
	if !running[metrics.Name] {
		started = append(started, metrics.Name)
		if err := s.startMetrics(ctx); err != nil {
			return started, err
		}
	}
	fmt.Fprintf(out, "up: ready %s after start (API server %s, %d fake node(s))\n", time.Since(start).Round(10*time.Millisecond), m.ServerURL(), nodes)
	return started, nil
}

// prepareMember creates a member's folders, its PKI (CAs named after the
// member; pki.Leaves, so metrics-server's client and serving certificates
// too) on first use, its kubeconfigs (metrics-server's among them) and
// configuration (kwok's, serving the resource metrics); with
// freshAPIServer, it removes the audit log an earlier API server left.
func (c *Cluster) prepareMember(freshAPIServer bool) error {
	for _, d := range []string{c.L.Kubeconfig, c.L.Logs, c.L.Run, c.L.Etc, c.L.Home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
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
	if freshAPIServer {
		if err := os.Remove(c.L.AuditLog()); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// RestartAPIServer is Cluster.RestartAPIServer for member m of the fleet:
// it stops m's kube-apiserver (only that process, by its PID file), keeps it
// down for down, starts it again with the command line Up starts it with
// (m's PKI, etcd prefix, audit log and ports) and waits until it answers
// /readyz; m's other processes and the other members are not touched.
// Errors: the shared etcd or m's API server does not run (the fleet is not
// up), or the API server does not come back.
func (f *Fleet) RestartAPIServer(ctx context.Context, m fleet.Member, down time.Duration) error {
	if f.EtcdPID() == 0 {
		return errors.New("the fleet's etcd is not running (run `fleet up` first)")
	}
	name := fleet.MemberComponents[0]
	if proc.RunningPID(m.L.PIDPath(name), m.L.BinaryPath(name)) == 0 {
		return fmt.Errorf("%s's %s is not running (run `fleet up` first)", m.Name, name)
	}
	var mu sync.Mutex
	if err := f.Member(m, prefixed(&mu, f.Out, "["+m.Name+"] ")).RestartAPIServer(ctx, down); err != nil {
		return fmt.Errorf("%s: %w", m.Name, err)
	}
	return nil
}

// Down stops every member's processes (any member, whatever the fleet's
// size), members side by side, then the shared etcd: by their PID files,
// only processes of our binaries (stopComponents). The single cluster's
// processes have other PID files and are never touched.
func (f *Fleet) Down() error {
	var mu sync.Mutex
	stopped := make([]int, fleet.MaxClusters)
	errs := make([]error, fleet.MaxClusters+1)
	var wg sync.WaitGroup
	for i := range fleet.MaxClusters {
		m := fleet.NewMember(f.L, i+1)
		wg.Go(func() {
			stopped[i], errs[i] = stopComponents(m.L, fleet.MemberComponents, prefixed(&mu, f.Out, "["+m.Name+"] "))
		})
	}
	wg.Wait()
	n, err := stopComponents(fleet.EtcdLayout(f.L), []string{"etcd"}, prefixed(&mu, f.Out, "[etcd] "))
	errs[fleet.MaxClusters] = err
	for _, s := range stopped {
		n += s
	}
	if n == 0 {
		fmt.Fprintln(f.Out, "fleet down: nothing of the fleet's was running")
	} else {
		fmt.Fprintf(f.Out, "fleet down: stopped %d process(es)\n", n)
	}
	return errors.Join(errs...)
}

// MemberStatus is what Status found of one member.
type MemberStatus struct {
	// Member is the member.
	Member fleet.Member
	// Running are its live processes.
	Running []RunningComponent
	// NotReady says why its API server is not ready; nil when it is.
	NotReady error
}

// Status reports each of members: its processes and whether its API
// server answers /readyz (each asked within timeout, side by side).
func (f *Fleet) Status(ctx context.Context, members []fleet.Member, timeout time.Duration) []MemberStatus {
	res := make([]MemberStatus, len(members))
	var wg sync.WaitGroup
	for i, m := range members {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			res[i] = MemberStatus{Member: m, Running: MemberRunning(m), NotReady: f.Member(m, io.Discard).Ready(cctx)}
		})
	}
	wg.Wait()
	return res
}

// prefixWriter writes whole lines to w, each after prefix, under a mutex
// that the fleet's parts share, so lines of members started side by side
// never interleave.
type prefixWriter struct {
	mu     *sync.Mutex
	w      io.Writer
	prefix string
	buf    []byte
}

func prefixed(mu *sync.Mutex, w io.Writer, prefix string) io.Writer {
	return &prefixWriter{mu: mu, w: w, prefix: prefix}
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.buf = append(p.buf, b...)
	for {
		line, rest, ok := strings.Cut(string(p.buf), "\n")
		if !ok {
			break
		}
		if _, err := fmt.Fprintf(p.w, "%s%s\n", p.prefix, line); err != nil {
			return 0, err
		}
		p.buf = []byte(rest)
	}
	return len(b), nil
}
