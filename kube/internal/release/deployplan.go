package release

// The preconditions of a deploy, run before anything is written, and the
// steps they plan (deploy.go runs them).

import (
	"context"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
	"github.com/kyyard/kyyard/render"
)

// task is one step of a deploy with what it works on.
type task struct {
	step DeployStep
	// plan is the object to write (create, update, keep) or whose rollout
	// is followed; existing the object of that name read by the
	// preconditions (this instance's), nil when new.
	plan, existing runtime.Object
	// old is an object of the instance no longer in the plan (prune, keep).
	old *listed
}

// deployState is what the preconditions found.
type deployState struct {
	ns, instance string
	objs         []planned
	// existing are the planned objects that exist (this instance's), by
	// objectKey.
	existing map[string]runtime.Object
	record   instanceRecord
	verdicts vocab.Verdicts
	tasks    []*task
}

// instanceSelector selects the objects kyyard made for instance.
func instanceSelector(instance string) string {
	return labels.SelectorFromSet(labels.Set{render.LabelManagedBy: render.ManagedBy, render.LabelInstance: instance}).String()
}

// deployAccess are the access reviews a deploy of objs needs before any
// read of the objects: get, create and update of every kind it writes
// (Secrets always: the record), and list of the five kinds (prune finds
// the instance's objects by label).
func deployAccess(ns string, objs []planned) []guards.AccessCheck {
	writes := map[string]bool{kindSecret: true}
	for _, p := range objs {
		writes[kindOf(p.obj)] = true
	}
	var out []guards.AccessCheck
	for _, r := range deployResources {
		verbs := []string{"list"}
		if writes[r.kind] {
			verbs = []string{"get", "list", "create", "update"}
		}
		for _, v := range verbs {
			out = append(out, guards.AccessCheck{Verb: v, Group: r.group, Resource: r.resource, Namespace: ns})
		}
	}
	return out
}

// prepareDeploy runs a deploy's preconditions through the guard pipeline
// (guards.Checker.Run) and plans its steps: read-only (nothing else asked when it
// refuses); the access reviews of deployAccess (every one asked, then stop
// at a refusal); then the risks (deployRisks): the
// namespace's Pod Security level (Checker.PodSecurity: interactive warns,
// strict refuses, when it enforces neither baseline nor restricted); the
// record Secret read by name (another's is name_taken); each planned
// object read by name (one without this instance's labels is name_taken,
// one being deleted a conflict, a claim claimChange refuses
// claim_immutable); the instance's objects listed by label, those no
// longer planned pruned (claims kept), and delete reviewed for their
// kinds. Errors: a read failed (not a refusal: the API server away).
func (c Deployer) prepareDeploy(ctx context.Context, ns, instance string, objs []planned) (deployState, error) {
	st := deployState{ns: ns, instance: instance, objs: objs, existing: map[string]runtime.Object{}}
	var olds []listed
	vs, err := c.Guards.Run(ctx, guards.Write{
		Access: deployAccess(ns, objs),
		Risks: func(ctx context.Context) (vocab.Verdicts, error) {
			var err error
			olds, err = c.deployRisks(ctx, &st)
			return st.verdicts, err
		},
	})
	st.verdicts = vs
	if err != nil {
		return st, err
	}
	st.tasks = planTasks(st, olds)
	return st, nil
}

// deployRisks is a deploy's risks stage (see prepareDeploy), its verdicts
// appended to st.verdicts (st.existing filled with the planned objects that
// exist): the namespace's Pod Security level, the record, each planned
// object read by name, the storage classes, and the delete reviews of the
// kinds pruned. It returns the instance's objects no longer planned.
// Errors: a read failed.
func (c Deployer) deployRisks(ctx context.Context, st *deployState) ([]listed, error) {
	ns, instance, objs := st.ns, st.instance, st.objs
	var olds []listed
	st.verdicts = vocab.Verdicts{c.Guards.PodSecurity(ctx, ns)}

	rec, err := c.readRecord(ctx, ns, instance)
	if err != nil {
		return nil, err
	}
	st.record = rec
	st.verdicts = append(st.verdicts, recordVerdict(rec, instance))

	for _, p := range objs {
		meta := metaOf(p.obj)
		key := keyOf(p.obj)
		got, err := c.getObject(ctx, ns, kindOf(p.obj), meta.GetName())
		if apierrors.IsNotFound(err) {
			st.verdicts = append(st.verdicts, vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomePass, Sentence: key + " is new"})
			continue
		}
		if err != nil {
			return nil, err
		}
		v := ownerVerdict(key, got, instance)
		if v.Outcome == vocab.OutcomePass {
			st.existing[key] = got
			if pc, ok := p.obj.(*corev1.PersistentVolumeClaim); ok {
				v = claimVerdict(key, got.(*corev1.PersistentVolumeClaim), pc)
			}
		}
		st.verdicts = append(st.verdicts, v)
	}

	st.verdicts = append(st.verdicts, c.storageClassVerdicts(ctx, ns, objs, st.existing)...)

	deletes := map[string]bool{}
	for _, r := range deployResources {
		found, err := c.listInstance(ctx, ns, r.kind, instanceSelector(instance))
		if err != nil {
			return nil, err
		}
		for _, l := range found {
			if l.meta.GetLabels()[RecordLabel] == "true" || planKey(objs, objectKey(l.kind, l.meta.GetName())) {
				continue
			}
			olds = append(olds, l)
			if l.kind != kindClaim {
				deletes[l.kind] = true
			}
		}
	}
	for _, r := range deployResources {
		if deletes[r.kind] {
			st.verdicts = append(st.verdicts, c.Guards.Access(ctx, guards.AccessCheck{Verb: "delete", Group: r.group, Resource: r.resource, Namespace: ns}))
		}
	}
	return olds, nil
}

