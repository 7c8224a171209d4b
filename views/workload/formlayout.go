package workload

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/bubbles/cursor"
	"github.com/charmbracelet/bubbles/textinput"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// The form laid out: its lines and focusable fields for a width (build),
// the server's changes under the lines they clash with, and the text input
// of the field being typed into.

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
