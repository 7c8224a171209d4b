// Command kyyard is a terminal dashboard for Kubernetes. It takes kubectl's
// connection flags (--kubeconfig, --context, -n/--namespace, --as, --token,
// ...) and shows the cluster's inventory, refreshed by periodic snapshots.
//
// For the scale runs, KYYARD_CPUPROFILE=FILE writes a CPU profile of the
// whole run to FILE (runtime/pprof; read it with go tool pprof).
package main

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/kyyard/kyyard/cmd/kyyard/app"
)

func main() {
	stop := profile(os.Getenv("KYYARD_CPUPROFILE"))
	err := app.NewCommand(os.Stdout, os.Stderr).Execute()
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "kyyard:", err)
		os.Exit(1)
	}
}

// profile starts a CPU profile written to path when path is not empty
// and returns what stops it; a profile that cannot start is said on
// stderr and the run goes on without it.
func profile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "kyyard: no CPU profile:", err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		_ = f.Close()
	}
}
