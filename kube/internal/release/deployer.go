package release

import (
	"context"

	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/rollouts"
)

// Deployer deploys, removes and lists kyyard's apps (PlanDeploy, Deploy,
// PlanRemove, Remove, Apps, AppRecord) with what it is given as plain
// inputs; package kube's Client builds one from its own and delegates to
// it. The zero value is not usable: CS, Guards and Rollouts are required.
type Deployer struct {
	// CS is the typed clientset every read and write goes through (the
	// five deploy kinds, StorageClasses, PersistentVolumes, Pods, Events).
	CS kubernetes.Interface
	// Guards runs the guard pipeline of a deploy and a remove (read-only,
	// access reviews, Pod Security, the warnings' policy).
	Guards *guards.Checker
	// Rollouts reads a Deployment's rollout status while a deploy follows
	// it (rollouts.Reader.Status, polled every deployPoll).
	Rollouts rollouts.Reader
	// Stuck, when set, maps the UIDs of the Deployments in a namespace
	// ("" for all) whose Pods cannot start to the first such Pod's reason
	// (the Client's caches: no request); Apps asks it only when some
	// Deployment is progressing or a warning. nil answers none.
	Stuck func(ctx context.Context, namespace string) map[string]string
}
