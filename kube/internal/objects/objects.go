package objects

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// PodOwner is an object whose spec.selector selects the pods it
// makes from its pod template — a Deployment, StatefulSet, DaemonSet,
// ReplicaSet or Job — seen through what the form reads, the guards check
// and the streams follow (logs, port-forward, rollout).
type PodOwner struct {
	Object   runtime.Object
	Meta     *metav1.ObjectMeta
	Template *corev1.PodTemplateSpec
	// Selector is spec.Selector (immutable once made, on every one of
	// these kinds); nil when the object has none.
	Selector *metav1.LabelSelector
	Replicas *int32 // nil for a DaemonSet and a Job
	Paused   *bool  // nil but for a Deployment
	// StatefulSet is set for a StatefulSet (claims and their retention policy).
	StatefulSet *appsv1.StatefulSet
}

// AsPodOwner views a typed apps/v1 or batch/v1 object as a
// PodOwner; ok is false for any other type.
func AsPodOwner(obj runtime.Object) (PodOwner, bool) {
	switch o := obj.(type) {
	case *appsv1.Deployment:
		return PodOwner{Object: o, Meta: &o.ObjectMeta, Template: &o.Spec.Template, Selector: o.Spec.Selector,
			Replicas: o.Spec.Replicas, Paused: &o.Spec.Paused}, true
	case *appsv1.StatefulSet:
		return PodOwner{Object: o, Meta: &o.ObjectMeta, Template: &o.Spec.Template, Selector: o.Spec.Selector,
			Replicas: o.Spec.Replicas, StatefulSet: o}, true
	case *appsv1.DaemonSet:
		return PodOwner{Object: o, Meta: &o.ObjectMeta, Template: &o.Spec.Template, Selector: o.Spec.Selector}, true
	case *appsv1.ReplicaSet:
		return PodOwner{Object: o, Meta: &o.ObjectMeta, Template: &o.Spec.Template, Selector: o.Spec.Selector,
			Replicas: o.Spec.Replicas}, true
	case *batchv1.Job:
		return PodOwner{Object: o, Meta: &o.ObjectMeta, Template: &o.Spec.Template, Selector: o.Spec.Selector}, true
	}
	return PodOwner{}, false
}

// ErrNotPodOwner is wrapped by Read's error for a kind that does
// not select pods by a spec.selector of its own.
var ErrNotPodOwner = errors.New("not a kind whose spec.selector selects its pods")

// Read gets the object of kind (a plugin id) named ns/name fresh
// from the API server: a Deployment, StatefulSet, DaemonSet, ReplicaSet or
// Job, one request. It is the one read of "this workload by kind, and its
// selector" that the form, the actions' guards, logs, port-forward,
// rollout and inspect share. Errors: another kind (wraps ErrNotPodOwner
// and vocab.ErrInvalid); the API server's, unwrapped (not found, forbidden).
func Read(ctx context.Context, cs kubernetes.Interface, kind vocab.Kind, ns, name string) (PodOwner, error) {
	var obj runtime.Object
	var err error
	get := metav1.GetOptions{}
	apps := cs.AppsV1()
	switch kind {
	case vocab.KindDeployments:
		obj, err = apps.Deployments(ns).Get(ctx, name, get)
	case vocab.KindStatefulSets:
		obj, err = apps.StatefulSets(ns).Get(ctx, name, get)
	case vocab.KindDaemonSets:
		obj, err = apps.DaemonSets(ns).Get(ctx, name, get)
	case vocab.KindReplicaSets:
		obj, err = apps.ReplicaSets(ns).Get(ctx, name, get)
	case vocab.KindJobs:
		obj, err = cs.BatchV1().Jobs(ns).Get(ctx, name, get)
	default:
		return PodOwner{}, fmt.Errorf("%w: %s: %w", vocab.ErrInvalid, kind, ErrNotPodOwner)
	}
	if err != nil {
		return PodOwner{}, err
	}
	w, _ := AsPodOwner(obj)
	return w, nil
}

// EditableResource returns the apps/v1 resource of an editable kind.
// Errors: any other kind.
func EditableResource(kind vocab.Kind) (string, error) {
	switch kind {
	case vocab.KindDeployments, vocab.KindStatefulSets, vocab.KindDaemonSets:
		return string(kind), nil
	}
	return "", fmt.Errorf("%s cannot be edited with the form: only deployments, statefulsets and daemonsets", kind)
}

// ReadEditable reads a Deployment, StatefulSet or DaemonSet fresh from the
// API server (Read). Errors: another kind; the API server's,
// unwrapped.
func ReadEditable(ctx context.Context, cs kubernetes.Interface, ref vocab.WorkloadRef) (PodOwner, error) {
	if _, err := EditableResource(ref.Kind); err != nil {
		return PodOwner{}, err
	}
	return Read(ctx, cs, ref.Kind, ref.Namespace, ref.Name)
}

