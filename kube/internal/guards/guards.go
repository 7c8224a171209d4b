package guards

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/client-go/kubernetes"
)

// Checker asks the guards' questions of one API server under one policy:
// the access reviews (SelfSubjectAccessReview, answers reused for
// accessTTL), the reads of the objects a write touches (Namespace,
// PersistentVolumeClaims, HorizontalPodAutoscalers), and whether a warning
// asks for a confirmation (interactive) or refuses (strict). It is safe for
// concurrent use. Make one with New.
type Checker struct {
	cs       kubernetes.Interface
	policy   vocab.Policy
	readOnly bool
	access   accessCache
}

// New returns a Checker that asks cs, under policy (interactive unless
// PolicyStrict), refusing every write when readOnly (--readonly).
func New(cs kubernetes.Interface, policy vocab.Policy, readOnly bool) *Checker {
	if policy != vocab.PolicyStrict {
		policy = vocab.PolicyInteractive
	}
	return &Checker{cs: cs, policy: policy, readOnly: readOnly}
}

// Forget drops the cached answer to a, so the next Access asks again
// (after a write that changes what the user may do, such as a namespace
// created).
func (g *Checker) Forget(a AccessCheck) {
	g.access.mu.Lock()
	delete(g.access.answers, a)
	g.access.mu.Unlock()
}

// accessTTL is how long an access review's answer is reused for the same
// verb, resource, subresource and namespace.
const accessTTL = 30 * time.Second

// AccessCheck is one SelfSubjectAccessReview's question.
type AccessCheck struct {
	Verb        string
	Group       string
	Resource    string
	Subresource string
	Namespace   string
}

// accessAnswer is a cached review answer.
type accessAnswer struct {
	allowed bool
	reason  string
	at      time.Time
}

// accessCache holds review answers for accessTTL.
type accessCache struct {
	mu      sync.Mutex
	answers map[AccessCheck]accessAnswer
}

// readOnlyVerdict refuses every write when the client is read-only: the
// first guard, run before any request.
func (g *Checker) readOnlyVerdict() vocab.Verdict {
	if g.readOnly {
		return vocab.Verdict{Guard: vocab.GuardReadOnly, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonReadOnly, Sentence: "kyyard runs read-only"}
	}
	return vocab.Verdict{Guard: vocab.GuardReadOnly, Outcome: vocab.OutcomePass, Sentence: "writes are allowed"}
}

// Access asks the API server whether the user may do a (a
// SelfSubjectAccessReview), reusing an answer younger than accessTTL.
// A review that cannot be made (the API server unreachable) refuses with
// the error's reason: kyyard never writes without knowing it may.
func (g *Checker) Access(ctx context.Context, a AccessCheck) vocab.Verdict {
	what := a.Verb + " " + a.Resource
	if a.Subresource != "" {
		what += "/" + a.Subresource
	}
	if a.Namespace != "" {
		what += " in " + a.Namespace
	}
	g.access.mu.Lock()
	ans, ok := g.access.answers[a]
	g.access.mu.Unlock()
	if !ok || time.Since(ans.at) > accessTTL {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: a.Verb, Group: a.Group, Resource: a.Resource,
				Subresource: a.Subresource, Namespace: a.Namespace},
		}}
		got, err := g.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return vocab.Verdict{Guard: vocab.GuardAccess, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonOf(err),
				Sentence: "could not ask whether you may " + what + ": " + err.Error()}
		}
		ans = accessAnswer{allowed: got.Status.Allowed && !got.Status.Denied, reason: got.Status.Reason, at: time.Now()}
		g.access.mu.Lock()
		if g.access.answers == nil {
			g.access.answers = map[AccessCheck]accessAnswer{}
		}
		g.access.answers[a] = ans
		g.access.mu.Unlock()
	}
	if !ans.allowed {
		s := "you may not " + what
		if ans.reason != "" {
			s += " (" + ans.reason + ")"
		}
		return vocab.Verdict{Guard: vocab.GuardAccess, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonForbidden, Sentence: s}
	}
	return vocab.Verdict{Guard: vocab.GuardAccess, Outcome: vocab.OutcomePass, Sentence: "you may " + what}
}