// planKey reports whether objs plan the object of key.
func planKey(objs []planned, key string) bool {
	for _, p := range objs {
		if keyOf(p.obj) == key {
			return true
		}
	}
	return false
}

// recordVerdict checks the record Secret read by name: one that is not
// this instance's record is name_taken.
func recordVerdict(rec instanceRecord, instance string) vocab.Verdict {
	name := objectKey(kindSecret, recordName(instance))
	switch {
	case !rec.exists:
		return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomePass, Sentence: name + " (the instance record) is new"}
	case !rec.mine:
		return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNameTaken,
			Sentence: name + " exists and is not the record of instance " + instance + " (it lacks the labels " + RecordLabel + ", " + render.LabelInstance + ")"}
	}
	return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomePass, Sentence: name + " is the instance record (resourceVersion " + rec.version + ")"}
}

// ownerVerdict checks an object read by name: this instance's when it
// carries app.kubernetes.io/managed-by: kyyard and
// app.kubernetes.io/instance: <instance>; else name_taken. One being
// deleted is a conflict (a write would race its deletion).
func ownerVerdict(key string, got runtime.Object, instance string) vocab.Verdict {
	meta := metaOf(got)
	switch {
	case !instanceLabelled(meta.GetLabels(), instance):
		s := key + " exists and was not made by instance " + instance
		if tool := guards.ManagedBy(meta.GetLabels(), meta.GetAnnotations()); tool != "" {
			s += " (managed by " + tool + ")"
		}
		return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNameTaken, Sentence: s}
	case meta.GetDeletionTimestamp() != nil:
		return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict, Sentence: key + " is being deleted"}
	}
	return vocab.Verdict{Guard: vocab.GuardOwner, Outcome: vocab.OutcomePass, Sentence: key + " exists and is this instance's"}
}

// claimVerdict checks an existing claim against the planned one.
func claimVerdict(key string, existing, plan *corev1.PersistentVolumeClaim) vocab.Verdict {
	if diff := claimChange(existing, plan); diff != "" {
		return vocab.Verdict{Guard: vocab.GuardClaimSpec, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonClaimImmutable, Sentence: key + ": " + diff}
	}
	return vocab.Verdict{Guard: vocab.GuardClaimSpec, Outcome: vocab.OutcomePass, Sentence: key + " exists as planned; it is kept as it is"}
}

// planTasks orders a deploy's steps: the record claimed; per service (in
// the order of objs) its objects (created, updated, or an existing claim
// kept) and then its Deployment's rollout; the instance's objects no
// longer planned (pruned; claims kept); the record written. All pending.
func planTasks(st deployState, olds []listed) []*task {
	out := []*task{{step: DeployStep{Kind: kindSecret, Name: recordName(st.instance), Action: StepRecord, Outcome: StepPending,
		Detail: "claim: state deploying"}}}
	for _, p := range st.objs {
		meta := metaOf(p.obj)
		kind, key := kindOf(p.obj), keyOf(p.obj)
		t := &task{plan: p.obj, existing: st.existing[key],
			step: DeployStep{Service: p.service, Kind: kind, Name: meta.GetName(), Action: StepCreate, Outcome: StepPending}}
		switch {
		case t.existing != nil && kind == kindClaim:
			t.step.Action, t.step.Detail = StepKeep, "exists: kept as it is"
		case t.existing != nil:
			t.step.Action = StepUpdate
		}
		out = append(out, t)
		if kind == kindDeployment {
			out = append(out, &task{plan: p.obj, step: DeployStep{Service: p.service, Kind: kind, Name: meta.GetName(),
				Action: StepRollout, Outcome: StepPending}})
		}
	}
	sort.SliceStable(olds, func(i, j int) bool {
		return objectKey(olds[i].kind, olds[i].meta.GetName()) < objectKey(olds[j].kind, olds[j].meta.GetName())
	})
	for i := range olds {
		l := &olds[i]
		t := &task{old: l, step: DeployStep{Service: l.meta.GetLabels()[render.LabelName], Kind: l.kind, Name: l.meta.GetName(),
			Action: StepPrune, Outcome: StepPending, Detail: "no longer in the plan"}}
		if l.kind == kindClaim {
			t.step.Action, t.step.Detail = StepKeep, "retained: no longer in the plan, claims are not pruned"
		}
		out = append(out, t)
	}
	return append(out, &task{step: DeployStep{Kind: kindSecret, Name: recordName(st.instance), Action: StepRecord,
		Outcome: StepPending, Detail: "state deployed"}})
}

