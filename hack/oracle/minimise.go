package oracle

import (
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
)

// step is one move from a value to a part of it: a struct field, a slice
// element, or through a pointer.
type step struct {
	field, index int // field index, or slice index when field < 0
	deref        bool
}

// edit is one candidate simplification: at path, remove slice element (or
// map key) del, or set the value to its zero when del is invalid.
type edit struct {
	path   []step
	remove int           // slice element to remove, or -1
	key    reflect.Value // map key to delete, when valid
}

// Minimise returns a smallest obj it can find on which fails still holds: it
// removes slice elements and map keys and zeroes fields, one at a time,
// keeping every change that keeps the failure, until no change does. obj is
// not changed.
func Minimise(obj runtime.Object, fails func(runtime.Object) bool) runtime.Object {
	for budget := 2000; budget > 0; {
		progressed := false
		for _, e := range edits(reflect.ValueOf(obj).Elem(), nil) {
			budget--
			c := obj.DeepCopyObject()
			if !apply(reflect.ValueOf(c).Elem(), e) {
				continue
			}
			if fails(c) {
				obj, progressed = c, true
				break
			}
			if budget <= 0 {
				break
			}
		}
		if !progressed {
			break
		}
	}
	return obj
}

// edits lists the simplifications of v, coarse ones (whole parts) first.
func edits(v reflect.Value, path []step) []edit {
	var out []edit
	at := func(s step) []step { return append(append([]step(nil), path...), s) }
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return nil
		}
		out = append(out, edit{path: path, remove: -1})
		out = append(out, edits(v.Elem(), at(step{deref: true}))...)
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		out = append(out, edit{path: path, remove: -1})
		for i := 0; i < v.Len(); i++ {
			out = append(out, edit{path: path, remove: i})
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return out
		}
		for i := 0; i < v.Len(); i++ {
			out = append(out, edits(v.Index(i), at(step{field: -1, index: i}))...)
		}
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out = append(out, edit{path: path, remove: -1})
		for _, k := range v.MapKeys() {
			out = append(out, edit{path: path, remove: -1, key: k})
		}
	case reflect.Struct:
		if !v.IsZero() {
			out = append(out, edit{path: path, remove: -1})
		}
		if !settableStruct(v.Type()) {
			return out
		}
		for i := 0; i < v.NumField(); i++ {
			out = append(out, edits(v.Field(i), at(step{field: i}))...)
		}
	default:
		if !v.IsZero() {
			out = append(out, edit{path: path, remove: -1})
		}
	}
	return out
}

// settableStruct is false for structs with unexported fields (time.Time,
// resource.Quantity): they are zeroed whole through their parent, never
// taken apart.
func settableStruct(t reflect.Type) bool {
	for i := 0; i < t.NumField(); i++ {
		if !t.Field(i).IsExported() {
			return false
		}
	}
	return true
}

// apply makes edit e on root; false when it changes nothing.
func apply(root reflect.Value, e edit) bool {
	v := root
	for _, s := range e.path {
		switch {
		case s.deref:
			v = v.Elem()
		case s.field < 0:
			v = v.Index(s.index)
		default:
			v = v.Field(s.field)
		}
	}
	switch {
	case e.key.IsValid():
		v.SetMapIndex(e.key, reflect.Value{})
	case e.remove >= 0:
		n := reflect.MakeSlice(v.Type(), 0, v.Len()-1)
		n = reflect.AppendSlice(n, v.Slice(0, e.remove))
		n = reflect.AppendSlice(n, v.Slice(e.remove+1, v.Len()))
		v.Set(n)
	default:
		if v.IsZero() || !v.CanSet() {
			return false
		}
		v.Set(reflect.Zero(v.Type()))
	}
	return true
}
