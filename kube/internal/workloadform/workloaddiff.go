package workloadform

import (
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
	"k8s.io/apimachinery/pkg/api/resource"
)

// containerField is one scalar or list field of a container the form edits.
type containerField struct {
	name string
	get  func(*vocab.Container) any
	set  func(*vocab.Container, any)
	// quantity marks a resource quantity, compared by value (sameQuantity).
	quantity bool
}

// same compares two values of the field: quantities by value, the others
// by sameValue.
func (f containerField) same(a, b any) bool {
	if f.quantity {
		return sameQuantity(a.(string), b.(string))
	}
	return sameValue(a, b)
}

// sameQuantity compares two quantity texts by value when both parse
// (resource.ParseQuantity): "0.5" and "500m", "1024Mi" and "1Gi" are the
// same, as the API server stores each in its canonical form ("500m",
// "1Gi"), the form kube reads back; unset ("") or unparsable texts are
// compared as text.
func sameQuantity(a, b string) bool {
	if a == b {
		return true
	}
	qa, errA := resource.ParseQuantity(a)
	qb, errB := resource.ParseQuantity(b)
	return errA == nil && errB == nil && qa.Cmp(qb) == 0
}

// containerFields are the container fields the form edits, env aside, in
// the order the preview lists them.
var containerFields = []containerField{
	{"image", func(c *vocab.Container) any { return c.Image }, func(c *vocab.Container, v any) { c.Image = v.(string) }, false},
	{"command", func(c *vocab.Container) any { return c.Command }, func(c *vocab.Container, v any) { c.Command = slices.Clone(v.([]string)) }, false},
	{"args", func(c *vocab.Container) any { return c.Args }, func(c *vocab.Container, v any) { c.Args = slices.Clone(v.([]string)) }, false},
	{"cpu request", func(c *vocab.Container) any { return c.Resources.CPURequest }, func(c *vocab.Container, v any) { c.Resources.CPURequest = v.(string) }, true},
	{"cpu limit", func(c *vocab.Container) any { return c.Resources.CPULimit }, func(c *vocab.Container, v any) { c.Resources.CPULimit = v.(string) }, true},
	{"memory request", func(c *vocab.Container) any { return c.Resources.MemoryRequest }, func(c *vocab.Container, v any) { c.Resources.MemoryRequest = v.(string) }, true},
	{"memory limit", func(c *vocab.Container) any { return c.Resources.MemoryLimit }, func(c *vocab.Container, v any) { c.Resources.MemoryLimit = v.(string) }, true},
}

// sameValue compares two field values; an empty list and no list are the
// same (both mean unset).
func sameValue(a, b any) bool {
	if x, ok := a.([]string); ok {
		y, _ := b.([]string)
		return slices.Equal(x, y)
	}
	return reflect.DeepEqual(a, b)
}

// valueText renders a field value for the preview: lists as quoted words
// (["/app/server", "--port=8080"] reads `"/app/server" "--port=8080"`).
func valueText(v any) string {
	list, ok := v.([]string)
	if !ok {
		return v.(string)
	}
	parts := make([]string, len(list))
	for i, s := range list {
		parts[i] = strconv.Quote(s)
	}
	return strings.Join(parts, " ")
}

// EnvText renders an env entry's value as the preview and the form show it:
// a literal as itself, a reference as "secret db/password" or "configmap
// app/LOG_LEVEL" (with " optional"), a fieldRef as "field metadata.name"
// (its apiVersion appended when it is not v1), a resourceFieldRef as
// "resource limits.memory of app divisor 1Mi" (container and divisor when
// set), another source as "other <what it is>".
func EnvText(e vocab.EnvVar) string {
	switch e.Source {
	case vocab.EnvLiteral:
		return e.Value
	case vocab.EnvSecret, vocab.EnvConfigMap:
		s := string(e.Source) + " " + e.Reference()
		if e.Optional {
			s += " optional"
		}
		return s
	case vocab.EnvField:
		s := string(e.Source) + " " + e.FieldPath
		if e.APIVersion != "" && e.APIVersion != vocab.FieldRefAPIVersion {
			s += " apiVersion " + e.APIVersion
		}
		return s
	case vocab.EnvResource:
		s := string(e.Source) + " " + e.Resource
		if e.ContainerName != "" {
			s += " of " + e.ContainerName
		}
		if e.Divisor != "" {
			s += " divisor " + e.Divisor
		}
		return s
	}
	return string(e.Source) + " " + e.Path
}

