package apply

import (
	"fmt"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// bookkeeping are the metadata fields the API server keeps, left out of a
// diff: they change on every write and say nothing of what was applied.
var bookkeeping = []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"}

// Diff returns the unified diff ("--- live", "+++ applied") of live
// (nil: the object is new) against result, the dry run's answer, both
// shown as YAML with status and bookkeeping metadata left out, and a
// Secret's data and stringData values masked ("(12 bytes)", "(12 bytes,
// changed)"): a diff never carries a Secret's value. "" when they are the
// same. Errors: an object that cannot be shown as YAML.
func Diff(live, result *unstructured.Unstructured) (string, error) {
	var before, after string
	var liveObj, resObj map[string]any
	if live != nil {
		liveObj = shown(live)
	}
	if result != nil {
		resObj = shown(result)
	}
	if isSecret(live) || isSecret(result) {
		maskSecrets(liveObj, resObj)
	}
	for _, p := range []struct {
		obj map[string]any
		out *string
	}{{liveObj, &before}, {resObj, &after}} {
		if p.obj == nil {
			continue
		}
		b, err := yaml.Marshal(p.obj)
		if err != nil {
			return "", fmt.Errorf("show as YAML: %w", err)
		}
		*p.out = string(b)
	}
	if before == after {
		return "", nil
	}
	return difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: lines(before), B: lines(after),
		FromFile: "live", ToFile: "applied", Context: 3,
	})
}

// lines cuts s into its lines, each with its "\n" (difflib.SplitLines
// would add an empty last line, and give the empty text of a new object
// one line).
func lines(s string) []string {
	if s == "" {
		return nil
	}
	out := strings.SplitAfter(s, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// shown is o's content as a diff shows it: a copy without status and the
// bookkeeping metadata.
func shown(o *unstructured.Unstructured) map[string]any {
	c := o.DeepCopy().Object
	delete(c, "status")
	if md, ok := c["metadata"].(map[string]any); ok {
		for _, f := range bookkeeping {
			delete(md, f)
		}
	}
	return c
}

// isSecret reports whether o is a core/v1 Secret.
func isSecret(o *unstructured.Unstructured) bool {
	return o != nil && o.GetKind() == "Secret" && (o.GetAPIVersion() == "v1")
}

// maskSecrets replaces the values of data and stringData in both objects
// by their sizes, marking in after the ones that differ from before.
func maskSecrets(before, after map[string]any) {
	for _, field := range []string{"data", "stringData"} {
		b, _ := before[field].(map[string]any)
		a, _ := after[field].(map[string]any)
		for k, v := range a {
			old, had := b[k]
			a[k] = size(v, field == "data", had && old != v)
		}
		for k, v := range b {
			b[k] = size(v, field == "data", false)
		}
	}
}

// size says how long a Secret value is: "(12 bytes)", "(12 bytes,
// changed)" when changed; for data, whose values are base64, the decoded
// length.
func size(v any, base64, changed bool) string {
	s, _ := v.(string)
	n := len(s)
	if base64 {
		n = len(s)/4*3 - (len(s) - len(strings.TrimRight(s, "=")))
	}
	if changed {
		return fmt.Sprintf("(%d bytes, changed)", n)
	}
	return fmt.Sprintf("(%d bytes)", n)
}
