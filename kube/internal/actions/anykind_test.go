package actions

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/metadata"
	metadatafake "k8s.io/client-go/metadata/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// Kinds as their plugin or discovery describes them.
var (
	widgets    = vocab.KindInfo{ID: "widgets", Group: "e2e.kyyard.dev", Version: "v1", Resource: "widgets", Namespaced: true, Capabilities: vocab.CanDelete}
	namespaces = vocab.KindInfo{ID: vocab.KindNamespaces, Version: "v1", Resource: "namespaces", Capabilities: vocab.CanDelete}
	configmaps = vocab.KindInfo{ID: "configmaps", Version: "v1", Resource: "configmaps", Namespaced: true}
)

// widget is the metadata of a custom resource demo/w1 (resourceVersion 5)
// held by the finalizer e2e.kyyard.dev/hold, which widget-controller added,
// and owned by the controller Gadget g1.
func widget() *metav1.PartialObjectMetadata {
	yes := true
	return &metav1.PartialObjectMetadata{
		TypeMeta: metav1.TypeMeta{APIVersion: "e2e.kyyard.dev/v1", Kind: "Widget"},
		ObjectMeta: metav1.ObjectMeta{Name: "w1", Namespace: "demo", UID: "uw", ResourceVersion: "5",
			Finalizers:      []string{"e2e.kyyard.dev/hold"},
			OwnerReferences: []metav1.OwnerReference{{Kind: "Gadget", Name: "g1", UID: "ug", Controller: &yes}},
			ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "widget-controller", Operation: metav1.ManagedFieldsOperationApply,
				FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:metadata":{"f:finalizers":{"v:\"e2e.kyyard.dev/hold\"":{}}}}`)}}}},
	}
}

// metaActor is an Actor under policy over a fake clientset (access reviews
// answered allowed or not) and a fake metadata client holding objs, its
// kinds described by infos (by plugin id).
func metaActor(policy vocab.Policy, allowed bool, infos []vocab.KindInfo, objs ...runtime.Object) (Actor, *fake.Clientset, *metadatafake.FakeMetadataClient) {
	cs := fake.NewClientset()
	cs.PrependReactor("create", "selfsubjectaccessreviews", answer(allowed))
	s := metadatafake.NewTestScheme()
	if err := metav1.AddMetaToScheme(s); err != nil {
		panic(err)
	}
	md := metadatafake.NewSimpleMetadataClient(s, objs...)
	byID := map[vocab.Kind]vocab.KindInfo{}
	for _, info := range infos {
		byID[info.ID] = info
	}
	return Actor{CS: cs, Guards: guards.New(cs, policy, false),
		KindInfo: func(k vocab.Kind) vocab.KindInfo {
			if info, ok := byID[k]; ok {
				return info
			}
			return vocab.KindInfo{ID: k}
		},
		Metadata: func() (metadata.Interface, error) { return md, nil },
		Dependents: func(namespace, uid string) (map[vocab.Kind]int, []vocab.Kind) {
			if uid == "uw" {
				return map[vocab.Kind]int{"sprockets": 2}, []vocab.Kind{"sprockets", "pods"}
			}
			return nil, []vocab.Kind{"pods"}
		}}, cs, md
}

// deletes are the deletes md was sent, with their options.
func deletes(md *metadatafake.FakeMetadataClient) []k8stesting.DeleteActionImpl {
	var out []k8stesting.DeleteActionImpl
	for _, a := range md.Actions() {
		if d, ok := a.(k8stesting.DeleteActionImpl); ok {
			out = append(out, d)
		}
	}
	return out
}

// verdictOf is the verdict of guard g among vs (zero when none).
func verdictOf(vs vocab.Verdicts, g vocab.Guard) vocab.Verdict {
	for _, v := range vs {
		if v.Guard == g {
			return v
		}
	}
	return vocab.Verdict{}
}

// TestDeleteAnyKindThroughTheMetadataClient: a custom resource's delete
// reads its metadata fresh, says which finalizer holds it and who added it
// (its managedFields), what the garbage collector takes with it and its
// controller, then deletes it with its UID and resourceVersion as
// preconditions and Background propagation, and says it is only marked.
func TestDeleteAnyKindThroughTheMetadataClient(t *testing.T) {
	a, cs, md := metaActor(vocab.PolicyInteractive, true, []vocab.KindInfo{widgets}, widget())
	op := Operation{Ref: vocab.ObjectRef{Kind: "widgets", Namespace: "demo", Name: "w1", UID: "uw"}, Action: vocab.ActionDelete}
	out, err := a.Operate(context.Background(), op)
	if err != nil || !out.Written {
		t.Fatalf("outcome %+v, err %v", out, err)
	}
	if got := strings.Join(reviews(cs), ","); got != "delete widgets" {
		t.Errorf("reviews %q", got)
	}
	fin := verdictOf(out.Verdicts, vocab.GuardFinalizers)
	if fin.Outcome != vocab.OutcomePass || !strings.Contains(fin.Sentence, "e2e.kyyard.dev/hold (added by widget-controller") {
		t.Errorf("finalizers verdict %+v", fin)
	}
	dep := verdictOf(out.Verdicts, vocab.GuardDependents)
	if !strings.Contains(dep.Sentence, "2 sprockets") || !strings.Contains(dep.Sentence, "its controller Gadget g1 may make it again") {
		t.Errorf("dependents verdict %+v", dep)
	}
	ds := deletes(md)
	if len(ds) != 1 {
		t.Fatalf("deletes %v", md.Actions())
	}
	o := ds[0].DeleteOptions
	if ds[0].Namespace != "demo" || ds[0].Name != "w1" || ds[0].Resource.Resource != "widgets" || ds[0].Resource.Group != "e2e.kyyard.dev" ||
		o.Preconditions == nil || *o.Preconditions.UID != "uw" || *o.Preconditions.ResourceVersion != "5" || *o.PropagationPolicy != metav1.DeletePropagationBackground {
		t.Errorf("delete %+v", ds[0])
	}
	if !strings.Contains(out.Detail, "marked demo/widgets/w1 for deletion: it stays until its finalizer is removed (e2e.kyyard.dev/hold)") {
		t.Errorf("detail %q", out.Detail)
	}
}

// TestDeleteOfAnObjectBeingDeletedSendsNothing: an object already marked
// for deletion (held by its finalizer) is not deleted again: nothing to
// send, with what holds it.
func TestDeleteOfAnObjectBeingDeletedSendsNothing(t *testing.T) {
	w := widget()
	w.DeletionTimestamp = &metav1.Time{Time: time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)}
	a, _, md := metaActor(vocab.PolicyInteractive, true, []vocab.KindInfo{widgets}, w)
	out, err := a.Operate(context.Background(), Operation{Ref: vocab.ObjectRef{Kind: "widgets", Namespace: "demo", Name: "w1", UID: "uw"}, Action: vocab.ActionDelete})
	if _, nothing := out.Verdicts.NothingToDo(); err != nil || out.Written || !nothing || len(deletes(md)) != 0 ||
		!strings.Contains(out.Detail, "already being deleted (since 2026-12-02T10:00:00Z)") {
		t.Fatalf("outcome %+v, err %v, deletes %d", out, err, len(deletes(md)))
	}
	if fin := verdictOf(out.Verdicts, vocab.GuardFinalizers); !strings.Contains(fin.Sentence, "e2e.kyyard.dev/hold") {
		t.Errorf("finalizers verdict %+v", fin)
	}
}

// TestDeleteNamespaceAsksForItsName: a Namespace (cluster-scoped: no
// namespace in the request) warns that everything in it goes, confirmed
// by typing its name; unconfirmed nothing is sent; strict refuses it.
func TestDeleteNamespaceAsksForItsName(t *testing.T) {
	ns := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: "shop", UID: "un", ResourceVersion: "3"}}
	op := Operation{Ref: vocab.ObjectRef{Kind: vocab.KindNamespaces, Name: "shop", UID: "un"}, Action: vocab.ActionDelete}
	a, cs, md := metaActor(vocab.PolicyInteractive, true, []vocab.KindInfo{namespaces}, ns)
	out, err := a.Operate(context.Background(), op)
	v := verdictOf(out.Verdicts, vocab.GuardDependents)
	var r *vocab.Refusal
	if !errors.As(err, &r) || out.Written || len(deletes(md)) != 0 || v.Outcome != vocab.OutcomeWarn || v.Reason != vocab.ReasonContentsDeleted || v.Confirm != "shop" {
		t.Fatalf("unconfirmed: outcome %+v, err %v, deletes %d", out, err, len(deletes(md)))
	}
	if got := strings.Join(reviews(cs), ","); got != "delete namespaces" {
		t.Errorf("reviews %q", got)
	}
	op.Confirmed = []vocab.Reason{vocab.ReasonContentsDeleted}
	if out, err = a.Operate(context.Background(), op); err != nil || !out.Written || len(deletes(md)) != 1 || deletes(md)[0].Namespace != "" {
		t.Fatalf("confirmed: outcome %+v, err %v, deletes %v", out, err, deletes(md))
	}
	strict, _, smd := metaActor(vocab.PolicyStrict, true, []vocab.KindInfo{namespaces}, ns.DeepCopy())
	if out, err := strict.Operate(context.Background(), op); err == nil || out.Reason != vocab.ReasonContentsDeleted || len(deletes(smd)) != 0 {
		t.Fatalf("strict: outcome %+v, err %v", out, err)
	}
}

// TestDeleteAnyKindRefusals: a namespaced kind without a namespace (invalid,
// before any request), a kind whose plugin does not declare delete, a
// forbidden delete, an object gone, another object under the same name:
// each refused with its reason and nothing deleted.
func TestDeleteAnyKindRefusals(t *testing.T) {
	ref := vocab.ObjectRef{Kind: "widgets", Namespace: "demo", Name: "w1", UID: "uw"}
	for _, tc := range []struct {
		name    string
		allowed bool
		ref     vocab.ObjectRef
		objs    []runtime.Object
		want    vocab.Reason
	}{
		{"no namespace", true, vocab.ObjectRef{Kind: "widgets", Name: "w1", UID: "uw"}, []runtime.Object{widget()}, vocab.ReasonInvalid},
		{"not declared", true, vocab.ObjectRef{Kind: "configmaps", Namespace: "demo", Name: "c", UID: "uc"}, nil, vocab.ReasonInvalid},
		{"forbidden", false, ref, []runtime.Object{widget()}, vocab.ReasonForbidden},
		{"gone", true, ref, nil, vocab.ReasonNotFound},
		{"made again", true, vocab.ObjectRef{Kind: "widgets", Namespace: "demo", Name: "w1", UID: "old"}, []runtime.Object{widget()}, vocab.ReasonConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, _, md := metaActor(vocab.PolicyInteractive, tc.allowed, []vocab.KindInfo{widgets, configmaps}, tc.objs...)
			out, err := a.Operate(context.Background(), Operation{Ref: tc.ref, Action: vocab.ActionDelete})
			if err == nil || out.Reason != tc.want || out.Written || len(deletes(md)) != 0 {
				t.Fatalf("outcome %+v, err %v, deletes %d", out, err, len(deletes(md)))
			}
		})
	}
}

// TestDeleteAnyKindWithoutAMetadataClient: an Actor with no metadata
// client fails a delete of a kind other than pods and the workloads with
// a clear error, and sends nothing.
func TestDeleteAnyKindWithoutAMetadataClient(t *testing.T) {
	a, _, _ := metaActor(vocab.PolicyInteractive, true, []vocab.KindInfo{widgets})
	a.Metadata = nil
	_, err := a.Operate(context.Background(), Operation{Ref: vocab.ObjectRef{Kind: "widgets", Namespace: "demo", Name: "w1", UID: "uw"}, Action: vocab.ActionDelete})
	if !errors.Is(err, errNoMetadataClient) {
		t.Fatalf("err %v", err)
	}
}
