package kube

import (
	"context"
	"encoding/base64"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// YAMLOptions tune YAML.
type YAMLOptions struct {
	// ManagedFields keeps metadata.managedFields (server-side apply's field
	// ownership), which `kubectl get -o yaml` hides by default since
	// kubectl 1.21 (--show-managed-fields).
	ManagedFields bool
}

// YAML returns one object of kind (a plugin id or alias, or any resource
// name the API server serves) named name in
// namespace (ignored for cluster-scoped kinds) as YAML, read fresh from the
// API server as JSON (never from a cache, whose copies are stripped).
// Keys are sorted alphabetically, not in kubectl's order.
//
// metadata.managedFields is removed unless opts.ManagedFields. A core/v1
// Secret never shows a value: every data and stringData value is replaced
// by its size ("<12 bytes>", the decoded size for data, as `kubectl
// describe secret` counts), and the last-applied-configuration annotation,
// which can hold the values, is removed.
//
// Errors: the client was made from a clientset (no REST config); an empty
// name (ReasonInvalid); the API server's own, which ReasonOf classifies
// (forbidden, not_found for a deleted object or an unserved resource,
// unavailable, timeout).
func (c *Client) YAML(ctx context.Context, kind Kind, namespace, name string, opts YAMLOptions) (string, error) {
	o, err := c.objectClients()
	if err != nil {
		return "", err
	}
	t, err := c.resolve(o, kind, namespace, name)
	if err != nil {
		return "", err
	}
	var obj *unstructured.Unstructured
	if t.namespaced() {
		obj, err = o.dyn.Resource(t.mapping.Resource).Namespace(t.namespace).Get(ctx, t.name, metav1.GetOptions{})
	} else {
		obj, err = o.dyn.Resource(t.mapping.Resource).Get(ctx, t.name, metav1.GetOptions{})
	}
	if err != nil {
		return "", err
	}
	return objectYAML(obj, opts)
}

// objectYAML removes what YAML hides from obj and marshals the rest.
func objectYAML(obj *unstructured.Unstructured, opts YAMLOptions) (string, error) {
	if !opts.ManagedFields {
		unstructured.RemoveNestedField(obj.Object, "metadata", "managedFields")
	}
	if gvk := obj.GroupVersionKind(); gvk.Group == "" && gvk.Kind == "Secret" {
		redactSecret(obj.Object)
	}
	b, err := yaml.Marshal(obj.Object)
	if err != nil {
		return "", fmt.Errorf("marshal %s %s as YAML: %w", obj.GetKind(), obj.GetName(), err)
	}
	return string(b), nil
}

// redactSecret replaces a Secret's values by their sizes and drops the
// last-applied-configuration annotation.
func redactSecret(obj map[string]any) {
	for _, field := range []string{"data", "stringData"} {
		values, ok := obj[field].(map[string]any)
		if !ok {
			if obj[field] != nil {
				obj[field] = "<hidden>"
			}
			continue
		}
		for k, v := range values {
			values[k] = secretSize(field, v)
		}
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		if ann, ok := meta["annotations"].(map[string]any); ok {
			delete(ann, lastAppliedAnnotation)
			if len(ann) == 0 {
				delete(meta, "annotations")
			}
		}
	}
}

// secretSize is the note that stands for one Secret value: data values are
// base64 and counted decoded, stringData values are counted as they are.
func secretSize(field string, v any) string {
	s, ok := v.(string)
	if !ok {
		return "<hidden>"
	}
	if field == "data" {
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return fmt.Sprintf("<%d bytes>", len(b))
		}
	}
	return fmt.Sprintf("<%d bytes>", len(s))
}
