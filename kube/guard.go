package kube

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kyyard/kyyard/kube/internal/objects"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// accessTTL is how long an access review's answer is reused for the same
// verb, resource, subresource and namespace.
const accessTTL = 30 * time.Second

// accessCheck is one SelfSubjectAccessReview's question.
type accessCheck struct {
	verb, group, resource, subresource, namespace string
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
	answers map[accessCheck]accessAnswer
}

// policy returns the Client's guard policy (interactive when unset).
func (c *Client) policy() Policy {
	if c.opts.Policy == PolicyStrict {
		return PolicyStrict
	}
	return PolicyInteractive
}

// Policy returns the guard policy the Client runs its writes under.
func (c *Client) Policy() Policy { return c.policy() }

// ReadOnly reports whether the Client refuses every write (--readonly).
func (c *Client) ReadOnly() bool { return c.opts.ReadOnly }

// guardReadOnly refuses every write when the client is read-only: the
// first guard, run before any request.
func (c *Client) guardReadOnly() Verdict {
	if c.opts.ReadOnly {
		return Verdict{Guard: GuardReadOnly, Outcome: OutcomeRefuse, Reason: ReasonReadOnly, Sentence: "kyyard runs read-only"}
	}
	return Verdict{Guard: GuardReadOnly, Outcome: OutcomePass, Sentence: "writes are allowed"}
}

// guardAccess asks the API server whether the user may do a (a
// SelfSubjectAccessReview), reusing an answer younger than accessTTL.
// A review that cannot be made (the API server unreachable) refuses with
// the error's reason: kyyard never writes without knowing it may.
func (c *Client) guardAccess(ctx context.Context, a accessCheck) Verdict {
	what := a.verb + " " + a.resource
	if a.subresource != "" {
		what += "/" + a.subresource
	}
	if a.namespace != "" {
		what += " in " + a.namespace
	}
	c.access.mu.Lock()
	ans, ok := c.access.answers[a]
	c.access.mu.Unlock()
	if !ok || time.Since(ans.at) > accessTTL {
		review := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: a.verb, Group: a.group, Resource: a.resource,
				Subresource: a.subresource, Namespace: a.namespace},
		}}
		got, err := c.cs.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, review, metav1.CreateOptions{})
		if err != nil {
			return Verdict{Guard: GuardAccess, Outcome: OutcomeRefuse, Reason: ReasonOf(err),
				Sentence: "could not ask whether you may " + what + ": " + err.Error()}
		}
		ans = accessAnswer{allowed: got.Status.Allowed && !got.Status.Denied, reason: got.Status.Reason, at: time.Now()}
		c.access.mu.Lock()
		if c.access.answers == nil {
			c.access.answers = map[accessCheck]accessAnswer{}
		}
		c.access.answers[a] = ans
		c.access.mu.Unlock()
	}
	if !ans.allowed {
		s := "you may not " + what
		if ans.reason != "" {
			s += " (" + ans.reason + ")"
		}
		return Verdict{Guard: GuardAccess, Outcome: OutcomeRefuse, Reason: ReasonForbidden, Sentence: s}
	}
	return Verdict{Guard: GuardAccess, Outcome: OutcomePass, Sentence: "you may " + what}
}

// guardFresh compares the object read just now with what the person saw
// (before). A moved resourceVersion is a conflict when someone wrote the
// object: its metadata.generation moved (every write of a Deployment's,
// StatefulSet's or DaemonSet's spec raises it) or the form's picture of it
// differs. A resourceVersion moved by status alone (the controller
// reporting progress) is not: the apply then carries the fresh
// resourceVersion as its precondition, so a write after this read is still
// a conflict. A conflict's sentence names, by ConflictOf, each field the
// person changed (before → after) that the server changed too, with the
// server's value now and the person's, and whether the server's other
// changes touch the person's fields.
func guardFresh(before, after Workload, fresh objects.PodOwner) Verdict {
	name := string(before.Ref.Kind) + "/" + before.Ref.Name
	meta := fresh.Meta
	switch {
	case meta.DeletionTimestamp != nil:
		return Verdict{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict, Sentence: name + " is being deleted"}
	case string(meta.UID) != before.UID:
		return Verdict{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict,
			Sentence: name + " was deleted and created again since you read it (its UID changed)"}
	case meta.ResourceVersion == before.ResourceVersion:
		return Verdict{Guard: GuardFresh, Outcome: OutcomePass, Sentence: name + " is as you read it (resourceVersion " + before.ResourceVersion + ")"}
	case meta.Generation != before.Generation:
		return Verdict{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict,
			Sentence: fmt.Sprintf("%s was changed since you read it (generation %d is now %d): %s", name, before.Generation, meta.Generation,
				ConflictOf(before, after, toWorkload(before.Ref, fresh)).Text())}
	}
	now := toWorkload(before.Ref, fresh)
	if where := formDifference(now, before).where; where != "" {
		return Verdict{Guard: GuardFresh, Outcome: OutcomeRefuse, Reason: ReasonConflict,
			Sentence: fmt.Sprintf("%s was changed since you read it (%s): %s", name, where, ConflictOf(before, after, now).Text())}
	}
	return Verdict{Guard: GuardFresh, Outcome: OutcomePass,
		Sentence: fmt.Sprintf("%s is as you read it (generation %d; only its status moved)", name, meta.Generation)}
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
	tool, _ := managedBy(labels, annotations)
	return tool
}

