package workload

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// View draws the page shown in exactly Context.Width x Context.Height
// cells: a facts line, the body (the form scrolls so that the focused
// field is in sight; only visible lines are drawn), a note when there is
// one, and the keys that matter.
func (m *Model) View() string {
	w, h := m.vc.Width, m.vc.Height
	if w <= 0 || h <= 0 {
		return ""
	}
	st := m.vc.Styles
	var top, help string
	var body []string
	switch m.mode {
	case modeLoading:
		if m.loadErr != nil {
			head := " cannot read " + m.name() + ":"
			switch {
			case errors.Is(m.loadErr, kube.ErrNotManaged):
				// It was read: it is not one the form edits.
				head = " cannot edit " + m.name() + ": it is " + kube.ErrNotManaged.Error()
			case errors.Is(m.loadErr, errNotWorkload):
				head = " cannot edit " + m.name() + ":"
			}
			body = []string{st.Error.Render(views.Sanitize(head))}
			for _, l := range strings.Split(ansi.Wrap(errText(m.loadErr), max(w-2, 10), " /"), "\n") {
				body = append(body, "  "+l)
			}
			help = views.Hints(views.Hint("reads again", m.keys.Reread), views.Hint("back", m.keys.Back))
		} else {
			body = []string{st.Muted.Render(" reading " + m.name() + "…")}
			help = views.Hint("back", m.keys.Back)
		}
	case modeForm:
		top = m.facts(m.formHeight())
		help = m.formHelp()
	case modePreview:
		top = m.facts(0)
		body = m.previewLines(w)
		help = m.previewHelp()
	case modeRollout:
		body = m.rolloutLines(w)
		help = m.rolloutHelp()
	}
	notes := m.noteLines()
	lines := make([]string, 0, h)
	if top != "" {
		lines = append(lines, top)
	}
	rest := max(h-len(lines)-1-len(notes), 0)
	switch m.mode {
	case modeForm:
		body = m.formLines(rest)
	case modePreview:
		// previewLines wraps its prose itself and cuts the patch body.
	default:
		body = views.WrapLines(body, w)
	}
	if m.mode != modeForm && len(body) > rest && rest > 1 {
		// Scrolled by up/down; what is out of sight is counted.
		m.page = max(min(m.page, len(body)-rest+1), 0)
		below := len(body) - m.page - (rest - 1)
		body = body[m.page:]
		if below > 0 {
			body = append(body[:rest-1:rest-1], st.Muted.Render(fmt.Sprintf(" … %s (↓/pgdn)", kube.Plural(below, "more line"))))
		}
	}
	for i := 0; i < rest; i++ {
		l := ""
		if i < len(body) {
			l = body[i]
		}
		lines = append(lines, l)
	}
	lines = append(lines, notes...)
	if m.asking {
		help = st.Error.Render(strings.TrimSpace("discard your edits? " + views.YesNo(m.keys.Discard, m.keys.Keep)))
	} else {
		help = st.Muted.Render(help)
	}
	lines = append(lines, " "+help)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines[:min(len(lines), h)], "\n")
}

// formHeight is how many lines of the form the screen shows: all but the
// facts line, the notes and the help line.
func (m *Model) formHeight() int {
	return max(m.vc.Height-2-len(m.noteLines()), 0)
}

// noteLines draws, on the form, why it cannot be applied (permit.go), what
// the server changed since the form read it (watch.go), the
// note (wrapped, so that it can be read whole) and, on the form, why the
// focused field cannot be sent ("image: <reason>"): a
// reason is never cut. They take at most a third of the screen.
func (m *Model) noteLines() []string {
	st, w := m.vc.Styles, max(m.vc.Width-1, 10)
	var out []string
	wrap := func(text string, style lipgloss.Style) {
		for _, l := range strings.Split(ansi.Wrap(views.Sanitize(text), w, " /"), "\n") {
			out = append(out, style.Render(" "+l))
		}
	}
	if m.forbidden != "" && m.mode == modeForm {
		wrap("✗ "+m.forbidden+"; the form can be read, not applied", st.Error)
	}
	if line := m.watchLine(); line != "" {
		wrap(line, st.Error)
	}
	if m.note != "" {
		style := st.Muted
		if m.noteErr {
			style = st.Error
		}
		wrap(m.note, style)
	}
	if m.mode == modeForm && m.form != nil && m.focus < len(m.form.fields) {
		if fd := &m.form.fields[m.focus]; fd.err != "" && !strings.Contains(m.note, fd.err) {
			wrap("✗ "+m.form.fieldLabel(fd)+": "+fd.err, st.Error)
		}
	}
	if limit := max(m.vc.Height/3, 1); len(out) > limit {
		out = out[:limit]
	}
	return out
}

