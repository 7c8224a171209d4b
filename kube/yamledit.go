package kube

// Editing one object of any kind as YAML, as `kubectl edit` does it but
// safer (kube/internal/objedit): the object read fresh with managedFields
// and status left out (a Secret's values decoded), the edited text turned
// into a patch of only what changed, sent with the resourceVersion read
// as its precondition after a server dry run and its diff; a conflict
// comes back as the person's changes re-applied to the fresh object.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/kyyard/kyyard/kube/internal/objedit"
	"github.com/kyyard/kyyard/kube/vocab"
)

// ErrEditEmpty is PlanYAMLEdit's answer to an edited text with nothing but
// comments: the edit is cancelled (kubectl edit cancels on an empty file).
var ErrEditEmpty = objedit.ErrEmpty

// ErrNoChange is PlanYAMLEdit's answer to an edited text whose object is
// the one read: nothing is sent ("Edit cancelled, no changes made.", as
// kubectl edit says).
var ErrNoChange = objedit.ErrNoChange

// EditCollision is one field a person changed in a YAML edit that another
// writer changed to something else meanwhile: the reopened text keeps
// the other writer's value there.
type EditCollision struct {
	// Field is the field's path (".data.color"; a list is one field).
	Field string
	// Mine and Theirs are the person's and the other writer's values as
	// short JSON ("(removed)", "(hidden)" for a Secret's values).
	Mine, Theirs string
}

// YAMLEdit is one object read for editing as YAML (OpenYAMLEdit), or read
// again after a conflict (EditConflict.Fresh).
type YAMLEdit struct {
	// Ref names the object: Kind as asked (a plugin id, or the resource's
	// name), its UID and the resourceVersion read.
	Ref ObjectRef
	// Text is the YAML to edit: the object without managedFields and
	// status (keys sorted); a Secret's text values decoded under
	// stringData, the others base64 under data. After a conflict: the
	// person's changes re-applied to the object read again.
	Text string
	// Secret says the object is a core/v1 Secret: Text holds its values.
	Secret bool
	// Patch names the patch the edit is sent as: "strategic merge patch"
	// (kinds built into the API server) or "merge patch" (custom resources
	// and aggregated APIs), kubectl edit's choice.
	Patch string
	// Collisions are, after a conflict, the person's changes that could
	// not be re-applied (nil otherwise).
	Collisions []EditCollision
	edit       *objedit.Edit
}

// EditConflict is the error of a YAML edit whose object another writer
// changed since it was read. ReasonOf gives ReasonConflict.
type EditConflict struct {
	// Fresh is the object read again, its Text the person's changes
	// re-applied and its Collisions the ones that could not be.
	Fresh *YAMLEdit
	// Was is the resourceVersion the edit had read.
	Was string
}

// Error says what changed and what was re-applied: "demo/configmaps/web
// changed since it was read (resourceVersion 7 is now 9): your changes
// were re-applied to it; 1 collides with the other writer's (.data.size)".
func (e *EditConflict) Error() string {
	s := fmt.Sprintf("%s changed since it was read (resourceVersion %s is now %s): your changes were re-applied to it",
		e.Fresh.Ref, e.Was, e.Fresh.Ref.ResourceVersion)
	if n := len(e.Fresh.Collisions); n > 0 {
		fields := make([]string, n)
		for i, c := range e.Fresh.Collisions {
			fields[i] = c.Field
		}
		s += fmt.Sprintf("; %d collide with the other writer's and were not (%s)", n, strings.Join(fields, ", "))
	}
	return s
}

// Unwrap is the conflict's refusal.
func (e *EditConflict) Unwrap() error {
	return &Refusal{Reason: ReasonConflict, Detail: e.Fresh.Ref.String() + " changed since it was read"}
}

// YAMLEditPlan is a YAML edit planned (PlanYAMLEdit): nothing is written
// until ApplyYAMLEdit.
type YAMLEditPlan struct {
	// Edit is the edit planned.
	Edit *YAMLEdit
	// Text is the edited text.
	Text string
	// Verdicts are the guards' answers (read-only, the access review of
	// patch, the object read fresh, managed by another tool).
	Verdicts Verdicts
	// Diff is the unified diff ("--- live", "+++ applied") of the live
	// object against the server dry run's result, status and bookkeeping
	// left out, a Secret's values shown only as sizes ("(12 bytes,
	// changed)"); "" when the server's result is the live object.
	Diff string
	// PatchBody is the patch sent, JSON; a Secret's is "" (it carries
	// values).
	PatchBody string
	plan      *objedit.Plan
}

// OpenYAMLEdit reads one object of kind (a plugin id or alias, or any
// resource the API server serves, CRDs included) named name in namespace
// (ignored for cluster-scoped kinds) fresh for a YAML edit, once the
// guards that come before any editing pass: read-only, and the
// SelfSubjectAccessReview of patch. Errors: no REST config; an empty name
// (invalid); a *Refusal (read_only, forbidden); the API server's
// (not_found, forbidden, unavailable).
func (c *Client) OpenYAMLEdit(ctx context.Context, kind Kind, namespace, name string) (*YAMLEdit, error) {
	o, err := c.objectClients()
	if err != nil {
		return nil, err
	}
	t, err := c.resolve(o, kind, namespace, name)
	if err != nil {
		return nil, err
	}
	ed := &objedit.Editor{Dyn: o.dyn, Guards: c.guards}
	e, err := ed.Open(ctx, objedit.Target{Resource: t.mapping.Resource, Namespaced: t.namespaced(), Namespace: t.namespace, Name: t.name})
	if err != nil {
		return nil, err
	}
	return yamlEditOf(kind, e), nil
}

