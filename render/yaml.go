package render

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Render renders a valid request for the screens: each object of Objects,
// in the same order, with its kind, name and YAML (sigs.k8s.io/yaml: keys
// sorted, so the text is deterministic; no status and no
// creationTimestamp, which the API server sets). A Secret's data values
// are replaced by their sizes ("<12 bytes>"): a value is never in clear.
// Errors: an *InvalidError wrapping ErrInvalid when Validate rejects req.
func Render(req Request) (Plan, error) {
	objs, err := Objects(req)
	if err != nil {
		return Plan{}, err
	}
	plan := Plan{Objects: make([]Object, 0, len(objs))}
	for _, r := range objs {
		text, err := objectYAML(r.Object)
		if err != nil {
			return Plan{}, err
		}
		acc, err := meta.Accessor(r.Object)
		if err != nil {
			return Plan{}, err
		}
		plan.Objects = append(plan.Objects, Object{
			Service: r.Service,
			Kind:    r.Object.GetObjectKind().GroupVersionKind().Kind,
			Name:    acc.GetName(),
			YAML:    text,
		})
	}
	return plan, nil
}

// objectYAML is an object as YAML, its server-set fields dropped and a
// Secret's values as sizes.
func objectYAML(o runtime.Object) (string, error) {
	raw, err := json.Marshal(o)
	if err != nil {
		return "", err
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return "", err
	}
	delete(m, "status")
	if md, ok := m["metadata"].(map[string]any); ok && md["creationTimestamp"] == nil {
		delete(md, "creationTimestamp")
	}
	if tmpl := dig(m, "spec", "template", "metadata"); tmpl != nil && tmpl["creationTimestamp"] == nil {
		delete(tmpl, "creationTimestamp")
	}
	if s, ok := o.(*corev1.Secret); ok {
		data := make(map[string]any, len(s.Data))
		for k, v := range s.Data {
			data[k] = sizeText(len(v))
		}
		m["data"] = data
		delete(m, "stringData")
	}
	out, err := yaml.Marshal(m)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// dig returns the map at a path of keys, nil when there is none.
func dig(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		next, ok := m[k].(map[string]any)
		if !ok {
			return nil
		}
		m = next
	}
	return m
}

// sizeText is how a secret value is shown: "<N bytes>".
func sizeText(n int) string {
	if n == 1 {
		return "<1 byte>"
	}
	return fmt.Sprintf("<%d bytes>", n)
}
