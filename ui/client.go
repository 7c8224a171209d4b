package ui

import (
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/create"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/drain"
	"github.com/kyyard/kyyard/views/events"
	"github.com/kyyard/kyyard/views/exec"
	"github.com/kyyard/kyyard/views/filecopy"
	"github.com/kyyard/kyyard/views/forwards"
	"github.com/kyyard/kyyard/views/helm"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/logs"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/ownertree"
	"github.com/kyyard/kyyard/views/portforward"
	"github.com/kyyard/kyyard/views/rollout"
	"github.com/kyyard/kyyard/views/secret"
	"github.com/kyyard/kyyard/views/workload"
	"github.com/kyyard/kyyard/views/yamledit"
)

// Every interface the root and the screens find on the client
// (views.Context.Client, by a type assertion: a client that lacks one makes
// the feature say it is not available) is satisfied by *kube.Client, the
// client kyyard runs with. Checked here, at compile time, so that a
// signature that drifts on either side breaks the build instead of turning
// a feature off at run time. A new interface a screen asserts goes here.
var (
	// What every screen reads.
	_ views.Source = (*kube.Client)(nil)

	// What the screens find on views.Context.Client themselves.
	_ views.MetricsSource       = (*kube.Client)(nil)
	_ views.WorkloadUsageSource = (*kube.Client)(nil)
	_ views.IntervalSource      = (*kube.Client)(nil)
	_ views.Modes               = (*kube.Client)(nil)
	_ views.Permitter           = (*kube.Client)(nil)
	_ inventory.NamespaceReader = (*kube.Client)(nil)
	_ workload.Owners           = (*kube.Client)(nil)

	// What the root hands the screens it opens.
	_ logs.Streamer         = (*kube.Client)(nil)
	_ exec.Execer           = (*kube.Client)(nil)
	_ exec.Debugger         = (*kube.Client)(nil)
	_ workload.Editor       = (*kube.Client)(nil)
	_ operate.Operator      = (*kube.Client)(nil)
	_ rollout.Reader        = (*kube.Client)(nil)
	_ portforward.Forwarder = (*kube.Client)(nil)
	_ forwards.Forwards     = (*kube.Client)(nil)
	_ apps.Lister           = (*kube.Client)(nil)
	_ deploy.Deployer       = (*kube.Client)(nil)
	_ deploy.Remover        = (*kube.Client)(nil)
	_ yamledit.Editor       = (*kube.Client)(nil)
	_ secret.Reader         = (*kube.Client)(nil)
	_ drain.Drainer         = (*kube.Client)(nil)
	_ create.Creator        = (*kube.Client)(nil)
	_ filecopy.Copier       = (*kube.Client)(nil)
	_ helm.Reader           = (*kube.Client)(nil)
	_ ownertree.Reader      = (*kube.Client)(nil)
	_ events.Reader         = (*kube.Client)(nil)

	// What the root itself asks of it.
	_ Reachability   = (*kube.Client)(nil)
	_ forwardStopper = (*kube.Client)(nil)
	_ views.Closer   = (*kube.Client)(nil) // views.CloseSource stops its informers
)
