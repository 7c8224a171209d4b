package release

// Pure parts of a deploy: what an existing claim may not become
// (claimChange), the object an update writes (forUpdate), and an object as
// the plan's diff shows it (diffView).

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// claimChange says how the planned claim differs from the existing one in
// what kyyard does not change on an existing claim, "" when it does not:
//   - spec.storageClassName, spec.accessModes and spec.volumeMode are
//     immutable once a claim is made (the API server refuses an update of
//     them: k8s.io/kubernetes pkg/apis/core/validation
//     ValidatePersistentVolumeClaimUpdate); an unset planned class or
//     volume mode takes whatever the claim has (the default class chosen
//     at creation);
//   - spec.resources.requests.storage may not shrink, and growing it
//     depends on the class allowing expansion: kyyard never writes an
//     existing claim, so a different size is refused too, naming what to
//     do instead.
func claimChange(existing, plan *corev1.PersistentVolumeClaim) string {
	var out []string
	if pc := plan.Spec.StorageClassName; pc != nil && *pc != "" {
		have := ""
		if existing.Spec.StorageClassName != nil {
			have = *existing.Spec.StorageClassName
		}
		if have != *pc {
			out = append(out, fmt.Sprintf("storage class %q, planned %q", have, *pc))
		}
	}
	if len(plan.Spec.AccessModes) > 0 && !sameModes(existing.Spec.AccessModes, plan.Spec.AccessModes) {
		out = append(out, fmt.Sprintf("access modes %s, planned %s", modesText(existing.Spec.AccessModes), modesText(plan.Spec.AccessModes)))
	}
	if pm, em := plan.Spec.VolumeMode, existing.Spec.VolumeMode; pm != nil && em != nil && *pm != *em {
		out = append(out, fmt.Sprintf("volume mode %s, planned %s", *em, *pm))
	}
	want, okWant := plan.Spec.Resources.Requests[corev1.ResourceStorage]
	have, okHave := existing.Spec.Resources.Requests[corev1.ResourceStorage]
	if okWant && okHave {
		switch cmp := want.Cmp(have); {
		case cmp < 0:
			out = append(out, fmt.Sprintf("size %s, planned %s: a claim never shrinks", have.String(), want.String()))
		case cmp > 0:
			out = append(out, fmt.Sprintf("size %s, planned %s: kyyard does not expand claims; expand it with kubectl if its class allows", have.String(), want.String()))
		}
	}
	return strings.Join(out, "; ")
}

// sameModes compares access mode lists as sets.
func sameModes(a, b []corev1.PersistentVolumeAccessMode) bool {
	return modesText(a) == modesText(b)
}

// modesText is the sorted, comma-joined access modes ("ReadWriteOnce").
func modesText(m []corev1.PersistentVolumeAccessMode) string {
	s := make([]string, 0, len(m))
	for _, x := range m {
		s = append(s, string(x))
	}
	sort.Strings(s)
	s = slices.Compact(s)
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ",")
}

// forUpdate is the object an update of existing to plan sends (a PUT with
// existing's resourceVersion): existing's metadata (name, UID,
// resourceVersion, other tools' labels and annotations) with plan's labels
// and annotations laid over it, and what kyyard renders replaced:
//   - Service: ports, selector and type (the cluster IPs the API server
//     allocated are kept);
//   - ConfigMap: data and binaryData;
//   - Secret: data (type kept: it is immutable);
//   - Deployment: the whole spec (the API server defaults what the render
//     leaves unset, as it did at creation).
//
// A claim is returned unchanged: kyyard never updates one (claimChange).
// nil for a pair of different kinds.
func forUpdate(existing, plan runtime.Object) runtime.Object {
	out := existing.DeepCopyObject()
	meta, pm := metaOf(out), metaOf(plan)
	if meta == nil || pm == nil || kindOf(existing) != kindOf(plan) {
		return nil
	}
	meta.SetLabels(overlay(meta.GetLabels(), pm.GetLabels()))
	meta.SetAnnotations(overlay(meta.GetAnnotations(), pm.GetAnnotations()))
	switch o := out.(type) {
	case *corev1.Service:
		p := plan.(*corev1.Service)
		o.Spec.Ports, o.Spec.Selector = p.Spec.Ports, p.Spec.Selector
		if p.Spec.Type != "" {
			o.Spec.Type = p.Spec.Type
		}
	case *corev1.ConfigMap:
		p := plan.(*corev1.ConfigMap)
		o.Data, o.BinaryData = p.Data, p.BinaryData
	case *corev1.Secret:
		p := plan.(*corev1.Secret)
		o.Data, o.StringData = p.Data, p.StringData
	case *appsv1.Deployment:
		o.Spec = plan.(*appsv1.Deployment).Spec
	}
	return out
}

// overlay returns base with top's entries laid over it (nil when both are
// empty).
func overlay(base, top map[string]string) map[string]string {
	if len(base) == 0 && len(top) == 0 {
		return nil
	}
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, top)
	return out
}

// diffView returns obj as the plan's diff shows it: without server-set
// metadata (managedFields, uid, resourceVersion, generation,
// creationTimestamp) and status, and a Secret's values as their sizes
// ("(12 bytes)"), never in clear; a value that differs from the same key
// in other (the object it is compared with, may be nil) but has its size
// reads "(12 bytes, changed)".
func diffView(obj, other runtime.Object) runtime.Object {
	out := obj.DeepCopyObject()
	meta := metaOf(out)
	meta.SetManagedFields(nil)
	meta.SetUID("")
	meta.SetResourceVersion("")
	meta.SetGeneration(0)
	meta.SetCreationTimestamp(metav1.Time{})
	switch o := out.(type) {
	case *corev1.Service:
		o.Status = corev1.ServiceStatus{}
	case *corev1.PersistentVolumeClaim:
		o.Status = corev1.PersistentVolumeClaimStatus{}
	case *appsv1.Deployment:
		o.Status = appsv1.DeploymentStatus{}
	case *corev1.Secret:
		var theirs map[string][]byte
		if s, ok := other.(*corev1.Secret); ok {
			theirs = secretValues(s)
		}
		mine := secretValues(o)
		o.Data, o.StringData = nil, map[string]string{}
		for k, v := range mine {
			text := fmt.Sprintf("(%d bytes)", len(v))
			if t, ok := theirs[k]; ok && len(t) == len(v) && string(t) != string(v) {
				text = fmt.Sprintf("(%d bytes, changed)", len(v))
			}
			o.StringData[k] = text
		}
	}
	return out
}

// secretValues merges a Secret's data and stringData (stringData wins, as
// the API server merges them).
func secretValues(s *corev1.Secret) map[string][]byte {
	out := map[string][]byte{}
	for k, v := range s.Data {
		out[k] = v
	}
	for k, v := range s.StringData {
		out[k] = []byte(v)
	}
	return out
}