// managedBy is ManagedBy's answer and whether the tool it names is
// kyyard's own deploy form (Verdict.KyyardManaged).
func managedBy(labels, annotations map[string]string) (tool string, kyyard bool) {
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

// guardManaged warns (strict: refuses) when another tool manages the
// object (casebook C32); the person confirms by typing the object's name.
func (c *Client) guardManaged(name string, labels, annotations map[string]string) Verdict {
	tool, kyyard := managedBy(labels, annotations)
	if tool == "" {
		return Verdict{Guard: GuardManaged, Outcome: OutcomePass, Sentence: "no other tool's markers"}
	}
	owner, _, _ := strings.Cut(tool, " (")
	return c.warn(Verdict{Guard: GuardManaged, Reason: ReasonApplicationManaged, Confirm: name, KyyardManaged: kyyard,
		Sentence: "managed by " + tool + ": " + owner + " may undo this on its next sync"})
}

// warn returns v as a warning under the interactive policy and a refusal
// under the strict one.
func (c *Client) warn(v Verdict) Verdict {
	v.Outcome = OutcomeWarn
	if c.policy() == PolicyStrict {
		v.Outcome, v.Confirm = OutcomeRefuse, ""
	}
	return v
}

// Pod Security Admission's namespace label and levels
// (k8s.io/pod-security-admission/api).
const (
	podSecurityEnforceLabel = "pod-security.kubernetes.io/enforce"
	podSecurityBaseline     = "baseline"
	podSecurityRestricted   = "restricted"
)

// guardPodSecurity reads the namespace's Pod Security enforce level: the
// pods a write creates are checked only when it is baseline or restricted.
// Otherwise (privileged, no label, or the namespace cannot be read) it
// warns; strict refuses.
func (c *Client) guardPodSecurity(ctx context.Context, namespace string) Verdict {
	ns, err := c.cs.CoreV1().Namespaces().Get(ctx, namespace, metav1.GetOptions{})
	if err != nil {
		return c.warn(Verdict{Guard: GuardPodSecurity, Reason: ReasonPodSecurity,
			Sentence: "the Pod Security level of namespace " + namespace + " cannot be read (" + string(ReasonOf(err)) + ")"})
	}
	switch level := ns.Labels[podSecurityEnforceLabel]; level {
	case podSecurityBaseline, podSecurityRestricted:
		return Verdict{Guard: GuardPodSecurity, Outcome: OutcomePass, Sentence: "namespace " + namespace + " enforces Pod Security " + level}
	case "":
		return c.warn(Verdict{Guard: GuardPodSecurity, Reason: ReasonPodSecurity,
			Sentence: "namespace " + namespace + " enforces no Pod Security level: the pods this creates are not checked"})
	default:
		return c.warn(Verdict{Guard: GuardPodSecurity, Reason: ReasonPodSecurity,
			Sentence: "namespace " + namespace + " enforces Pod Security " + level + ": the pods this creates are not checked"})
	}
}

// guardClaims warns (strict: refuses) when a StatefulSet scaled from
// `from` to `to` replicas deletes claims: with
// persistentVolumeClaimRetentionPolicy.whenScaled: Delete, the controller
// deletes the claims `<template>-<name>-<ordinal>` of the ordinals removed
// (casebook C30). The claims that exist are named; the person confirms by
// typing the StatefulSet's name.
func (c *Client) guardClaims(ctx context.Context, wo objects.PodOwner, from, to int32) Verdict {
	sts := wo.StatefulSet
	pass := Verdict{Guard: GuardClaims, Outcome: OutcomePass, Sentence: "no volume claims are deleted"}
	if sts == nil || to >= from || len(sts.Spec.VolumeClaimTemplates) == 0 {
		return pass
	}
	policy := sts.Spec.PersistentVolumeClaimRetentionPolicy
	if policy == nil || policy.WhenScaled != "Delete" {
		return pass
	}
	names, err := c.claimsOf(ctx, sts, func(ordinal int) bool { return ordinal >= int(to) && ordinal < int(from) })
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
	return c.warn(Verdict{Guard: GuardClaims, Reason: ReasonPVCRetention, Confirm: sts.Name,
		Sentence: fmt.Sprintf("scaling %s from %d to %d deletes the claims %s and their data (whenScaled: Delete)",
			sts.Name, from, to, strings.Join(names, ", "))})
}

// guardClaimsDeleted warns (strict: refuses) when deleting a StatefulSet
// deletes its claims: with persistentVolumeClaimRetentionPolicy.whenDeleted:
// Delete, the StatefulSet owns the claims `<template>-<name>-<ordinal>` and
// the garbage collector deletes them with it. The claims that exist are
// named (every ordinal, including those above the replicas); the person
// confirms by typing the StatefulSet's name. A list that fails warns
// without names.
func (c *Client) guardClaimsDeleted(ctx context.Context, wo objects.PodOwner) Verdict {
	sts := wo.StatefulSet
	pass := Verdict{Guard: GuardClaims, Outcome: OutcomePass, Sentence: "no volume claims are deleted"}
	if sts == nil || len(sts.Spec.VolumeClaimTemplates) == 0 {
		return pass
	}
	policy := sts.Spec.PersistentVolumeClaimRetentionPolicy
	if policy == nil || policy.WhenDeleted != "Delete" {
		return pass
	}
	names, err := c.claimsOf(ctx, sts, func(int) bool { return true })
	if err != nil {
		return c.warn(Verdict{Guard: GuardClaims, Reason: ReasonPVCRetention, Confirm: sts.Name,
			Sentence: fmt.Sprintf("deleting %s deletes its volume claims and their data (whenDeleted: Delete); they cannot be listed (%s)",
				sts.Name, ReasonOf(err))})
	}
	if len(names) == 0 {
		return pass
	}
	return c.warn(Verdict{Guard: GuardClaims, Reason: ReasonPVCRetention, Confirm: sts.Name,
		Sentence: fmt.Sprintf("deleting %s deletes the claims %s and their data (whenDeleted: Delete)",
			sts.Name, strings.Join(names, ", "))})
}

// claimsOf lists the namespace's PersistentVolumeClaims and returns, sorted,
// the names `<template>-<sts>-<ordinal>` of sts's claim templates whose
// ordinal match accepts.
func (c *Client) claimsOf(ctx context.Context, sts *appsv1.StatefulSet, match func(ordinal int) bool) ([]string, error) {
	list, err := c.cs.CoreV1().PersistentVolumeClaims(sts.Namespace).List(ctx, metav1.ListOptions{})
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

// guardSecretRefs warns (strict: refuses) when after references Secrets
// that the pod template did not reference before (in env, envFrom,
// volumes or imagePullSecrets): the change lets the pods read them.
func (c *Client) guardSecretRefs(template *corev1.PodTemplateSpec, after Workload) Verdict {
	had := secretsReferenced(&template.Spec)
	var added []string
	for _, ct := range after.Containers {
		for _, e := range ct.Env {
			if e.Source == EnvSecret && !had[e.Ref] {
				had[e.Ref] = true
				added = append(added, e.Ref)
			}
		}
	}
	if len(added) == 0 {
		return Verdict{Guard: GuardSecretRef, Outcome: OutcomePass, Sentence: "no new Secret references"}
	}
	sort.Strings(added)
	return c.warn(Verdict{Guard: GuardSecretRef, Reason: ReasonSecretRefRefused,
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

// guardAutoscaler warns (strict: refuses) when a replicas change meets a
// HorizontalPodAutoscaler targeting the workload (casebook C29).
func (c *Client) guardAutoscaler(ctx context.Context, ref WorkloadRef) Verdict {
	hpa, err := c.autoscalerOf(ctx, ref)
	switch {
	case err != nil:
		return c.warn(Verdict{Guard: GuardAutoscaler, Reason: ReasonAutoscaled,
			Sentence: "whether a HorizontalPodAutoscaler targets " + ref.Name + " cannot be read (" + string(ReasonOf(err)) + ")"})
	case hpa != "":
		return c.warn(Verdict{Guard: GuardAutoscaler, Reason: ReasonAutoscaled,
			Sentence: "HorizontalPodAutoscaler " + hpa + " targets " + ref.Name + " and will set its replicas back"})
	}
	return Verdict{Guard: GuardAutoscaler, Outcome: OutcomePass, Sentence: "no HorizontalPodAutoscaler targets " + ref.Name}
}

// guardBounds refuses a change to what the read could not show whole
// (Workload.Unsupported): an env list or argv past the form's bounds.
func guardBounds(before Workload, changes []Change) Verdict {
	for _, u := range before.Unsupported {
		for _, ch := range changes {
			if ch.Container != u.Container || u.Container == "" {
				continue
			}
			touched := (u.Code == UnsupportedEnvTruncated && strings.HasPrefix(ch.Field, "env ")) ||
				(u.Code == UnsupportedArgvTruncated && (ch.Field == "command" || ch.Field == "args"))
			if touched {
				return Verdict{Guard: GuardBounds, Outcome: OutcomeRefuse, Reason: ReasonConfigurationUnreported,
					Sentence: "container " + u.Container + ": " + u.Detail}
			}
		}
	}
	return Verdict{Guard: GuardBounds, Outcome: OutcomePass, Sentence: "the form showed every field it changes"}
}
