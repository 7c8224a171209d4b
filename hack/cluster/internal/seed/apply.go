package seed

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// FieldManager is the server-side apply field manager of every seeded object.
const FieldManager = "kyyard-seed"

// applier creates or replaces objects with server-side apply (force), which is
// idempotent: applying the same object twice changes nothing.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(cfg *rest.Config) (*applier, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}, nil
}

// toUnstructured converts a typed object (its kind looked up in client-go's
// scheme) or passes an unstructured one through, dropping status and null
// creationTimestamps, which an apply configuration must not carry.
func toUnstructured(obj runtime.Object) (*unstructured.Unstructured, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return u, nil
	}
	gvks, _, err := scheme.Scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err
	}
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	delete(m, "status")
	dropNullTimestamps(m)
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvks[0])
	return u, nil
}

func dropNullTimestamps(v any) {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if k == "creationTimestamp" && child == nil {
				delete(t, k)
				continue
			}
			dropNullTimestamps(child)
		}
	case []any:
		for _, child := range t {
			dropNullTimestamps(child)
		}
	}
}

// apply server-side-applies obj. An object whose immutable fields changed
// (a Pod's or Job's spec from an older seed) is deleted and created again.
func (a *applier) apply(ctx context.Context, obj runtime.Object) error {
	u, err := toUnstructured(obj)
	if err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	mapping, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		a.mapper.Reset()
		mapping, err = a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return fmt.Errorf("%s %s: %w", gvk.Kind, u.GetName(), err)
	}
	var ri dynamic.ResourceInterface = a.dyn.Resource(mapping.Resource)
	if mapping.Scope.Name() == meta.RESTScopeNameNamespace {
		ri = a.dyn.Resource(mapping.Resource).Namespace(u.GetNamespace())
	}
	opts := metav1.ApplyOptions{FieldManager: FieldManager, Force: true}
	_, err = ri.Apply(ctx, u.GetName(), u, opts)
	if apierrors.IsInvalid(err) && (gvk.Kind == "Pod" || gvk.Kind == "Job") {
		if err := deleteAndWait(ctx, ri, u.GetName()); err != nil {
			return fmt.Errorf("replace %s %s: %w", gvk.Kind, u.GetName(), err)
		}
		_, err = ri.Apply(ctx, u.GetName(), u, opts)
	}
	if err != nil {
		return fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, u.GetNamespace(), u.GetName(), err)
	}
	return nil
}

func deleteAndWait(ctx context.Context, ri dynamic.ResourceInterface, name string) error {
	bg := metav1.DeletePropagationBackground
	if err := ri.Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: &bg}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if _, err := ri.Get(ctx, name, metav1.GetOptions{}); apierrors.IsNotFound(err) {
			return nil
		}
	}
	return fmt.Errorf("%s still exists 30s after delete", name)
}
