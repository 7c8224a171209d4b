package actions

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// undoSkippedAnnotations are the Deployment annotations a rollback keeps
// from the Deployment rather than copying from the ReplicaSet
// (annotationsToSkip of k8s.io/kubectl/pkg/polymorphichelpers/rollback.go).
var undoSkippedAnnotations = map[string]bool{
	corev1.LastAppliedConfigAnnotation:          true,
	objects.RevisionAnnotation:                  true,
	"deployment.kubernetes.io/revision-history": true,
	"deployment.kubernetes.io/desired-replicas": true,
	"deployment.kubernetes.io/max-replicas":     true,
	appsv1.DeprecatedRollbackTo:                 true,
}

// previousRevision returns the ReplicaSet of the second-highest
// deployment.kubernetes.io/revision among owned (a ReplicaSet without a
// parsable revision is skipped) and that revision, as kubectl's
// deploymentRevision does for toRevision 0; nil when there is none.
func previousRevision(owned []*appsv1.ReplicaSet) (*appsv1.ReplicaSet, int64) {
	var latest, previous *appsv1.ReplicaSet
	latestRev, previousRev := int64(-1), int64(-1)
	for _, rs := range owned {
		v, err := strconv.ParseInt(rs.Annotations[objects.RevisionAnnotation], 10, 64)
		if err != nil {
			continue
		}
		if latestRev < v {
			previous, previousRev = latest, latestRev
			latest, latestRev = rs, v
		} else if previousRev < v {
			previous, previousRev = rs, v
		}
	}
	return previous, previousRev
}

// undoPatch is kubectl's rollback of d to rs: a JSON patch replacing
// /spec/template with rs's template minus its pod-template-hash label,
// and /metadata/annotations with rs's annotations (but for
// undoSkippedAnnotations, which keep d's values), preceded by a replace
// of /metadata/resourceVersion with rv: the precondition kubectl does not
// send. skip is kubectl's "skipped rollback" sentence when d's template
// already matches rs's (no write).
func undoPatch(d *appsv1.Deployment, rs *appsv1.ReplicaSet, rev int64, rv string) (p opPatch, skip string) {
	tmpl := rs.Spec.Template.DeepCopy()
	delete(tmpl.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	current := d.Spec.Template.DeepCopy()
	delete(current.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	if apiequality.Semantic.DeepEqual(tmpl, current) {
		return opPatch{}, fmt.Sprintf("skipped rollback (current template already matches revision %d)", rev)
	}
	annotations := map[string]string{}
	for k := range undoSkippedAnnotations {
		if v, ok := d.Annotations[k]; ok {
			annotations[k] = v
		}
	}
	for k, v := range rs.Annotations {
		if !undoSkippedAnnotations[k] {
			annotations[k] = v
		}
	}
	body, _ := json.Marshal([]any{
		map[string]any{"op": "replace", "path": "/metadata/resourceVersion", "value": rv},
		map[string]any{"op": "replace", "path": "/spec/template", "value": tmpl},
		map[string]any{"op": "replace", "path": "/metadata/annotations", "value": annotations},
	})
	return opPatch{types.JSONPatchType, body}, ""
}

// ownedReplicaSets lists the ReplicaSets d's selector selects that d
// controls (kubectl's deploymentutil.GetAllReplicaSets).
func (ac Actor) ownedReplicaSets(ctx context.Context, d *appsv1.Deployment) ([]*appsv1.ReplicaSet, error) {
	sel, err := objects.SelectorOf(d.Spec.Selector)
	if err != nil {
		return nil, err
	}
	list, err := ac.CS.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return nil, err
	}
	var owned []*appsv1.ReplicaSet
	for i := range list.Items {
		if metav1.IsControlledBy(&list.Items[i], d) {
			owned = append(owned, &list.Items[i])
		}
	}
	return owned, nil
}

// prepareUndo checks an undo's rules on the fresh read (kubectl's order:
// a previous revision exists, the Deployment is not paused, its template
// differs), returning their GuardAction verdicts, and sets p's write.
// Errors: the ReplicaSets cannot be listed.
func (ac Actor) prepareUndo(ctx context.Context, op Operation, p *operationPlan, paused bool) (vocab.Verdicts, error) {
	var ruled vocab.Verdicts
	rule := func(v vocab.Verdict) { v.Guard = vocab.GuardAction; ruled = append(ruled, v) }
	d, _ := p.target.wo.Object.(*appsv1.Deployment)
	owned, err := ac.ownedReplicaSets(ctx, d)
	if err != nil {
		return ruled, err
	}
	rs, rev := previousRevision(owned)
	switch {
	case rs == nil:
		rule(vocab.Verdict{Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotFound,
			Sentence: fmt.Sprintf("no rollout history found for deployment %q", d.Name)})
		return ruled, nil
	case paused:
		rule(vocab.Verdict{Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonPaused,
			Sentence: "you cannot rollback a paused deployment; resume it first with 'kubectl rollout resume' and try again"})
		return ruled, nil
	}
	if _, skip := undoPatch(d, rs, rev, d.ResourceVersion); skip != "" {
		p.noop = skip
		return ruled, nil
	}
	rule(vocab.Verdict{Outcome: vocab.OutcomePass, Sentence: fmt.Sprintf("rolls back to revision %d (ReplicaSet %s)", rev, rs.Name)})
	p.write = func(ctx context.Context, t opTarget) (string, error) {
		fresh, _ := t.wo.Object.(*appsv1.Deployment)
		patch, skip := undoPatch(fresh, rs, rev, fresh.ResourceVersion)
		if skip != "" {
			return fresh.ResourceVersion, nil
		}
		return ac.patchOp(ctx, op.Ref, patch)
	}
	p.done = fmt.Sprintf("rolled back %s to revision %d", op.Ref, rev)
	return ruled, nil
}
