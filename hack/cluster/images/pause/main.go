// Command pause is the real node's sandbox ("pause") image: the process that
// holds a pod's namespaces. It waits for SIGINT or SIGTERM and exits 0, and
// reaps orphaned children meanwhile, as Kubernetes' own pause does (it is
// PID 1 of the pod when the pod shares its process namespace).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGCHLD)
	for s := range sigs {
		if s != syscall.SIGCHLD {
			os.Exit(0)
		}
		for {
			pid, err := syscall.Wait4(-1, nil, syscall.WNOHANG, nil)
			if pid <= 0 || err != nil {
				break
			}
		}
	}
}