// EnvChangeText is an env entry's value as a Change names it: EnvText,
// except that an empty literal value reads `""`, so that a preview line of
// an entry set from or to "" is not read as an entry added or removed
// (the screens show an empty Before or After as "(none)").
func EnvChangeText(e vocab.EnvVar) string {
	if e.Source == vocab.EnvLiteral && e.Value == "" {
		return `""`
	}
	return EnvText(e)
}

// sameEnv compares two env entries by what is written (not Read): a
// fieldRef's empty apiVersion is the "v1" the API server defaults it to,
// and divisors compare by value ("1024Ki" is the "1Mi" the server stores;
// unset is 0, as the API server's validation reads it).
func sameEnv(a, b vocab.EnvVar) bool {
	a.Read, b.Read = 0, 0
	if a.APIVersion == "" && a.Source == vocab.EnvField {
		a.APIVersion = vocab.FieldRefAPIVersion
	}
	if b.APIVersion == "" && b.Source == vocab.EnvField {
		b.APIVersion = vocab.FieldRefAPIVersion
	}
	if !sameDivisor(a.Divisor, b.Divisor) {
		return false
	}
	a.Divisor, b.Divisor = "", ""
	return a == b
}

// sameDivisor compares two divisors by value, "" and zero alike (unset).
func sameDivisor(a, b string) bool {
	zero := func(s string) bool {
		q, err := resource.ParseQuantity(s)
		return s == "" || (err == nil && q.IsZero())
	}
	return sameQuantity(a, b) || (zero(a) && zero(b))
}

// SameQuantity reports whether two quantity texts are the same amount
// ("0.5" and "500m", "1024Ki" and "1Mi": apimachinery's
// resource.Quantity.Cmp), as the API server stores each in its canonical
// form; texts that do not parse compare as text.
func SameQuantity(a, b string) bool { return sameQuantity(a, b) }

// Changes lists what differs between before and after, two pictures of
// one workload (after is before as the form edited it): replicas and
// paused, then per container (in after's order; read-only containers are
// never changes) image, command, args, each env entry (matched by
// EnvVar.Read: a renamed entry is one change, "env NEW (was OLD)") and each
// cpu and memory quantity. Values compare as text, quantities by value
// (sameQuantity): the form keeps the text it read, so what the person did
// not touch is never a change (casebook C26), and "0.5" over "500m" is
// none either. An empty result means nothing to send (C34); the workload
// form's * markers and change count follow this list.
func Changes(before, after vocab.Workload) []vocab.Change {
	var out []vocab.Change
	if after.HasReplicas && after.Replicas != before.Replicas {
		out = append(out, vocab.Change{Field: "replicas", Before: strconv.Itoa(int(before.Replicas)), After: strconv.Itoa(int(after.Replicas))})
	}
	if after.HasPaused && after.Paused != before.Paused {
		out = append(out, vocab.Change{Field: "paused", Before: strconv.FormatBool(before.Paused), After: strconv.FormatBool(after.Paused)})
	}
	for i := range after.Containers {
		a := &after.Containers[i]
		b, ok := before.Container(a.Name)
		if a.ReadOnly || !ok {
			continue
		}
		for _, f := range containerFields {
			if bv, av := f.get(&b), f.get(a); !f.same(bv, av) {
				out = append(out, vocab.Change{Container: a.Name, Field: f.name, Before: valueText(bv), After: valueText(av)})
			}
		}
		out = append(out, envChanges(a.Name, b.Env, a.Env)...)
	}
	return out
}

