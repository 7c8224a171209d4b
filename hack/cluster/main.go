// Command cluster builds and runs kyyard's local Kubernetes control plane on
// 127.0.0.1 (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
// kwok with fake nodes, metrics-server), one real node (containerd and the
// kubelet) and seeds it with demo data. All state lives in hack/cluster/.cache.
//
// Usage (from hack/cluster):
//
//	go run . build                 build the binaries (a no-op when up to date)
//	go run . up [--nodes N]        start the cluster (fresh etcd every time)
//	go run . seed [--timeout D]    create the demo namespace's objects and wait for them
//	go run . status                exit 0 if the API server is ready
//	go run . down                  stop the cluster
//	go run . env                   print shell exports (KUBECONFIG, ...)
//	go run . kubectl ARGS...       run the built kubectl with the admin kubeconfig
//	go run . restart-apiserver [--down D]  stop the API server for D, then start it again
//	go run . node up|down          start or stop only the real node
//	go run . fleet up [--clusters N]  start the local fleet: N control planes side by side
//	go run . fleet seed|status|down   seed, check or stop the local fleet
//	go run . fleet restart-apiserver --cluster NAME [--down D]  restart one fleet member's API server
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: go run . COMMAND [flags]

commands:
  build [--force]                 build etcd, kube-apiserver, kube-controller-manager,
                                  kube-scheduler, kubectl, kwok, metrics-server, and the real
                                  node's kubelet, containerd and CNI plugins into .cache/bin, its
                                  images into .cache/images (apt-get installs runc, iptables and
                                  busybox-static first when missing, as root)
  up [--nodes N] [--keep-on-fail] start the cluster on 127.0.0.1 (builds first if needed)
  seed [--timeout D]              create the demo data in namespace demo and wait for it
       [--real-node-into NS]      (only the real node's demo pods, into namespace NS)
  status                          exit 0 and print the API server URL if it is ready
  down                            stop the cluster's processes (the real node and its pods first)
  env                             print shell exports: KUBECONFIG, KYYARD_READONLY_KUBECONFIG,
                                  KYYARD_AUDIT_LOG
  kubectl ARGS...                 run .cache/bin/kubectl with the admin kubeconfig (unless ARGS
                                  give --kubeconfig, e.g. the fleet's)
  restart-apiserver [--down D]    stop the API server, wait D (5s), start it again on the
                                  same etcd data: an outage for clients to survive
  node up [--control-plane DIR]   start only the real node (containerd, kubelet), joining the
          [--no-build]            control plane of the hack/cluster folder DIR (default: this one)
  node down                       stop only the real node (kubelet, its pods, containerd)
  fleet up [--clusters N]         start the local fleet: N (3) control planes side by side on
           [--nodes N]            127.0.0.1 (API servers on 21443, 22443, ...; one etcd shared
           [--keep-on-fail]       with a key prefix each; N (2) fake nodes and a metrics-server
                                  each, on 21444, 22444, ...), its state in .cache/fleet;
                                  starts only what does not run; writes
                                  .cache/fleet/kubeconfig (contexts kyyard-fleet-1, ...)
  fleet seed [--timeout D]        create each cluster's demo data (they differ on purpose) and
                                  its read-only user (contexts kyyard-fleet-1-viewer, ...);
                                  wait for each cluster's first metrics samples (kubectl top)
  fleet status                    exit 0 if every cluster of the fleet is ready; print them
  fleet restart-apiserver         stop the API server of one cluster of the fleet (NAME:
        --cluster NAME [--down D] kyyard-fleet-1, ...), wait D (5s), start it again as fleet up
                                  does (its other processes and the other clusters keep running)
  fleet down                      stop the fleet's processes (never the single cluster's)
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command and returns the process exit code.
func run(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return 2
	}
	cmd, rest := args[0], args[1:]
	if cmd == "help" || cmd == "-h" || cmd == "--help" {
		fmt.Print(usage)
		return 0
	}
	app, err := newApp()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		return 1
	}
	var code int
	switch cmd {
	case "build":
		code, err = app.build(ctx, rest)
	case "up":
		code, err = app.up(ctx, rest)
	case "down":
		code, err = app.down(rest)
	case "status":
		code, err = app.status(ctx, rest)
	case "seed":
		code, err = app.seed(ctx, rest)
	case "env":
		code, err = app.env(rest)
	case "kubectl":
		code, err = app.kubectl(ctx, rest)
	case "restart-apiserver":
		code, err = app.restartAPIServer(ctx, rest)
	case "node":
		code, err = app.node(ctx, rest)
	case "fleet":
		code, err = app.fleet(ctx, rest)
	default:
		fmt.Fprintf(os.Stderr, "unknown command %q\n\n%s", cmd, usage)
		return 2
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(os.Stderr, "%s: error: %v\n", cmd, err)
		if code == 0 {
			code = 1
		}
	}
	return code
}