// facts is the form's first line: the resourceVersion, the autoscaler and
// the tool that manages the object, if any, and where the view is.
func (m *Model) facts(rest int) string {
	b := m.form.base
	hpa := "none"
	if b.Autoscaler != "" {
		hpa = views.Sanitize(b.Autoscaler)
	}
	parts := []string{"rv " + b.ResourceVersion, "HPA: " + hpa, "managed by: " + managedBy(b)}
	if n := len(m.form.lines); rest > 0 && n > 0 {
		m.offset = m.scrollTo(rest)
		parts = append(parts, fmt.Sprintf("lines %d-%d of %d", m.offset+1, min(m.offset+rest, n), n))
	}
	return " " + strings.Join(parts, " · ")
}

// managedBy names the tool whose markers the object carries (Helm, Argo
// CD, Flux, kyyard's deploy form), "none" when it carries none.
func managedBy(w kube.Workload) string {
	switch {
	case w.Labels["app.kubernetes.io/managed-by"] == "Helm":
		if r := w.Annotations["meta.helm.sh/release-name"]; r != "" {
			return "Helm (release " + views.Sanitize(r) + ")"
		}
		return "Helm"
	case w.Annotations["argocd.argoproj.io/tracking-id"] != "" || w.Labels["argocd.argoproj.io/instance"] != "":
		return "Argo CD"
	case w.Labels["kustomize.toolkit.fluxcd.io/name"] != "" || w.Labels["helm.toolkit.fluxcd.io/name"] != "":
		return "Flux"
	case w.Labels["app.kubernetes.io/managed-by"] == "kyyard":
		return "kyyard (deploy form)"
	}
	return "none"
}

// formHelp is the form's last line: how many changes, the keys, and what
// stops a preview.
func (m *Model) formHelp() string {
	k := m.keys
	does := "preview"
	if n := m.form.errorCount(); n > 0 {
		does += " (fix " + plural(n, "field") + " first)"
	}
	parts := []string{views.Hint("move", k.Next, k.Previous), views.Hint(does, k.Preview), views.Hint("back", k.Back)}
	if n := m.form.changeCount(); n > 0 {
		parts = append(parts, plural(n, "change"))
	}
	parts = append(parts, m.lineKeys()...)
	return views.Hints(parts...)
}

// lineKeys are the keys that add, remove or switch on the focused field's
// line, only those that do something there: a command or args line (or
// its placeholder), an env row (or the empty env list's placeholder). A
// bounded (read-only) list has no fields, so none is offered for it.
func (m *Model) lineKeys() []string {
	if m.focus >= len(m.form.fields) {
		return nil
	}
	fd := m.form.fields[m.focus]
	if fd.c < 0 {
		return nil
	}
	k := m.keys
	addEnv := views.Hint("add env", k.Add)
	if len(m.form.ctrs[fd.c].env) >= kube.MaxFormEnv {
		addEnv = ""
	}
	var keys []string
	switch fd.kind {
	case fkCommand, fkArgs:
		keys = []string{views.Hint("add line", k.Add), views.Hint("remove line", k.Delete)}
	case fkNoCommand, fkNoArgs:
		keys = []string{views.Hint("add line", k.Add)}
	case fkNoEnv:
		keys = []string{addEnv}
	case fkEnvName, fkEnvValue, fkEnvRef, fkEnvKey, fkEnvOptional,
		fkEnvFieldPath, fkEnvResource, fkEnvContainer, fkEnvDivisor, fkEnvFixed:
		keys = []string{addEnv, views.Hint("remove env", k.Delete), views.Hint("value/secret/configmap/field/resource", k.Source)}
	}
	return slices.DeleteFunc(keys, func(k string) bool { return k == "" })
}

// formLines draws the form's visible lines, scrolled so that the focused
// field's line is in sight.
func (m *Model) formLines(height int) []string {
	f := m.form
	m.offset = m.scrollTo(height)
	end := min(m.offset+height, len(f.lines))
	out := make([]string, 0, end-m.offset)
	for l := m.offset; l < end; l++ {
		out = append(out, m.drawLine(l))
	}
	return out
}

