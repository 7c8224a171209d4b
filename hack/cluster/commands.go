package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/kyyard/kyyard/hack/cluster/internal/build"
	"github.com/kyyard/kyyard/hack/cluster/internal/cluster"
	"github.com/kyyard/kyyard/hack/cluster/internal/layout"
	"github.com/kyyard/kyyard/hack/cluster/internal/seed"
)

// app carries what every command needs.
type app struct {
	l layout.Layout
	c *cluster.Cluster
}

func newApp() (*app, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	l, err := layout.Find(wd)
	if err != nil {
		return nil, err
	}
	return &app{l: l, c: cluster.New(l, os.Stdout)}, nil
}

func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

func noArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return nil
}

func (a *app) build(ctx context.Context, args []string) (int, error) {
	fs := newFlags("build")
	force := fs.Bool("force", false, "run every go build even when the stamp matches")
	if err := noArgs(fs, args); err != nil {
		return 2, err
	}
	start := time.Now()
	if err := build.Run(ctx, a.l, build.Options{Force: *force, Out: os.Stdout}); err != nil {
		return 1, err
	}
	fmt.Printf("build: took %s\n", time.Since(start).Round(10*time.Millisecond))
	return 0, nil
}

func (a *app) up(ctx context.Context, args []string) (int, error) {
	fs := newFlags("up")
	nodes := fs.Int("nodes", 1, "number of fake kwok nodes")
	keep := fs.Bool("keep-on-fail", false, "leave started processes running when up fails")
	if err := noArgs(fs, args); err != nil {
		return 2, err
	}
	err := a.c.Up(ctx, cluster.UpOptions{Nodes: *nodes, KeepOnFail: *keep})
	if errors.Is(err, cluster.ErrAlreadyRunning) {
		return 0, nil
	}
	return exitCode(err), err
}

func (a *app) down(args []string) (int, error) {
	if err := noArgs(newFlags("down"), args); err != nil {
		return 2, err
	}
	err := a.c.Down()
	return exitCode(err), err
}

// node starts or stops only the real node (containerd and the kubelet).
// --control-plane names the hack/cluster folder of the control plane the
// node joins (its CA signs the kubelet's certificates; its admin kubeconfig
// waits for Ready); by default this checkout's. The node's own state, logs
// and PID files stay in this checkout's .cache.
func (a *app) node(ctx context.Context, args []string) (int, error) {
	if len(args) == 0 || (args[0] != "up" && args[0] != "down") {
		return 2, fmt.Errorf("usage: node up [--control-plane DIR] [--no-build] | node down")
	}
	fs := newFlags("node " + args[0])
	cpDir := fs.String("control-plane", a.l.ModuleDir, "hack/cluster folder of the control plane to join (node up)")
	noBuild := fs.Bool("no-build", false, "use the binaries and image archives as they are (node up)")
	if err := noArgs(fs, args[1:]); err != nil {
		return 2, err
	}
	cp, err := layout.New(*cpDir)
	if err != nil {
		return 1, err
	}
	nd := a.c.Node()
	nd.CAPKI, nd.AdminKubeconfig = cp.PKI, cp.AdminKubeconfig()
	if args[0] == "down" {
		err := nd.Stop()
		return exitCode(err), err
	}
	if !*noBuild {
		if err := build.Run(ctx, a.l, build.Options{Out: os.Stdout}); err != nil {
			return 1, err
		}
	}
	err = nd.Start(ctx)
	return exitCode(err), err
}

func (a *app) status(ctx context.Context, args []string) (int, error) {
	if err := noArgs(newFlags("status"), args); err != nil {
		return 2, err
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := a.c.Ready(cctx); err != nil {
		fmt.Printf("status: not running (%v)\n", err)
		return 1, nil
	}
	var parts []string
	for _, r := range a.c.Running() {
		parts = append(parts, fmt.Sprintf("%s=%d", r.Name, r.PID))
	}
	for _, r := range a.c.Node().Running() {
		parts = append(parts, fmt.Sprintf("%s=%d", r.Name, r.PID))
	}
	fmt.Printf("status: ready\nAPI server: %s\nkubeconfig: %s\nprocesses: %s\n",
		a.c.Ports.ServerURL(), a.l.AdminKubeconfig(), strings.Join(parts, " "))
	return 0, nil
}

func (a *app) seed(ctx context.Context, args []string) (int, error) {
	fs := newFlags("seed")
	timeout := fs.Duration("timeout", 2*time.Minute, "how long to wait for the demo objects to converge")
	realInto := fs.String("real-node-into", "", "seed only the real node's demo pods, into this namespace")
	if err := noArgs(fs, args); err != nil {
		return 2, err
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err := a.c.Ready(cctx)
	cancel()
	if err != nil {
		return 1, fmt.Errorf("the cluster is not running (run `go run . up` first): %w", err)
	}
	if *realInto != "" {
		err = seed.RunRealNode(ctx, a.l, *realInto, seed.Options{Timeout: *timeout, Out: os.Stdout})
		return exitCode(err), err
	}
	err = seed.Run(ctx, a.l, seed.Options{Timeout: *timeout, Out: os.Stdout})
	return exitCode(err), err
}

func (a *app) restartAPIServer(ctx context.Context, args []string) (int, error) {
	fs := newFlags("restart-apiserver")
	down := fs.Duration("down", 5*time.Second, "how long the API server stays stopped")
	if err := noArgs(fs, args); err != nil {
		return 2, err
	}
	err := a.c.RestartAPIServer(ctx, *down)
	return exitCode(err), err
}

func (a *app) env(args []string) (int, error) {
	if err := noArgs(newFlags("env"), args); err != nil {
		return 2, err
	}
	fmt.Printf("export KUBECONFIG=%s\n", shellQuote(a.l.AdminKubeconfig()))
	fmt.Printf("export KYYARD_READONLY_KUBECONFIG=%s\n", shellQuote(a.l.ReadonlyKubeconfig()))
	fmt.Printf("export KYYARD_AUDIT_LOG=%s\n", shellQuote(a.l.AuditLog()))
	return 0, nil
}

// kubectl runs the built kubectl with the admin kubeconfig (or the one args
// name with --kubeconfig, e.g. the fleet's), HOME in the cache (its
// discovery cache stays out of ~/.kube) and no KUBECONFIG from our env.
func (a *app) kubectl(ctx context.Context, args []string) (int, error) {
	bin := a.l.BinaryPath("kubectl")
	if _, err := os.Stat(bin); err != nil {
		return 1, fmt.Errorf("%s is missing: run `go run . build` first", bin)
	}
	if err := os.MkdirAll(a.l.Home, 0o755); err != nil {
		return 1, err
	}
	if !namesKubeconfig(args) {
		args = append([]string{"--kubeconfig=" + a.l.AdminKubeconfig()}, args...)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KUBECONFIG=") && !strings.HasPrefix(kv, "HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "HOME="+a.l.Home)
	err := cmd.Run()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return exitErr.ExitCode(), nil
	}
	if err != nil {
		return 1, err
	}
	return 0, nil
}

// namesKubeconfig reports whether kubectl's args give --kubeconfig (before
// a "--" that ends kubectl's flags).
func namesKubeconfig(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if a == "--kubeconfig" || strings.HasPrefix(a, "--kubeconfig=") {
			return true
		}
	}
	return false
}

// exitCode is 0 for success and 1 for an error.
func exitCode(err error) int {
	if err != nil {
		return 1
	}
	return 0
}

func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t'\"$`\\") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
