// Package kinds holds kyyard's built-in kind plugins: each turns one kind's
// objects into kube.Rows whose cells match what `kubectl get` prints for the
// same object (the printers of k8s.io/kubernetes/pkg/printers/internalversion
// are the rule; the API server's Table answer is the oracle in tests).
//
// Package kube never imports this package: cmd builds Builtin() and hands it
// to the client.
package kinds

import "github.com/kyyard/kyyard/kube"

// Builtin returns a registry of the built-in kind plugins. DaemonSets is not
// registered yet: its names would take the prompt's ":d" completion from
// deployments, which the UI's completion order must settle first. Builtin
// panics only if two built-in plugins claim the same name, which a unit
// test rules out.
func Builtin() *kube.Registry {
	r, err := kube.NewRegistry(Pods{}, Containers{}, Deployments{}, ReplicaSets{}, StatefulSets{},
		Jobs{}, CronJobs{}, HorizontalPodAutoscalers{}, PodDisruptionBudgets{}, Nodes{}, Namespaces{})
	if err != nil {
		panic(err)
	}
	return r
}
