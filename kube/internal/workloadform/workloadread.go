package workloadform

import (
	"context"
	"fmt"
	"sort"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
)

// Form reads, previews and writes the workloads the workload form edits
// (Deployments, StatefulSets and DaemonSets), and finds the workload a
// ReplicaSet or Pod row stands for. It holds what it needs as plain inputs;
// package kube's Client builds one from its own and delegates ReadWorkload,
// DryRun, ApplyWorkload and WorkloadOf to it. Every field must be set.
type Form struct {
	// CS is the clientset every read and the patch are made with.
	CS kubernetes.Interface
	// Guards runs an apply's guards (guards.Checker.Run): the access
	// review, Pod Security, another tool's markers, claims, autoscaler and
	// Secret references, under the Client's policy and read-only mode.
	Guards *guards.Checker
	// KindInfo resolves a plugin id or alias to its kind's facts (an
	// unknown kind: a KindInfo with only ID set); WorkloadOf reads its
	// Capabilities.
	KindInfo func(vocab.Kind) vocab.KindInfo
}

// ReadWorkload reads the editable part of a Deployment, StatefulSet or
// DaemonSet in two requests: a get of the object and a list of the
// namespace's HorizontalPodAutoscalers (autoscaling/v2), to name one whose
// scaleTargetRef is the workload (a DaemonSet has no replicas, so no
// list). A list of autoscalers that is forbidden or fails leaves Autoscaler
// empty: the autoscaler guard reads it again before any replicas change and
// says what it could not read. Errors: a kind the form does not edit,
// and the get's error (classify with vocab.ReasonOf: not_found, forbidden, ...).
func (f Form) ReadWorkload(ctx context.Context, ref vocab.WorkloadRef) (vocab.Workload, error) {
	wo, err := objects.ReadEditable(ctx, f.CS, ref)
	if err != nil {
		return vocab.Workload{}, err
	}
	w := toWorkload(ref, wo)
	if w.HasReplicas {
		w.Autoscaler, _ = objects.AutoscalerOf(ctx, f.CS, ref)
	}
	return w, nil
}

// toWorkload converts a read object into the form's picture of it,
// applying the form's bounds.
func toWorkload(ref vocab.WorkloadRef, wo objects.PodOwner) vocab.Workload {
	w := vocab.Workload{
		Ref:             ref,
		UID:             string(wo.Meta.UID),
		ResourceVersion: wo.Meta.ResourceVersion,
		Generation:      wo.Meta.Generation,
		Labels:          wo.Meta.Labels,
		Annotations:     wo.Meta.Annotations,
	}
	if ref.Kind != vocab.KindDaemonSets {
		w.HasReplicas, w.Replicas = true, 1
		if wo.Replicas != nil {
			w.Replicas = *wo.Replicas
		}
	}
	if wo.Paused != nil {
		w.HasPaused, w.Paused = true, *wo.Paused
	}
	spec := &wo.Template.Spec
	n := 0
	add := func(c *corev1.Container, role vocab.ContainerRole) {
		fc := toContainer(c, role)
		n++
		if n > vocab.MaxFormContainers {
			fc.ReadOnly = true
		}
		w.Containers = append(w.Containers, fc)
	}
	for i := range spec.InitContainers {
		role := vocab.RoleInit
		if p := spec.InitContainers[i].RestartPolicy; p != nil && *p == corev1.ContainerRestartPolicyAlways {
			role = vocab.RoleSidecar
		}
		add(&spec.InitContainers[i], role)
	}
	for i := range spec.Containers {
		add(&spec.Containers[i], vocab.RoleContainer)
	}
	if n > vocab.MaxFormContainers {
		w.Unsupported = append(w.Unsupported, vocab.Unsupported{Code: vocab.UnsupportedContainersTruncated,
			Detail: fmt.Sprintf("the pod template has %d containers; the form edits the first %d, the rest are read-only", n, vocab.MaxFormContainers)})
	}
	for _, c := range w.Containers {
		w.Unsupported = append(w.Unsupported, containerBounds(c.Name, spec)...)
	}
	return w
}

