package actions

import (
	"context"
	"encoding/json"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// RestartedAtAnnotation is the pod template annotation `kubectl rollout
// restart` stamps with the current time (RFC 3339, second precision) so the
// template changes and the controller replaces every pod
// (k8s.io/kubectl/pkg/polymorphichelpers/objectrestarter.go).
const RestartedAtAnnotation = "kubectl.kubernetes.io/restartedAt"

// opPatch is a patch of an action: its type and body.
type opPatch struct {
	kind types.PatchType
	body []byte
}

// restartPatch is the strategic merge patch of a restart at resourceVersion
// rv: the one annotation kubectl's restarter sets, with rv as precondition.
func restartPatch(rv string, now time.Time) opPatch {
	body, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": rv},
		"spec": map[string]any{"template": map[string]any{"metadata": map[string]any{
			"annotations": map[string]string{RestartedAtAnnotation: now.Format(time.RFC3339)}}}},
	})
	return opPatch{types.StrategicMergePatchType, body}
}

// specFlagPatch is the strategic merge patch that sets the boolean
// spec.<field> to value at resourceVersion rv: a pause or resume
// (spec.paused), a suspend or unsuspend (spec.suspend).
func specFlagPatch(rv, field string, value bool) opPatch {
	body, _ := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": rv},
		"spec":     map[string]any{field: value},
	})
	return opPatch{types.StrategicMergePatchType, body}
}

// patchOp sends an action's patch to a workload or a CronJob and returns
// its resourceVersion after it. Errors are the API server's, unwrapped.
func (ac Actor) patchOp(ctx context.Context, ref vocab.ObjectRef, p opPatch) (string, error) {
	var obj metav1.Object
	var err error
	apps := ac.CS.AppsV1()
	switch ref.Kind {
	case vocab.KindDeployments:
		obj, err = apps.Deployments(ref.Namespace).Patch(ctx, ref.Name, p.kind, p.body, metav1.PatchOptions{})
	case vocab.KindStatefulSets:
		obj, err = apps.StatefulSets(ref.Namespace).Patch(ctx, ref.Name, p.kind, p.body, metav1.PatchOptions{})
	case vocab.KindDaemonSets:
		obj, err = apps.DaemonSets(ref.Namespace).Patch(ctx, ref.Name, p.kind, p.body, metav1.PatchOptions{})
	case vocab.KindCronJobs:
		obj, err = ac.CS.BatchV1().CronJobs(ref.Namespace).Patch(ctx, ref.Name, p.kind, p.body, metav1.PatchOptions{})
	default:
		_, err = objects.EditableResource(ref.Kind)
	}
	if err != nil {
		return "", err
	}
	return obj.GetResourceVersion(), nil
}

// updateScale writes spec.replicas through the workload's scale
// subresource (autoscaling/v1 Scale) at resourceVersion rv, as `kubectl
// scale --resource-version` does. Errors are the API server's.
func (ac Actor) updateScale(ctx context.Context, ref vocab.ObjectRef, rv string, replicas int32) (string, error) {
	s := &autoscalingv1.Scale{
		ObjectMeta: metav1.ObjectMeta{Name: ref.Name, Namespace: ref.Namespace, ResourceVersion: rv},
		Spec:       autoscalingv1.ScaleSpec{Replicas: replicas},
	}
	var got *autoscalingv1.Scale
	var err error
	switch ref.Kind {
	case vocab.KindDeployments:
		got, err = ac.CS.AppsV1().Deployments(ref.Namespace).UpdateScale(ctx, ref.Name, s, metav1.UpdateOptions{})
	case vocab.KindStatefulSets:
		got, err = ac.CS.AppsV1().StatefulSets(ref.Namespace).UpdateScale(ctx, ref.Name, s, metav1.UpdateOptions{})
	default:
		return "", apierrors.NewBadRequest(string(ref.Kind) + " have no scale subresource")
	}
	if err != nil {
		return "", err
	}
	return got.ResourceVersion, nil
}

// deleteOptions are a delete's options: a UID precondition (a workload's
// resourceVersion too), Background propagation, and a pod's grace period
// by kubectl delete's rules (0 without force becomes 1; force is 0).
func deleteOptions(op Operation, t opTarget) metav1.DeleteOptions {
	uid := t.meta.UID
	background := metav1.DeletePropagationBackground
	opts := metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}, PropagationPolicy: &background}
	if t.pod == nil {
		rv := t.meta.ResourceVersion
		opts.Preconditions.ResourceVersion = &rv
		return opts
	}
	switch g := op.GracePeriodSeconds; {
	case op.Force:
		zero := int64(0)
		opts.GracePeriodSeconds = &zero
	case g != nil && *g == 0:
		one := int64(1)
		opts.GracePeriodSeconds = &one
	case g != nil:
		v := *g
		opts.GracePeriodSeconds = &v
	}
	return opts
}

// deleteOp deletes op's object as read in t: a pod or a workload through
// the typed clients, an object of any other kind (info) through the
// metadata client (deleteMeta). Errors are the API server's.
func (ac Actor) deleteOp(ctx context.Context, op Operation, info vocab.KindInfo, t opTarget) error {
	ref, opts := op.Ref, deleteOptions(op, t)
	switch ref.Kind {
	case vocab.KindPods:
		return ac.CS.CoreV1().Pods(ref.Namespace).Delete(ctx, ref.Name, opts)
	case vocab.KindDeployments:
		return ac.CS.AppsV1().Deployments(ref.Namespace).Delete(ctx, ref.Name, opts)
	case vocab.KindStatefulSets:
		return ac.CS.AppsV1().StatefulSets(ref.Namespace).Delete(ctx, ref.Name, opts)
	case vocab.KindDaemonSets:
		return ac.CS.AppsV1().DaemonSets(ref.Namespace).Delete(ctx, ref.Name, opts)
	}
	return ac.deleteMeta(ctx, ref, info, opts)
}

// writeRetrying sends write against the fresh read t. A 409 is tried
// again, up to objects.StatusRaceRetries times, after one fresh read, only when
// that read shows the same UID and generation (the controller moved
// status between the guards' read and the write); any other 409 (someone
// wrote the object) is returned as it is: a conflict.
func (ac Actor) writeRetrying(ctx context.Context, op Operation, info vocab.KindInfo, t opTarget, write opWrite) (string, error) {
	for attempt := 0; ; attempt++ {
		rv, err := write(ctx, t)
		if err == nil || !apierrors.IsConflict(err) || attempt == objects.StatusRaceRetries {
			return rv, err
		}
		fresh, rerr := ac.readTarget(ctx, op.Ref, info)
		if rerr != nil {
			return "", rerr
		}
		if fresh.meta.UID != t.meta.UID || fresh.meta.Generation != t.meta.Generation {
			return "", err
		}
		t = fresh
	}
}