// envChanges lists the env entries added, changed, renamed and removed.
func envChanges(container string, before, after []vocab.EnvVar) []vocab.Change {
	byRead := map[int]vocab.EnvVar{}
	for _, e := range before {
		byRead[e.Read] = e
	}
	kept := map[int]bool{}
	var out []vocab.Change
	for _, a := range after {
		b, ok := byRead[a.Read]
		if a.Read == 0 || !ok {
			out = append(out, vocab.Change{Container: container, Field: "env " + a.Name, After: EnvChangeText(a)})
			continue
		}
		kept[a.Read] = true
		switch {
		case b.Name != a.Name:
			out = append(out, vocab.Change{Container: container, Field: "env " + a.Name + " (was " + b.Name + ")", Before: EnvChangeText(b), After: EnvChangeText(a)})
		case !sameEnv(a, b):
			out = append(out, vocab.Change{Container: container, Field: "env " + a.Name, Before: EnvChangeText(b), After: EnvChangeText(a)})
		}
	}
	for _, b := range before {
		if !kept[b.Read] {
			out = append(out, vocab.Change{Container: container, Field: "env " + b.Name, Before: EnvChangeText(b), After: "(removed)"})
		}
	}
	return out
}

// Rebase carries the person's edits onto a fresh read after a conflict
// (casebook C18, C21): base is what the form read, edited the form's
// values, fresh the object read again. Every path the person changed
// (replicas, paused, each container field, each env entry) is laid onto
// fresh when the server did not change that same path since base; where it
// did, fresh's value stays and the path is listed in clashes (Before: the
// server's value now, After: the person's). The result has fresh's UID,
// resourceVersion and everything the person did not change.
func Rebase(base, edited, fresh vocab.Workload) (merged vocab.Workload, clashes []vocab.Change) {
	merged = cloneWorkload(fresh)
	if edited.HasReplicas && edited.Replicas != base.Replicas {
		if fresh.Replicas == base.Replicas {
			merged.Replicas = edited.Replicas
		} else {
			clashes = append(clashes, vocab.Change{Field: "replicas", Before: strconv.Itoa(int(fresh.Replicas)), After: strconv.Itoa(int(edited.Replicas))})
		}
	}
	if edited.HasPaused && edited.Paused != base.Paused {
		if fresh.Paused == base.Paused {
			merged.Paused = edited.Paused
		} else {
			clashes = append(clashes, vocab.Change{Field: "paused", Before: strconv.FormatBool(fresh.Paused), After: strconv.FormatBool(edited.Paused)})
		}
	}
	for i := range edited.Containers {
		e := &edited.Containers[i]
		b, ok := base.Container(e.Name)
		if e.ReadOnly || !ok {
			continue
		}
		at := slices.IndexFunc(merged.Containers, func(c vocab.Container) bool { return c.Name == e.Name })
		for _, ch := range Changes(base, vocab.Workload{Containers: []vocab.Container{*e}}) {
			if at < 0 {
				clashes = append(clashes, vocab.Change{Container: e.Name, Field: ch.Field, Before: "(container removed)", After: ch.After})
			}
		}
		if at < 0 {
			continue
		}
		m := &merged.Containers[at]
		f, _ := fresh.Container(e.Name)
		for _, fld := range containerFields {
			if fld.same(fld.get(&b), fld.get(e)) {
				continue
			}
			if fld.same(fld.get(&f), fld.get(&b)) {
				fld.set(m, fld.get(e))
			} else {
				clashes = append(clashes, vocab.Change{Container: e.Name, Field: fld.name, Before: valueText(fld.get(&f)), After: valueText(fld.get(e))})
			}
		}
		var envClashes []vocab.Change
		m.Env, envClashes = rebaseEnv(e.Name, b.Env, e.Env, f.Env)
		clashes = append(clashes, envClashes...)
	}
	return merged, clashes
}

