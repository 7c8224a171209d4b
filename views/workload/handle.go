package workload

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

func back() tea.Msg { return views.BackMsg{} }

// key routes a key press to the page shown.
func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	switch m.mode {
	case modeForm:
		return m.formKey(msg)
	case modePreview:
		return m.previewKey(msg)
	case modeRollout:
		return m.rolloutKey(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Back):
		return back
	case key.Matches(msg, m.keys.Reread) && m.loadErr != nil:
		m.loadErr = nil
		return m.readCmd(readOpen)
	}
	return nil
}

// formKey handles a key on the form: moves, list edits, preview, discard;
// anything else is typed into the focused field.
func (m *Model) formKey(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	if m.asking {
		switch {
		case key.Matches(msg, k.Discard):
			return back
		case key.Matches(msg, k.Keep):
			m.asking = false
		}
		return nil
	}
	m.note = ""
	// The view as it is drawn (scrolled freely or following the cursor):
	// the moves start from it.
	height := m.formHeight()
	top := m.scrollTo(height)
	m.offset, m.free = top, false
	if len(m.form.fields) == 0 {
		if key.Matches(msg, k.Back) {
			return back
		}
		return nil
	}
	switch {
	case key.Matches(msg, k.Back):
		if m.form.changeCount() > 0 {
			m.asking = true
			return nil
		}
		return back
	case key.Matches(msg, k.Preview):
		return m.preview()
	case key.Matches(msg, k.Reread):
		m.setNote("reading "+m.name()+" again…", false)
		// The usage too, now (kube answers from its last reading: the
		// workload usage read has no Fresh of its own).
		return tea.Batch(m.readCmd(readRebase), m.readUsage())
	case key.Matches(msg, k.Next):
		return m.moveFocus(m.focus + 1)
	case key.Matches(msg, k.Previous):
		return m.moveFocus(m.focus - 1)
	case key.Matches(msg, k.Down):
		return m.lineDown(top, height)
	case key.Matches(msg, k.Up):
		return m.lineUp(top, height)
	case key.Matches(msg, k.PageDown):
		return m.pageDown(top, height)
	case key.Matches(msg, k.PageUp):
		return m.pageUp(top, height)
	case key.Matches(msg, k.Add):
		return m.addLine()
	case key.Matches(msg, k.Delete):
		return m.deleteLine()
	case key.Matches(msg, k.Source):
		return m.switchSource()
	}
	if len(m.form.fields) == 0 {
		return nil
	}
	fd := &m.form.fields[m.focus]
	switch {
	case fd.kind.toggle():
		if key.Matches(msg, k.Toggle) {
			if fd.c < 0 {
				m.form.paused = !m.form.paused
			} else {
				e := &m.form.ctrs[fd.c].env[fd.i]
				e.Optional = !e.Optional
			}
			m.form.validate(fd.c)
		}
		return nil
	case fd.kind.placeholder():
		if msg.Type == tea.KeyRunes {
			cmd := m.addLine()
			return tea.Batch(cmd, m.typeInto(msg))
		}
		return nil
	}
	return m.typeInto(msg)
}

// typeInto hands a key to the focused text field and revalidates its
// container when the value changed.
func (m *Model) typeInto(msg tea.KeyMsg) tea.Cmd {
	fd := &m.form.fields[m.focus]
	if !fd.kind.textual() {
		return nil
	}
	if fd.in == nil {
		fd.in = m.form.newInput(m.vc.Styles, fd)
	}
	if msg.Type == tea.KeyRunes {
		var note string
		msg.Runes, note = cleanRunes(msg.Runes)
		if note != "" {
			m.setNote(note, false)
		}
		if len(msg.Runes) == 0 {
			return nil
		}
	}
	old := fd.in.Value()
	var cmd tea.Cmd
	*fd.in, cmd = fd.in.Update(msg)
	m.edited(fd, old)
	return cmd
}

// edited takes the focused field's text into the form when it is no longer
// old: stored and validated, and the view follows the cursor again (a
// scroll over read-only lines ends), its input's window on the cursor, so
// that any change of content (typed, pasted as keys, or read from the
// clipboard by ctrl+v, which answers later) shows at once where it is
// made, with its marker and count.
func (m *Model) edited(fd *field, old string) {
	v := fd.in.Value()
	if v == old {
		return
	}
	m.form.set(fd, v)
	m.form.validate(fd.c)
	m.free = false
	fd.in.SetCursor(fd.in.Position())
}

