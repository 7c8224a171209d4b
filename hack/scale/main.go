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
//	go run ./hack/scale seed    [--pods 10000] [--namespaces 10] [--nodes 100] [--no-wait]
//	go run ./hack/scale measure [--idle 60s] --kyyard bin/kyyard [--kubectl PATH] [--churn 60s --churn-rate 1000] [--interleave]
//	go run ./hack/scale clean
//	go run ./hack/scale shell   [--pod demo/real-shell] [--runs 10] --kyyard bin/kyyard --kubectl PATH
//
// and on the local fleet (make bench-fleet; fleet.go), with its kubeconfig:
//
//	go run ./hack/scale seed  --contexts C1,C2,C3 [--pods 30000] [--nodes 300]  (side by side)
//	go run ./hack/scale fleet-measure --contexts C1,C2,C3 --audit-log 'DIR/{context}/logs/audit.log'
//	    --kyyard bin/kyyard [--starts 3] [--idle 60s] [--cluster-tool PATH --restart C2 --down 20s]
//	go run ./hack/scale clean --contexts C1,C2,C3
//
// Every command takes --kubeconfig and --audit-log (the local cluster's,
// never a default) and refuses an API server that is not on 127.0.0.1;
// seed and clean take --context (one context of the kubeconfig, else its
// current one) or --contexts (several, each seeded or cleaned side by side).
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
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// scaleLabel marks everything the scale run creates, so clean removes
// exactly that.
const scaleLabel = "kyyard.dev/scale"

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: scale seed|measure|clean|shell|fleet-measure [flags]")
		os.Exit(2)
	}
	fs := flag.NewFlagSet(os.Args[1], flag.ExitOnError)
	kubeconfig := fs.String("kubeconfig", "", "the local cluster's (or the local fleet's) admin kubeconfig (required)")
	kubeContext := fs.String("context", "", "the kubeconfig context to seed or clean; empty: its current context (seed, clean)")
	contexts := fs.String("contexts", "", "comma-separated contexts of the kubeconfig: each seeded or cleaned side by side (seed, clean); the fleet measured (fleet-measure)")
	auditLog := fs.String("audit-log", "", "the API server's audit log (measure); fleet-measure: each member's, {context} standing for the context's name")
	pods := fs.Int("pods", 10000, "pods to create (seed, in each context)")
	namespaces := fs.Int("namespaces", 10, "namespaces to spread them over (seed)")
	nodes := fs.Int("nodes", 100, "fake nodes to run them on (seed)")
	idle := fs.Duration("idle", time.Minute, "idle window to measure CPU and requests in (measure, fleet-measure)")
	starts := fs.Int("starts", 3, "how many times kyyard is started and its first and all rows timed, as the bare LIST is timed three times; the last start stays for the idle window and the churn (measure); fleet-measure: rounds of one start alone on each context and one across them all, the fleet's last start staying for the idle window and the outage")
	binary := fs.String("kyyard", "bin/kyyard", "the kyyard binary (measure, fleet-measure); measure --interleave takes several, comma-separated, started in turn (an A/B in the same minutes)")
	kubectl := fs.String("kubectl", "", "the kubectl to time `kubectl get pods -A` with in the same run; empty skips it (measure); the kubectl whose exec -it the shell run times (shell)")
	churnFor := fs.Duration("churn", 0, "length of the churn run after the idle window; 0 skips it (measure)")
	churnRate := fs.Int("churn-rate", 1000, "pod changes per second in the churn run (measure)")
	churnMode := fs.String("churn-mode", churnReplace, "what a change is: replace (pods created and deleted about 5s later) or patch (an annotation of the seeded pods) (measure)")
	runs := fs.Int("runs", 10, "shells opened through kyyard and through kubectl each (shell)")
	target := fs.String("pod", "demo/real-shell", "NAMESPACE/POD to open the shells in; its container must run busybox's sh (shell)")
	settle := fs.Duration("settle", 150*time.Second, "how long after the churn (its pods deleted) kyyard's RSS is read again (measure)")
	clusterTool := fs.String("cluster-tool", "", "hack/cluster's binary, whose `fleet restart-apiserver` stops a member's API server (fleet-measure); empty skips the outage")
	restart := fs.String("restart", "", "the fleet member whose API server is stopped while kyyard shows the fleet (fleet-measure; its context's name); empty: the second context")
	down := fs.Duration("down", 20*time.Second, "how long that API server stays stopped (fleet-measure)")
	serverCPU := fs.Float64("server-cpu", 0, "hold each fleet member's API server to this share of one core, in a cgroup of its own (fleet-measure; 0.33: a third; 0: no limit; needs root): remote clusters take no CPU from kyyard's machine")
	noWait := fs.Bool("no-wait", false, "return once the pods are created, most still being started by kwok (seed; then measure --interleave: a start while the cluster churns)")
	interleave := fs.Bool("interleave", false, "time one bare LIST right before each start of kyyard, and count the pods not yet Running then, instead of three LISTs and three streaming lists before the first start (measure: a start while the cluster churns, issue 25)")
	session := fs.String("session", "", "the tmux session kyyard runs in (fleet-measure; default kyyard-fleet-run-PID)")
	_ = fs.Parse(os.Args[2:])
	if *kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "--kubeconfig is required (the local cluster's admin kubeconfig)")
		os.Exit(2)
	}
	names := splitList(*contexts)
	if *kubeContext != "" && len(names) > 0 {
		fmt.Fprintln(os.Stderr, "--context and --contexts exclude each other")
		os.Exit(2)
	}
	if len(names) == 0 {
		names = []string{*kubeContext} // "": the current context
	}
	clients := make([]*kubernetes.Clientset, len(names))
	hosts := make([]string, len(names))
	for i, name := range names {
		cs, cfg, err := clientFor(*kubeconfig, name)
		if err != nil {
			fmt.Fprintln(os.Stderr, "error:", err)
			os.Exit(1)
		}
		clients[i], hosts[i] = cs, cfg.Host
	}
	single := len(names) == 1 && names[0] == ""
	ctx := context.Background()
	var err error
	switch os.Args[1] {
	case "seed":
		began := time.Now()
		err = eachContext(names, func(i int, say func(string, ...any)) error {
			return seed(ctx, clients[i], say, *pods, *namespaces, *nodes, *noWait)
		})
		if err == nil && !single {
			fmt.Printf("seed: %d pods Running in each of %s after %s (side by side)\n",
				*pods, strings.Join(names, ", "), time.Since(began).Round(time.Second))
		}
	case "measure":
		if !single {
			err = errors.New("measure takes the kubeconfig's current context (no --context, --contexts)")
			break
		}
		if *churnMode != churnReplace && *churnMode != churnPatch {
			err = fmt.Errorf("--churn-mode %q: want %s or %s", *churnMode, churnReplace, churnPatch)
			break
		}
		if *auditLog == "" {
			err = errors.New("--audit-log is required")
			break
		}
		err = measure(ctx, clients[0], *binary, *kubeconfig, *auditLog, *idle, runOptions{kubectl: *kubectl, starts: *starts, interleave: *interleave,
			churn: churnOptions{rate: *churnRate, length: *churnFor, mode: *churnMode, settle: *settle}})
	case "clean":
		// Retried for a while: a member of the fleet may be restarting
		// (an interrupted outage), and at 30,000 pods a namespace's
		// DeleteCollection outlasts the API server's request timeout (it
		// goes on where it stopped).
		err = eachContext(names, func(i int, say func(string, ...any)) error {
			deadline := time.Now().Add(20 * time.Minute)
			for {
				err := clean(ctx, clients[i], say)
				if err == nil || time.Now().After(deadline) {
					return err
				}
				say("clean: %v; again in 5s\n", err)
				time.Sleep(5 * time.Second)
			}
		})
	case "shell":
		if !single {
			err = errors.New("shell takes the kubeconfig's current context (no --context, --contexts)")
			break
		}
		ns, pod, ok := strings.Cut(*target, "/")
		if !ok || *kubectl == "" {
			err = errors.New("shell needs --pod NAMESPACE/POD and --kubectl")
			break
		}
		err = shellRun(shellOptions{kyyard: *binary, kubectl: *kubectl, kubeconfig: *kubeconfig, namespace: ns, pod: pod, runs: *runs})
	case "fleet-measure":
		if len(names) < 2 || single {
			err = errors.New("fleet-measure needs --contexts with two contexts or more")
			break
		}
		if *auditLog == "" || !strings.Contains(*auditLog, "{context}") {
			err = errors.New("fleet-measure needs --audit-log with {context} (e.g. hack/cluster/.cache/fleet/{context}/logs/audit.log)")
			break
		}
		opts := fleetOptions{kyyard: *binary, kubeconfig: *kubeconfig, contexts: names, clients: clients, hosts: hosts, auditLog: *auditLog,
			starts: max(*starts, 1), idle: *idle, clusterTool: *clusterTool, restart: *restart, down: *down, session: *session, serverCPU: *serverCPU}
		if opts.restart == "" {
			opts.restart = names[1]
		}
		if opts.session == "" {
			opts.session = fmt.Sprintf("kyyard-fleet-run-%d", os.Getpid())
		}
		err = fleetMeasure(ctx, opts)
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// clientFor connects to context name of the kubeconfig at path (its
// current context for ""), reading that file only, and refuses an API
// server that is not on 127.0.0.1.
func clientFor(path, name string) (*kubernetes.Clientset, *rest.Config, error) {
	rules := &clientcmd.ClientConfigLoadingRules{ExplicitPath: path}
	cfg, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: name}).ClientConfig()
	if err == nil && !strings.HasPrefix(cfg.Host, "https://127.0.0.1") {
		err = fmt.Errorf("refusing %s: only the local cluster on 127.0.0.1", cfg.Host)
	}
	if err != nil {
		if name != "" {
			err = fmt.Errorf("context %s: %w", name, err)
		}
		return nil, nil, err
	}
	cfg.QPS, cfg.Burst = 2000, 2000 // the churn run asks 1,000 changes a second
	cfg.UserAgent = "kyyard-scale-run"
	// Protobuf answers: the API server's encoding, not the run's, is what
	// the churn should spend.
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf,application/json"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, nil, err
	}
	return cs, cfg, nil
}

// splitList splits a comma-separated list, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// eachContext runs fn for each of names side by side (one alone when
// there is one), its lines prefixed with the context's name when there are
// several, and joins their errors.
func eachContext(names []string, fn func(i int, say func(format string, a ...any)) error) error {
	var mu sync.Mutex
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		prefix := ""
		if len(names) > 1 {
			prefix = "[" + name + "] "
		}
		say := func(format string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Print(prefix + fmt.Sprintf(format, a...))
		}
		wg.Go(func() {
			if err := fn(i, say); err != nil {
				errs[i] = fmt.Errorf("%s%w", prefix, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
