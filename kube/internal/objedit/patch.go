package objedit

import (
	"encoding/json"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/client-go/kubernetes/scheme"
)

// PatchKind names the patch an edit sends: kubectl edit's choice
// (k8s.io/kubectl/pkg/cmd/util/editor, editor.go: a strategic merge
// patch for a kind client-go's scheme knows, a JSON merge patch for the
// others, whose Go types, and so whose patch strategies, it cannot know).
type PatchKind struct {
	// Type is the patch's content type.
	Type types.PatchType
	// schema is the Go type a strategic merge patch reads its list
	// strategies from; nil for a merge patch.
	schema runtime.Object
}

// Name is the patch's name for people: "strategic merge patch" or "merge
// patch".
func (k PatchKind) Name() string {
	if k.Type == types.StrategicMergePatchType {
		return "strategic merge patch"
	}
	return "merge patch"
}

// PatchKindOf is the patch kind of gvk: strategic merge when client-go's
// scheme has a Go type for it (every built-in kind), merge otherwise
// (custom resources, aggregated APIs).
func PatchKindOf(gvk schema.GroupVersionKind) PatchKind {
	if obj, err := scheme.Scheme.New(gvk); err == nil {
		return PatchKind{Type: types.StrategicMergePatchType, schema: obj}
	}
	return PatchKind{Type: types.MergePatchType}
}

// Patch returns the patch of only what changed from original (the object
// as read, stored form) to edited (Stored of the edited text), of kind k,
// with metadata.resourceVersion set to resourceVersion: the precondition
// that makes the API server refuse it (409 Conflict) when the object
// changed since it was read. Bookkeeping fields and status take no part.
// changed is false, and the patch nil, when nothing changed. Errors: a
// strategic merge patch that cannot be made (a list without its merge key,
// a value of the wrong type for its field).
func Patch(k PatchKind, original, edited map[string]any, resourceVersion string) (patch []byte, changed bool, err error) {
	before, err := json.Marshal(withoutBookkeeping(original))
	if err != nil {
		return nil, false, fmt.Errorf("encode the object read: %w", err)
	}
	after, err := json.Marshal(withoutBookkeeping(edited))
	if err != nil {
		return nil, false, fmt.Errorf("encode the edited object: %w", err)
	}
	var body []byte
	if k.Type == types.StrategicMergePatchType {
		body, err = strategicpatch.CreateTwoWayMergePatch(before, after, k.schema)
	} else {
		body, err = jsonpatch.CreateMergePatch(before, after)
	}
	if err != nil {
		return nil, false, fmt.Errorf("make the %s: %w", k.Name(), err)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, false, fmt.Errorf("read the %s back: %w", k.Name(), err)
	}
	if len(m) == 0 {
		return nil, false, nil
	}
	md, _ := m["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		m["metadata"] = md
	}
	md["resourceVersion"] = resourceVersion
	out, err := json.Marshal(m)
	if err != nil {
		return nil, false, fmt.Errorf("encode the %s: %w", k.Name(), err)
	}
	return out, true, nil
}
