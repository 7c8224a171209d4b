// Command kyyard is a terminal dashboard for Kubernetes. It takes kubectl's
// connection flags (--kubeconfig, --context, -n/--namespace, --as, --token,
// ...) and shows the cluster's inventory, refreshed by periodic snapshots.
package main

import (
	"fmt"
	"os"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
)

func main() {
	if err := app.NewCommand(os.Stdout, os.Stderr).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "kyyard:", err)
		os.Exit(1)
	}
}
