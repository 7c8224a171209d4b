package workloadform

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"

	"github.com/kyyard/kyyard/kube/internal/objects"
	"github.com/kyyard/kyyard/kube/vocab"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// The patch ApplyWorkload sends: a strategic merge patch
// (application/strategic-merge-patch+json, the form kubectl's own edits
// take) holding only the paths the person changed, and
// metadata.resourceVersion, which the API server treats as a precondition
// (a patch whose resourceVersion is not the object's current one is
// answered 409 Conflict). Containers and env entries are merged by their
// patchMergeKey `name` (k8s.io/api core/v1 types), so untouched entries and
// fields keep their bytes.

// buildPatch returns the strategic merge patch that turns before into
// after, for the object read fresh at before's resourceVersion (fresh is
// used only to carry env entries the person did not change byte for byte
// when a whole env list must be replaced). Errors: after changes a
// container or an env entry the form shows read-only.
func buildPatch(before, after vocab.Workload, fresh *corev1.PodSpec) ([]byte, error) {
	spec := map[string]any{}
	if after.HasReplicas && after.Replicas != before.Replicas {
		spec["replicas"] = after.Replicas
	}
	if after.HasPaused && after.Paused != before.Paused {
		spec["paused"] = after.Paused
	}
	var inits, containers []any
	for i := range after.Containers {
		a := &after.Containers[i]
		b, ok := before.Container(a.Name)
		if !ok {
			return nil, fmt.Errorf("container %q is not in the object as read", a.Name)
		}
		entry, err := containerPatch(b, *a, findContainer(fresh, a.Name))
		if err != nil {
			return nil, err
		}
		if entry == nil {
			continue
		}
		if a.ReadOnly {
			return nil, fmt.Errorf("container %q is past the form's %d containers and read-only", a.Name, vocab.MaxFormContainers)
		}
		entry["name"] = a.Name
		if a.Role == vocab.RoleContainer {
			containers = append(containers, entry)
		} else {
			inits = append(inits, entry)
		}
	}
	podSpec := map[string]any{}
	if len(containers) > 0 {
		podSpec["containers"] = containers
	}
	if len(inits) > 0 {
		podSpec["initContainers"] = inits
	}
	if len(podSpec) > 0 {
		spec["template"] = map[string]any{"spec": podSpec}
	}
	patch := map[string]any{"metadata": map[string]any{"resourceVersion": before.ResourceVersion}}
	if len(spec) > 0 {
		patch["spec"] = spec
	}
	return json.Marshal(patch)
}

// containerPatch returns the patch of one container's changed fields, nil
// when none changed. fresh is the container as read (may be nil in tests
// that change no env).
func containerPatch(b, a vocab.Container, fresh *corev1.Container) (map[string]any, error) {
	p := map[string]any{}
	if a.Image != b.Image {
		p["image"] = a.Image
	}
	for _, f := range []struct {
		key          string
		before, want []string
	}{{"command", b.Command, a.Command}, {"args", b.Args, a.Args}} {
		if slices.Equal(f.before, f.want) {
			continue
		}
		if len(f.want) == 0 {
			p[f.key] = nil // unset: the image's entrypoint or cmd again
		} else {
			p[f.key] = f.want
		}
	}
	res := map[string]any{}
	for _, q := range []struct {
		part, name    string
		before, after string
	}{
		{"requests", "cpu", b.Resources.CPURequest, a.Resources.CPURequest},
		{"limits", "cpu", b.Resources.CPULimit, a.Resources.CPULimit},
		{"requests", "memory", b.Resources.MemoryRequest, a.Resources.MemoryRequest},
		{"limits", "memory", b.Resources.MemoryLimit, a.Resources.MemoryLimit},
	} {
		if sameQuantity(q.before, q.after) {
			continue
		}
		part, _ := res[q.part].(map[string]any)
		if part == nil {
			part = map[string]any{}
			res[q.part] = part
		}
		if q.after == "" {
			part[q.name] = nil
		} else {
			part[q.name] = q.after
		}
	}
	if len(res) > 0 {
		p["resources"] = res
	}
	if err := envPatch(p, b.Env, a.Env, fresh); err != nil {
		return nil, fmt.Errorf("container %q: %w", a.Name, err)
	}
	if len(p) == 0 {
		return nil, nil
	}
	return p, nil
}