// ManagedBy names the tool that manages an object from its labels and
// annotations, and "" when none does: Helm (label
// app.kubernetes.io/managed-by: Helm, or annotation
// meta.helm.sh/release-name), Argo CD (annotation
// argocd.argoproj.io/tracking-id, or its legacy label
// argocd.argoproj.io/instance), Flux (labels kustomize.toolkit.fluxcd.io/name
// or helm.toolkit.fluxcd.io/name) and kyyard's own deploy form
// (app.kubernetes.io/managed-by: kyyard). The text names the release or
// application when the markers say it ("Helm (release shop)").
func ManagedBy(labels, annotations map[string]string) string {
	tool, _ := ManagedByTool(labels, annotations)
	return tool
}

// ManagedByTool is ManagedBy's answer and whether the tool it names is
// kyyard's own deploy form (Verdict.KyyardManaged).
func ManagedByTool(labels, annotations map[string]string) (tool string, kyyard bool) {
	with := func(tool, what, name string) string {
		if name == "" {
			return tool
		}
		return tool + " (" + what + " " + name + ")"
	}
	switch {
	case labels["app.kubernetes.io/managed-by"] == "Helm" || annotations["meta.helm.sh/release-name"] != "":
		return with("Helm", "release", annotations["meta.helm.sh/release-name"]), false
	case annotations["argocd.argoproj.io/tracking-id"] != "":
		app, _, _ := strings.Cut(annotations["argocd.argoproj.io/tracking-id"], ":")
		return with("Argo CD", "application", app), false
	case labels["argocd.argoproj.io/instance"] != "":
		return with("Argo CD", "application", labels["argocd.argoproj.io/instance"]), false
	case labels["kustomize.toolkit.fluxcd.io/name"] != "":
		return with("Flux", "kustomization", labels["kustomize.toolkit.fluxcd.io/name"]), false
	case labels["helm.toolkit.fluxcd.io/name"] != "":
		return with("Flux", "helm release", labels["helm.toolkit.fluxcd.io/name"]), false
	case labels["app.kubernetes.io/managed-by"] == "kyyard":
		return with("kyyard's deploy form", "instance", labels["app.kubernetes.io/instance"]), true
	}
	return "", false
}

// Managed warns (strict: refuses) when another tool manages the
// object (casebook C32); the person confirms by typing the object's name.
func (g *Checker) Managed(name string, labels, annotations map[string]string) vocab.Verdict {
	tool, kyyard := ManagedByTool(labels, annotations)
	if tool == "" {
		return vocab.Verdict{Guard: vocab.GuardManaged, Outcome: vocab.OutcomePass, Sentence: "no other tool's markers"}
	}
	owner, _, _ := strings.Cut(tool, " (")
	return g.Warn(vocab.Verdict{Guard: vocab.GuardManaged, Reason: vocab.ReasonApplicationManaged, Confirm: name, KyyardManaged: kyyard,
		Sentence: "managed by " + tool + ": " + owner + " may undo this on its next sync"})
}

// Warn returns v as a warning under the interactive policy and a refusal
// under the strict one.
func (g *Checker) Warn(v vocab.Verdict) vocab.Verdict {
	v.Outcome = vocab.OutcomeWarn
	if g.policy == vocab.PolicyStrict {
		v.Outcome, v.Confirm = vocab.OutcomeRefuse, ""
	}
	return v
}

// Pod Security Admission's namespace label and levels
// (k8s.io/pod-security-admission/api).
const (
	PodSecurityEnforceLabel = "pod-security.kubernetes.io/enforce"
	PodSecurityBaseline     = "baseline"
	PodSecurityRestricted   = "restricted"
)

