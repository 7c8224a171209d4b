package ui_test

import (
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/logs"
)

// *kube.Client is what the root hands the log viewer, the shell, the
// deploy screens, and the metrics cells, charts and form usage.
var (
	_ logs.Streamer   = (*kube.Client)(nil)
	_ exec.Execer     = (*kube.Client)(nil)
	_ exec.Debugger   = (*kube.Client)(nil)
	_ deploy.Deployer = (*kube.Client)(nil)
	_ deploy.Remover  = (*kube.Client)(nil)
	_ apps.Lister     = (*kube.Client)(nil)

	_ views.MetricsSource       = (*kube.Client)(nil)
	_ views.WorkloadUsageSource = (*kube.Client)(nil)
	_ views.IntervalSource      = (*kube.Client)(nil)
)
