package kube

// Helm releases (kube/internal/helm): read from the Secrets Helm keeps
// them in, with Helm's own storage driver, and rolled back with Helm's own
// action.Rollback, after the guards every write runs.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/helm"
	"github.com/kyyard/kyyard/kube/vocab"
)

// ErrNoHelmRelease is wrapped by the errors about a Helm release or
// revision that is not there; ReasonOf gives it ReasonNotFound.
var ErrNoHelmRelease = helm.ErrNoRelease

// helmReader reads releases through the client's clientset.
func (c *Client) helmReader() *helm.Reader { return helm.NewReader(c.cs) }

// HelmReleases returns the latest revision of every Helm release in
// namespace ("" every namespace), by namespace then name, as `helm list
// --all` shows them (failed and pending ones too). One list of the
// Secrets labelled owner=helm (Helm's default storage; releases kept in
// ConfigMaps or SQL are not read). Errors: the list's (forbidden: the
// account may not list Secrets there; unavailable).
func (c *Client) HelmReleases(ctx context.Context, namespace string) ([]HelmRelease, error) {
	return c.helmReader().Releases(ctx, namespace)
}

// HelmHistory returns every revision of release name in namespace, newest
// first, as `helm history` lists them. Errors: the read's; a release that
// is not there (ErrNoHelmRelease).
func (c *Client) HelmHistory(ctx context.Context, namespace, name string) ([]HelmRelease, error) {
	return c.helmReader().History(ctx, namespace, name)
}

// HelmValues returns the values of revision (0: the latest) of release
// name as YAML, as `helm get values` prints them (all: the chart's
// defaults coalesced under them, `--all`). Values are shown as Helm
// stores them: a secret given as a value is in them. Errors: as
// HelmHistory; a revision that is not there (ErrNoHelmRelease).
func (c *Client) HelmValues(ctx context.Context, namespace, name string, revision int, all bool) (string, error) {
	return c.helmReader().Values(ctx, namespace, name, revision, all)
}

// HelmManifest returns the manifest of revision (0: the latest) of
// release name, as `helm get manifest` prints it, with each Secret's
// values shown only as their sizes. Errors: as HelmValues.
func (c *Client) HelmManifest(ctx context.Context, namespace, name string, revision int) (string, error) {
	return c.helmReader().Manifest(ctx, namespace, name, revision)
}

// HelmDiff returns the unified diff of revision from's values and
// manifest against revision to's (Secret values masked; a changed one
// says so); "" when they are the same. Errors: as HelmValues; from == to.
func (c *Client) HelmDiff(ctx context.Context, namespace, name string, from, to int) (string, error) {
	return c.helmReader().Diff(ctx, namespace, name, from, to)
}

// PlanHelmRollback plans rolling release name in namespace back to
// revision to, from revision from (the latest the person saw), writing
// nothing. The guards run in the one order: read-only; the revision's own
// rule (to is at least 1 and not from); the SelfSubjectAccessReviews of
// what Helm's storage does (list, create and update Secrets in namespace);
// the release read fresh (its latest revision still from, else a
// conflict: someone upgraded or rolled back since; to still there, else
// not_found); then the access reviews of each object the rollback writes
// (patch for an object in both revisions, create for one only in to,
// delete for one only in from; an object of a kind the API server does
// not serve is refused as unknown_kind). Another tool's markers are not
// asked: the release is Helm's and Helm writes it. Plan.Diff is from's
// values and manifest against to's (HelmDiff), Plan.Objects what is done
// to each object. A refusal comes back with the plan, so its verdicts can
// be shown. Errors: a *Refusal of a guard; the reads' (unavailable);
// errNoRESTConfig for a client made from a clientset.
func (c *Client) PlanHelmRollback(ctx context.Context, namespace, name string, from, to int) (*HelmRollbackPlan, error) {
	p := &HelmRollbackPlan{Namespace: namespace, Name: name, From: from, To: to}
	o, err := c.objectClients()
	if err != nil {
		return nil, err
	}
	r := c.helmReader()
	ref := "helm release " + namespace + "/" + name
	var changes []helm.Change
	vs, err := c.guards.Run(ctx, guards.Write{
		Rule: func() Verdict {
			switch {
			case to < 1:
				return Verdict{Guard: GuardAction, Outcome: OutcomeRefuse, Reason: ReasonInvalid, Sentence: fmt.Sprintf("revision %d: a revision is a number from 1", to)}
			case to == from:
				return Verdict{Guard: GuardAction, Outcome: OutcomeRefuse, Reason: ReasonInvalid, Sentence: fmt.Sprintf("revision %d is the current one: choose an earlier revision to roll back to", to)}
			}
			return Verdict{Guard: GuardAction, Outcome: OutcomePass, Sentence: fmt.Sprintf("roll %s back from revision %d to revision %d", ref, from, to)}
		},
		Access: []guards.AccessCheck{
			{Verb: "list", Resource: "secrets", Namespace: namespace},
			{Verb: "create", Resource: "secrets", Namespace: namespace},
			{Verb: "update", Resource: "secrets", Namespace: namespace},
		},
		Object: func(ctx context.Context) (Verdicts, error) {
			latest, status, err := r.Latest(ctx, namespace, name)
			if errors.Is(err, helm.ErrNoRelease) {
				return Verdicts{{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonNotFound, Sentence: ref + " is not there any more"}}, nil
			}
			if err != nil {
				return nil, err
			}
			if latest != from {
				return Verdicts{{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict,
					Sentence: fmt.Sprintf("%s moved on since you saw it: its latest revision is %d, not %d (someone upgraded or rolled it back): read it again", ref, latest, from)}}, nil
			}
			changes, err = r.Changes(ctx, namespace, name, from, to)
			if errors.Is(err, helm.ErrNoRelease) {
				return Verdicts{{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonNotFound, Sentence: fmt.Sprintf("%s has no revision %d any more (Helm keeps only the latest revisions)", ref, to)}}, nil
			}
			if err != nil {
				return nil, err
			}
			if p.Diff, err = r.Diff(ctx, namespace, name, from, to); err != nil {
				return nil, err
			}
			return Verdicts{{Guard: GuardFresh, Outcome: OutcomePass, Sentence: fmt.Sprintf("%s is at revision %d as you saw it (%s)", ref, from, status)}}, nil
		},
		Risks: func(ctx context.Context) (Verdicts, error) {
			var vs Verdicts
			for _, ch := range changes {
				verb := map[string]string{"update": "patch", "create": "create", "delete": "delete"}[ch.Do]
				gv, err := schema.ParseGroupVersion(ch.APIVersion)
				if err != nil {
					vs = append(vs, Verdict{Guard: GuardAction, Outcome: OutcomeRefuse, Reason: ReasonInvalid, Sentence: fmt.Sprintf("%s %s: apiVersion %q does not parse", ch.Kind, ch.Name, ch.APIVersion)})
					continue
				}
				m, err := o.mapper.RESTMapping(schema.GroupKind{Group: gv.Group, Kind: ch.Kind}, gv.Version)
				if err != nil {
					vs = append(vs, Verdict{Guard: GuardAction, Outcome: OutcomeRefuse, Reason: ReasonUnknownKind,
						Sentence: fmt.Sprintf("the API server serves no kind %s in %s (%s %s)", ch.Kind, ch.APIVersion, ch.Do, ch.Name)})
					continue
				}
				ns := ""
				if m.Scope.Name() == meta.RESTScopeNameNamespace {
					if ns = ch.Namespace; ns == "" {
						ns = namespace
					}
				}
				where := ch.Name
				if ns != "" {
					where = ns + "/" + ch.Name
				}
				p.Objects = append(p.Objects, fmt.Sprintf("%s %s %s", ch.Do, strings.ToLower(ch.Kind), where))
				vs = append(vs, c.guards.Access(ctx, guards.AccessCheck{Verb: verb, Group: m.Resource.Group, Resource: m.Resource.Resource, Namespace: ns}))
			}
			return vs, nil
		},
	})
	p.Verdicts = vs
	if err != nil {
		return nil, err
	}
	if r := vs.Refusal(); r != nil {
		return p, r
	}
	return p, nil
}