// scrollTo returns the first line to show in height lines so that the
// focused field's line is in sight (with its container's header when it
// is the container's first line).
func (m *Model) scrollTo(height int) int {
	f := m.form
	if len(f.fields) == 0 {
		return 0
	}
	if m.free {
		return max(min(m.offset, len(f.lines)-height), 0)
	}
	focusLine := f.fields[m.focus].line
	off := views.Window(focusLine, m.offset, height, len(f.lines))
	if focusLine == off && off > 0 && f.lines[off-1].kind == lnContainer {
		off-- // keep a container's header with its first field
	}
	return off
}

// label pads a field's label to the label column.
func label(s string) string { return fmt.Sprintf("%-9s", s) }

// drawLine draws one line of the form: the cursor marker, the label, each
// field with its changed (*) or clash (!) marker, then the first error.
func (m *Model) drawLine(l int) string {
	f, st := m.form, m.vc.Styles
	ln := f.lines[l]
	cursor := " "
	if len(f.fields) > 0 && f.fields[m.focus].line == l {
		cursor = ">"
	}
	var b strings.Builder
	b.WriteString(cursor)
	errText := ""
	fieldAt := func(k int) string {
		fd := &f.fields[ln.fields[k]]
		if fd.err != "" && errText == "" {
			errText = fd.err
		}
		return m.drawField(fd)
	}
	switch ln.kind {
	case lnScale:
		for k := range ln.fields {
			if f.fields[ln.fields[k]].kind == fkPaused {
				b.WriteString("  paused ")
			} else {
				b.WriteString("replicas ")
			}
			b.WriteString(fieldAt(k))
		}
		if f.base.Autoscaler != "" {
			b.WriteString(st.Muted.Render("  (the HPA " + views.Sanitize(f.base.Autoscaler) + " sets replicas)"))
		}
	case lnContainer:
		return cursor + m.containerHeader(ln.c)
	case lnImage:
		b.WriteString(label("image") + fieldAt(0))
	case lnCommand, lnArgs:
		name := "command"
		if ln.kind == lnArgs {
			name = "args"
		}
		if ln.i > 0 {
			name = ""
		}
		if len(ln.fields) == 0 {
			text := views.Sanitize(strings.ReplaceAll(ln.text, "\n", "↵"))
			switch {
			case ln.bounded && ln.i < 0:
				text = "(none)"
			case !ln.bounded:
				text += "  (line breaks or control characters: read-only here)"
			}
			b.WriteString(label(name) + st.Muted.Render(text))
			break
		}
		b.WriteString(label(name) + fieldAt(0))
		if cursor == ">" {
			b.WriteString(st.Muted.Render("  ctrl+n add · ctrl+d remove"))
		}
	case lnEnvHeader:
		b.WriteString(label("env") + st.Muted.Render(fmt.Sprintf(" %-*s%s", inputWidth(fkEnvName, m.vc.Width)+3, "NAME", "VALUE / SOURCE")))
	case lnEnv:
		b.WriteString(label(""))
		if ln.i < 0 {
			b.WriteString(fieldAt(0))
			break
		}
		e := f.ctrs[ln.c].env[ln.i]
		if len(ln.fields) == 0 {
			// A list longer than the form shows: read-only as a whole.
			b.WriteString(fmt.Sprintf(" %-*s  ", inputWidth(fkEnvName, m.vc.Width)+1, views.Sanitize(e.Name)))
			b.WriteString(st.Muted.Render(views.Sanitize(strings.ReplaceAll(kube.EnvText(e.EnvVar), "\n", "↵"))))
			break
		}
		if f.fields[ln.fields[0]].kind == fkEnvFixed {
			// ctrl+t replaces it and ctrl+d removes it (the help line says so).
			what := "value with line breaks or control characters  (read-only here)"
			if e.ReadOnly() {
				what = string(e.Source) + " " + views.Sanitize(e.Path) + "  (read-only)"
			}
			b.WriteString(fieldAt(0) + " " + st.Muted.Render(what))
			break
		}
		b.WriteString(fieldAt(0) + " ")
		switch e.Source {
		case kube.EnvLiteral:
			b.WriteString(fieldAt(1))
		case kube.EnvField:
			b.WriteString("field " + fieldAt(1))
		case kube.EnvResource:
			b.WriteString("resource " + fieldAt(1) + " of " + fieldAt(2) + " ÷ " + fieldAt(3))
			if cursor == ">" && m.vc.Width >= 100 {
				b.WriteString(st.Muted.Render("  (of: empty for this container; ÷ divisor: empty for 1)"))
			}
		default:
			b.WriteString(string(e.Source) + " " + fieldAt(1) + "/" + fieldAt(2) + " opt " + fieldAt(3))
			if cursor == ">" && e.Source == kube.EnvSecret {
				b.WriteString(st.Muted.Render("  (reference; value never read)"))
			}
		}
	case lnCPU, lnMemory:
		name := "cpu"
		if ln.kind == lnMemory {
			name = "memory"
		}
		b.WriteString(label(name) + "request " + fieldAt(0) + " limit " + fieldAt(1))
		if u := m.usageText(f.base.Containers[ln.c].Name, ln.kind == lnMemory); u != "" && errText == "" {
			b.WriteString(" " + st.Muted.Render(u))
		}
	case lnText:
		b.WriteString(st.Muted.Render(label("") + views.Sanitize(ln.text)))
	case lnClash:
		b.WriteString(label("") + st.Error.Render(views.Sanitize(ln.text)))
	}
	if errText != "" {
		b.WriteString(" " + st.Error.Render("✗ "+views.Sanitize(errText)))
	}
	return b.String()
}

