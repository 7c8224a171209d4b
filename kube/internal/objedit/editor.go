package objedit

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/kube/internal/apply"
	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// Editor reads, plans and sends YAML edits of objects of any kind.
type Editor struct {
	// Dyn reads the objects and sends the patches.
	Dyn dynamic.Interface
	// Guards runs each edit's guards: read-only, the access review of
	// patch, the object read fresh, managed by another tool.
	Guards *guards.Checker
}

// Target is the object an edit is about.
type Target struct {
	// Resource is its resource, at the version it is read and written in.
	Resource schema.GroupVersionResource
	// Namespaced says whether it lives in a namespace.
	Namespaced bool
	// Namespace (for a namespaced kind) and Name name it.
	Namespace, Name string
}

// String names t for people: "demo/configmaps/web", "nodes/n1".
func (t Target) String() string {
	if t.Namespaced {
		return t.Namespace + "/" + t.Resource.Resource + "/" + t.Name
	}
	return t.Resource.Resource + "/" + t.Name
}

// Edit is one object read for editing: the object as read, the text a
// person edits, the patch kind its change goes as.
type Edit struct {
	// Target is the object.
	Target Target
	// Object is the object as the API server returned it.
	Object map[string]any
	// Shown is Object as the text shows it (Shown).
	Shown map[string]any
	// Text is the text to edit: Shown as YAML, or, after a conflict, the
	// person's changes re-applied to the fresh object.
	Text string
	// UID and ResourceVersion are the object's as read: the patch is sent
	// with this resourceVersion as its precondition.
	UID, ResourceVersion string
	// Kind is the patch kind (PatchKindOf the object's kind).
	Kind PatchKind
	// Collisions are, after a conflict, the person's changes the rebase
	// could not re-apply (the other writer's values kept); nil otherwise.
	Collisions []Collision
}

// ErrNoChange is Plan's answer to a text whose object is the one read
// (comments, key order and spacing aside): nothing to send (kubectl
// edit: "Edit cancelled, no changes made.").
var ErrNoChange = errors.New("no changes made")

// Conflict is the error of an edit whose object another writer changed
// since it was read: Fresh is the object read again, its Text the
// person's changes re-applied (Rebase), its Collisions the ones that
// could not be. It unwraps to a vocab.Refusal of vocab.ReasonConflict.
type Conflict struct {
	// Fresh is the object read again, with the rebased text.
	Fresh *Edit
	// Was is the resourceVersion the edit was read at.
	Was string
}

// Error says what changed and what the rebase did.
func (c *Conflict) Error() string {
	s := fmt.Sprintf("%s changed since it was read (resourceVersion %s is now %s): your changes were re-applied to it",
		c.Fresh.Target, c.Was, c.Fresh.ResourceVersion)
	if n := len(c.Fresh.Collisions); n > 0 {
		s += fmt.Sprintf("; %d of them collide with the other writer's and were not (%s)", n, c.Fresh.Collisions[0].Field)
	}
	return s
}

// Unwrap is the refusal ReasonOf reads: conflict.
func (c *Conflict) Unwrap() error {
	return &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: c.Fresh.Target.String() + " changed since it was read"}
}

