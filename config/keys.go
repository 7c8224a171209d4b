package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// KeyList is the keys of one action in the `keys:` section: one key
// ("ctrl+x"), a list (["x", "ctrl+x"]), or none ("none", [], or nothing
// written) to unbind the action. A key of two names joined by one space is a chord ("g d":
// g, then d).
type KeyList []string

// keyList reads a KeyList from n when v is one: a scalar is one key
// ("none": no key), a list is its keys. ok is false for another type.
func (dec *decoder) keyList(n *yaml.Node, v reflect.Value, path []any) (ok bool) {
	if v.Type() != reflect.TypeFor[KeyList]() || n.Kind != yaml.ScalarNode {
		return false
	}
	switch {
	case isNull(n), n.Value == "none":
		v.Set(reflect.ValueOf(KeyList{}))
	default:
		v.Set(reflect.ValueOf(KeyList{n.Value}))
	}
	return true
}

// namedKeys are the keys Bubble Tea names with a word (tea.Key.String).
var namedKeys = map[string]bool{
	"space": true, "enter": true, "tab": true, "shift+tab": true, "esc": true, "backspace": true,
	"delete": true, "insert": true, "home": true, "end": true, "pgup": true, "pgdown": true,
	"up": true, "down": true, "left": true, "right": true,
	"ctrl+@": true, `ctrl+\`: true, "ctrl+]": true, "ctrl+^": true, "ctrl+_": true,
	// As the help overlay writes them (views.KeyName reads them so).
	"pgdn": true, "ctrl+space": true,
}

// aliasedKeys are keys a terminal sends as another key (Bubble Tea names
// them so): binding the written name would never match.
var aliasedKeys = map[string]string{"ctrl+i": "tab", "ctrl+m": "enter", "ctrl+[": "esc", "ctrl+h": "backspace"}

func init() {
	for _, k := range []string{"up", "down", "left", "right", "home", "end"} {
		namedKeys["shift+"+k], namedKeys["ctrl+"+k], namedKeys["ctrl+shift+"+k] = true, true, true
	}
	namedKeys["ctrl+pgup"], namedKeys["ctrl+pgdown"] = true, true
	for i := 1; i <= 20; i++ {
		namedKeys[fmt.Sprintf("f%d", i)] = true
	}
	for r := 'a'; r <= 'z'; r++ {
		if _, ok := aliasedKeys["ctrl+"+string(r)]; !ok {
			namedKeys["ctrl+"+string(r)] = true
		}
	}
}

// CheckKey checks a key as the `keys:` section writes it: one key or a
// chord of two joined by one space, each a printable character ("d",
// "D", "/"), "space", a named key ("enter", "pgdown", "f5", "shift+tab"),
// "ctrl+<letter>", or alt+ any of those. Errors say what was wrong.
func CheckKey(k string) error {
	parts := strings.Split(k, " ")
	if len(parts) > 2 {
		return fmt.Errorf("%q: a chord is two keys joined by one space (\"g d\")", k)
	}
	for _, p := range parts {
		if err := checkOneKey(p); err != nil {
			return fmt.Errorf("%q: %v", k, err)
		}
	}
	return nil
}

func checkOneKey(k string) error {
	base := strings.TrimPrefix(k, "alt+")
	if other, ok := aliasedKeys[base]; ok {
		return fmt.Errorf("%s reaches kyyard as %s; bind %s", base, other, other)
	}
	if namedKeys[base] {
		return nil
	}
	if l, ok := strings.CutPrefix(base, "shift+"); ok && len(l) == 1 && l[0] >= 'a' && l[0] <= 'z' {
		return nil // shift+f is F, as the help writes port-forward's key
	}
	if r, size := utf8.DecodeRuneInString(base); size == len(base) && r != utf8.RuneError && unicode.IsPrint(r) && !unicode.IsSpace(r) {
		return nil
	}
	if base == "" {
		return fmt.Errorf("a key is missing (two spaces, or one at an end?)")
	}
	return fmt.Errorf("not a key: one character, space, enter, tab, shift+tab, esc, backspace, delete, insert, home, end, pgup, pgdown, up, down, left, right, f1-f20, ctrl+<letter>, alt+ any of them")
}

// checkKeys checks each key's spelling in the `keys:` section (which
// tables and actions exist is ui's to check, through ErrorAt: config
// knows no screens).
func (f *File) checkKeys() []error {
	var errs []error
	for _, table := range slices.Sorted(maps.Keys(f.Keys)) {
		for _, action := range slices.Sorted(maps.Keys(f.Keys[table])) {
			for i, k := range f.Keys[table][action] {
				if err := CheckKey(k); err != nil {
					at := []any{"keys", table, action}
					if len(f.Keys[table][action]) > 1 {
						at = append(at, i)
					}
					errs = append(errs, f.doc.errorAt(at, "%v", err))
				}
			}
		}
	}
	return errs
}
