package actions

// An action on an object of any kind but pods and the workloads (delete: a
// ConfigMap, a Service, a Node, a custom resource) reads and deletes it as
// metadata only (k8s.io/client-go/metadata): its labels, annotations,
// finalizers, owners, UID and resourceVersion are all the guards need, and a
// Secret's data never crosses the wire.

import (
	"context"
	"errors"

	"github.com/kyyard/kyyard/kube/vocab"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// errNoMetadataClient fails an action on a kind other than pods and the
// workloads when the Actor has no metadata client.
var errNoMetadataClient = errors.New("this client has no metadata client (it was made from a clientset): an action on this kind needs a connection made with New or NewFromConfig")

// metadataClient returns the Actor's metadata client. Errors: none is set,
// or building it failed.
func (ac Actor) metadataClient() (metadata.Interface, error) {
	if ac.Metadata == nil {
		return nil, errNoMetadataClient
	}
	return ac.Metadata()
}

// resourceOf is the resource info names, at the version its plugin or
// discovery serves.
func resourceOf(info vocab.KindInfo) schema.GroupVersionResource {
	return schema.GroupVersionResource{Group: info.Group, Version: info.Version, Resource: info.Resource}
}

// readMeta reads ref's object as metadata (a PartialObjectMetadata) from the
// resource info names, in ref's namespace when the kind is namespaced.
// Errors: no metadata client, the API server's.
func (ac Actor) readMeta(ctx context.Context, ref vocab.ObjectRef, info vocab.KindInfo) (*metav1.ObjectMeta, error) {
	md, err := ac.metadataClient()
	if err != nil {
		return nil, err
	}
	var obj *metav1.PartialObjectMetadata
	if info.Namespaced {
		obj, err = md.Resource(resourceOf(info)).Namespace(ref.Namespace).Get(ctx, ref.Name, metav1.GetOptions{})
	} else {
		obj, err = md.Resource(resourceOf(info)).Get(ctx, ref.Name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, err
	}
	return &obj.ObjectMeta, nil
}

// deleteMeta deletes ref's object of the resource info names with opts.
// Errors: no metadata client, the API server's.
func (ac Actor) deleteMeta(ctx context.Context, ref vocab.ObjectRef, info vocab.KindInfo, opts metav1.DeleteOptions) error {
	md, err := ac.metadataClient()
	if err != nil {
		return err
	}
	if info.Namespaced {
		return md.Resource(resourceOf(info)).Namespace(ref.Namespace).Delete(ctx, ref.Name, opts)
	}
	return md.Resource(resourceOf(info)).Delete(ctx, ref.Name, opts)
}