// Patch sends a strategic merge patch to the object, as a dry run
// (dryRun=All) when dryRun is set. Errors are the API server's, unwrapped.
func Patch(ctx context.Context, cs kubernetes.Interface, ref vocab.WorkloadRef, body []byte, dryRun bool) (PodOwner, error) {
	opts := metav1.PatchOptions{}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var obj runtime.Object
	var err error
	apps := cs.AppsV1()
	switch ref.Kind {
	case vocab.KindDeployments:
		obj, err = apps.Deployments(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, opts)
	case vocab.KindStatefulSets:
		obj, err = apps.StatefulSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, opts)
	case vocab.KindDaemonSets:
		obj, err = apps.DaemonSets(ref.Namespace).Patch(ctx, ref.Name, types.StrategicMergePatchType, body, opts)
	default:
		_, err = EditableResource(ref.Kind)
	}
	if err != nil {
		return PodOwner{}, err
	}
	w, _ := AsPodOwner(obj)
	return w, nil
}

// RevisionAnnotation is where the Deployment controller numbers a
// Deployment's ReplicaSets (and the Deployment itself): "7".
const RevisionAnnotation = "deployment.kubernetes.io/revision"

// ReplicasOf is spec.replicas, 1 when unset (the API server's default).
func ReplicasOf(p *int32) int32 {
	if p == nil {
		return 1
	}
	return *p
}

// DeploymentCondition returns the Deployment's condition of type t, or nil.
func DeploymentCondition(d *appsv1.Deployment, t appsv1.DeploymentConditionType) *appsv1.DeploymentCondition {
	for i := range d.Status.Conditions {
		if d.Status.Conditions[i].Type == t {
			return &d.Status.Conditions[i]
		}
	}
	return nil
}

// SelectorOf turns a workload's label selector into a labels.Selector.
func SelectorOf(s *metav1.LabelSelector) (labels.Selector, error) {
	sel, err := metav1.LabelSelectorAsSelector(s)
	if err != nil {
		return nil, fmt.Errorf("%w: selector: %v", vocab.ErrInvalid, err)
	}
	return sel, nil
}

// What logs and exec share about a pod's containers.

// DefaultContainerAnnotation names the container kubectl picks when none
// is named (kubectl's podcmd.DefaultContainerAnnotationName, used by
// kubectl logs, exec and attach).
const DefaultContainerAnnotation = "kubectl.kubernetes.io/default-container"

// PodContainers lists a pod's containers in spec order: init containers
// (native sidecars among them), then containers, then ephemeral
// containers (kubectl debug's).
func PodContainers(pod *corev1.Pod) []string {
	out := make([]string, 0, len(pod.Spec.InitContainers)+len(pod.Spec.Containers)+len(pod.Spec.EphemeralContainers))
	for _, c := range pod.Spec.InitContainers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		out = append(out, c.Name)
	}
	return out
}

// RunningContainers lists the containers that run for the pod's life, in
// spec order: native sidecars (init containers with restartPolicy Always)
// and spec.containers; not the init containers that run before them, nor
// ephemeral ones.
func RunningContainers(pod *corev1.Pod) []string {
	var out []string
	for _, c := range pod.Spec.InitContainers {
		if IsSidecar(c) {
			out = append(out, c.Name)
		}
	}
	for _, c := range pod.Spec.Containers {
		out = append(out, c.Name)
	}
	return out
}

// DefaultContainer is the container kubectl logs and exec pick when
// none is named (k8s.io/kubectl/pkg/cmd/util/podcmd
// FindOrDefaultContainerByName): the one the
// kubectl.kubernetes.io/default-container annotation names when the pod
// has it, else the first of spec.containers (never an init container nor
// a native sidecar); "" only for a pod without containers.
func DefaultContainer(pod *corev1.Pod) string {
	name := pod.Annotations[DefaultContainerAnnotation]
	if name != "" && slices.Contains(PodContainers(pod), name) {
		return name
	}
	if len(pod.Spec.Containers) > 0 {
		return pod.Spec.Containers[0].Name
	}
	return ""
}

// IsSidecar reports a native sidecar: an init container with
// restartPolicy Always (Kubernetes 1.29+).
func IsSidecar(c corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// AutoscalerOf returns the name of a HorizontalPodAutoscaler in the
// workload's namespace whose scaleTargetRef names it ("" when none): one
// list of autoscaling/v2 HorizontalPodAutoscalers. Errors: the list's,
// unwrapped (forbidden, unavailable).
func AutoscalerOf(ctx context.Context, cs kubernetes.Interface, ref vocab.WorkloadRef) (string, error) {
	list, err := cs.AutoscalingV2().HorizontalPodAutoscalers(ref.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", err
	}
	kind := map[vocab.Kind]string{vocab.KindDeployments: "Deployment", vocab.KindStatefulSets: "StatefulSet"}[ref.Kind]
	for _, h := range list.Items {
		t := h.Spec.ScaleTargetRef
		group, _, _ := strings.Cut(t.APIVersion, "/")
		if t.Kind == kind && t.Name == ref.Name && group == "apps" {
			return h.Name, nil
		}
	}
	return "", nil
}

// StatusRaceRetries is how many times a write answered 409 is tried again
// when the object read afresh shows that only its status moved (the
// controller wrote status between the guards' read and the write, as it
// does many times a second during a rollout).
const StatusRaceRetries = 5