// drawField draws one field: "[value]" or "[x]", then "*" when changed,
// "!" when the server changed it too, else a space.
func (m *Model) drawField(fd *field) string {
	f := m.form
	var s string
	switch {
	case fd.kind == fkPaused:
		s = m.focusedBox(fd, checkbox(f.paused))
	case fd.kind == fkEnvOptional:
		s = m.focusedBox(fd, checkbox(f.ctrs[fd.c].env[fd.i].Optional))
	case fd.kind == fkEnvFixed:
		// The name, not editable here, as the name fields are laid out.
		w := inputWidth(fkEnvName, f.width)
		v := ansi.Truncate(views.Sanitize(f.ctrs[fd.c].env[fd.i].Name), w, "…")
		s = m.focusedBox(fd, " "+v+strings.Repeat(" ", max(w+1-ansi.StringWidth(v), 0))+" ")
	case fd.kind == fkNoCommand || fd.kind == fkNoArgs:
		s = m.vc.Styles.Muted.Render("(none: type or ctrl+n to add)")
	case fd.kind == fkNoEnv:
		s = m.vc.Styles.Muted.Render("(no env: type or ctrl+n to add a row)")
	case fd.in != nil:
		s = "[" + fd.in.View() + "]"
	default:
		// As the text input draws itself: the value in its width, and one
		// cell more for the cursor.
		w := inputWidth(fd.kind, f.width)
		v := ansi.Truncate(views.Sanitize(f.value(fd)), w, "…")
		s = "[" + v + strings.Repeat(" ", max(w+1-ansi.StringWidth(v), 0)) + "]"
	}
	switch {
	case f.clashOf(fd) != nil:
		s += m.vc.Styles.Error.Render("!")
	case fd.changed:
		s += "*"
	default:
		s += " "
	}
	return s
}

// clashOf returns the clash a field is part of, or nil.
func (f *form) clashOf(fd *field) *clash {
	if len(f.clashes) == 0 {
		return nil
	}
	container, name := f.fieldName(fd)
	if c, ok := f.clashes[clashKey(container, name)]; ok {
		return &c
	}
	if fd.kind.envCell() && fd.kind != fkEnvOptional {
		for k, c := range f.clashes {
			if c.Container == container && strings.HasPrefix(k, clashKey(container, name+" (was ")) {
				return &c
			}
		}
	}
	return nil
}

// focusedBox draws a checkbox in the selection style when it has the
// focus (it has no cursor of its own to show it).
func (m *Model) focusedBox(fd *field, box string) string {
	if f := m.form; m.mode == modeForm && m.focus < len(f.fields) && &f.fields[m.focus] == fd {
		return m.vc.Styles.Selected.Render(box)
	}
	return box
}

func checkbox(on bool) string {
	if on {
		return "[x]"
	}
	return "[ ]"
}

// containerHeader is "── container web (1 of 2) ───…", its role marked.
func (m *Model) containerHeader(c int) string {
	ct := m.form.base.Containers[c]
	role := "container"
	switch ct.Role {
	case kube.RoleInit:
		role = "init container"
	case kube.RoleSidecar:
		role = "native sidecar"
	}
	text := fmt.Sprintf("── %s %s (%s of %s)", role, views.Sanitize(ct.Name), strconv.Itoa(c+1), strconv.Itoa(len(m.form.base.Containers)))
	if ct.ReadOnly {
		text += " read-only"
	}
	text += " "
	return text + strings.Repeat("─", max(m.vc.Width-ansi.StringWidth(text)-2, 2))
}
