package helm

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"helm.sh/helm/v4/pkg/action"
	helmkube "helm.sh/helm/v4/pkg/kube"
	"k8s.io/client-go/rest"
)

// Rollback's settings are `helm rollback`'s defaults (helm.sh/helm/v4
// pkg/cmd/rollback.go): wait only for hooks, every operation bounded by
// five minutes, at most ten revisions kept, server-side apply when the
// revision rolled back to was applied so.
const (
	// RollbackTimeout bounds each of the rollback's waits (--timeout 5m0s).
	RollbackTimeout = 300 * time.Second
	// MaxHistory is how many revisions Helm keeps after the rollback
	// (--history-max 10): the oldest beyond it are deleted, as `helm
	// rollback` deletes them.
	MaxHistory = 10
)

// Helm's writes are made under the field manager the helm CLI uses
// ("helm", helm.sh/helm/v4 cmd/helm/helm.go): a rollback is Helm's own
// operation, so a release installed or upgraded with helm (server-side
// apply by default since Helm 4) is rolled back without its fields
// conflicting with themselves, as `helm rollback` rolls it back. Without
// it Helm names the manager after the program (kyyard). Set once, when
// the package is loaded: Helm reads it as a package variable.
func init() { helmkube.ManagedFieldsManager = FieldManager }

// FieldManager is the field manager of Helm's writes (see init).
const FieldManager = "helm"

// Change is what a rollback does to one object of the release's
// manifests: "update" (in both the current revision and the one rolled
// back to), "create" (only in the one rolled back to) or "delete" (only
// in the current one), with its apiVersion, kind, namespace ("" when the
// manifest leaves it to the release's) and name.
type Change struct {
	APIVersion, Kind, Namespace, Name string
	Do                                string
}

// Changes are what rolling release name back from revision from to
// revision to does to its objects, as Helm's kube client Update decides
// it (the objects of to's manifest updated or created, those of from's
// alone deleted), in to's order, then from's. Errors: as History; either
// revision missing (ErrNoRelease).
func (r *Reader) Changes(ctx context.Context, namespace, name string, from, to int) ([]Change, error) {
	cur, err := r.revision(ctx, namespace, name, from)
	if err != nil {
		return nil, err
	}
	target, err := r.revision(ctx, namespace, name, to)
	if err != nil {
		return nil, err
	}
	before := map[object]bool{}
	for _, o := range objects(cur.Manifest) {
		before[o] = true
	}
	var out []Change
	after := map[object]bool{}
	for _, o := range objects(target.Manifest) {
		after[o] = true
		do := "create"
		if before[o] {
			do = "update"
		}
		out = append(out, Change{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Do: do})
	}
	for _, o := range objects(cur.Manifest) {
		if !after[o] {
			out = append(out, Change{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, Do: "delete"})
		}
	}
	return out, nil
}

// Latest returns the latest revision of release name: its number and
// Helm's status word. Errors: as History.
func (r *Reader) Latest(ctx context.Context, namespace, name string) (int, string, error) {
	revs, err := r.revisions(ctx, namespace, name)
	if err != nil {
		return 0, "", err
	}
	status := ""
	if revs[0].Info != nil {
		status = string(revs[0].Info.Status)
	}
	return revs[0].Version, status, nil
}

// Rollback rolls release name in namespace back to revision to with
// Helm's own action.Rollback, as `helm rollback NAME TO` does with its
// defaults (RollbackTimeout, MaxHistory, hooks run, wait for hooks only,
// server-side apply as the revision was applied, as field manager
// FieldManager): a new revision is
// recorded with to's chart, values and manifest, and the objects are
// updated, created and deleted to match it. It connects through cfg (the
// same user as every other request). Helm's Run takes no context: ctx is
// checked before it starts; once started the rollback runs to its end,
// bounded by RollbackTimeout. Errors: Helm's (the release or revision
// missing, a request refused: forbidden, invalid), as Helm words them.
func Rollback(ctx context.Context, cfg *rest.Config, namespace, name string, to int) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	g, err := newGetter(cfg, namespace)
	if err != nil {
		return err
	}
	ac := action.NewConfiguration(action.ConfigurationSetLogger(slog.DiscardHandler))
	if err := ac.Init(g, namespace, "secret"); err != nil {
		return fmt.Errorf("helm: %w", err)
	}
	rb := action.NewRollback(ac)
	rb.Version, rb.Timeout, rb.MaxHistory = to, RollbackTimeout, MaxHistory
	rb.WaitStrategy = helmkube.HookOnlyStrategy
	return rb.Run(name)
}
