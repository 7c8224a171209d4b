package views

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
)

// KeyMap is the person's rebinding of keys (the configuration file's
// `keys:` section, issue 27): key table (a screen's name, as KeyTables in
// ui lists them: "global", "inventory", "logs", ...) → action (KeyAction
// names: "page-down", "describe", "delete") → the keys that do it, as
// Bubble Tea names them ("d", "ctrl+x", "f5", "space"). An empty list
// unbinds the action. A key of two names joined by a space ("g d") is a
// chord: the first key, then the second (the root holds the first until
// the second comes; see Chord). A nil KeyMap changes nothing.
type KeyMap map[string]map[string][]string

// Bind rebinds the actions of keys (a pointer to a screen's Keys struct)
// that km names for table; the others keep their defaults. Names km gives
// that keys has no action of are ignored here: cmd checks them at start
// (ui.CheckKeyMap), so a file with a misspelt action never starts.
func (km KeyMap) Bind(table string, keys any) {
	actions := km[table]
	if len(actions) == 0 {
		return
	}
	for _, a := range KeyActions(keys) {
		if ks, ok := actions[a.Name]; ok {
			Rebind(a.Binding, ks)
		}
	}
}

// Rebind sets b's keys to ks (Bubble Tea's names; "space" is " ") and its
// help key to them as the help overlay writes keys; no keys disable b.
func Rebind(b *key.Binding, ks []string) {
	if len(ks) == 0 {
		b.SetKeys()
		b.SetEnabled(false)
		return
	}
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = KeyName(k)
	}
	b.SetKeys(names...)
	b.SetHelp(KeyHelp(names), b.Help().Desc)
	b.SetEnabled(true)
}

// KeyName returns the name Bubble Tea gives the key written k in the
// configuration file, each part of a chord likewise ("g space" → "g  "):
// "space" is " " (tea.KeySpace's String), and the names the help overlay
// writes are Bubble Tea's ("pgdn" → "pgdown", "ctrl+space" → "ctrl+@",
// "shift+f" → "F"). Other names are kept.
func KeyName(k string) string {
	parts := strings.Split(k, " ")
	for i, p := range parts {
		alt, base := "", p
		if b, ok := strings.CutPrefix(p, "alt+"); ok {
			alt, base = "alt+", b
		}
		switch l, shifted := strings.CutPrefix(base, "shift+"); {
		case base == "space":
			base = " "
		case base == "pgdn":
			base = "pgdown"
		case base == "ctrl+space":
			base = "ctrl+@"
		case shifted && len(l) == 1 && l[0] >= 'a' && l[0] <= 'z':
			base = strings.ToUpper(l)
		}
		parts[i] = alt + base
	}
	return strings.Join(parts, " ")
}

// KeyHelp writes keys (Bubble Tea's names) as the help overlay shows them:
// " " as space, the arrows as arrows, alternatives joined by "/", a
// chord's two keys by a space ("ctrl+x d").
func KeyHelp(keys []string) string {
	out := make([]string, len(keys))
	for i, k := range keys {
		first, second, chord := ChordParts(k)
		out[i] = keyHelp(first)
		if chord {
			out[i] += " " + keyHelp(second)
		}
	}
	return strings.Join(out, "/")
}

// ChordParts splits a bound key into a chord's first and second key
// (Bubble Tea's names: "ctrl+x d" → "ctrl+x", "d"; "g  " → "g", " ");
// chord is false, and first is k, for a key that is no chord (" " included).
func ChordParts(k string) (first, second string, chord bool) {
	i := strings.IndexByte(k, ' ')
	if i <= 0 || i == len(k)-1 {
		return k, "", false
	}
	return k[:i], k[i+1:], true
}

var arrowNames = map[string]string{" ": "space", "up": "↑", "down": "↓", "left": "←", "right": "→", "ctrl+@": "ctrl+space"}

func keyHelp(k string) string {
	if n, ok := arrowNames[k]; ok {
		return n
	}
	return k
}

// KeyAction is one action of a screen's Keys struct.
type KeyAction struct {
	// Name is the action's name in the configuration file: its field's
	// name in kebab case (PageDown → "page-down", YAML → "yaml", EditYAML
	// → "edit-yaml"), or, for an element of a slice of named bindings (the
	// inventory's Operate), its Name() ("delete", "restart").
	Name string
	// Binding is the field itself: rebinding it changes the screen's keys.
	Binding *key.Binding
}

// namedBinding is an element of a slice of bindings that names its action
// (inventory.ActionBinding).
type namedBinding interface {
	Name() string
	KeyBinding() *key.Binding
}

var bindingType = reflect.TypeOf(key.Binding{})

// KeyActions lists the actions of keys, a pointer to a screen's Keys
// struct, in field order: every key.Binding field, every element of a
// slice field whose elements name themselves (Name, KeyBinding), and the
// actions of an embedded struct (ScrollKeys) as the struct's own. Other
// fields are skipped. keys not a pointer to a struct gives none.
func KeyActions(keys any) []KeyAction {
	v := reflect.ValueOf(keys)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	var out []KeyAction
	for i := 0; i < v.NumField(); i++ {
		f, ft := v.Field(i), v.Type().Field(i)
		if !ft.IsExported() {
			continue
		}
		switch {
		case ft.Type == bindingType:
			out = append(out, KeyAction{Name: KebabName(ft.Name), Binding: f.Addr().Interface().(*key.Binding)})
		case ft.Anonymous && f.Kind() == reflect.Struct:
			out = append(out, KeyActions(f.Addr().Interface())...)
		case f.Kind() == reflect.Slice:
			for j := 0; j < f.Len(); j++ {
				if nb, ok := f.Index(j).Addr().Interface().(namedBinding); ok {
					out = append(out, KeyAction{Name: nb.Name(), Binding: nb.KeyBinding()})
				}
			}
		}
	}
	return out
}

// KebabName writes a Go field name in kebab case, an initialism kept
// whole: PageDown → "page-down", YAML → "yaml", EditYAML → "edit-yaml",
// NextUnhealthy → "next-unhealthy".
func KebabName(field string) string {
	rs := []rune(field)
	var b strings.Builder
	for i, r := range rs {
		if unicode.IsUpper(r) && i > 0 {
			prevLower := unicode.IsLower(rs[i-1])
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if prevLower || nextLower && unicode.IsUpper(rs[i-1]) {
				b.WriteByte('-')
			}
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// BoundKeys returns a screen's keys: defaults() with vc's key map for
// table applied (KeyMap.Bind). A nil vc gives the defaults.
func BoundKeys[K any](vc *Context, table string, defaults func() K) K {
	k := defaults()
	if vc != nil {
		vc.KeyMap.Bind(table, &k)
	}
	return k
}