// Open reads t's object for editing, after the guards a person should meet
// before editing anything: read-only, and the access review of patch.
// Errors: a *vocab.Refusal of a guard; the get's (not found, forbidden,
// unavailable).
func (e *Editor) Open(ctx context.Context, t Target) (*Edit, error) {
	vs, err := e.Guards.Run(ctx, guards.Write{Access: []guards.AccessCheck{e.editAccess(t)}})
	if err != nil {
		return nil, err
	}
	if r := vs.Refusal(); r != nil {
		return nil, r
	}
	obj, err := e.resource(t).Get(ctx, t.Name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return editOf(t, obj)
}

// editOf is the Edit of obj, read as t.
func editOf(t Target, obj *unstructured.Unstructured) (*Edit, error) {
	shown := Shown(obj.Object)
	text, err := Text(shown)
	if err != nil {
		return nil, err
	}
	return &Edit{Target: t, Object: obj.Object, Shown: shown, Text: text, UID: string(obj.GetUID()),
		ResourceVersion: obj.GetResourceVersion(), Kind: PatchKindOf(obj.GroupVersionKind())}, nil
}

// editAccess is the review an edit of t needs: patch of its resource.
func (e *Editor) editAccess(t Target) guards.AccessCheck {
	ns := ""
	if t.Namespaced {
		ns = t.Namespace
	}
	return guards.AccessCheck{Verb: "patch", Group: t.Resource.Group, Resource: t.Resource.Resource, Namespace: ns}
}

// Plan is an edit planned: its patch, its guards' verdicts and the diff
// of its server dry run. Nothing has been written.
type Plan struct {
	// Edit is the edit planned.
	Edit *Edit
	// Edited is the edited text's object (Shown form).
	Edited map[string]any
	// Patch is the body sent (Edit.Kind), with the resourceVersion
	// precondition.
	Patch []byte
	// Verdicts are the guards' answers.
	Verdicts vocab.Verdicts
	// Diff is the unified diff of the live object against the dry run's
	// result (status and bookkeeping left out, a Secret's values masked);
	// "" when the server's result is the live object (the change was
	// defaulted away).
	Diff string
}

// Plan reads text (the edited YAML) and plans its patch of ed's object:
// the text parsed (Parse) and checked (Identity), the patch of only what
// changed made (Patch), the guards run (read-only, the access review of
// patch, the object read fresh, managed by another tool), and a server
// dry run of the patch diffed against the live object. Errors: ErrEmpty,
// ErrNoChange, a *TextError (Parse's, Identity's, Patch's); a *vocab.Refusal of a guard; a *Conflict when the
// object changed since ed read it; the dry run's (invalid, denied by
// admission, forbidden); the reads'.
func (e *Editor) Plan(ctx context.Context, ed *Edit, text string) (*Plan, error) {
	edited, err := Parse(text)
	if errors.Is(err, ErrEmpty) {
		return nil, err
	}
	if err == nil {
		err = Identity(ed.Shown, edited)
	}
	if err == nil {
		err = Strings(edited)
	}
	if err != nil {
		return nil, &TextError{Err: err}
	}
	body, changed, err := Patch(ed.Kind, ed.Object, Stored(edited), ed.ResourceVersion)
	if err != nil {
		return nil, &TextError{Err: err}
	}
	if !changed {
		return nil, ErrNoChange
	}
	p := &Plan{Edit: ed, Edited: edited, Patch: body}
	var live *unstructured.Unstructured
	vs, err := e.Guards.Run(ctx, guards.Write{
		Access: []guards.AccessCheck{e.editAccess(ed.Target)},
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			got, err := e.resource(ed.Target).Get(ctx, ed.Target.Name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			if got.GetResourceVersion() != ed.ResourceVersion {
				return nil, e.conflict(ed, edited, got)
			}
			live = got
			return vocab.Verdicts{{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass,
				Sentence: fmt.Sprintf("%s is unchanged since it was read (resourceVersion %s)", ed.Target, ed.ResourceVersion)}}, nil
		},
		Risks: func(context.Context) (vocab.Verdicts, error) {
			return vocab.Verdicts{e.Guards.Managed(ed.Target.Name, live.GetLabels(), live.GetAnnotations())}, nil
		},
	})
	p.Verdicts = vs
	if err != nil {
		return nil, err
	}
	if r := vs.Refusal(); r != nil {
		return p, r
	}
	result, err := e.send(ctx, ed, body, true)
	if err != nil {
		return nil, e.answer(ctx, ed, edited, err)
	}
	if p.Diff, err = apply.Diff(live, result); err != nil {
		return nil, err
	}
	return p, nil
}

// Send sends p's patch for real and returns the object the API server
// stored. Errors: a *Conflict when the object changed since it was read
// (the patch's resourceVersion precondition); the API server's (invalid,
// forbidden, denied by admission, not found: deleted meanwhile).
func (e *Editor) Send(ctx context.Context, p *Plan) (*unstructured.Unstructured, error) {
	got, err := e.send(ctx, p.Edit, p.Patch, false)
	if err != nil {
		return nil, e.answer(ctx, p.Edit, p.Edited, err)
	}
	return got, nil
}

// answer is the error of a patch the API server refused: a *Conflict (the
// object read again and the edit rebased) for a 409, err otherwise.
func (e *Editor) answer(ctx context.Context, ed *Edit, edited map[string]any, err error) error {
	if !apierrors.IsConflict(err) {
		return err
	}
	got, gerr := e.resource(ed.Target).Get(ctx, ed.Target.Name, metav1.GetOptions{})
	if gerr != nil {
		return fmt.Errorf("%w; reading it again: %w", err, gerr)
	}
	return e.conflict(ed, edited, got)
}

// conflict is the *Conflict of ed, edited into edited, against fresh; a
// refusal when fresh is another object of the same name (deleted and made
// again: its UID differs), which the edit was not of.
func (e *Editor) conflict(ed *Edit, edited map[string]any, fresh *unstructured.Unstructured) error {
	if ed.UID != "" && string(fresh.GetUID()) != ed.UID {
		return &vocab.Refusal{Reason: vocab.ReasonConflict, Detail: fmt.Sprintf("%s was deleted and made again since it was read (UID %s is now %s): "+
			"your edit was of the object that is gone; nothing written", ed.Target, ed.UID, fresh.GetUID())}
	}
	next, err := editOf(ed.Target, fresh)
	if err != nil {
		return err
	}
	rebased, collisions, err := Rebase(ed.Shown, edited, next.Shown)
	if err != nil {
		return err
	}
	if next.Text, err = Text(rebased); err != nil {
		return err
	}
	next.Collisions = collisions
	return &Conflict{Fresh: next, Was: ed.ResourceVersion}
}

// send sends body as ed's patch (a dry run when dryRun).
func (e *Editor) send(ctx context.Context, ed *Edit, body []byte, dryRun bool) (*unstructured.Unstructured, error) {
	opts := metav1.PatchOptions{FieldManager: vocab.FieldManager}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return e.resource(ed.Target).Patch(ctx, ed.Target.Name, ed.Kind.Type, body, opts)
}

// resource is the dynamic client of t's resource and namespace.
func (e *Editor) resource(t Target) dynamic.ResourceInterface {
	r := e.Dyn.Resource(t.Resource)
	if t.Namespaced {
		return r.Namespace(t.Namespace)
	}
	return r
}
