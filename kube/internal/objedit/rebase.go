package objedit

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// Collision is one field a person changed that another writer changed to
// something else since the object was read: the rebase keeps the other
// writer's value there, and says so.
type Collision struct {
	// Field is the field's path (".data.color", ".spec.ports": a list is
	// one field, as a merge patch replaces it whole).
	Field string
	// Mine and Theirs are the person's and the other writer's values, as
	// short JSON ("(removed)" for a field removed; "(hidden)" for a
	// Secret's values).
	Mine, Theirs string
}

// Rebase re-applies a person's edit onto the object another writer
// changed meanwhile. original is the text's object as it was read,
// edited the person's (Shown forms: a Secret's values decoded), fresh
// the object read again (Shown form). The person's changes (a JSON merge
// patch of original to edited) are applied to fresh where the other writer
// left the field as it was, or set it to the same value; where both
// changed one field to different values, fresh's value is kept and the
// field is a Collision. Bookkeeping fields and status take no part: they
// are fresh's. Errors: an object that cannot be encoded or patched.
func Rebase(original, edited, fresh map[string]any) (map[string]any, []Collision, error) {
	mine, err := mergePatch(original, edited)
	if err != nil {
		return nil, nil, err
	}
	theirs, err := mergePatch(original, fresh)
	if err != nil {
		return nil, nil, err
	}
	secret := IsSecret(fresh) || IsSecret(original)
	var out []Collision
	drop(mine, theirs, "", secret, &out)
	sort.Slice(out, func(i, j int) bool { return out[i].Field < out[j].Field })
	base, err := json.Marshal(fresh)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the fresh object: %w", err)
	}
	p, err := json.Marshal(mine)
	if err != nil {
		return nil, nil, fmt.Errorf("encode the edit: %w", err)
	}
	b, err := jsonpatch.MergePatch(base, p)
	if err != nil {
		return nil, nil, fmt.Errorf("re-apply the edit: %w", err)
	}
	var rebased map[string]any
	if err := json.Unmarshal(b, &rebased); err != nil {
		return nil, nil, fmt.Errorf("read the rebased object: %w", err)
	}
	return rebased, out, nil
}

// mergePatch is the JSON merge patch of a to b (bookkeeping left out), as
// a map.
func mergePatch(a, b map[string]any) (map[string]any, error) {
	ab, err := json.Marshal(withoutBookkeeping(a))
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	bb, err := json.Marshal(withoutBookkeeping(b))
	if err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	p, err := jsonpatch.CreateMergePatch(ab, bb)
	if err != nil {
		return nil, fmt.Errorf("compare: %w", err)
	}
	var m map[string]any
	if err := json.Unmarshal(p, &m); err != nil {
		return nil, fmt.Errorf("read the comparison: %w", err)
	}
	return m, nil
}

// drop removes from mine every field theirs changed to another value,
// appending a Collision for each; a map both changed is walked into.
func drop(mine, theirs map[string]any, path string, secret bool, out *[]Collision) {
	for k, mv := range mine {
		tv, both := theirs[k]
		if !both {
			continue
		}
		field := path + "." + k
		mm, mIsMap := mv.(map[string]any)
		tm, tIsMap := tv.(map[string]any)
		switch {
		case mIsMap && tIsMap:
			drop(mm, tm, field, secret, out)
			if len(mm) == 0 {
				delete(mine, k)
			}
		case reflect.DeepEqual(mv, tv):
			// Both made the same change: nothing collides.
		default:
			hidden := secret && (strings.HasPrefix(field, ".data") || strings.HasPrefix(field, ".stringData"))
			*out = append(*out, Collision{Field: field, Mine: short(mv, hidden), Theirs: short(tv, hidden)})
			delete(mine, k)
		}
	}
}

// short is v as short JSON for a Collision: at most 60 characters, cut
// with "…"; "(removed)" for null; "(hidden)" when hidden.
func short(v any, hidden bool) string {
	switch {
	case v == nil:
		return "(removed)"
	case hidden:
		return "(hidden)"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if s := []rune(string(b)); len(s) > 60 {
		return string(s[:59]) + "…"
	}
	return string(b)
}