// yamlEditOf is e as screens see it.
func yamlEditOf(kind Kind, e *objedit.Edit) *YAMLEdit {
	out := &YAMLEdit{
		Ref:  ObjectRef{Kind: kind, Namespace: e.Target.Namespace, Name: e.Target.Name, UID: e.UID, ResourceVersion: e.ResourceVersion},
		Text: e.Text, Secret: objedit.IsSecret(e.Object), Patch: e.Kind.Name(), edit: e,
	}
	for _, c := range e.Collisions {
		out.Collisions = append(out.Collisions, EditCollision{Field: c.Field, Mine: c.Mine, Theirs: c.Theirs})
	}
	return out
}

// PlanYAMLEdit plans the edit of e's object to text (the edited YAML):
// text parsed (one object; comments ignored), checked to still name the
// object (apiVersion, kind, name, namespace), the patch of only what
// changed made, the guards run, and the patch sent as a server dry run
// whose result is diffed against the live object. Nothing is written.
//
// Errors: ErrEditEmpty and ErrNoChange (nothing to send); an error of the
// text (ReasonInvalid: malformed YAML with its line, another object
// named); a *Refusal of a guard, returned with the plan so its verdicts
// can be shown; an *EditConflict when the object changed since e read it;
// the dry run's (invalid or denied by admission, with the server's text;
// forbidden; not_found when it was deleted); the reads'.
func (c *Client) PlanYAMLEdit(ctx context.Context, e *YAMLEdit, text string) (*YAMLEditPlan, error) {
	o, err := c.objectClients()
	if err != nil {
		return nil, err
	}
	ed := &objedit.Editor{Dyn: o.dyn, Guards: c.guards}
	p, err := ed.Plan(ctx, e.edit, text)
	if err != nil {
		var conflict *objedit.Conflict
		if errors.As(err, &conflict) {
			return nil, &EditConflict{Fresh: yamlEditOf(e.Ref.Kind, conflict.Fresh), Was: conflict.Was}
		}
		if p != nil {
			return &YAMLEditPlan{Edit: e, Text: text, Verdicts: p.Verdicts}, err
		}
		return nil, err
	}
	out := &YAMLEditPlan{Edit: e, Text: text, Verdicts: p.Verdicts, Diff: p.Diff, plan: p}
	if !e.Secret {
		out.PatchBody = string(p.Patch)
	}
	return out, nil
}

// ApplyYAMLEdit sends p's patch (field manager kyyard, the resourceVersion
// read as its precondition) once every warning of p.Verdicts is among
// confirmed, and returns its outcome (ActionEditYAML): written at the new
// resourceVersion, or the reason it was not (a warning not confirmed, the
// API server's answer). Errors (with the refused outcome): an
// *EditConflict when the object changed since it was read (nothing is
// written: the person's changes re-applied to the fresh object wait in
// its Fresh); the API server's (invalid, forbidden, not_found).
func (c *Client) ApplyYAMLEdit(ctx context.Context, p *YAMLEditPlan, confirmed []Reason) (OperateOutcome, error) {
	ref := p.Edit.Ref
	out := OperateOutcome{Op: Operation{Ref: ref, Action: ActionEditYAML}, Verdicts: p.Verdicts}
	refuse := func(err error) (OperateOutcome, error) {
		if out.Reason = ReasonOf(err); out.Reason == "" {
			out.Reason = vocab.ReasonError
		}
		out.Detail = err.Error() + " (nothing written)"
		if !strings.Contains(out.Detail, ref.String()) {
			out.Detail = ref.String() + ": " + out.Detail
		}
		return out, err
	}
	if p.plan == nil {
		return refuse(fmt.Errorf("%w: the edit was not planned", ErrInvalid))
	}
	if r := p.Verdicts.Unconfirmed(confirmed); r != nil {
		return refuse(r)
	}
	o, err := c.objectClients()
	if err != nil {
		return refuse(err)
	}
	ed := &objedit.Editor{Dyn: o.dyn, Guards: c.guards}
	got, err := ed.Send(ctx, p.plan)
	if err != nil {
		var conflict *objedit.Conflict
		if errors.As(err, &conflict) {
			err = &EditConflict{Fresh: yamlEditOf(ref.Kind, conflict.Fresh), Was: conflict.Was}
		}
		return refuse(err)
	}
	out.Written, out.ResourceVersion = true, got.GetResourceVersion()
	out.Detail = fmt.Sprintf("changed %s by a %s (resourceVersion %s -> %s)", ref, p.Edit.Patch, ref.ResourceVersion, out.ResourceVersion)
	return out, nil
}
