// Command scale is kyyard's scale run on the local cluster (make
// bench-scale): it fills the cluster with pods on fake kwok nodes, starts
// the real kyyard binary on the all-namespaces pods view in a tmux pane,
// and measures what the issue budgets name: time from start to the first
// rows drawn, RSS after the cache synced, CPU over one idle minute, and the
// LIST and WATCH requests kyyard made in that minute (from the API
// server's audit log).
//
// Usage (from the repository root, the cluster running):
//
//	go run ./hack/scale seed    [--pods 10000] [--namespaces 10] [--nodes 100]
//	go run ./hack/scale measure [--idle 60s] --kyyard bin/kyyard
//	go run ./hack/scale clean
//
// Every command takes --kubeconfig and --audit-log (the local cluster's,
// never a default) and refuses an API server that is not on 127.0.0.1.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// scaleLabel marks everything the scale run creates, so clean removes
// exactly that.
const scaleLabel = "kyyard.dev/scale"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scale seed|measure|clean [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the local cluster's admin kubeconfig (required)")
	auditLog := fs.String("audit-log", "", "the API server's audit log (measure)")
	pods := fs.Int("pods", 10000, "pods to create (seed)")
	namespaces := fs.Int("namespaces", 10, "namespaces to spread them over (seed)")
	nodes := fs.Int("nodes", 100, "fake nodes to run them on (seed)")
	idle := fs.Duration("idle", time.Minute, "idle window to measure CPU and requests in (measure)")
	binary := fs.String("kyyard", "bin/kyyard", "the kyyard binary (measure)")
	_ = fs.Parse(os.Args[2:])
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig is required (the local cluster's admin kubeconfig)")
		os.Exit(2)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err == nil && !strings.HasPrefix(cfg.Host, "https://127.0.0.1") {
		err = fmt.Errorf("refusing %s: only the local cluster on 127.0.0.1", cfg.Host)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	cfg.QPS, cfg.Burst = 500, 1000
	cfg.UserAgent = "kyyard-scale-run"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	ctx := context.Background()
	switch os.Args[1] {
	case "seed":
		err = seed(ctx, cs, *pods, *namespaces, *nodes)
	case "measure":
		if *auditLog == "" {
			err = errors.New("--audit-log is required")
			break
		}
		err = measure(ctx, cs, *binary, *kubeconfig, *auditLog, *idle)
	case "clean":
		err = clean(ctx, cs)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