// envPatch adds to p the patch of an env list edited from before to after.
// Entries are matched by EnvVar.Read. Changed entries are merged by name
// with only their changed fields (a switch between value and valueFrom, or
// between a Secret and a ConfigMap key, nulls the replaced field so that
// the result holds exactly one); removed ones are `$patch: delete`;
// added, removed or renamed entries add `$setElementOrder/env`, the form's
// order (existing entries keep theirs, new ones follow: casebook C25).
// When names are not unique (C20), or a removed name is reused, a merge by
// name cannot say the change safely: the whole list is replaced (`$patch:
// replace`), untouched entries carried from fresh as read.
func envPatch(p map[string]any, before, after []vocab.EnvVar, fresh *corev1.Container) error {
	if slices.Equal(before, after) {
		return nil
	}
	byRead := map[int]vocab.EnvVar{}
	for _, e := range before {
		byRead[e.Read] = e
	}
	for _, a := range after {
		if b, ok := byRead[a.Read]; a.ReadOnly() && (!ok || !sameEnv(a, b)) {
			return fmt.Errorf("env %s is read-only (%s)", a.Name, a.Path)
		}
	}
	afterNames := map[string]bool{}
	for _, a := range after {
		afterNames[a.Name] = true
	}
	var items []any
	reorder := false
	kept := map[int]bool{}
	replace := hasDuplicateNames(before) || hasDuplicateNames(after)
	for _, a := range after {
		b, ok := byRead[a.Read]
		switch {
		case a.Read == 0 || !ok:
			items = append(items, envEntry(a))
			reorder = true
		case b.Name != a.Name:
			kept[a.Read] = true
			items = append(items, map[string]any{"name": b.Name, "$patch": "delete"}, envEntry(a))
			reorder = true
			replace = replace || afterNames[b.Name]
		case !sameEnv(a, b):
			kept[a.Read] = true
			items = append(items, envChange(b, a))
		default:
			kept[a.Read] = true
		}
	}
	for _, b := range before {
		if !kept[b.Read] {
			items = append(items, map[string]any{"name": b.Name, "$patch": "delete"})
			reorder = true
			replace = replace || afterNames[b.Name]
		}
	}
	if replace {
		list, err := envReplacement(before, after, fresh)
		if err != nil {
			return err
		}
		p["env"] = list
		return nil
	}
	if len(items) == 0 {
		return nil
	}
	p["env"] = items
	if reorder {
		order := make([]any, len(after))
		for i, a := range after {
			order[i] = map[string]any{"name": a.Name}
		}
		p["$setElementOrder/env"] = order
	}
	return nil
}

// envReplacement builds a `$patch: replace` env list: after's entries in
// order, each untouched one as fresh holds it, the others as the form says.
func envReplacement(before, after []vocab.EnvVar, fresh *corev1.Container) ([]any, error) {
	if fresh == nil {
		return nil, fmt.Errorf("the env list must be replaced but the container was not read")
	}
	byRead := map[int]vocab.EnvVar{}
	for _, e := range before {
		byRead[e.Read] = e
	}
	list := []any{map[string]any{"$patch": "replace"}}
	for _, a := range after {
		b, ok := byRead[a.Read]
		if a.Read > 0 && ok && sameEnv(a, b) && a.Read <= len(fresh.Env) {
			raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&fresh.Env[a.Read-1])
			if err != nil {
				return nil, err
			}
			list = append(list, raw)
			continue
		}
		list = append(list, envEntry(a))
	}
	return list, nil
}

// envEntry is the whole of an env entry as the form holds it: its name and
// exactly one of `value` and `valueFrom`.
func envEntry(e vocab.EnvVar) map[string]any {
	m := map[string]any{"name": e.Name}
	if key, ref := envRef(e); ref != nil {
		m["valueFrom"] = map[string]any{key: ref}
	} else {
		m["value"] = e.Value
	}
	return m
}

// envRef returns the valueFrom key ("secretKeyRef", "configMapKeyRef",
// "fieldRef", "resourceFieldRef") and the reference of an entry of that
// source, with only the fields it sets (a fieldRef always names its
// apiVersion, FieldRefAPIVersion when empty, as the API server defaults
// it; an unset containerName, divisor or optional is left out); a nil ref
// for a literal (or another source, which is never written).
func envRef(e vocab.EnvVar) (key string, ref map[string]any) {
	switch e.Source {
	case vocab.EnvSecret, vocab.EnvConfigMap:
		key = "secretKeyRef"
		if e.Source == vocab.EnvConfigMap {
			key = "configMapKeyRef"
		}
		ref = map[string]any{"name": e.Ref, "key": e.Key}
		if e.Optional {
			ref["optional"] = true
		}
	case vocab.EnvField:
		version := e.APIVersion
		if version == "" {
			version = vocab.FieldRefAPIVersion
		}
		key, ref = "fieldRef", map[string]any{"apiVersion": version, "fieldPath": e.FieldPath}
	case vocab.EnvResource:
		key, ref = "resourceFieldRef", map[string]any{"resource": e.Resource}
		if e.ContainerName != "" {
			ref["containerName"] = e.ContainerName
		}
		if e.Divisor != "" {
			ref["divisor"] = e.Divisor
		}
	default:
		return "", nil
	}
	return key, ref
}