// NamespaceLabels reads a namespace's labels, among them its Pod Security
// enforce level (PodSecurityEnforceLabel: "baseline", "restricted",
// "privileged"; absent when unset) and its version labels. One get of the
// Namespace. Errors: the get's, unwrapped (forbidden, not found,
// unavailable).
func (g *Checker) NamespaceLabels(ctx context.Context, namespace string) (map[string]string, error) {
	ns, err := g.cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	return ns.Labels, nil
}

// PodSecurity reads the namespace's Pod Security enforce level
// (NamespaceLabels) and judges it (PodSecurityOf).
func (g *Checker) PodSecurity(ctx context.Context, namespace string) vocab.Verdict {
	labels, err := g.NamespaceLabels(ctx, namespace)
	return g.PodSecurityOf(namespace, labels[PodSecurityEnforceLabel], err)
}

// PodSecurityOf is the Pod Security guard's verdict on a namespace whose
// enforce level NamespaceLabels read as level, or failed to read with err:
// the pods a write creates are checked only when it is baseline or
// restricted. Otherwise (privileged, no label, or the namespace cannot be
// read) it warns; strict refuses.
func (g *Checker) PodSecurityOf(namespace, level string, err error) vocab.Verdict {
	if err != nil {
		return g.Warn(vocab.Verdict{Guard: vocab.GuardPodSecurity, Reason: vocab.ReasonPodSecurity,
			Sentence: "the Pod Security level of namespace " + namespace + " cannot be read (" + string(vocab.ReasonOf(err)) + ")"})
	}
	switch level {
	case PodSecurityBaseline, PodSecurityRestricted:
		return vocab.Verdict{Guard: vocab.GuardPodSecurity, Outcome: vocab.OutcomePass, Sentence: "namespace " + namespace + " enforces Pod Security " + level}
	case "":
		return g.Warn(vocab.Verdict{Guard: vocab.GuardPodSecurity, Reason: vocab.ReasonPodSecurity,
			Sentence: "namespace " + namespace + " enforces no Pod Security level: the pods this creates are not checked"})
	default:
		return g.Warn(vocab.Verdict{Guard: vocab.GuardPodSecurity, Reason: vocab.ReasonPodSecurity,
			Sentence: "namespace " + namespace + " enforces Pod Security " + level + ": the pods this creates are not checked"})
	}
}

// Claims warns (strict: refuses) when a StatefulSet scaled from
// `from` to `to` replicas deletes claims: with
// persistentVolumeClaimRetentionPolicy.whenScaled: Delete, the controller
// deletes the claims `<template>-<name>-<ordinal>` of the ordinals removed
// (casebook C30). The claims that exist are named; the person confirms by
// typing the StatefulSet's name.
func (g *Checker) Claims(ctx context.Context, wo objects.PodOwner, from, to int32) vocab.Verdict {
	sts := wo.StatefulSet
	pass := vocab.Verdict{Guard: vocab.GuardClaims, Outcome: vocab.OutcomePass, Sentence: "no volume claims are deleted"}
	if sts == nil || to >= from || len(sts.Spec.VolumeClaimTemplates) == 0 {
		return pass
	}
	policy := sts.Spec.PersistentVolumeClaimRetentionPolicy
	if policy == nil || policy.WhenScaled != "Delete" {
		return pass
	}
	names, err := g.claimsOf(ctx, sts, func(ordinal int) bool { return ordinal >= int(to) && ordinal < int(from) })
	if err != nil {
		// Unlisted: name every claim the ordinals removed would have.
		names = nil
		for _, t := range sts.Spec.VolumeClaimTemplates {
			for i := to; i < from; i++ {
				names = append(names, fmt.Sprintf("%s-%s-%d", t.Name, sts.Name, i))
			}
		}
	}
	if len(names) == 0 {
		return pass
	}
	sort.Strings(names)
	return g.Warn(vocab.Verdict{Guard: vocab.GuardClaims, Reason: vocab.ReasonPVCRetention, Confirm: sts.Name,
		Sentence: fmt.Sprintf("scaling %s from %d to %d deletes the claims %s and their data (whenScaled: Delete)",
			sts.Name, from, to, strings.Join(names, ", "))})
}

