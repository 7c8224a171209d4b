// Package kinds holds kyyard's built-in kind plugins: each turns one kind's
// objects into vocab.Rows whose cells match what `kubectl get` prints for the
// same object (the printers of k8s.io/kubernetes/pkg/printers/internalversion
// are the rule; the API server's Table answer is the oracle in tests).
//
// Package kube never imports this package: cmd builds Builtin() and hands it
// to the client.
package kinds

import "github.com/kyyard/kyyard/kube/vocab"

// Builtin returns a registry of every built-in kind plugin. It panics only if
// two built-in plugins claim the same name, which a unit test rules out.
func Builtin() *vocab.Registry {
	r, err := vocab.NewRegistry(
		Pods{}, Containers{}, Deployments{}, Nodes{}, Namespaces{},
		// Workloads.
		ReplicaSets{}, StatefulSets{}, DaemonSets{}, Jobs{}, CronJobs{},
		HorizontalPodAutoscalers{}, PodDisruptionBudgets{},
		// Networking, configuration, storage, events and RBAC.
		Services{}, EndpointSlices{}, Ingresses{}, NetworkPolicies{},
		ConfigMaps{}, Secrets{}, ServiceAccounts{},
		PersistentVolumeClaims{}, PersistentVolumes{}, StorageClasses{},
		Events{},
		Roles{}, RoleBindings{}, ClusterRoles{}, ClusterRoleBindings{},
	)
	if err != nil {
		panic(err)
	}
	return r
}
