package objedit

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Bookkeeping are the metadata fields the API server keeps: they are
// shown in the text (kubectl edit shows them too) but a change to them is
// never sent, and they take no part in a patch or a rebase.
var Bookkeeping = []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp", "selfLink"}

// IsSecret reports whether obj is a core/v1 Secret (apiVersion v1, kind
// Secret), whose values the text shows decoded.
func IsSecret(obj map[string]any) bool {
	return obj != nil && obj["apiVersion"] == "v1" && obj["kind"] == "Secret"
}

// Shown returns the content of obj (an object as the API server returned
// it) as a person edits it: a copy without metadata.managedFields and
// status; for a Secret, each data value that decodes to text (valid
// UTF-8 without control characters but tab, newline and carriage return)
// moved, decoded, to stringData (as `kubectl create secret
// --from-literal` would send it), the others left base64 in data. obj is
// not changed.
func Shown(obj map[string]any) map[string]any {
	c := unstructured.Unstructured{Object: obj}
	out := c.DeepCopy().Object
	delete(out, "status")
	if md, ok := out["metadata"].(map[string]any); ok {
		delete(md, "managedFields")
	}
	if IsSecret(out) {
		decodeSecret(out)
	}
	return out
}

// decodeSecret moves obj's text data values to stringData, decoded.
func decodeSecret(obj map[string]any) {
	data, _ := obj["data"].(map[string]any)
	if len(data) == 0 {
		return
	}
	text, _ := obj["stringData"].(map[string]any)
	if text == nil {
		text = map[string]any{}
	}
	for k, v := range data {
		s, ok := v.(string)
		if !ok {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil || !IsText(b) {
			continue
		}
		text[k] = string(b)
		delete(data, k)
	}
	if len(data) == 0 {
		delete(obj, "data")
	}
	if len(text) > 0 {
		obj["stringData"] = text
	}
}

// IsText reports whether b reads as text in an editor: valid UTF-8 with
// no control character but tab, newline and carriage return.
func IsText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return false
		}
	}
	return true
}

// Text marshals shown (Shown's result) as YAML, keys sorted (sigs.k8s.io/
// yaml, as `kubectl get -o yaml` writes them). Errors: content that
// cannot be written as YAML.
func Text(shown map[string]any) (string, error) {
	b, err := yaml.Marshal(shown)
	if err != nil {
		return "", fmt.Errorf("show as YAML: %w", err)
	}
	return string(b), nil
}

// ErrEmpty is Parse's answer to a text with nothing but comments and
// blank lines: kubectl edit cancels the edit on an empty file.
var ErrEmpty = errors.New("the edited text is empty")

// Parse reads an edited text back: one YAML (or JSON) document holding
// one object, comments ignored. Errors: ErrEmpty; a malformed document
// (the YAML parser's message, with its line); more than one document; a
// document that is not a mapping.
func Parse(text string) (map[string]any, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(text)))
	var docs [][]byte
	for {
		b, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("read the edited text: %w", err)
		}
		if len(bytes.TrimSpace(stripComments(b))) == 0 {
			continue
		}
		docs = append(docs, b)
	}
	switch len(docs) {
	case 0:
		return nil, ErrEmpty
	case 1:
	default:
		return nil, fmt.Errorf("the edited text holds %d documents: an edit changes one object", len(docs))
	}
	var obj map[string]any
	if err := yaml.Unmarshal(docs[0], &obj); err != nil {
		return nil, fmt.Errorf("the edited text is not valid YAML: %w", err)
	}
	if obj == nil {
		return nil, errors.New("the edited text is not a YAML mapping (an object with apiVersion, kind and metadata)")
	}
	return obj, nil
}

// stripComments is b without its comment lines.
func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if t := bytes.TrimSpace(l); len(t) > 0 && t[0] == '#' {
			continue
		}
		out = append(out, l...)
	}
	return out
}

