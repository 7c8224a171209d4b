package workloadform

import (
	"slices"
	"strconv"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Carry lays the person's edits of one cluster's workload (base → edited,
// as the form made them) onto the same workload read in another cluster
// (target), for one change applied cluster by cluster: every path the
// person changed (replicas, paused, each container field, each env entry)
// takes the person's value in target, whatever target held there; what
// the person did not change stays target's own. Unlike Rebase (one
// object read again after a conflict), a path where target's value was
// not base's is no clash but the point of the change; it is listed in
// differed (Before: target's value, After: the person's) so that a plan
// can say "was X here". Env entries are matched by name in target (an
// edited entry replaces target's of that name, or is added after target's
// entries; a removed one removes target's of that name), so that needs
// unique names in base and target unless their env lists are the same.
// An edit that cannot be carried is in refused (Before says why: the
// container is not in target's template, or env names are not unique)
// and target's value stays. The result has target's UID,
// resourceVersion and everything the person did not change.
func Carry(base, edited, target vocab.Workload) (merged vocab.Workload, differed, refused []vocab.Change) {
	merged = cloneWorkload(target)
	if edited.HasReplicas && edited.Replicas != base.Replicas && target.HasReplicas {
		merged.Replicas = edited.Replicas
		if target.Replicas != base.Replicas {
			differed = append(differed, vocab.Change{Field: "replicas", Before: strconv.Itoa(int(target.Replicas)), After: strconv.Itoa(int(edited.Replicas))})
		}
	}
	if edited.HasPaused && edited.Paused != base.Paused && target.HasPaused {
		merged.Paused = edited.Paused
		if target.Paused != base.Paused {
			differed = append(differed, vocab.Change{Field: "paused", Before: strconv.FormatBool(target.Paused), After: strconv.FormatBool(edited.Paused)})
		}
	}
	for i := range edited.Containers {
		e := &edited.Containers[i]
		b, ok := base.Container(e.Name)
		if e.ReadOnly || !ok {
			continue
		}
		at := slices.IndexFunc(merged.Containers, func(c vocab.Container) bool { return c.Name == e.Name })
		if at < 0 || merged.Containers[at].ReadOnly {
			for _, ch := range Changes(base, vocab.Workload{Containers: []vocab.Container{*e}}) {
				refused = append(refused, vocab.Change{Container: e.Name, Field: ch.Field, Before: "(no container " + e.Name + " here)", After: ch.After})
			}
			continue
		}
		m := &merged.Containers[at]
		t := target.Containers[at]
		for _, fld := range containerFields {
			if fld.same(fld.get(&b), fld.get(e)) {
				continue
			}
			fld.set(m, fld.get(e))
			if !fld.same(fld.get(&t), fld.get(&b)) {
				differed = append(differed, vocab.Change{Container: e.Name, Field: fld.name, Before: valueText(fld.get(&t)), After: valueText(fld.get(e))})
			}
		}
		var envDiffered, envRefused []vocab.Change
		m.Env, envDiffered, envRefused = carryEnv(e.Name, b.Env, e.Env, t.Env)
		differed, refused = append(differed, envDiffered...), append(refused, envRefused...)
	}
	return merged, differed, refused
}

// carryEnv lays one container's env edits (base → edited) onto target's
// env, by name (see Carry).
func carryEnv(container string, base, edited, target []vocab.EnvVar) (out []vocab.EnvVar, differed, refused []vocab.Change) {
	changes := envChanges(container, base, edited)
	if len(changes) == 0 {
		return slices.Clone(target), nil, nil
	}
	if envEqual(base, target) {
		return slices.Clone(edited), nil, nil
	}
	if hasDuplicateNames(base) || hasDuplicateNames(target) || hasDuplicateNames(edited) {
		for _, ch := range changes {
			refused = append(refused, vocab.Change{Container: container, Field: ch.Field, Before: "(env names are not unique: carried by name only when they are)", After: ch.After})
		}
		return slices.Clone(target), nil, refused
	}
	out = slices.Clone(target)
	find := func(name string) int {
		return slices.IndexFunc(out, func(e vocab.EnvVar) bool { return e.Name == name })
	}
	byRead := map[int]vocab.EnvVar{}
	for _, e := range base {
		byRead[e.Read] = e
	}
	kept := map[int]bool{}
	baseOf := func(name string) (vocab.EnvVar, bool) {
		i := slices.IndexFunc(base, func(e vocab.EnvVar) bool { return e.Name == name })
		if i < 0 {
			return vocab.EnvVar{}, false
		}
		return base[i], true
	}
	note := func(name string, now, want vocab.EnvVar, nowOK bool) {
		b, inBase := baseOf(name)
		if nowOK && inBase && sameEnv(withRead(now, b.Read), b) || !nowOK && !inBase {
			return // target held what base held: no difference to say
		}
		before := "(absent)"
		if nowOK {
			before = EnvChangeText(now)
		}
		differed = append(differed, vocab.Change{Container: container, Field: "env " + name, Before: before, After: EnvChangeText(want)})
	}
	for _, a := range edited {
		b, ok := byRead[a.Read]
		if ok && a.Read != 0 {
			kept[a.Read] = true
		}
		if ok && a.Read != 0 && sameEnv(a, b) && a.Name == b.Name {
			continue // untouched
		}
		old := a.Name
		if ok && a.Read != 0 {
			old = b.Name // changed or renamed: target's entry of the old name
		}
		at := find(old)
		if at < 0 {
			at = find(a.Name) // renamed to a name target already has
		}
		if at >= 0 {
			note(old, out[at], a, true)
			a.Read = out[at].Read
			out[at] = a
			continue
		}
		note(old, vocab.EnvVar{}, a, false)
		a.Read = 0
		out = append(out, a)
	}
	for _, b := range base {
		if kept[b.Read] {
			continue
		}
		if at := find(b.Name); at >= 0 {
			if !sameEnv(withRead(out[at], b.Read), b) {
				differed = append(differed, vocab.Change{Container: container, Field: "env " + b.Name, Before: EnvChangeText(out[at]), After: "(removed)"})
			}
			out = slices.Delete(out, at, at+1)
		}
	}
	return out, differed, refused
}
