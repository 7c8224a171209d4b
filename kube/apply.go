package kube

import (
	"context"
	"fmt"
	"io"

	"github.com/kyyard/kyyard/kube/internal/apply"
	"github.com/kyyard/kyyard/kube/vocab"
)

// FieldConflict is one field another field manager owns that a
// server-side apply sets to another value (the API server's 409 cause).
type FieldConflict struct {
	// Field is the field's path (".spec.replicas").
	Field string
	// Manager is the manager that owns it ("kubectl-client-side-apply").
	Manager string
	// Detail is the server's sentence (`conflict with "kubectl" using apps/v1`).
	Detail string
}

// ApplyStep is one object of an ApplyPlan: where it came from, where it
// goes, its guards' verdicts, its conflicts and the diff of its dry run.
type ApplyStep struct {
	// Ref names the object: Kind is the plugin id serving its resource
	// (the resource's plural when none does), UID and ResourceVersion the
	// live object's ("" when it is new).
	Ref ObjectRef
	// Source says which document it is ("web.yaml, document 2").
	Source string
	// Exists says the object is there already: the apply changes it, and
	// is sent with Ref.ResourceVersion as its precondition.
	Exists bool
	// Verdicts are the guards' answers (read-only, the access reviews of
	// patch and, for a new object, create; the object read fresh; managed
	// by another tool).
	Verdicts Verdicts
	// Conflicts are the fields other managers own that the apply would
	// change: it is sent only with force while there are any.
	Conflicts []FieldConflict
	// Diff is the unified diff of the live object against the dry run's
	// result (status and bookkeeping left out, a Secret's values masked);
	// "" when nothing would change or the step cannot be applied.
	Diff string
	// Err is why the step cannot be applied (a *Refusal from a guard, the
	// dry run's answer: invalid, denied by admission); nil when it can.
	Err error
}

// ApplyPlan is a server-side apply planned: one step per object, in the
// documents' order. Nothing has been written; ApplyManifests sends it.
type ApplyPlan struct {
	// Steps are the objects' steps.
	Steps []ApplyStep
	// Namespace is the namespace documents without one go to.
	Namespace string
	steps     []apply.Step
}

// Conflicted reports whether any step has field conflicts.
func (p *ApplyPlan) Conflicted() bool {
	for _, s := range p.Steps {
		if len(s.Conflicts) > 0 {
			return true
		}
	}
	return false
}

// PlanApply parses data (YAML documents separated by `---`, or JSON;
// source names it in messages: a file's path, "the edited text") and
// plans a server-side apply of every object in it: see PlanApplyDocs.
// Errors: a document that is not an object to apply (malformed, no
// apiVersion, kind or metadata.name: the *whole* text is refused, nothing
// planned), and PlanApplyDocs's.
func (c *Client) PlanApply(ctx context.Context, source string, data []byte) (*ApplyPlan, error) {
	docs, err := apply.Parse(source, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return c.planApply(ctx, docs)
}

// PlanApplyFiles reads the files and folders of paths as `kubectl apply
// -f` does (a folder's .yaml, .yml and .json files, its sub-folders too
// when recursive; "-" reads stdin) and plans their server-side apply.
// Errors: a path that cannot be read, a malformed document (nothing is
// planned), PlanApplyDocs's.
func (c *Client) PlanApplyFiles(ctx context.Context, paths []string, recursive bool, stdin io.Reader) (*ApplyPlan, error) {
	docs, err := apply.ReadPaths(paths, recursive, stdin)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalid, err)
	}
	return c.planApply(ctx, docs)
}

// planApply plans docs: each object's resource resolved through
// discovery, its guards run, then a server dry run of its apply (forced
// when it meets conflicts, to show what force would do) diffed against
// the live object. A document's failure is its step's Err and never stops
// the others. Nothing is written. Errors: no REST config (a client made
// from a clientset), ctx's.
func (c *Client) planApply(ctx context.Context, docs []apply.Doc) (*ApplyPlan, error) {
	a, err := c.applier()
	if err != nil {
		return nil, err
	}
	steps, err := a.Plan(ctx, docs)
	if err != nil {
		return nil, err
	}
	p := &ApplyPlan{Namespace: c.namespace, steps: steps, Steps: make([]ApplyStep, len(steps))}
	for i, s := range steps {
		p.Steps[i] = c.applyStep(s)
	}
	return p, nil
}