// ClaimsDeleted warns (strict: refuses) when deleting a StatefulSet
// deletes its claims: with persistentVolumeClaimRetentionPolicy.whenDeleted:
// Delete, the StatefulSet owns the claims `<template>-<name>-<ordinal>` and
// the garbage collector deletes them with it. The claims that exist are
// named (every ordinal, including those above the replicas); the person
// confirms by typing the StatefulSet's name. A list that fails warns
// without names.
func (g *Checker) ClaimsDeleted(ctx context.Context, wo objects.PodOwner) vocab.Verdict {
	sts := wo.StatefulSet
	pass := vocab.Verdict{Guard: vocab.GuardClaims, Outcome: vocab.OutcomePass, Sentence: "no volume claims are deleted"}
	if sts == nil || len(sts.Spec.VolumeClaimTemplates) == 0 {
		return pass
	}
	policy := sts.Spec.PersistentVolumeClaimRetentionPolicy
	if policy == nil || policy.WhenDeleted != "Delete" {
		return pass
	}
	names, err := g.claimsOf(ctx, sts, func(int) bool { return true })
	if err != nil {
		return g.Warn(vocab.Verdict{Guard: vocab.GuardClaims, Reason: vocab.ReasonPVCRetention, Confirm: sts.Name,
			Sentence: fmt.Sprintf("deleting %s deletes its volume claims and their data (whenDeleted: Delete); they cannot be listed (%s)",
				sts.Name, vocab.ReasonOf(err))})
	}
	if len(names) == 0 {
		return pass
	}
	return g.Warn(vocab.Verdict{Guard: vocab.GuardClaims, Reason: vocab.ReasonPVCRetention, Confirm: sts.Name,
		Sentence: fmt.Sprintf("deleting %s deletes the claims %s and their data (whenDeleted: Delete)",
			sts.Name, strings.Join(names, ", "))})
}

// claimsOf lists the namespace's PersistentVolumeClaims and returns, sorted,
// the names `<template>-<sts>-<ordinal>` of sts's claim templates whose
// ordinal match accepts.
func (g *Checker) claimsOf(ctx context.Context, sts *appsv1.StatefulSet, match func(ordinal int) bool) ([]string, error) {
	list, err := g.cs.CoreV1().PersistentVolumeClaims(sts.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var names []string
	for _, pvc := range list.Items {
		for _, t := range sts.Spec.VolumeClaimTemplates {
			rest, ok := strings.CutPrefix(pvc.Name, t.Name+"-"+sts.Name+"-")
			if n, err := strconv.Atoi(rest); ok && err == nil && strconv.Itoa(n) == rest && match(n) {
				names = append(names, pvc.Name)
				break
			}
		}
	}
	sort.Strings(names)
	return names, nil
}

// SecretRefs warns (strict: refuses) when after references Secrets
// that the pod template did not reference before (in env, envFrom,
// volumes or imagePullSecrets): the change lets the pods read them.
func (g *Checker) SecretRefs(template *corev1.PodTemplateSpec, after vocab.Workload) vocab.Verdict {
	had := secretsReferenced(&template.Spec)
	var added []string
	for _, ct := range after.Containers {
		for _, e := range ct.Env {
			if e.Source == vocab.EnvSecret && !had[e.Ref] {
				had[e.Ref] = true
				added = append(added, e.Ref)
			}
		}
	}
	if len(added) == 0 {
		return vocab.Verdict{Guard: vocab.GuardSecretRef, Outcome: vocab.OutcomePass, Sentence: "no new Secret references"}
	}
	sort.Strings(added)
	return g.Warn(vocab.Verdict{Guard: vocab.GuardSecretRef, Reason: vocab.ReasonSecretRefRefused,
		Sentence: "the pods will read Secret " + strings.Join(added, ", ") + ", which they did not reference before"})
}

// secretsReferenced returns the names of the Secrets a pod spec references.
func secretsReferenced(spec *corev1.PodSpec) map[string]bool {
	out := map[string]bool{}
	for _, s := range spec.ImagePullSecrets {
		out[s.Name] = true
	}
	for _, v := range spec.Volumes {
		if v.Secret != nil {
			out[v.Secret.SecretName] = true
		}
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.Secret != nil {
					out[src.Secret.Name] = true
				}
			}
		}
	}
	for _, list := range [][]corev1.Container{spec.InitContainers, spec.Containers} {
		for _, ct := range list {
			for _, e := range ct.Env {
				if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
					out[e.ValueFrom.SecretKeyRef.Name] = true
				}
			}
			for _, f := range ct.EnvFrom {
				if f.SecretRef != nil {
					out[f.SecretRef.Name] = true
				}
			}
		}
	}
	return out
}

