package workloadform

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Conflict tells what the server changed in a workload since the form read
// it, against what the person changed: the fields both changed (each with
// the server's value now and the person's) and the server's other changes,
// which touch none of the person's fields. It is what a conflict refusal
// (the fresh guard of DryRun and ApplyWorkload, and an apply answered 409)
// says, and what the workload form shows while it is open. ConflictOf
// builds it; it compares through Rebase and Changes, the one way the form
// and an object are compared.
type Conflict struct {
	// ReadVersion and NowVersion are the resourceVersion the form read and
	// the server's now; ReadGeneration and NowGeneration their
	// metadata.generation (every write of the spec raises it).
	ReadVersion, NowVersion       string
	ReadGeneration, NowGeneration int64
	// Recreated says the object was deleted and created again (its UID
	// changed): nothing below is told then.
	Recreated bool
	// Clashes are the fields the person changed that the server changed
	// too (Rebase's clashes): Before is the server's value now, After the
	// person's.
	Clashes []vocab.Change
	// Others are the server's changes of the fields the form shows that
	// none of the person's changes touch: Before as the form read it,
	// After the server's value now.
	Others []vocab.Change
}

// ConflictOf compares base (what the form read), edited (the form's
// values) and fresh (the object read again). Env entries of fresh are
// matched to base's by name when names are unique in both (an entry the
// server added or removed in the middle of the list is that, not a run of
// renames); an entry the person renamed touches both its names.
func ConflictOf(base, edited, fresh vocab.Workload) Conflict {
	c := Conflict{ReadVersion: base.ResourceVersion, NowVersion: fresh.ResourceVersion,
		ReadGeneration: base.Generation, NowGeneration: fresh.Generation}
	if base.UID != "" && fresh.UID != base.UID {
		c.Recreated = true
		return c
	}
	_, c.Clashes = Rebase(base, edited, fresh)
	mine := map[string]bool{}
	for _, ch := range append(Changes(base, edited), c.Clashes...) {
		for _, k := range changeKeys(ch) {
			mine[k] = true
		}
	}
	for _, ch := range Changes(base, envByName(base, fresh)) {
		touches := false
		for _, k := range changeKeys(ch) {
			touches = touches || mine[k]
		}
		if !touches {
			c.Others = append(c.Others, ch)
		}
	}
	return c
}

// Written reports whether someone wrote the object since the form read it,
// as the fresh guard tells it: it was created again, its generation moved,
// or a field the form shows differs. A resourceVersion moved by status
// alone (a controller reporting progress) is not a write.
func (c Conflict) Written() bool {
	return c.NowVersion != c.ReadVersion &&
		(c.Recreated || c.NowGeneration != c.ReadGeneration || len(c.Clashes) > 0 || len(c.Others) > 0)
}

// maxOthersNamed bounds the server's other changes Text lists; the rest are
// counted.
const maxOthersNamed = 3

// Text says the conflict for people, each field the person changed that
// the server changed too first: `container web env FOO: server now "b",
// yours "a"; the other change (replicas 2 → 5) does not touch your
// fields`. With no clash: `your fields are untouched: the server's change
// (replicas 2 → 5) does not touch them`, or that what changed is outside
// the form's fields. Values are as Change holds them, quoted except
// numbers, quantities, argv lists (already quoted words) and markers such
// as "(removed)".
func (c Conflict) Text() string {
	if c.Recreated {
		return "it was deleted and created again (its UID changed): none of what you read is there"
	}
	var parts []string
	for _, cl := range c.Clashes {
		parts = append(parts, fmt.Sprintf("%s: server now %s, yours %s", conflictWhere(cl), conflictValue(cl, cl.Before), conflictValue(cl, cl.After)))
	}
	others, verb := othersText(c.Others), "do"
	if len(c.Others) == 1 {
		verb = "does"
	}
	switch {
	case len(c.Clashes) > 0 && len(c.Others) > 0:
		parts = append(parts, "the other "+others+" "+verb+" not touch your fields")
	case len(c.Clashes) > 0:
		parts = append(parts, "nothing else the form shows changed")
	case len(c.Others) > 0:
		parts = append(parts, "your fields are untouched: the server's "+others+" "+verb+" not touch them")
	default:
		parts = append(parts, "your fields are untouched: what changed is outside the form's fields")
	}
	return strings.Join(parts, "; ")
}

// conflictWhere names a change's field with its container: "container web
// env FOO", or "replicas".
func conflictWhere(c vocab.Change) string {
	if c.Container == "" {
		return c.Field
	}
	return "container " + c.Container + " " + c.Field
}

// othersText is "changes (replicas 2 → 5, container web image "a" →
// "b")", at most maxOthersNamed of them named and the rest counted.
func othersText(others []vocab.Change) string {
	noun := "changes"
	if len(others) == 1 {
		noun = "change"
	}
	if len(others) > maxOthersNamed {
		noun = strconv.Itoa(len(others)) + " changes"
	}
	var named []string
	for i, o := range others {
		if i == maxOthersNamed {
			named = append(named, fmt.Sprintf("and %d more", len(others)-maxOthersNamed))
			break
		}
		named = append(named, fmt.Sprintf("%s %s → %s", conflictWhere(o), conflictValue(o, o.Before), conflictValue(o, o.After)))
	}
	return noun + " (" + strings.Join(named, ", ") + ")"
}

// conflictValue shows one value of a change: "(none)" when empty, numbers,
// quantities and argv lists as they are, markers ("(removed)") and an
// empty literal (`""`) as they are, anything else quoted.
func conflictValue(c vocab.Change, v string) string {
	switch {
	case v == "":
		return "(none)"
	case v == `""`, strings.HasPrefix(v, "(") && strings.HasSuffix(v, ")"):
		return v
	}
	switch c.Field {
	case "replicas", "paused", "command", "args":
		return v
	}
	for _, f := range containerFields {
		if f.quantity && f.name == c.Field {
			return v
		}
	}
	return strconv.Quote(v)
}

// changeKeys are the fields a change touches, "container\x00field": an env
// entry by its name, both names of a renamed one ("env NEW (was OLD)").
func changeKeys(c vocab.Change) []string {
	key := func(field string) string { return c.Container + "\x00" + field }
	if now, was, ok := strings.Cut(c.Field, " (was "); ok && strings.HasPrefix(c.Field, "env ") {
		return []string{key(now), key("env " + strings.TrimSuffix(was, ")"))}
	}
	return []string{key(c.Field)}
}

// envByName returns fresh with each env entry's Read set to that of base's
// entry of the same name in the same container (0 when base has none), so
// that Changes(base, fresh) matches entries by name, as the server's
// writers (kubectl set env, strategic merge patches) address them. A
// container whose env names are not unique in base or fresh keeps its
// Read numbers (matched by position).
func envByName(base, fresh vocab.Workload) vocab.Workload {
	fresh = cloneWorkload(fresh)
	for i := range fresh.Containers {
		fc := &fresh.Containers[i]
		bc, ok := base.Container(fc.Name)
		if !ok || hasDuplicateNames(bc.Env) || hasDuplicateNames(fc.Env) {
			continue
		}
		read := map[string]int{}
		for _, e := range bc.Env {
			read[e.Name] = e.Read
		}
		for j := range fc.Env {
			fc.Env[j].Read = read[fc.Env[j].Name]
		}
	}
	return fresh
}