// ApplyManifests sends each step of p that can be sent, in order, as a
// server-side apply (field manager kyyard, the planned resourceVersion as
// precondition); with force, the steps with conflicts take the fields over
// (`kubectl apply --server-side --force-conflicts`), without it they are
// refused (ReasonFieldConflict). It returns one outcome per step
// (ActionServerSideApply): written, or the reason it was not. An object
// changed since the plan is refused as a conflict, never overwritten.
func (c *Client) ApplyManifests(ctx context.Context, p *ApplyPlan, force bool) []OperateOutcome {
	out := make([]OperateOutcome, len(p.steps))
	a, aerr := c.applier()
	for i, s := range p.steps {
		ref := p.Steps[i].Ref
		o := OperateOutcome{Op: Operation{Ref: ref, Action: ActionServerSideApply}, Verdicts: s.Verdicts}
		err := aerr
		if err == nil {
			got, serr := a.Send(ctx, s, force)
			if err = serr; err == nil {
				o.Written, o.ResourceVersion = true, got.GetResourceVersion()
				verb := "created"
				if s.Exists {
					verb = "changed"
				}
				if force && len(s.Conflicts) > 0 {
					verb += fmt.Sprintf(", taking over %d field(s) from %s,", len(s.Conflicts), managers(p.Steps[i].Conflicts))
				}
				o.Detail = fmt.Sprintf("%s %s by server-side apply (field manager %s)", verb, ref, FieldManager)
			}
		}
		if err != nil {
			if o.Reason = ReasonOf(err); o.Reason == "" {
				o.Reason = vocab.ReasonError
			}
			o.Detail = ref.String() + ": " + err.Error()
			if o.Reason == vocab.ReasonConflict {
				o.Detail = ref.String() + " changed since the preview read it: nothing written; preview again"
			}
		}
		out[i] = o
	}
	return out
}

// managers lists the conflicts' managers once each: `"kubectl", "helm"`.
func managers(cs []FieldConflict) string {
	seen := map[string]bool{}
	out := ""
	for _, c := range cs {
		if !seen[c.Manager] {
			seen[c.Manager] = true
			if out != "" {
				out += ", "
			}
			out += fmt.Sprintf("%q", c.Manager)
		}
	}
	return out
}

// applier is the Client's server-side applier. Errors: no REST config.
func (c *Client) applier() (*apply.Applier, error) {
	o, err := c.objectClients()
	if err != nil {
		return nil, err
	}
	return &apply.Applier{Dyn: o.dyn, Mapper: o.mapper, Guards: c.guards, Namespace: c.namespace}, nil
}

// applyStep is s as screens see it.
func (c *Client) applyStep(s apply.Step) ApplyStep {
	kind := Kind(s.Resource.Resource)
	for _, k := range c.Kinds() {
		if k.Group == s.Resource.Group && k.Resource == s.Resource.Resource {
			kind = k.ID
			break
		}
	}
	if kind == "" {
		kind = Kind(s.Doc.Object.GetKind())
	}
	out := ApplyStep{
		Ref:    ObjectRef{Kind: kind, Namespace: s.Namespace, Name: s.Name, UID: s.UID, ResourceVersion: s.ResourceVersion},
		Source: s.Doc.Where(), Exists: s.Exists, Verdicts: s.Verdicts, Diff: s.Diff, Err: s.Err,
	}
	for _, cf := range s.Conflicts {
		out.Conflicts = append(out.Conflicts, FieldConflict{Field: cf.Field, Manager: cf.Manager, Detail: cf.Detail})
	}
	return out
}
