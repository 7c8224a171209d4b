package workload

import (
	"slices"
	"strconv"
	"unicode"

	"github.com/charmbracelet/bubbles/textinput"

	"github.com/kyyard/kyyard/kube"
)

// The form's state: the workload as read (base) and what the person made
// of it, field by field; fields and lines are built from it for drawing
// and focus, and rebuilt when its shape changes (a line added or removed).

// envRow is one env entry as edited; orig is its index in the base
// container's env (-1 when the person added it), so that a row is compared
// with the entry it came from even after rows before it were removed.
type envRow struct {
	kube.EnvVar
	orig int
}

// ctrState is one container as edited. Read-only containers are kept as
// read.
type ctrState struct {
	image         string
	command, args []string
	env           []envRow
	res           kube.Resources
}

// fieldKind says what a focusable field edits.
type fieldKind int

const (
	fkReplicas fieldKind = iota
	fkPaused
	fkImage
	fkCommand
	fkArgs
	fkEnvName
	fkEnvValue // a literal value
	fkEnvRef   // a Secret's or ConfigMap's name
	fkEnvKey
	fkEnvOptional
	fkEnvFieldPath // a fieldRef's fieldPath
	fkEnvResource  // a resourceFieldRef's resource, container and divisor
	fkEnvContainer
	fkEnvDivisor
	// fkEnvFixed is the one focus stop of an env row whose value no text
	// field can hold (a source kyyard does not write, a value with a line
	// break): ctrl+t replaces it with another source, ctrl+d removes it.
	fkEnvFixed
	fkCPURequest
	fkCPULimit
	fkMemRequest
	fkMemLimit
	fkNoCommand // placeholders of empty lists: typing or ctrl+n starts them
	fkNoArgs
	fkNoEnv
)

// toggle reports whether the field is a checkbox (space flips it).
func (k fieldKind) toggle() bool { return k == fkPaused || k == fkEnvOptional }

// placeholder reports whether the field stands for an empty list.
func (k fieldKind) placeholder() bool { return k == fkNoCommand || k == fkNoArgs || k == fkNoEnv }

// textual reports whether the field is a text input (typed into).
func (k fieldKind) textual() bool { return !k.toggle() && !k.placeholder() && k != fkEnvFixed }

// envCell reports whether the field is a part of an env row (not the
// empty list's placeholder).
func (k fieldKind) envCell() bool {
	switch k {
	case fkEnvName, fkEnvValue, fkEnvRef, fkEnvKey, fkEnvOptional,
		fkEnvFieldPath, fkEnvResource, fkEnvContainer, fkEnvDivisor, fkEnvFixed:
		return true
	}
	return false
}

// field is one focusable field: c is the container's index (-1 for
// replicas and paused), i the entry's index in its list.
type field struct {
	kind fieldKind
	c, i int
	// in is the text input of the focused field (nil for the others, which
	// are drawn from the state: a form of thousands of fields holds one).
	in      *textinput.Model
	line    int
	err     string // why the value cannot be sent; "" when it can
	changed bool
}

// lineKind says what a line of the form shows.
type lineKind int

const (
	lnScale lineKind = iota // replicas and paused
	lnContainer
	lnImage
	lnCommand
	lnArgs
	lnEnvHeader
	lnEnv
	lnCPU
	lnMemory
	lnText  // read-only text
	lnClash // what the server changed too, below the clashing field's line
)

// line is one line of the form: its fields (indexes into form.fields).
type line struct {
	kind   lineKind
	c, i   int
	text   string
	fields []int
	// bounded marks an entry of a list longer than the form shows
	// (kube.UnsupportedEnvTruncated, UnsupportedArgvTruncated): the list is
	// read-only, as kube refuses to change it (configuration_unreported).
	bounded bool
}

// clash is a field both the person and the server changed: Before is the
// server's value now, After the person's (kube.Rebase's vocabulary).
type clash struct {
	kube.Change
	kept bool
}

// form is the edit state of one workload.
type form struct {
	base     kube.Workload
	replicas string
	paused   bool
	ctrs     []ctrState
	// clashes are the fields the server changed too, found by a re-read,
	// by clashKey; kept says the person's value was put back in the form.
	clashes map[string]clash
	// written is what an apply would write now (kube.Changes), set by
	// validate after each edit: the markers and the count follow it.
	written []kube.Change

	fields []field
	lines  []line
	width  int // the width inputs were sized for
}

// newForm starts editing w, with base as the workload read: after a
// re-read the edits laid onto the fresh object come in as w.
func newForm(base, w kube.Workload) *form {
	f := &form{base: base, replicas: strconv.Itoa(int(w.Replicas)), paused: w.Paused}
	for i, c := range w.Containers {
		st := ctrState{image: c.Image, command: slices.Clone(c.Command), args: slices.Clone(c.Args), res: c.Resources}
		var bc kube.Container
		if i < len(base.Containers) {
			bc = base.Containers[i]
		}
		used := make([]bool, len(bc.Env))
		byRead := slices.ContainsFunc(bc.Env, func(e kube.EnvVar) bool { return e.Read != 0 })
		for j, e := range c.Env {
			orig := -1
			// The entry this one came from: the one read with the same
			// EnvVar.Read; without those numbers, the same index when it
			// is the same name, else the first unused one of that name.
			if byRead {
				if e.Read != 0 {
					orig = slices.IndexFunc(bc.Env, func(b kube.EnvVar) bool { return b.Read == e.Read })
				}
			} else if j < len(bc.Env) && bc.Env[j].Name == e.Name && !used[j] {
				orig = j
			} else {
				for k, be := range bc.Env {
					if !used[k] && be.Name == e.Name {
						orig = k
						break
					}
				}
			}
			if orig >= 0 {
				used[orig] = true
			}
			st.env = append(st.env, envRow{EnvVar: e, orig: orig})
		}
		f.ctrs = append(f.ctrs, st)
	}
	return f
}

