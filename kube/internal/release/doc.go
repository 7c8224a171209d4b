// Package release is kyyard's deploy form behind the adapter: an app
// described by a render.Request planned (PlanDeploy: every guard's verdict,
// the server's dry run, the diff from what is deployed), applied service by
// service (Deploy: the instance record claimed, each object created or
// updated, its Deployment's rollout followed until available — what holds
// it named — or the previous objects restored, the objects no longer
// planned pruned, the record written), removed (PlanRemove, Remove: by the
// instance's labels, claims kept, the record last) and listed (Apps,
// AppRecord: the kyyard-managed instances and an instance's recorded
// request). A Deployer takes what it needs as plain inputs (a clientset,
// the guard pipeline, the rollout reader, the caches' stuck Pods); package
// kube's Client builds one and delegates to it, re-exporting the types.
// It imports the vocabulary (kube/vocab), kube/internal/guards,
// kube/internal/objects, kube/internal/rollouts, render and client-go,
// never package kube.
package release