// rebaseEnv lays the env edits of one container (base → edited) onto
// fresh. When fresh's env equals base's, the edited list is taken as it is
// (its Read numbers are fresh's too). Otherwise entries are matched by
// name, which needs names unique in base and fresh; each edited entry whose
// fresh counterpart still equals base's is applied, the others clash.
func rebaseEnv(container string, base, edited, fresh []vocab.EnvVar) ([]vocab.EnvVar, []vocab.Change) {
	if envEqual(base, fresh) {
		return slices.Clone(edited), nil
	}
	changes := envChanges(container, base, edited)
	if len(changes) == 0 {
		return slices.Clone(fresh), nil
	}
	if hasDuplicateNames(base) || hasDuplicateNames(fresh) {
		var clashes []vocab.Change
		for _, ch := range changes {
			clashes = append(clashes, vocab.Change{Container: container, Field: ch.Field, Before: "(env changed on the server)", After: ch.After})
		}
		return slices.Clone(fresh), clashes
	}
	out := slices.Clone(fresh)
	find := func(name string) int {
		return slices.IndexFunc(out, func(e vocab.EnvVar) bool { return e.Name == name })
	}
	byRead := map[int]vocab.EnvVar{}
	for _, e := range base {
		byRead[e.Read] = e
	}
	var clashes []vocab.Change
	kept := map[int]bool{}
	for _, a := range edited {
		b, ok := byRead[a.Read]
		if ok && a.Read != 0 {
			kept[a.Read] = true
		}
		switch {
		case a.Read == 0 || !ok: // added
			if find(a.Name) >= 0 {
				clashes = append(clashes, vocab.Change{Container: container, Field: "env " + a.Name, Before: EnvChangeText(out[find(a.Name)]), After: EnvChangeText(a)})
				continue
			}
			a.Read = 0
			out = append(out, a)
		case sameEnv(a, b) && a.Name == b.Name: // untouched
		default: // changed or renamed
			at := find(b.Name)
			if at < 0 || !sameEnv(withRead(out[at], b.Read), b) || (a.Name != b.Name && find(a.Name) >= 0) {
				now := "(removed)"
				if at >= 0 {
					now = EnvChangeText(out[at])
				}
				clashes = append(clashes, vocab.Change{Container: container, Field: "env " + a.Name, Before: now, After: EnvChangeText(a)})
				continue
			}
			a.Read = out[at].Read
			out[at] = a
		}
	}
	for _, b := range base {
		if kept[b.Read] {
			continue
		}
		at := find(b.Name)
		switch {
		case at < 0: // removed on the server too
		case sameEnv(withRead(out[at], b.Read), b):
			out = slices.Delete(out, at, at+1)
		default:
			clashes = append(clashes, vocab.Change{Container: container, Field: "env " + b.Name, Before: EnvChangeText(out[at]), After: "(removed)"})
		}
	}
	return out, clashes
}

// withRead returns e with its Read set to read.
func withRead(e vocab.EnvVar, read int) vocab.EnvVar {
	e.Read = read
	return e
}

// envEqual compares two env lists by what is written, in order.
func envEqual(a, b []vocab.EnvVar) bool {
	return slices.EqualFunc(a, b, func(x, y vocab.EnvVar) bool { return sameEnv(x, y) })
}

// hasDuplicateNames reports whether two entries share a name (casebook C20).
func hasDuplicateNames(env []vocab.EnvVar) bool {
	seen := map[string]bool{}
	for _, e := range env {
		if seen[e.Name] {
			return true
		}
		seen[e.Name] = true
	}
	return false
}

// cloneWorkload copies w deeply enough that editing the copy's containers,
// env and argv never changes w.
func cloneWorkload(w vocab.Workload) vocab.Workload {
	w.Containers = slices.Clone(w.Containers)
	for i := range w.Containers {
		c := &w.Containers[i]
		c.Env = slices.Clone(c.Env)
		c.Command = slices.Clone(c.Command)
		c.Args = slices.Clone(c.Args)
	}
	w.Unsupported = slices.Clone(w.Unsupported)
	return w
}