// cleanRunes drops, from typed or pasted runes, the bidirectional
// controls (unicode.Bidi_Control: U+202A–U+202E, U+2066–U+2069, ...),
// which would reorder what the terminal shows around them, a value read
// one way and applied another; it returns the runes kept and a note
// saying what the field does not take as it came ("" when all of it is
// taken): those controls dropped, and what the text input itself changes
// (other control characters dropped, line breaks and tabs made spaces).
func cleanRunes(in []rune) ([]rune, string) {
	var out []rune
	var bidi, ctrl, breaks int
	for _, r := range in {
		switch {
		case unicode.Is(unicode.Bidi_Control, r):
			bidi++
			continue
		case r == '\n' || r == '\r' || r == '\t':
			breaks++
		case unicode.IsControl(r):
			ctrl++
		}
		out = append(out, r)
	}
	var parts []string
	if bidi > 0 {
		parts = append(parts, plural(bidi, "bidirectional control character")+" dropped")
	}
	if ctrl > 0 {
		parts = append(parts, plural(ctrl, "control character")+" dropped")
	}
	if breaks > 0 {
		parts = append(parts, "line breaks and tabs made spaces")
	}
	if len(parts) == 0 {
		return out, ""
	}
	return out, "the text was changed: " + strings.Join(parts, ", ") + " (a field holds one line of printable text)"
}

// refocus rebuilds the form after its shape changed and moves the cursor
// to the field of kind k in container c, entry i (the nearest one before
// it when there is none).
func (m *Model) refocus(k fieldKind, c, i int) tea.Cmd {
	m.rebuild()
	best := -1
	for j, fd := range m.form.fields {
		if fd.c == c && fd.kind == k && fd.i == i {
			best = j
			break
		}
		if fd.c == c && fd.kind == k && fd.i < i {
			best = j
		}
	}
	if best < 0 {
		best = min(m.focus, len(m.form.fields)-1)
	}
	return m.moveFocus(best)
}

// addLine adds a command or args line after the cursor's, or an env row
// at the end of the container's env (casebook C25: the order of the others
// is kept).
func (m *Model) addLine() tea.Cmd {
	fd := m.form.fields[m.focus]
	if fd.c < 0 {
		m.setNote("ctrl+n adds a command or args line or an env row", false)
		return nil
	}
	st := &m.form.ctrs[fd.c]
	switch fd.kind {
	case fkCommand:
		st.command = slices.Insert(st.command, fd.i+1, "")
		return m.refocus(fkCommand, fd.c, fd.i+1)
	case fkArgs:
		st.args = slices.Insert(st.args, fd.i+1, "")
		return m.refocus(fkArgs, fd.c, fd.i+1)
	case fkNoCommand:
		st.command = []string{""}
		return m.refocus(fkCommand, fd.c, 0)
	case fkNoArgs:
		st.args = []string{""}
		return m.refocus(fkArgs, fd.c, 0)
	case fkNoEnv, fkEnvName, fkEnvValue, fkEnvRef, fkEnvKey, fkEnvOptional,
		fkEnvFieldPath, fkEnvResource, fkEnvContainer, fkEnvDivisor, fkEnvFixed:
		if len(st.env) >= kube.MaxFormEnv {
			m.setNote(fmt.Sprintf("the form edits at most %d env entries", kube.MaxFormEnv), true)
			return nil
		}
		st.env = append(st.env, envRow{EnvVar: kube.EnvVar{Source: kube.EnvLiteral}, orig: -1})
		return m.refocus(fkEnvName, fd.c, len(st.env)-1)
	}
	m.setNote("ctrl+n adds a command or args line or an env row", false)
	return nil
}