// containerBounds names the lists of container name that are longer than
// the form shows.
func containerBounds(name string, spec *corev1.PodSpec) []vocab.Unsupported {
	c := findContainer(spec, name)
	if c == nil {
		return nil
	}
	var out []vocab.Unsupported
	if len(c.Env) > vocab.MaxFormEnv {
		out = append(out, vocab.Unsupported{Code: vocab.UnsupportedEnvTruncated, Container: name,
			Detail: fmt.Sprintf("env has %d entries; the form shows the first %d and will not change env", len(c.Env), vocab.MaxFormEnv)})
	}
	for field, argv := range map[string][]string{"command": c.Command, "args": c.Args} {
		if len(argv) > vocab.MaxFormArgv {
			out = append(out, vocab.Unsupported{Code: vocab.UnsupportedArgvTruncated, Container: name,
				Detail: fmt.Sprintf("%s has %d entries; the form shows the first %d and will not change %s", field, len(argv), vocab.MaxFormArgv, field)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Detail < out[j].Detail })
	return out
}

// findContainer returns the init container or container named name; nil
// when there is none, or no spec.
func findContainer(spec *corev1.PodSpec, name string) *corev1.Container {
	if spec == nil {
		return nil
	}
	for i := range spec.InitContainers {
		if spec.InitContainers[i].Name == name {
			return &spec.InitContainers[i]
		}
	}
	for i := range spec.Containers {
		if spec.Containers[i].Name == name {
			return &spec.Containers[i]
		}
	}
	return nil
}

// toContainer converts one container, cutting env and argv at the form's bounds.
func toContainer(c *corev1.Container, role vocab.ContainerRole) vocab.Container {
	fc := vocab.Container{
		Name:    c.Name,
		Role:    role,
		Image:   c.Image,
		Command: bounded(c.Command, vocab.MaxFormArgv),
		Args:    bounded(c.Args, vocab.MaxFormArgv),
	}
	for i, e := range c.Env {
		if i == vocab.MaxFormEnv {
			break
		}
		fc.Env = append(fc.Env, toEnvVar(e, i))
	}
	fc.Resources = vocab.Resources{
		CPURequest:    quantityText(c.Resources.Requests, corev1.ResourceCPU),
		CPULimit:      quantityText(c.Resources.Limits, corev1.ResourceCPU),
		MemoryRequest: quantityText(c.Resources.Requests, corev1.ResourceMemory),
		MemoryLimit:   quantityText(c.Resources.Limits, corev1.ResourceMemory),
	}
	for _, src := range c.EnvFrom {
		fc.EnvFrom = append(fc.EnvFrom, envFromText(src))
	}
	for _, part := range []struct {
		name string
		list corev1.ResourceList
	}{{"requests", c.Resources.Requests}, {"limits", c.Resources.Limits}} {
		var names []string
		for r := range part.list {
			if r != corev1.ResourceCPU && r != corev1.ResourceMemory {
				names = append(names, string(r))
			}
		}
		sort.Strings(names)
		for _, r := range names {
			q := part.list[corev1.ResourceName(r)]
			fc.OtherResources = append(fc.OtherResources, part.name+" "+r+"="+q.String())
		}
	}
	return fc
}

// bounded returns the first n entries of list (nil stays nil).
func bounded(list []string, n int) []string {
	if len(list) > n {
		return append([]string(nil), list[:n]...)
	}
	return append([]string(nil), list...)
}

// quantityText returns the quantity of resource r in list as text, "" when unset.
func quantityText(list corev1.ResourceList, r corev1.ResourceName) string {
	q, ok := list[r]
	if !ok {
		return ""
	}
	return q.String()
}

// toEnvVar converts env entry e at position i of its list.
func toEnvVar(e corev1.EnvVar, i int) vocab.EnvVar {
	v := vocab.EnvVar{Name: e.Name, Read: i + 1, Source: vocab.EnvLiteral, Value: e.Value}
	from := e.ValueFrom
	switch {
	case from == nil:
	case from.SecretKeyRef != nil:
		v.Source, v.Ref, v.Key = vocab.EnvSecret, from.SecretKeyRef.Name, from.SecretKeyRef.Key
		v.Optional = from.SecretKeyRef.Optional != nil && *from.SecretKeyRef.Optional
	case from.ConfigMapKeyRef != nil:
		v.Source, v.Ref, v.Key = vocab.EnvConfigMap, from.ConfigMapKeyRef.Name, from.ConfigMapKeyRef.Key
		v.Optional = from.ConfigMapKeyRef.Optional != nil && *from.ConfigMapKeyRef.Optional
	case from.FieldRef != nil:
		v.Source, v.FieldPath, v.APIVersion = vocab.EnvField, from.FieldRef.FieldPath, from.FieldRef.APIVersion
	case from.ResourceFieldRef != nil:
		r := from.ResourceFieldRef
		v.Source, v.Resource, v.ContainerName = vocab.EnvResource, r.Resource, r.ContainerName
		if !r.Divisor.IsZero() {
			v.Divisor = r.Divisor.String()
		}
	default:
		v.Source, v.Path = vocab.EnvOther, "a source kyyard does not show"
		if from.FileKeyRef != nil {
			v.Path = "file " + from.FileKeyRef.VolumeName + "/" + from.FileKeyRef.Path + " key " + from.FileKeyRef.Key
		}
	}
	if v.Source != vocab.EnvLiteral {
		v.Value = ""
	}
	return v
}

// envFromText describes an envFrom entry: "configmap app-env", "secret
// creds prefix DB_ optional".
func envFromText(src corev1.EnvFromSource) string {
	var s string
	optional := false
	switch {
	case src.ConfigMapRef != nil:
		s = "configmap " + src.ConfigMapRef.Name
		optional = src.ConfigMapRef.Optional != nil && *src.ConfigMapRef.Optional
	case src.SecretRef != nil:
		s = "secret " + src.SecretRef.Name
		optional = src.SecretRef.Optional != nil && *src.SecretRef.Optional
	default:
		s = "a source kyyard does not show"
	}
	if src.Prefix != "" {
		s += " prefix " + src.Prefix
	}
	if optional {
		s += " optional"
	}
	return s
}
