// Command scale is kyyard's scale run on the local cluster (make
// bench-scale): it fills the cluster with pods on fake kwok nodes, starts
// the real kyyard binary on the all-namespaces pods view in a tmux pane,
// and measures what the issue budgets name: time from start to the first
// rows drawn, RSS after the cache synced, CPU over one idle minute, and the
// LIST and WATCH requests kyyard made in that minute (from the API
// server's audit log); beside them `kubectl get pods -A` in the same run,
// and a churn run (pods changed at a set rate while kyyard shows them:
// its CPU, its memory, and how far its rows lag).
//
// Usage (from the repository root, the cluster running):
//
//	go run ./hack/scale seed    [--pods 10000] [--namespaces 10] [--nodes 100]
//	go run ./hack/scale measure [--idle 60s] --kyyard bin/kyyard [--kubectl PATH] [--churn 60s --churn-rate 1000]
//	go run ./hack/scale clean
//	go run ./hack/scale shell   [--pod demo/real-shell] [--runs 10] --kyyard bin/kyyard --kubectl PATH
//
// Every command takes --kubeconfig and --audit-log (the local cluster's,
// never a default) and refuses an API server that is not on 127.0.0.1.
//
// The local cluster at 100,000 pods needs no flags beyond what hack/cluster
// gives it: etcd runs with --quota-backend-bytes=8589934592,
// --auto-compaction-retention=1 and --unsafe-no-fsync, the controller
// manager and scheduler with --kube-api-qps=5000. Seeding 100,000 pods on
// 1,000 nodes takes about 7 minutes to create and 15 until kwok has made
// them all Running (kwok is the bottleneck). The churn's rate is bounded
// by the machine: on 2 cores the API server, kwok and etcd reach 250-600
// changes a second. Tried and dropped, since neither raised it:
// --max-requests-inflight=800 --max-mutating-requests-inflight=400 (no
// request was ever refused) and --audit-log-mode=batch (the API server is
// CPU-bound, not waiting on the audit file); GOGC=400 for the API server.
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
		fmt.Fprintln(os.Stderr, "usage: scale seed|measure|clean|shell [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the local cluster's admin kubeconfig (required)")
	auditLog := fs.String("audit-log", "", "the API server's audit log (measure)")
	pods := fs.Int("pods", 10000, "pods to create (seed)")
	namespaces := fs.Int("namespaces", 10, "namespaces to spread them over (seed)")
	nodes := fs.Int("nodes", 100, "fake nodes to run them on (seed)")
	idle := fs.Duration("idle", time.Minute, "idle window to measure CPU and requests in (measure)")
	starts := fs.Int("starts", 3, "how many times kyyard is started and its first and all rows timed, as the bare LIST is timed three times; the last start stays for the idle window and the churn (measure)")
	binary := fs.String("kyyard", "bin/kyyard", "the kyyard binary (measure)")
	kubectl := fs.String("kubectl", "", "the kubectl to time `kubectl get pods -A` with in the same run; empty skips it (measure); the kubectl whose exec -it the shell run times (shell)")
	churnFor := fs.Duration("churn", 0, "length of the churn run after the idle window; 0 skips it (measure)")
	churnRate := fs.Int("churn-rate", 1000, "pod changes per second in the churn run (measure)")
	churnMode := fs.String("churn-mode", churnReplace, "what a change is: replace (pods created and deleted about 5s later) or patch (an annotation of the seeded pods) (measure)")
	runs := fs.Int("runs", 10, "shells opened through kyyard and through kubectl each (shell)")
	target := fs.String("pod", "demo/real-shell", "NAMESPACE/POD to open the shells in; its container must run busybox's sh (shell)")
	settle := fs.Duration("settle", 150*time.Second, "how long after the churn (its pods deleted) kyyard's RSS is read again (measure)")
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
	cfg.QPS, cfg.Burst = 2000, 2000 // the churn run asks 1,000 changes a second
	cfg.UserAgent = "kyyard-scale-run"
	// Protobuf answers: the API server's encoding, not the run's, is what
	// the churn should spend.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
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
		if *churnMode != churnReplace && *churnMode != churnPatch {
			err = fmt.Errorf("--churn-mode %q: want %s or %s", *churnMode, churnReplace, churnPatch)
			break
		}
		if *auditLog == "" {
			err = errors.New("--audit-log is required")
			break
		}
		err = measure(ctx, cs, *binary, *kubeconfig, *auditLog, *idle, runOptions{kubectl: *kubectl, starts: *starts,
			churn: churnOptions{rate: *churnRate, length: *churnFor, mode: *churnMode, settle: *settle}})
	case "clean":
		err = clean(ctx, cs)
	case "shell":
		ns, pod, ok := strings.Cut(*target, "/")
		if !ok || *kubectl == "" {
			err = errors.New("shell needs --pod NAMESPACE/POD and --kubectl")
			break
		}
		err = shellRun(shellOptions{kyyard: *binary, kubectl: *kubectl, kubeconfig: *kubeconfig, namespace: ns, pod: pod, runs: *runs})
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}
