package config

// Reading the document into the File: one pass over the nodes beside the
// structs, by reflection on their json tags (the names the file writes).
// It is the file's only decoder, and strict: a key that names no field, a
// value of the wrong kind and a key written twice are each a fault at
// their line, and every one in the file is reported.

import (
	"encoding"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// decode reads the document into f. It returns every fault it finds,
// each naming its line; f is then incomplete.
func (d *document) decode(f *File) []error {
	dec := decoder{doc: d}
	if d.root != nil {
		dec.value(d.root, reflect.ValueOf(f).Elem(), nil)
	}
	return dec.faults
}

// decoder reads nodes into values, gathering the faults it finds.
type decoder struct {
	doc    *document
	faults []error
}

// fault notes a fault at node n, whose path is path.
func (dec *decoder) fault(n *yaml.Node, path []any, format string, args ...any) {
	dec.faults = append(dec.faults, dec.doc.faultAt(n, path, format, args...))
}

// textUnmarshaler is the type of a value written as one scalar and read
// by its own method (Duration).
var textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()

// value reads node n into v, whose path in the file is path. It reads
// what the File's structs hold: a type with an UnmarshalText method (from
// a scalar's text; null is ""), and else, null (~ or nothing written)
// leaving v as it is, booleans (true, false, and YAML 1.1's yes, no, on,
// off unquoted, as yaml.v3 reads them into a bool), strings (any scalar,
// as written), lists, mappings with string keys, and structs.
func (dec *decoder) value(n *yaml.Node, v reflect.Value, path []any) {
	n = resolve(n)
	if v.CanAddr() && v.Addr().Type().Implements(textUnmarshaler) {
		if n.Kind != yaml.ScalarNode {
			dec.fault(n, path, "%s is not a single value", describe(n))
			return
		}
		text := n.Value
		if isNull(n) {
			text = ""
		}
		if err := v.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(text)); err != nil {
			dec.fault(n, path, "%v", err)
		}
		return
	}
	if dec.keyList(n, v, path) {
		return
	}
	if isNull(n) {
		return
	}
	switch v.Kind() {
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.Style&(yaml.SingleQuotedStyle|yaml.DoubleQuotedStyle) != 0 || n.Decode(&b) != nil {
			dec.fault(n, path, "%s is not true or false", describe(n))
			return
		}
		v.SetBool(b)
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			dec.fault(n, path, "%s is not a single value", describe(n))
			return
		}
		v.SetString(n.Value)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			hint := ""
			if n.Kind == yaml.ScalarNode {
				hint = fmt.Sprintf("; write [%s] for a list of one", describe(n))
			}
			dec.fault(n, path, "%s is not a list%s", describe(n), hint)
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, item := range n.Content {
			dec.value(item, s.Index(i), append(path[:len(path):len(path)], i))
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			dec.fault(n, path, "%s is not a mapping (name: value)", describe(n))
			return
		}
		m := reflect.MakeMap(v.Type())
		dec.entries(n, path, nil, func(value *yaml.Node, key field, at []any) {
			elem := reflect.New(v.Type().Elem()).Elem()
			dec.value(value, elem, at)
			m.SetMapIndex(reflect.ValueOf(key.name).Convert(v.Type().Key()), elem)
		})
		v.Set(m)
	case reflect.Struct:
		fields := fieldsOf(v.Type())
		if n.Kind != yaml.MappingNode {
			dec.fault(n, path, "%s is not a mapping of fields (%s)", describe(n), known(fields))
			return
		}
		dec.entries(n, path, fields, func(value *yaml.Node, f field, at []any) {
			dec.value(value, v.Field(f.index), at)
		})
	default:
		panic("config: the File holds a " + v.Type().String() + ", which the decoder cannot read")
	}
}

// entries calls read for each entry of mapping n in the order they take
// effect (entries: merged ones first), with the field its key names and
// its path. fields are the struct's a key must name, nil for a map (any
// key, a field of index -1). A key that is not a scalar, an unknown field
// (the known ones are listed), and a key written twice in the mapping
// itself (not merged) are faults instead.
func (dec *decoder) entries(n *yaml.Node, path []any, fields []field, read func(value *yaml.Node, f field, at []any)) {
	first := map[string]*yaml.Node{}
	for _, e := range entries(n) {
		key := resolve(e.key)
		if key.Kind != yaml.ScalarNode {
			dec.fault(key, path, "%s is not a name: a key is a word or a quoted string", describe(key))
			continue
		}
		at := append(path[:len(path):len(path)], key.Value)
		f := field{name: key.Value, index: -1}
		if fields != nil {
			var ok bool
			if f, ok = findField(fields, key.Value); !ok {
				dec.fault(key, at, "unknown field (known: %s)", known(fields))
				continue
			}
			at[len(at)-1] = f.name
		}
		if prev, twice := first[f.name]; twice && !e.merged {
			dec.fault(key, at, "written twice (first on line %d); keep one", prev.Line)
			continue
		}
		if !e.merged {
			first[f.name] = key
		}
		read(e.value, f, at)
	}
}

// field is a struct field the file may write.
type field struct {
	// name is the field's name in the file.
	name string
	// index is the field's in its struct.
	index int
}

// fieldsOf returns the fields of struct type t the file may write, in
// their order, each named by its json tag (every field of the File's
// structs has one; without, its Go name, as encoding/json names it). A
// field tagged "-" and an unexported one are not written.
func fieldsOf(t reflect.Type) []field {
	var fields []field
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields = append(fields, field{name: name, index: i})
	}
	return fields
}

// findField returns the field key names: written exactly, else in other
// letter cases (as encoding/json, which read the file before, matched
// them: ReadOnly is readonly).
func findField(fields []field, key string) (field, bool) {
	for _, exact := range []bool{true, false} {
		for _, f := range fields {
			if exact && f.name == key || !exact && strings.EqualFold(f.name, key) {
				return f, true
			}
		}
	}
	return field{}, false
}

// known lists the fields' names, for messages: "readonly, strict, shell".
func known(fields []field) string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return strings.Join(names, ", ")
}

// isNull reports whether n is null: ~, null, or nothing written.
func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

// describe writes a node for messages: "blue" (a string, quoted), 15 or
// true (another scalar, as written), a list, a mapping.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a mapping"
	}
	if n.ShortTag() == "!!str" {
		return strconv.Quote(n.Value)
	}
	return n.Value
}
