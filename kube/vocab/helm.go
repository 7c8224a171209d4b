package vocab

import "time"

// KindHelmReleases names a Helm release in the ObjectRef of a history
// entry: <namespace>/helmreleases/<release>. It is not a Kubernetes kind
// and no plugin serves it: a release is the Secrets Helm keeps, one per
// revision (type helm.sh/release.v1, labels owner=helm, name=<release>).
const KindHelmReleases Kind = "helmreleases"

// ActionHelmRollback rolls a Helm release back to an earlier revision
// with Helm's own Go SDK (helm.sh/helm/v4/pkg/action Rollback), as `helm
// rollback RELEASE REVISION` does: a new revision is recorded with the
// earlier revision's chart, values and manifest, and the objects are
// updated to match it. Recorded on KindHelmReleases.
const ActionHelmRollback Action = "helm rollback"

// HelmRelease is one revision of a Helm release, as `helm list` and
// `helm history` show it.
type HelmRelease struct {
	// Namespace and Name name the release; Revision is this revision's
	// number (1 for the install, one more for each upgrade and rollback).
	Namespace, Name string
	Revision        int
	// Updated is when this revision was deployed (Helm's
	// info.last_deployed); zero when Helm recorded none.
	Updated time.Time
	// Status is Helm's status word: deployed, superseded, failed,
	// uninstalling, uninstalled, pending-install, pending-upgrade,
	// pending-rollback, unknown.
	Status string
	// Chart is "<name>-<version>" of the chart ("" when the record has
	// none); AppVersion the chart's appVersion.
	Chart, AppVersion string
	// Description is Helm's description of the revision ("Install
	// complete", "Upgrade complete", "Rollback to 1").
	Description string
}

// Health is how the release's status reads: deployed ok, superseded ok
// (history), pending-* progressing, failed failed, anything else warning.
func (r HelmRelease) Health() Health {
	switch r.Status {
	case "deployed", "superseded", "uninstalled":
		return HealthOK
	case "pending-install", "pending-upgrade", "pending-rollback", "uninstalling":
		return HealthProgressing
	case "failed":
		return HealthFailed
	}
	return HealthWarning
}

// HelmRollbackPlan is what a rollback of one release would do, read
// before anything is written (Client.PlanHelmRollback): the guards'
// verdicts and the manifest and values that would change.
type HelmRollbackPlan struct {
	// Namespace and Name name the release; From is the revision the person
	// saw as the latest (the rollback is refused as a conflict when the
	// release has moved on since); To is the revision rolled back to.
	Namespace, Name string
	From, To        int
	// Diff is the unified diff of From's values and manifest against To's
	// (HelmDiff's text; Secret data masked); "" when they are the same.
	Diff string
	// Objects are the objects the rollback writes, "<kind> <namespace>/<name>"
	// with what Helm does to each ("update", "create", "delete").
	Objects []string
	// Verdicts are the guards' answers in the order they ran: read-only,
	// the revisions' own rules, the access reviews (the release Secrets and
	// each object's verb), the release read fresh.
	Verdicts Verdicts
}
