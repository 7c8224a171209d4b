package release

import (
	"context"
	"fmt"

	"github.com/kyyard/kyyard/kube/vocab"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// The five kinds a deploy writes, read, created, updated, listed and
// deleted through the typed clientset (deploy.go, remove.go, apps.go).

// Kind names of the objects a deploy writes (DeployStep.Kind).
const (
	kindService    = "Service"
	kindClaim      = "PersistentVolumeClaim"
	kindConfigMap  = "ConfigMap"
	kindSecret     = "Secret"
	kindDeployment = "Deployment"
)

// deployResource is the API group and resource of a deploy kind.
type deployResource struct{ kind, group, resource string }

// deployResources are the deploy kinds in the order Remove deletes them
// (workloads first, so their pods stop using the rest).
var deployResources = []deployResource{
	{kindDeployment, "apps", "deployments"},
	{kindService, "", "services"},
	{kindConfigMap, "", "configmaps"},
	{kindSecret, "", "secrets"},
	{kindClaim, "", "persistentvolumeclaims"},
}

// resourceOf returns the resource of a deploy kind.
func resourceOf(kind string) deployResource {
	for _, r := range deployResources {
		if r.kind == kind {
			return r
		}
	}
	return deployResource{kind: kind}
}

// planned is one object a deploy applies: the service it belongs to and
// the typed object (*corev1.Service, *corev1.PersistentVolumeClaim,
// *corev1.ConfigMap, *corev1.Secret or *appsv1.Deployment).
type planned struct {
	service string
	obj     runtime.Object
}

// kindOf names a deploy object's kind, "" for any other type.
func kindOf(obj runtime.Object) string {
	switch obj.(type) {
	case *corev1.Service:
		return kindService
	case *corev1.PersistentVolumeClaim:
		return kindClaim
	case *corev1.ConfigMap:
		return kindConfigMap
	case *corev1.Secret:
		return kindSecret
	case *appsv1.Deployment:
		return kindDeployment
	}
	return ""
}

// metaOf returns a deploy object's metadata (nil for another type).
func metaOf(obj runtime.Object) metav1.Object {
	if m, ok := obj.(metav1.Object); ok {
		return m
	}
	return nil
}

// objectKey is "Kind/name", the key of an object in a namespace.
func objectKey(kind, name string) string { return kind + "/" + name }

// keyOf is obj's objectKey.
func keyOf(obj runtime.Object) string { return objectKey(kindOf(obj), metaOf(obj).GetName()) }

// getObject reads one deploy object by kind and name.
func (c Deployer) getObject(ctx context.Context, ns, kind, name string) (runtime.Object, error) {
	core, get := c.CS.CoreV1(), metav1.GetOptions{}
	switch kind {
	case kindService:
		return core.Services(ns).Get(ctx, name, get)
	case kindClaim:
		return core.PersistentVolumeClaims(ns).Get(ctx, name, get)
	case kindConfigMap:
		return core.ConfigMaps(ns).Get(ctx, name, get)
	case kindSecret:
		return core.Secrets(ns).Get(ctx, name, get)
	case kindDeployment:
		return c.CS.AppsV1().Deployments(ns).Get(ctx, name, get)
	}
	return nil, fmt.Errorf("%w: kyyard does not deploy %s objects", vocab.ErrInvalid, kind)
}

// createObject creates obj in ns with field manager kyyard (dryRun:
// metav1.DryRunAll, or nil).
func (c Deployer) createObject(ctx context.Context, ns string, obj runtime.Object, dryRun ...string) (runtime.Object, error) {
	core, opts := c.CS.CoreV1(), metav1.CreateOptions{FieldManager: FieldManager, DryRun: dryRun}
	switch o := obj.(type) {
	case *corev1.Service:
		return core.Services(ns).Create(ctx, o, opts)
	case *corev1.PersistentVolumeClaim:
		return core.PersistentVolumeClaims(ns).Create(ctx, o, opts)
	case *corev1.ConfigMap:
		return core.ConfigMaps(ns).Create(ctx, o, opts)
	case *corev1.Secret:
		return core.Secrets(ns).Create(ctx, o, opts)
	case *appsv1.Deployment:
		return c.CS.AppsV1().Deployments(ns).Create(ctx, o, opts)
	}
	return nil, fmt.Errorf("%w: kyyard does not deploy %T objects", vocab.ErrInvalid, obj)
}

// updateObject replaces obj in ns (a PUT), with its resourceVersion as
// the precondition, field manager kyyard (dryRun: metav1.DryRunAll, or
// nil).
func (c Deployer) updateObject(ctx context.Context, ns string, obj runtime.Object, dryRun ...string) (runtime.Object, error) {
	core, opts := c.CS.CoreV1(), metav1.UpdateOptions{FieldManager: FieldManager, DryRun: dryRun}
	switch o := obj.(type) {
	case *corev1.Service:
		return core.Services(ns).Update(ctx, o, opts)
	case *corev1.PersistentVolumeClaim:
		return core.PersistentVolumeClaims(ns).Update(ctx, o, opts)
	case *corev1.ConfigMap:
		return core.ConfigMaps(ns).Update(ctx, o, opts)
	case *corev1.Secret:
		return core.Secrets(ns).Update(ctx, o, opts)
	case *appsv1.Deployment:
		return c.CS.AppsV1().Deployments(ns).Update(ctx, o, opts)
	}
	return nil, fmt.Errorf("%w: kyyard does not deploy %T objects", vocab.ErrInvalid, obj)
}

// deleteObject deletes one deploy object with foreground propagation (a
// Deployment's ReplicaSets and pods go before it does) and, when uid is
// set, a UID precondition. Claims are never deleted by deploy, restore or
// remove (they are kept: a keep step), so a claim is refused here.
func (c Deployer) deleteObject(ctx context.Context, ns, kind, name, uid string) error {
	fg := metav1.DeletePropagationForeground
	opts := metav1.DeleteOptions{PropagationPolicy: &fg}
	if uid != "" {
		u := types.UID(uid)
		opts.Preconditions = &metav1.Preconditions{UID: &u}
	}
	core := c.CS.CoreV1()
	switch kind {
	case kindService:
		return core.Services(ns).Delete(ctx, name, opts)
	case kindConfigMap:
		return core.ConfigMaps(ns).Delete(ctx, name, opts)
	case kindSecret:
		return core.Secrets(ns).Delete(ctx, name, opts)
	case kindDeployment:
		return c.CS.AppsV1().Deployments(ns).Delete(ctx, name, opts)
	}
	return fmt.Errorf("%w: kyyard does not delete %s objects it deploys", vocab.ErrInvalid, kind)
}

// listed is one object found by label: its kind, metadata and the
// service it belongs to (its app.kubernetes.io/name label).
type listed struct {
	kind string
	meta metav1.Object
	obj  runtime.Object
}

// listInstance lists the objects of kind in ns (all namespaces for "")
// that carry selector's labels.
func (c Deployer) listInstance(ctx context.Context, ns, kind, selector string) ([]listed, error) {
	core, opts := c.CS.CoreV1(), metav1.ListOptions{LabelSelector: selector}
	var out []listed
	add := func(kind string, o runtime.Object) { out = append(out, listed{kind: kind, meta: metaOf(o), obj: o}) }
	switch kind {
	case kindService:
		l, err := core.Services(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			add(kind, &l.Items[i])
		}
	case kindClaim:
		l, err := core.PersistentVolumeClaims(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			add(kind, &l.Items[i])
		}
	case kindConfigMap:
		l, err := core.ConfigMaps(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			add(kind, &l.Items[i])
		}
	case kindSecret:
		l, err := core.Secrets(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			add(kind, &l.Items[i])
		}
	case kindDeployment:
		l, err := c.CS.AppsV1().Deployments(ns).List(ctx, opts)
		if err != nil {
			return nil, err
		}
		for i := range l.Items {
			add(kind, &l.Items[i])
		}
	default:
		return nil, fmt.Errorf("%w: kyyard does not deploy %s objects", vocab.ErrInvalid, kind)
	}
	return out, nil
}