// Stored turns an edited object back into what is stored: for a Secret,
// every stringData value base64-encoded into data (a stringData key wins
// over the same data key, as the API server merges them) and stringData
// removed; other kinds are returned as they are. edited is not changed.
func Stored(edited map[string]any) map[string]any {
	if !IsSecret(edited) {
		return edited
	}
	c := unstructured.Unstructured{Object: edited}
	out := c.DeepCopy().Object
	text, _ := out["stringData"].(map[string]any)
	delete(out, "stringData")
	if len(text) == 0 {
		return out
	}
	data, _ := out["data"].(map[string]any)
	if data == nil {
		data = map[string]any{}
	}
	for k, v := range text {
		s, _ := v.(string) // Strings checked every value a string
		data[k] = base64.StdEncoding.EncodeToString([]byte(s))
	}
	out["data"] = data
	return out
}

// stringMaps are, per kind, the maps whose values must be strings: YAML
// reads an unquoted 0123, yes or 1.50 as a number or a boolean (83, true,
// 1.5), which would be written as another string than the one typed.
var stringMaps = map[string][]string{"Secret": {"data", "stringData"}, "ConfigMap": {"data", "binaryData"}}

// Strings checks that every value of a core/v1 Secret's data and
// stringData, and of a ConfigMap's data and binaryData, is a YAML string.
// Errors: the first value that is not, named, with the hint to quote it
// (kubectl would write the value YAML read, not the one typed).
func Strings(edited map[string]any) error {
	if edited["apiVersion"] != "v1" {
		return nil
	}
	kind, _ := edited["kind"].(string)
	for _, field := range stringMaps[kind] {
		m, ok := edited[field].(map[string]any)
		if !ok {
			if edited[field] != nil {
				return fmt.Errorf("%s is not a mapping of keys to values", field)
			}
			continue
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if _, ok := m[k].(string); !ok {
				return fmt.Errorf("%s.%s is not a string (YAML read it as %s %v): quote the value, e.g. %s: \"...\"",
					field, k, typeName(m[k]), m[k], k)
			}
		}
	}
	return nil
}

// typeName names the YAML type of v for people.
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null,"
	case bool:
		return "the boolean"
	case float64, int64, int:
		return "the number"
	case []any:
		return "the list"
	case map[string]any:
		return "a mapping:"
	}
	return "the value"
}

// Identity checks that edited is still the object of original: the same
// apiVersion, kind, metadata.name and metadata.namespace (kubectl edit
// refuses a change of them alike: an edit changes one object, it never
// makes or renames one). Errors: the first field changed, named.
func Identity(original, edited map[string]any) error {
	for _, f := range [][]string{{"apiVersion"}, {"kind"}, {"metadata", "name"}, {"metadata", "namespace"}} {
		was, _, _ := unstructured.NestedFieldNoCopy(original, f...)
		is, _, _ := unstructured.NestedFieldNoCopy(edited, f...)
		if fmt.Sprint(was) != fmt.Sprint(is) {
			return fmt.Errorf("%s cannot be changed (%v -> %v): an edit changes this one object; put it back, or create the other object with kyyard apply",
				strings.Join(f, "."), orNone(was), orNone(is))
		}
	}
	return nil
}

// orNone is v, or "(none)" when nil.
func orNone(v any) any {
	if v == nil {
		return "(none)"
	}
	return v
}

// withoutBookkeeping is a copy of obj without status and the bookkeeping
// metadata: what a patch and a rebase compare.
func withoutBookkeeping(obj map[string]any) map[string]any {
	c := unstructured.Unstructured{Object: obj}
	out := c.DeepCopy().Object
	delete(out, "status")
	if md, ok := out["metadata"].(map[string]any); ok {
		for _, f := range Bookkeeping {
			delete(md, f)
		}
		if len(md) == 0 {
			delete(out, "metadata")
		}
	}
	return out
}

// TextError is a fault of the edited text itself (malformed YAML, another
// object named, a value a strategic merge patch cannot be made of): the
// person corrects the text; nothing was sent. It is vocab.ErrInvalid
// (errors.Is), so vocab.ReasonOf gives vocab.ReasonInvalid, and its text
// is Err's alone.
type TextError struct{ Err error }

// Error is Err's text.
func (e *TextError) Error() string { return e.Err.Error() }

// Unwrap is Err.
func (e *TextError) Unwrap() error { return e.Err }

// Is reports vocab.ErrInvalid.
func (e *TextError) Is(target error) bool { return target == vocab.ErrInvalid }