// Default StorageClass annotations (k8s.io/kubernetes
// pkg/apis/storage/v1/util: IsDefaultAnnotation; the beta one still counts).
const (
	defaultClassAnnotation     = "storageclass.kubernetes.io/is-default-class"
	defaultClassBetaAnnotation = "storageclass.beta.kubernetes.io/is-default-class"
)

// storageClassVerdicts checks each claim the deploy creates (not in
// existing) that names no storage class: the cluster must have a default
// StorageClass (GuardStorageClass), else a claim_pending warning per
// claim, unless a PersistentVolume without a class can bind it
// (staticVolumeFor; PersistentVolumes that cannot be listed count as
// none). The StorageClasses are listed once, only when such a claim is
// planned; a list that fails gives one pass saying it could not tell.
func (c Deployer) storageClassVerdicts(ctx context.Context, ns string, objs []planned, existing map[string]runtime.Object) []vocab.Verdict {
	var unnamed []string
	for _, p := range objs {
		pvc, ok := p.obj.(*corev1.PersistentVolumeClaim)
		if !ok || existing[keyOf(p.obj)] != nil || (pvc.Spec.StorageClassName != nil && *pvc.Spec.StorageClassName != "") {
			continue
		}
		unnamed = append(unnamed, pvc.Name)
	}
	if len(unnamed) == 0 {
		return nil
	}
	list, err := c.CS.StorageV1().StorageClasses().List(ctx, metav1.ListOptions{})
	if err != nil {
		return []vocab.Verdict{{Guard: vocab.GuardStorageClass, Outcome: vocab.OutcomePass,
			Sentence: "could not list StorageClasses to find a default (" + apiMessage(err) + ")"}}
	}
	for _, sc := range list.Items {
		if sc.Annotations[defaultClassAnnotation] == "true" || sc.Annotations[defaultClassBetaAnnotation] == "true" {
			return []vocab.Verdict{{Guard: vocab.GuardStorageClass, Outcome: vocab.OutcomePass,
				Sentence: "claims without a storage class take the default StorageClass " + sc.Name}}
		}
	}
	// A PersistentVolume without a class, free or reserved for the claim
	// (spec.claimRef), binds it all the same (the PV controller matches
	// a claim without a class to volumes without one).
	pvs, err := c.CS.CoreV1().PersistentVolumes().List(ctx, metav1.ListOptions{})
	if err != nil {
		pvs = &corev1.PersistentVolumeList{}
	}
	var out []vocab.Verdict
	for _, name := range unnamed {
		if pv := staticVolumeFor(pvs.Items, ns, name); pv != "" {
			out = append(out, vocab.Verdict{Guard: vocab.GuardStorageClass, Outcome: vocab.OutcomePass,
				Sentence: "claim " + name + " names no storage class; the PersistentVolume " + pv + " without a class can bind it"})
			continue
		}
		out = append(out, c.Guards.Warn(vocab.Verdict{Guard: vocab.GuardStorageClass, Reason: vocab.ReasonClaimPending,
			Sentence: "claim " + name + " names no storage class and the cluster has no default: it will stay Pending"}))
	}
	return out
}

// staticVolumeFor names a PersistentVolume of pvs without a storage class
// that can bind the claim ns/name: not Released or Failed, and either
// reserved for it (spec.claimRef) or free (no claimRef); "" when none.
func staticVolumeFor(pvs []corev1.PersistentVolume, ns, name string) string {
	for _, pv := range pvs {
		if pv.Spec.StorageClassName != "" || pv.Status.Phase == corev1.VolumeReleased || pv.Status.Phase == corev1.VolumeFailed {
			continue
		}
		if r := pv.Spec.ClaimRef; r == nil || (r.Namespace == ns && r.Name == name) {
			return pv.Name
		}
	}
	return ""
}