// workload returns the edited workload: base with the person's values. A
// list equal to base's is base's own slice (nil stays nil).
func (f *form) workload() kube.Workload {
	w := f.base
	if n, err := kube.ParseReplicas(f.replicas); err == nil && w.HasReplicas {
		w.Replicas = n
	}
	if w.HasPaused {
		w.Paused = f.paused
	}
	w.Containers = slices.Clone(f.base.Containers)
	for i := range w.Containers {
		c := &w.Containers[i]
		if c.ReadOnly || i >= len(f.ctrs) {
			continue
		}
		st := f.ctrs[i]
		c.Image, c.Resources = st.image, st.res
		c.Command = list(c.Command, st.command)
		c.Args = list(c.Args, st.args)
		env := make([]kube.EnvVar, len(st.env))
		for j, r := range st.env {
			env[j] = normal(r.EnvVar)
		}
		if !slices.Equal(env, c.Env) {
			c.Env = env
			if len(env) == 0 {
				c.Env = nil
			}
		}
	}
	return w
}

// normal returns an editable env entry with only its source's fields
// (a row switched from a value to a Secret keeps the value typed in the
// state, for a switch back, but never sends it: an apply writes exactly
// one of value and valueFrom); an entry of a source kyyard does not write
// is returned as it was read (its description).
func normal(e kube.EnvVar) kube.EnvVar {
	out := kube.EnvVar{Name: e.Name, Source: e.Source, Read: e.Read}
	if e.ReadOnly() {
		out.Path = e.Path
		return out
	}
	switch e.Source {
	case kube.EnvLiteral:
		out.Value = e.Value
	case kube.EnvSecret, kube.EnvConfigMap:
		out.Ref, out.Key, out.Optional = e.Ref, e.Key, e.Optional
	case kube.EnvField:
		out.FieldPath, out.APIVersion = e.FieldPath, e.APIVersion
	case kube.EnvResource:
		out.Resource, out.ContainerName, out.Divisor = e.Resource, e.ContainerName, e.Divisor
	}
	return out
}

// list returns edited, or base when they are equal (nil for an empty list).
func list(base, edited []string) []string {
	if slices.Equal(base, edited) {
		return base
	}
	if len(edited) == 0 {
		return nil
	}
	return slices.Clone(edited)
}

// value returns a text field's value in the state.
func (f *form) value(fd *field) string {
	if fd.c < 0 {
		return f.replicas
	}
	st := &f.ctrs[fd.c]
	switch fd.kind {
	case fkImage:
		return st.image
	case fkCommand:
		return st.command[fd.i]
	case fkArgs:
		return st.args[fd.i]
	case fkEnvName:
		return st.env[fd.i].Name
	case fkEnvValue:
		return st.env[fd.i].Value
	case fkEnvRef:
		return st.env[fd.i].Ref
	case fkEnvKey:
		return st.env[fd.i].Key
	case fkEnvFieldPath:
		return st.env[fd.i].FieldPath
	case fkEnvResource:
		return st.env[fd.i].Resource
	case fkEnvContainer:
		return st.env[fd.i].ContainerName
	case fkEnvDivisor:
		return st.env[fd.i].Divisor
	case fkCPURequest:
		return st.res.CPURequest
	case fkCPULimit:
		return st.res.CPULimit
	case fkMemRequest:
		return st.res.MemoryRequest
	case fkMemLimit:
		return st.res.MemoryLimit
	}
	return ""
}

// set stores a text field's value in the state.
func (f *form) set(fd *field, v string) {
	if fd.c < 0 {
		f.replicas = v
		return
	}
	st := &f.ctrs[fd.c]
	switch fd.kind {
	case fkImage:
		st.image = v
	case fkCommand:
		st.command[fd.i] = v
	case fkArgs:
		st.args[fd.i] = v
	case fkEnvName:
		st.env[fd.i].Name = v
	case fkEnvValue:
		st.env[fd.i].Value = v
	case fkEnvRef:
		st.env[fd.i].Ref = v
	case fkEnvKey:
		st.env[fd.i].Key = v
	case fkEnvFieldPath:
		st.env[fd.i].FieldPath = v
	case fkEnvResource:
		st.env[fd.i].Resource = v
	case fkEnvContainer:
		st.env[fd.i].ContainerName = v
	case fkEnvDivisor:
		st.env[fd.i].Divisor = v
	case fkCPURequest:
		st.res.CPURequest = v
	case fkCPULimit:
		st.res.CPULimit = v
	case fkMemRequest:
		st.res.MemoryRequest = v
	case fkMemLimit:
		st.res.MemoryLimit = v
	}
}

// plain reports whether a text field can hold s unchanged: no line breaks,
// tabs or other control characters (a text field would flatten them), and
// no bidirectional controls (U+202E and its kind, which the field drops
// when typed: on the terminal they would reorder the text around them).
func plain(s string) bool {
	for _, r := range s {
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return false
		}
	}
	return true
}