// Autoscaler warns (strict: refuses) when a replicas change meets a
// HorizontalPodAutoscaler targeting the workload (casebook C29).
func (g *Checker) Autoscaler(ctx context.Context, ref vocab.WorkloadRef) vocab.Verdict {
	hpa, err := objects.AutoscalerOf(ctx, g.cs, ref)
	switch {
	case err != nil:
		return g.Warn(vocab.Verdict{Guard: vocab.GuardAutoscaler, Reason: vocab.ReasonAutoscaled,
			Sentence: "whether a HorizontalPodAutoscaler targets " + ref.Name + " cannot be read (" + string(vocab.ReasonOf(err)) + ")"})
	case hpa != "":
		return g.Warn(vocab.Verdict{Guard: vocab.GuardAutoscaler, Reason: vocab.ReasonAutoscaled,
			Sentence: "HorizontalPodAutoscaler " + hpa + " targets " + ref.Name + " and will set its replicas back"})
	}
	return vocab.Verdict{Guard: vocab.GuardAutoscaler, Outcome: vocab.OutcomePass, Sentence: "no HorizontalPodAutoscaler targets " + ref.Name}
}

// Bounds refuses a change to what the read could not show whole
// (Workload.Unsupported): an env list or argv past the form's bounds.
func Bounds(before vocab.Workload, changes []vocab.Change) vocab.Verdict {
	for _, u := range before.Unsupported {
		for _, ch := range changes {
			if ch.Container != u.Container || u.Container == "" {
				continue
			}
			touched := (u.Code == vocab.UnsupportedEnvTruncated && strings.HasPrefix(ch.Field, "env ")) ||
				(u.Code == vocab.UnsupportedArgvTruncated && (ch.Field == "command" || ch.Field == "args"))
			if touched {
				return vocab.Verdict{Guard: vocab.GuardBounds, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConfigurationUnreported,
					Sentence: "container " + u.Container + ": " + u.Detail}
			}
		}
	}
	return vocab.Verdict{Guard: vocab.GuardBounds, Outcome: vocab.OutcomePass, Sentence: "the form showed every field it changes"}
}

// WriteRefusal classifies an error the API server answered a write with:
// a *Refusal is returned as it is; otherwise the API server's message
// (its Status message when it sent one) with ReasonOf's reason, or
// ReasonAdmissionDenied when an admission webhook or policy denied the
// request.
func WriteRefusal(err error) *vocab.Refusal {
	var r *vocab.Refusal
	if errors.As(err, &r) {
		return r
	}
	msg := err.Error()
	if status, ok := err.(apierrors.APIStatus); ok && status.Status().Message != "" {
		msg = status.Status().Message
	}
	reason := vocab.ReasonOf(err)
	if strings.Contains(msg, "admission webhook") || strings.Contains(msg, "denied request") ||
		strings.Contains(msg, "denied the request") {
		reason = vocab.ReasonAdmissionDenied
	}
	return &vocab.Refusal{Reason: reason, Detail: msg}
}
