package workload

import (
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
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

// build lays the form out in lines and fields for a screen w cells wide.
func (f *form) build(w int) {
	// The slices are sized once for the whole form.
	n, l := 2, 1
	for _, st := range f.ctrs {
		n += 4*len(st.env) + len(st.command) + len(st.args) + 8
	}
	for _, c := range f.base.Containers {
		l += len(c.Env) + len(c.Command) + len(c.Args) + len(c.EnvFrom) + len(c.OtherResources) + 10
	}
	if cap(f.fields) < n {
		f.fields = make([]field, 0, n)
	}
	if cap(f.lines) < l+len(f.base.Unsupported) {
		f.lines = make([]line, 0, l+len(f.base.Unsupported))
	}
	f.fields, f.lines, f.width = f.fields[:0], f.lines[:0], w
	add := func(kind fieldKind, c, i int) int {
		f.fields = append(f.fields, field{kind: kind, c: c, i: i, line: len(f.lines)})
		return len(f.fields) - 1
	}
	b := f.base
	if b.HasReplicas || b.HasPaused {
		ln := line{kind: lnScale, c: -1}
		if b.HasReplicas {
			ln.fields = append(ln.fields, add(fkReplicas, -1, 0))
		}
		if b.HasPaused {
			ln.fields = append(ln.fields, add(fkPaused, -1, 0))
		}
		f.lines = append(f.lines, ln)
	}
	for ci, c := range b.Containers {
		f.lines = append(f.lines, line{kind: lnContainer, c: ci})
		if c.ReadOnly || ci >= len(f.ctrs) {
			f.text(ci, "image    "+c.Image+"  (read-only: past the form's "+strconv.Itoa(kube.MaxFormContainers)+" containers)")
			continue
		}
		s := f.ctrs[ci]
		envCut, argvCut := f.bounds(c.Name)
		f.lines = append(f.lines, line{kind: lnImage, c: ci, fields: []int{add(fkImage, ci, 0)}})
		for _, u := range argvCut {
			f.text(ci, "! read-only: "+u.Detail)
		}
		f.argv(lnCommand, fkCommand, fkNoCommand, ci, s.command, len(argvCut) > 0, add)
		f.argv(lnArgs, fkArgs, fkNoArgs, ci, s.args, len(argvCut) > 0, add)
		f.lines = append(f.lines, line{kind: lnEnvHeader, c: ci})
		for _, u := range envCut {
			f.text(ci, "! read-only: "+u.Detail)
		}
		if len(s.env) == 0 && len(envCut) == 0 {
			f.lines = append(f.lines, line{kind: lnEnv, c: ci, i: -1, fields: []int{add(fkNoEnv, ci, 0)}})
		}
		for j, e := range s.env {
			ln := line{kind: lnEnv, c: ci, i: j, bounded: len(envCut) > 0}
			switch {
			case ln.bounded:
			case e.ReadOnly() || !plain(e.Value):
				ln.fields = append(ln.fields, add(fkEnvFixed, ci, j))
			default:
				ln.fields = append(ln.fields, add(fkEnvName, ci, j))
				switch e.Source {
				case kube.EnvSecret, kube.EnvConfigMap:
					ln.fields = append(ln.fields, add(fkEnvRef, ci, j), add(fkEnvKey, ci, j), add(fkEnvOptional, ci, j))
				case kube.EnvField:
					ln.fields = append(ln.fields, add(fkEnvFieldPath, ci, j))
				case kube.EnvResource:
					ln.fields = append(ln.fields, add(fkEnvResource, ci, j), add(fkEnvContainer, ci, j), add(fkEnvDivisor, ci, j))
				default:
					ln.fields = append(ln.fields, add(fkEnvValue, ci, j))
				}
			}
			f.lines = append(f.lines, ln)
		}
		f.lines = append(f.lines, line{kind: lnCPU, c: ci, fields: []int{add(fkCPURequest, ci, 0), add(fkCPULimit, ci, 0)}})
		f.lines = append(f.lines, line{kind: lnMemory, c: ci, fields: []int{add(fkMemRequest, ci, 0), add(fkMemLimit, ci, 0)}})
		for _, t := range c.EnvFrom {
			f.text(ci, "envFrom  "+t+"  (read-only)")
		}
		for _, t := range c.OtherResources {
			f.text(ci, "other    "+t+"  (read-only)")
		}
		for _, u := range b.Unsupported {
			if u.Container == c.Name && u.Code != kube.UnsupportedEnvTruncated && u.Code != kube.UnsupportedArgvTruncated {
				f.text(ci, "! "+u.Detail)
			}
		}
	}
	for _, u := range b.Unsupported {
		if u.Container == "" {
			f.text(-1, "! "+u.Detail)
		}
	}
	f.clashLines()
	f.validate(-2)
}

// text adds a read-only line of container c (-1: the workload's), wrapped
// to the width so that a reason is read whole, never cut; the lines after
// the first of a notice ("! ...") are indented under its text.
func (f *form) text(c int, text string) {
	indent := ""
	if strings.HasPrefix(text, "! ") {
		indent = "  "
	}
	room := max(f.width-len(label(""))-1-len(indent), 20)
	for i, part := range strings.Split(ansi.Wrap(views.Sanitize(text), room, " /"), "\n") {
		if i > 0 {
			part = indent + part
		}
		f.lines = append(f.lines, line{kind: lnText, c: c, text: part})
	}
}

// clashLines puts below each line with a clashing field what the server
// changed it to, wrapped to the width so that it can be read whole.
func (f *form) clashLines() {
	if len(f.clashes) == 0 {
		return
	}
	var out []line
	for _, ln := range f.lines {
		for _, i := range ln.fields {
			f.fields[i].line = len(out)
		}
		out = append(out, ln)
		for _, i := range ln.fields {
			c := f.clashOf(&f.fields[i])
			if c == nil {
				continue
			}
			text := "! server changed it to " + orNone(c.Before) + "; yours kept"
			if !c.kept {
				text = "! server changed it too (shown); yours was " + orNone(c.After)
			}
			for _, part := range strings.Split(ansi.Wrap(text, max(f.width-12, 20), " /"), "\n") {
				out = append(out, line{kind: lnClash, c: ln.c, text: part})
			}
			break
		}
	}
	f.lines = out
}

// bounds returns the notices of the container's lists that are longer
// than the form shows: its env, and its command or args.
func (f *form) bounds(container string) (env, argv []kube.Unsupported) {
	for _, u := range f.base.Unsupported {
		if u.Container != container {
			continue
		}
		switch u.Code {
		case kube.UnsupportedEnvTruncated:
			env = append(env, u)
		case kube.UnsupportedArgvTruncated:
			argv = append(argv, u)
		}
	}
	return env, argv
}

// argv lays out a command or args list: one line per entry, or one
// placeholder line when it is empty.
// An entry with a line break or another control character is shown, not
// edited: a text field would flatten it; so is every entry when bounded
// (the lists are longer than the form shows).
func (f *form) argv(lk lineKind, fk, none fieldKind, ci int, list []string, bounded bool, add func(fieldKind, int, int) int) {
	if len(list) == 0 {
		if bounded {
			f.lines = append(f.lines, line{kind: lk, c: ci, i: -1, bounded: true})
			return
		}
		f.lines = append(f.lines, line{kind: lk, c: ci, i: -1, fields: []int{add(none, ci, 0)}})
	}
	for j, v := range list {
		if bounded || !plain(v) {
			f.lines = append(f.lines, line{kind: lk, c: ci, i: j, text: v, bounded: bounded})
			continue
		}
		f.lines = append(f.lines, line{kind: lk, c: ci, i: j, fields: []int{add(fk, ci, j)}})
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

// newInput returns a focused text input holding a text field's value.
func (f *form) newInput(st views.Styles, fd *field) *textinput.Model {
	in := textinput.New()
	in.Prompt = ""
	in.TextStyle = st.Prompt
	in.Cursor.SetMode(cursor.CursorStatic)
	in.Width = inputWidth(fd.kind, f.width)
	in.SetValue(f.value(fd))
	in.CursorEnd()
	in.Focus()
	return &in
}

// inputWidth is how many cells a text field shows on a screen w wide.
func inputWidth(k fieldKind, w int) int {
	switch k {
	case fkReplicas:
		return 6
	case fkImage, fkCommand, fkArgs:
		return max(min(w-40, 60), 16)
	case fkEnvName:
		if w >= 100 {
			return 16
		}
		return 12
	case fkEnvValue:
		return max(min(w-50, 60), 12)
	case fkEnvRef, fkEnvKey:
		return max(min((w-60)/2, 24), 8)
	case fkEnvFieldPath:
		return max(min(w-56, 54), 12)
	case fkEnvResource:
		return max(min((w-40)*3/10+1, 26), 13)
	case fkEnvContainer:
		return max(min((w-44)/5, 16), 7)
	case fkEnvDivisor:
		return 5
	}
	return 7 // quantities
}