// deleteLine removes the cursor's command or args line or env row.
func (m *Model) deleteLine() tea.Cmd {
	fd := m.form.fields[m.focus]
	if fd.c < 0 {
		m.setNote("ctrl+d removes a command or args line or an env row", false)
		return nil
	}
	st := &m.form.ctrs[fd.c]
	switch fd.kind {
	case fkCommand:
		st.command = slices.Delete(st.command, fd.i, fd.i+1)
		if len(st.command) == 0 {
			return m.refocus(fkNoCommand, fd.c, 0)
		}
		return m.refocus(fkCommand, fd.c, fd.i)
	case fkArgs:
		st.args = slices.Delete(st.args, fd.i, fd.i+1)
		if len(st.args) == 0 {
			return m.refocus(fkNoArgs, fd.c, 0)
		}
		return m.refocus(fkArgs, fd.c, fd.i)
	case fkEnvName, fkEnvValue, fkEnvRef, fkEnvKey, fkEnvOptional,
		fkEnvFieldPath, fkEnvResource, fkEnvContainer, fkEnvDivisor, fkEnvFixed:
		st.env = slices.Delete(st.env, fd.i, fd.i+1)
		if len(st.env) == 0 {
			return m.refocus(fkNoEnv, fd.c, 0)
		}
		return m.refocus(fkEnvName, fd.c, fd.i)
	}
	m.setNote("ctrl+d removes a command or args line or an env row", false)
	return nil
}

// switchSource turns the cursor's env row to the next source of the
// cycle: a literal value, a Secret key, a ConfigMap key, a field of the
// pod (fieldRef), a resource of a container (resourceFieldRef), then back
// to the value; a row read from a source kyyard does not write (other)
// comes back to it after the resource. What was typed for each source is
// kept while the row switches; only the source shown is ever written
// (normal). The cursor goes to the new source's first field.
func (m *Model) switchSource() tea.Cmd {
	fd := m.form.fields[m.focus]
	if !fd.kind.envCell() {
		m.setNote("ctrl+t switches an env row between a value, a Secret, a ConfigMap, a field and a resource", false)
		return nil
	}
	e := &m.form.ctrs[fd.c].env[fd.i]
	wasOther := false
	if e.orig >= 0 && e.orig < len(m.form.baseContainer(fd.c).Env) {
		wasOther = m.form.baseContainer(fd.c).Env[e.orig].ReadOnly()
	}
	switch e.Source {
	case kube.EnvLiteral:
		e.Source = kube.EnvSecret
	case kube.EnvSecret:
		e.Source = kube.EnvConfigMap
	case kube.EnvConfigMap:
		e.Source = kube.EnvField
		if e.APIVersion == "" {
			e.APIVersion = kube.FieldRefAPIVersion
		}
	case kube.EnvField:
		e.Source = kube.EnvResource
	case kube.EnvResource:
		e.Source = kube.EnvLiteral
		if wasOther {
			e.Source = m.form.baseContainer(fd.c).Env[e.orig].Source
		}
	default:
		e.Source = kube.EnvLiteral
	}
	next := map[kube.EnvSource]fieldKind{kube.EnvLiteral: fkEnvValue, kube.EnvSecret: fkEnvRef, kube.EnvConfigMap: fkEnvRef,
		kube.EnvField: fkEnvFieldPath, kube.EnvResource: fkEnvResource}[e.Source]
	if e.ReadOnly() || (e.Source == kube.EnvLiteral && !plain(e.Value)) {
		next = fkEnvFixed
	}
	return m.refocus(next, fd.c, fd.i)
}

// preview checks the form and starts the server dry run: not with a field
// that cannot be sent, and not when nothing changed (casebook C34: no
// request at all).
func (m *Model) preview() tea.Cmd {
	if n := m.form.errorCount(); n > 0 {
		m.setNote(fmt.Sprintf("fix %s first: nothing is sent; %s", plural(n, "field"), m.form.firstError()), true)
		return nil
	}
	after := m.form.workload()
	if same(m.form.base, after) {
		m.setNote("nothing changed: nothing to preview or apply", false)
		return nil
	}
	errs := append(kube.ValidateWorkload(after), kube.ValidateNewDuplicates(m.form.base, after)...)
	if len(errs) > 0 {
		m.setNote(views.Sanitize(errs[0].Error())+": nothing is sent", true)
		return nil
	}
	if m.across != nil {
		m.handed = &after
		return m.across(m.form.base, after)
	}
	m.pv = &previewState{after: after, running: true}
	m.mode, m.page = modePreview, 0
	return m.dryRunCmd(m.form.base, after)
}

// plural is "1 field", "2 fields".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