// HelmRollback runs p once every warning of its verdicts is among
// confirmed: the release read again (its latest revision must still be
// p.From: a conflict otherwise, nothing written), then Helm's own
// action.Rollback to p.To with `helm rollback`'s defaults (hooks run and
// waited for, five minutes at most; ten revisions kept; field manager
// "helm", as the helm CLI writes, so fields another manager took since
// are a field_conflict, as `helm rollback` meets them). The outcome
// (ActionHelmRollback on <namespace>/helmreleases/<name>) says what was
// done ("rolled back to revision 1 as revision 3") or why not, with
// Helm's words; Written is true once Helm recorded a new revision (a
// rollback that failed midway leaves it recorded as failed, as `helm
// rollback` does).
func (c *Client) HelmRollback(ctx context.Context, p *HelmRollbackPlan, confirmed []Reason) OperateOutcome {
	out := OperateOutcome{Op: Operation{Ref: ObjectRef{Kind: KindHelmReleases, Namespace: p.Namespace, Name: p.Name}, Action: ActionHelmRollback}, Verdicts: p.Verdicts}
	ref := "helm release " + p.Namespace + "/" + p.Name
	refuse := func(reason Reason, err error) OperateOutcome {
		if out.Reason = reason; out.Reason == "" && errors.Is(err, helm.ErrNoRelease) {
			out.Reason = ReasonNotFound
		}
		if out.Reason == "" {
			if out.Reason = ReasonOf(err); out.Reason == "" {
				out.Reason = vocab.ReasonError
			}
		}
		// Helm's errors span lines (a server-side apply's conflicts, one a
		// line): one line for the status line and :history.
		out.Detail = fmt.Sprintf("rollback of %s to revision %d: %s", ref, p.To, strings.Join(strings.Fields(err.Error()), " "))
		return out
	}
	if r := p.Verdicts.Unconfirmed(confirmed); r != nil {
		return refuse("", r)
	}
	r := c.helmReader()
	latest, _, err := r.Latest(ctx, p.Namespace, p.Name)
	if err != nil {
		return refuse("", err)
	}
	if latest != p.From {
		return refuse(ReasonConflict, fmt.Errorf("its latest revision is %d now, not %d as planned: nothing was written; read it again", latest, p.From))
	}
	err = helm.Rollback(ctx, c.restConfig, p.Namespace, p.Name, p.To)
	if now, _, lerr := r.Latest(context.WithoutCancel(ctx), p.Namespace, p.Name); lerr == nil && now > p.From {
		out.Written = true
	}
	if err != nil {
		return refuse("", err)
	}
	out.Detail = fmt.Sprintf("rolled %s back to revision %d, as revision %d", ref, p.To, p.From+1)
	return out
}
