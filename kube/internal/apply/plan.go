package apply

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// Applier plans and sends server-side applies.
type Applier struct {
	// Dyn sends the applies and reads the live objects.
	Dyn dynamic.Interface
	// Mapper resolves a document's apiVersion and kind to its resource
	// (the API server's discovery).
	Mapper meta.RESTMapper
	// Guards runs each apply's guards: read-only, the access reviews
	// (patch; create when the object is new), managed-by on the live
	// object.
	Guards *guards.Checker
	// Namespace is the namespace of a namespaced document that names none
	// (kubectl's: the context's, or -n).
	Namespace string
}

// Step is one document's planned apply: what it is, its guards' verdicts,
// the diff its dry run gives against the live object, and its conflicts.
type Step struct {
	// Doc is the document.
	Doc Doc
	// Resource is the document's resource and Namespaced whether it lives
	// in a namespace ("" Resource when the kind is not served: Err says).
	Resource   schema.GroupVersionResource
	Namespaced bool
	// Namespace (for a namespaced kind) and Name are where it is applied.
	Namespace, Name string
	// Exists says the object is there already; UID and ResourceVersion
	// are the live object's, and the apply is sent with that
	// resourceVersion as its precondition.
	Exists               bool
	UID, ResourceVersion string
	// Verdicts are its guards' answers, in the order they ran.
	Verdicts vocab.Verdicts
	// Conflicts are the fields other managers own that the apply would
	// change; the apply is sent only with force while there are any.
	Conflicts []Conflict
	// Diff is the unified diff of the live object (empty when new)
	// against the dry run's result (forced when there are conflicts),
	// managedFields, status and bookkeeping fields left out and a
	// Secret's values masked; "" when the dry run did not run or changed
	// nothing.
	Diff string
	// Err is why the step cannot be applied: the kind not served, a guard's
	// refusal (a *vocab.Refusal), the dry run's failure (invalid, denied
	// by admission); nil when it can.
	Err error
}

// Ready reports whether s can be sent: no error, and no conflict unless
// force.
func (s Step) Ready(force bool) bool { return s.Err == nil && (force || len(s.Conflicts) == 0) }

// Plan resolves, guards and dry-runs each document, in order, and returns
// one Step each; a document's failure is its Step's Err and never stops
// the others. Nothing is written: every request but the reads and the
// access reviews carries dryRun=All. Errors: ctx's.
func (a *Applier) Plan(ctx context.Context, docs []Doc) ([]Step, error) {
	out := make([]Step, len(docs))
	for i, d := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = a.plan(ctx, d)
	}
	return out, nil
}