// envChange is the merge patch of one entry changed in place (same name):
// the new value or reference, with what it replaces nulled, so that the
// merged entry holds exactly one of `value` and `valueFrom` (the API server
// refuses both, and a valueFrom with two sources): a literal nulls
// valueFrom; a reference nulls value (when it was a literal), the
// reference it replaces (another key) or the fields of the same reference
// it no longer sets (optional, containerName, divisor).
func envChange(b, a vocab.EnvVar) map[string]any {
	m := map[string]any{"name": a.Name}
	key, ref := envRef(a)
	if ref == nil {
		m["value"] = a.Value
		if b.Source != vocab.EnvLiteral {
			m["valueFrom"] = nil
		}
		return m
	}
	if b.Source == vocab.EnvLiteral {
		m["value"] = nil
	}
	from := map[string]any{key: ref}
	oldKey, old := envRef(b)
	switch {
	case b.Source == vocab.EnvOther:
		// A source kyyard does not write: valueFrom is replaced whole.
		m["valueFrom"] = map[string]any{key: ref, "$patch": "replace"}
		return m
	case old != nil && oldKey != key:
		from[oldKey] = nil
	case old != nil:
		for k := range old {
			if _, ok := ref[k]; !ok {
				ref[k] = nil
			}
		}
	}
	m["valueFrom"] = from
	return m
}

// errPatchUnsafe says the patch, merged by the API server's strategic merge
// code, would not give what the form shows.
var errPatchUnsafe = errors.New("the change cannot be written safely as a patch")

// checkedPatch builds the patch of before → after and proves it before it
// is sent: it merges it into fresh (the object read at before's
// resourceVersion) with apimachinery's strategic merge code, the code the
// API server runs, and reads the result as the form does. Unless that
// equals after in every field the form edits, the change is refused
// (errPatchUnsafe, saying where): a list with duplicate env names is
// regrouped by name by that merge (casebook C20), and no patch may write
// other than what the person sees. fresh may be zero (the guards stopped
// before the read): the patch is then built, for display, unchecked.
func checkedPatch(before, after vocab.Workload, fresh objects.PodOwner) ([]byte, error) {
	if fresh.Object == nil {
		return buildPatch(before, after, nil)
	}
	body, err := buildPatch(before, after, &fresh.Template.Spec)
	if err != nil {
		return nil, err
	}
	orig, err := json.Marshal(fresh.Object)
	if err != nil {
		return nil, err
	}
	merged, err := strategicpatch.StrategicMergePatch(orig, body, fresh.Object)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errPatchUnsafe, err)
	}
	out := reflect.New(reflect.TypeOf(fresh.Object).Elem()).Interface().(runtime.Object)
	if err := json.Unmarshal(merged, out); err != nil {
		return nil, err
	}
	wo, _ := objects.AsPodOwner(out)
	got := toWorkload(after.Ref, wo)
	if d := formDifference(got, after); d.where != "" {
		return nil, fmt.Errorf("%w: %s", errPatchUnsafe, d)
	}
	return body, nil
}

// difference is the first field the form edits in which two pictures of
// a workload differ (formDifference): where names it ("" when none, then
// "replicas", "paused", "container web", "container web cpu request",
// "container web env"); got is the first picture's value of a scalar
// field, and duplicates is set when the second's env list names an entry
// twice.
type difference struct {
	where, got string
	duplicates bool
}

// String says why a merged patch was refused: what the field would come
// out as, or, for an env list with duplicate names, that the strategic
// merge regroups it by name (casebook C20).
func (d difference) String() string {
	s := d.where + " would not come out as the form shows it"
	switch {
	case d.duplicates:
		s += " (a list with duplicate env names is regrouped by name when merged; remove the duplicate first, or use kubectl edit)"
	case d.got != "":
		s += " (it would be " + strconv.Quote(d.got) + "; kubectl edit can write it as you want it)"
	default:
		s += " (kubectl edit can write it as you want it)"
	}
	return s
}

// formDifference finds the first field the form edits in which got and
// want differ: replicas, paused, and each container's fields (quantities
// by value) and env list (compared by what is written, in order).
func formDifference(got, want vocab.Workload) difference {
	if want.HasReplicas && got.Replicas != want.Replicas {
		return difference{where: "replicas", got: strconv.Itoa(int(got.Replicas))}
	}
	if want.HasPaused && got.Paused != want.Paused {
		return difference{where: "paused", got: strconv.FormatBool(got.Paused)}
	}
	for i := range want.Containers {
		w := &want.Containers[i]
		g, ok := got.Container(w.Name)
		if !ok {
			return difference{where: "container " + w.Name}
		}
		for _, f := range containerFields {
			if !f.same(f.get(&g), f.get(w)) {
				return difference{where: "container " + w.Name + " " + f.name, got: valueText(f.get(&g))}
			}
		}
		if !envEqual(g.Env, w.Env) {
			return difference{where: "container " + w.Name + " env", duplicates: hasDuplicateNames(w.Env)}
		}
	}
	return difference{}
}
