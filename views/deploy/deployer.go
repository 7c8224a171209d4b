package deploy

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
)

// Deployer is what the deploy form plans, deploys and edits through;
// *kube.Client is one.
type Deployer interface {
	// PlanDeploy checks req without writing: the steps, the guards'
	// verdicts, the server's dry run and the diff against what is deployed
	// (see kube.Client.PlanDeploy).
	PlanDeploy(ctx context.Context, req render.Request) (kube.DeployPlan, error)
	// Deploy applies req step by step, calling opts.Progress with every
	// step as it changes (see kube.Client.Deploy).
	Deploy(ctx context.Context, req render.Request, opts kube.DeployOptions) (kube.DeployResult, error)
	// AppRecord reads an instance's record, the request its last
	// successful deploy applied; kube.ErrNoRecord when none (see
	// kube.Client.AppRecord).
	AppRecord(ctx context.Context, namespace, instance string) (kube.RecordedRequest, error)
}

// Remover is what the remove confirmation plans and removes through;
// *kube.Client is one.
type Remover interface {
	// PlanRemove lists what Remove would do, every step pending, claims
	// as keep (see kube.Client.PlanRemove).
	PlanRemove(ctx context.Context, namespace, instance string) (kube.DeployResult, error)
	// Remove deletes the instance's objects (claims kept), calling
	// progress with every step as it changes (see kube.Client.Remove).
	Remove(ctx context.Context, namespace, instance string, progress func(kube.DeployStep)) (kube.DeployResult, error)
}

// callTimeout bounds a plan or a record read; runTimeout bounds a whole
// deploy or remove (each rollout is bounded by kube.DeployOptions.Timeout).
const (
	callTimeout = 30 * time.Second
	runTimeout  = 15 * time.Minute
)

// recordMsg carries the instance record read for `e`.
type recordMsg struct {
	owner any
	rec   kube.RecordedRequest
	err   error
}

// planMsg carries PlanDeploy's (or PlanRemove's) answer.
type planMsg struct {
	owner  any
	token  int
	plan   kube.DeployPlan
	remove kube.DeployResult
	err    error
}

// recordCmd reads the record of namespace/instance.
func recordCmd(owner any, d Deployer, namespace, instance string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		rec, err := d.AppRecord(ctx, namespace, instance)
		return recordMsg{owner: owner, rec: rec, err: err}
	}
}

// planCmd runs PlanDeploy off the UI goroutine.
func planCmd(owner any, token int, d Deployer, req render.Request) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		p, err := d.PlanDeploy(ctx, req)
		return planMsg{owner: owner, token: token, plan: p, err: err}
	}
}

// planRemoveCmd runs PlanRemove off the UI goroutine.
func planRemoveCmd(owner any, token int, r Remover, namespace, instance string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
		defer cancel()
		res, err := r.PlanRemove(ctx, namespace, instance)
		return planMsg{owner: owner, token: token, remove: res, err: err}
	}
}