// plan plans one document.
func (a *Applier) plan(ctx context.Context, d Doc) Step {
	s := Step{Doc: d, Name: d.Object.GetName()}
	gvk := d.Object.GroupVersionKind()
	var live *unstructured.Unstructured
	vs, err := a.Guards.Run(ctx, guards.Write{
		Rule: func() vocab.Verdict {
			m, err := a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			if r, ok := a.Mapper.(meta.ResettableRESTMapper); ok && meta.IsNoMatchError(err) {
				r.Reset() // a CRD made since discovery was cached
				m, err = a.Mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
			}
			if err != nil {
				return vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonUnknownKind,
					Sentence: fmt.Sprintf("the API server serves no kind %s in %s", gvk.Kind, gvk.GroupVersion())}
			}
			s.Resource = m.Resource
			s.Namespaced = m.Scope.Name() == meta.RESTScopeNameNamespace
			if s.Namespaced {
				if s.Namespace = d.Object.GetNamespace(); s.Namespace == "" {
					s.Namespace = a.Namespace
				}
			}
			return vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Sentence: fmt.Sprintf("%s is served as %s", gvk.Kind, m.Resource.Resource)}
		},
		AccessOf: func() []guards.AccessCheck {
			return []guards.AccessCheck{{Verb: "patch", Group: s.Resource.Group, Resource: s.Resource.Resource, Namespace: s.Namespace}}
		},
		Object: func(ctx context.Context) (vocab.Verdicts, error) {
			got, err := a.resource(s).Get(ctx, s.Name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				return vocab.Verdicts{{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass, Sentence: s.ref() + " does not exist yet: the apply creates it"}}, nil
			case err != nil:
				return nil, err
			}
			live = got
			s.Exists, s.UID, s.ResourceVersion = true, string(got.GetUID()), got.GetResourceVersion()
			return vocab.Verdicts{{Guard: vocab.GuardFresh, Outcome: vocab.OutcomePass,
				Sentence: fmt.Sprintf("%s exists (resourceVersion %s): the apply changes it only if it is unchanged", s.ref(), s.ResourceVersion)}}, nil
		},
		Risks: func(ctx context.Context) (vocab.Verdicts, error) {
			if live == nil {
				return vocab.Verdicts{a.Guards.Access(ctx, guards.AccessCheck{Verb: "create", Group: s.Resource.Group, Resource: s.Resource.Resource, Namespace: s.Namespace})}, nil
			}
			return vocab.Verdicts{a.Guards.Managed(s.Name, live.GetLabels(), live.GetAnnotations())}, nil
		},
	})
	s.Verdicts = vs
	if err != nil {
		s.Err = err
		return s
	}
	if r := vs.Refusal(); r != nil {
		s.Err = r
		return s
	}
	result, err := a.send(ctx, s, false, true)
	if s.Conflicts = ConflictsOf(err); s.Conflicts != nil {
		result, err = a.send(ctx, s, true, true)
	}
	if err != nil {
		s.Err = err
		return s
	}
	s.Diff, s.Err = Diff(live, result)
	return s
}

// Send applies s for real, with force when asked (it takes over the
// fields of s.Conflicts), and returns the object the API server stored.
// Errors: a *vocab.Refusal when s cannot be sent (s.Err, or conflicts
// without force: ReasonFieldConflict), the API server's (409 when the
// object changed since the plan read it, or new conflicts).
func (a *Applier) Send(ctx context.Context, s Step, force bool) (*unstructured.Unstructured, error) {
	if s.Err != nil {
		return nil, s.Err
	}
	if !s.Ready(force) {
		return nil, &vocab.Refusal{Reason: vocab.ReasonFieldConflict,
			Detail: fmt.Sprintf("%s: %d field(s) owned by another manager; not sent without force", s.ref(), len(s.Conflicts))}
	}
	return a.send(ctx, s, force, false)
}

// send sends s's document as an apply patch, as a dry run when dryRun.
func (a *Applier) send(ctx context.Context, s Step, force, dryRun bool) (*unstructured.Unstructured, error) {
	obj := s.Doc.Object.DeepCopy()
	if s.Namespaced {
		obj.SetNamespace(s.Namespace)
	} else {
		obj.SetNamespace("")
	}
	obj.SetManagedFields(nil)
	obj.SetResourceVersion(s.ResourceVersion) // the precondition: "" for a new object
	body, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: encode: %w", s.Doc.Where(), err)
	}
	opts := metav1.PatchOptions{FieldManager: vocab.FieldManager, Force: &force}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return a.resource(s).Patch(ctx, s.Name, types.ApplyPatchType, body, opts)
}

// resource is the dynamic client of s's resource and namespace.
func (a *Applier) resource(s Step) dynamic.ResourceInterface {
	r := a.Dyn.Resource(s.Resource)
	if s.Namespaced {
		return r.Namespace(s.Namespace)
	}
	return r
}

// ref names s's object for people: "demo/configmaps/web", "nodes/n1".
func (s Step) ref() string {
	if s.Namespaced {
		return s.Namespace + "/" + s.Resource.Resource + "/" + s.Name
	}
	return s.Resource.Resource + "/" + s.Name
}
