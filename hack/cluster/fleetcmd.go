package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/fleet"
	"github.com/kyyard/kyyard/hack/cluster/internal/seed"
)

const fleetUsage = "usage: fleet up [--clusters N] [--nodes N] [--keep-on-fail] | fleet seed [--timeout D] | fleet status | fleet restart-apiserver --cluster NAME [--down D] | fleet down"

// fleet runs the local fleet's subcommands: several control planes side by
// side (package fleet), their state in .cache/fleet.
func (a *app) fleet(ctx context.Context, args []string) (int, error) {
	if len(args) == 0 {
		return 2, errors.New(fleetUsage)
	}
	f := &cluster.Fleet{L: a.l, Out: os.Stdout}
	switch args[0] {
	case "up":
		return a.fleetUp(ctx, f, args[1:])
	case "seed":
		return a.fleetSeed(ctx, f, args[1:])
	case "status":
		return a.fleetStatus(ctx, f, args[1:])
	case "restart-apiserver":
		return a.fleetRestartAPIServer(ctx, f, args[1:])
	case "down":
		if err := noArgs(newFlags("fleet down"), args[1:]); err != nil {
			return 2, err
		}
		err := f.Down()
		return exitCode(err), err
	}
	return 2, fmt.Errorf("unknown fleet command %q; %s", args[0], fleetUsage)
}

func (a *app) fleetUp(ctx context.Context, f *cluster.Fleet, args []string) (int, error) {
	flags := newFlags("fleet up")
	n := flags.Int("clusters", fleet.DefaultClusters, fmt.Sprintf("number of clusters (1 to %d)", fleet.MaxClusters))
	nodes := flags.Int("nodes", fleet.DefaultNodes, "number of fake kwok nodes of each cluster")
	keep := flags.Bool("keep-on-fail", false, "leave what was started running when up fails")
	if err := noArgs(flags, args); err != nil {
		return 2, err
	}
	err := f.Up(ctx, cluster.FleetUpOptions{Clusters: *n, Nodes: *nodes, KeepOnFail: *keep})
	return exitCode(err), err
}

// fleetMembers returns the members the last `fleet up` started.
func (a *app) fleetMembers() ([]fleet.Member, error) {
	n, err := fleet.ReadSize(a.l)
	if err != nil {
		return nil, err
	}
	return fleet.Members(a.l, n)
}

func (a *app) fleetSeed(ctx context.Context, f *cluster.Fleet, args []string) (int, error) {
	flags := newFlags("fleet seed")
	timeout := flags.Duration("timeout", 2*time.Minute, "how long to wait for each cluster's Deployments")
	if err := noArgs(flags, args); err != nil {
		return 2, err
	}
	members, err := a.fleetMembers()
	if err != nil {
		return 1, err
	}
	for _, st := range f.Status(ctx, members, 5*time.Second) {
		if st.NotReady != nil {
			return 1, fmt.Errorf("%s is not running (run `fleet up` first): %w", st.Member.Name, st.NotReady)
		}
	}
	err = seed.RunFleet(ctx, a.l, members, seed.Options{Timeout: *timeout, Out: os.Stdout})
	return exitCode(err), err
}

// fleetRestartAPIServer stops the API server of one member of the last
// `fleet up` for a while and starts it again (Fleet.RestartAPIServer).
func (a *app) fleetRestartAPIServer(ctx context.Context, f *cluster.Fleet, args []string) (int, error) {
	flags := newFlags("fleet restart-apiserver")
	name := flags.String("cluster", "", "the member whose API server restarts (kyyard-fleet-1, ...)")
	down := flags.Duration("down", 5*time.Second, "how long the API server stays stopped")
	if err := noArgs(flags, args); err != nil {
		return 2, err
	}
	if *name == "" {
		return 2, errors.New("--cluster is required; " + fleetUsage)
	}
	members, err := a.fleetMembers()
	if err != nil {
		return 1, err
	}
	var names []string
	for _, m := range members {
		if m.Name == *name {
			err := f.RestartAPIServer(ctx, m, *down)
			return exitCode(err), err
		}
		names = append(names, m.Name)
	}
	return 1, fmt.Errorf("unknown fleet cluster %q: the fleet has %s", *name, strings.Join(names, ", "))
}

// fleetStatus prints the shared etcd, each member's API server, readiness,
// metrics-server, processes (and those of fleet.MemberComponents that do not
// run) and contexts, and the fleet kubeconfig; exit 0 when every member of
// the last `fleet up` is ready (its API server answers /readyz).
func (a *app) fleetStatus(ctx context.Context, f *cluster.Fleet, args []string) (int, error) {
	if err := noArgs(newFlags("fleet status"), args); err != nil {
		return 2, err
	}
	members, err := a.fleetMembers()
	if errors.Is(err, fs.ErrNotExist) {
		fmt.Println("fleet status: not running (never started)")
		return 1, nil
	}
	if err != nil {
		return 1, err
	}
	code := 0
	if pid := f.EtcdPID(); pid != 0 {
		fmt.Printf("etcd: running (pid %d, http://127.0.0.1:%d, shared, one key prefix per cluster)\n", pid, fleet.EtcdPorts.Etcd)
	} else {
		fmt.Println("etcd: not running")
		code = 1
	}
	tokens, err := fleet.Tokens(members)
	if err != nil {
		return 1, err
	}
	for _, st := range f.Status(ctx, members, 5*time.Second) {
		m := st.Member
		state := "ready"
		if st.NotReady != nil {
			state = fmt.Sprintf("not ready (%v)", st.NotReady)
			code = 1
		}
		parts := []string{"(none)"}
		if len(st.Running) > 0 {
			parts = nil
		}
		runs := map[string]bool{}
		for _, r := range st.Running {
			parts = append(parts, fmt.Sprintf("%s=%d", r.Name, r.PID))
			runs[r.Name] = true
		}
		var missing []string
		for _, n := range fleet.MemberComponents {
			if !runs[n] {
				missing = append(missing, n)
			}
		}
		if len(st.Running) > 0 && len(missing) > 0 {
			parts = append(parts, "(not running: "+strings.Join(missing, ", ")+")")
		}
		contexts := m.Name
		if tokens[m.Name] != "" {
			contexts += ", " + fleet.ViewerContext(m.Index)
		} else {
			contexts += " (" + fleet.ViewerContext(m.Index) + " after `fleet seed`)"
		}
		fmt.Printf("%s: %s\n  API server: %s (etcd prefix %s)\n  metrics-server: https://127.0.0.1:%d (APIService %s)\n  contexts: %s\n  processes: %s\n",
			m.Name, state, m.ServerURL(), m.EtcdPrefix, m.Ports.MetricsServer, cluster.MetricsAPIService, contexts, strings.Join(parts, " "))
	}
	fmt.Printf("kubeconfig: %s\n", a.l.FleetKubeconfig())
	return code, nil
}
