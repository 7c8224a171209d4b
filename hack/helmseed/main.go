// Command helmseed makes the local cluster's demo Helm release with Helm's Go
// SDK: the greeter chart of internal/helmdemo, installed and then upgraded so
// that the release has helmdemo.DefaultRevisions' two revisions. Run again,
// it changes nothing. `make cluster-up` and hack/test.sh run it after
// `kyyard-cluster seed`, which makes the namespace.
//
// Usage:
//
//	go run ./hack/helmseed -kubeconfig hack/cluster/.cache/kubeconfig/admin.kubeconfig [-namespace demo] [-release greeter]
//
// It prints one line, "helm release demo/greeter: 2 revisions", and exits 0;
// on an error it prints the error to stderr and exits 1 (2 for bad flags).
// It reaches the cluster only through the -kubeconfig file.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/kyyard/kyyard/internal/helmdemo"
)

func main() {
	kubeconfig := flag.String("kubeconfig", "", "path of the kubeconfig file to reach the cluster through (required; the default kubeconfig is never read)")
	namespace := flag.String("namespace", "demo", "namespace of the release (must exist)")
	release := flag.String("release", "greeter", "name of the release")
	flag.Parse()
	if *kubeconfig == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: helmseed -kubeconfig PATH [-namespace demo] [-release greeter]")
		os.Exit(2)
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	revisions := helmdemo.DefaultRevisions()
	if err := helmdemo.Seed(ctx, *kubeconfig, *namespace, *release, revisions); err != nil {
		fmt.Fprintf(os.Stderr, "helmseed: %v\n", err)
		stop()
		os.Exit(1)
	}
	fmt.Printf("helm release %s/%s: %d revisions\n", *namespace, *release, len(revisions))
}
