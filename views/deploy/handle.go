package deploy

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// focusCmd focuses the field under the cursor (and blurs the others).
func (m *Model) focusCmd() tea.Cmd {
	fields := m.f.fields()
	if len(fields) == 0 {
		return nil
	}
	m.focus = max(min(m.focus, len(fields)-1), 0)
	var cmd tea.Cmd
	for i, fd := range fields {
		switch {
		case fd.in != nil && i == m.focus:
			cmd = fd.in.Focus()
		case fd.in != nil:
			fd.in.Blur()
		case fd.area != nil && i == m.focus:
			cmd = fd.area.Focus()
		case fd.area != nil:
			fd.area.Blur()
		}
	}
	return cmd
}

// focusPath moves the cursor to the field of path.
func (m *Model) focusPath(path string) tea.Cmd {
	for i, fd := range m.f.fields() {
		if fd.path == path {
			m.focus = i
			break
		}
	}
	return m.focusCmd()
}

// move moves the cursor d fields (wrapping around the ends).
func (m *Model) move(d int) tea.Cmd {
	n := len(m.f.fields())
	m.focus = ((m.focus+d)%n + n) % n
	return m.focusCmd()
}

// formKey handles a key on the form; every change validates again and
// puts the first error on the status line.
func (m *Model) formKey(msg tea.KeyMsg) tea.Cmd {
	cmd := m.formKeyOf(msg)
	if m.mode != modeForm {
		return cmd
	}
	// The status line follows the form with every key.
	return tea.Batch(cmd, m.errStatus())
}

// formKeyOf does what a key does on the form.
func (m *Model) formKeyOf(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	fields := m.f.fields()
	fd := fields[min(m.focus, len(fields)-1)]
	if m.discard {
		// The answer to "discard your edits? y/n" (as the workload
		// form): y leaves, n or esc keeps the form.
		switch {
		case key.Matches(msg, k.Discard):
			return back
		case key.Matches(msg, k.Keep):
			m.discard = false
			m.note, m.noteErr = "the form is kept", false
		}
		return nil
	}
	m.note = ""
	if m.dropAsk > 0 {
		// The answer to "remove service x? y/n".
		i := m.dropAsk - 1
		m.dropAsk = 0
		if key.Matches(msg, k.DropService) && i < len(m.f.svcs) && len(m.f.svcs) > 1 {
			return m.dropService(i)
		}
		m.note, m.noteErr = "the service was kept", false
		return m.focusCmd()
	}
	switch {
	case key.Matches(msg, k.Back):
		if !m.changed() {
			return back
		}
		m.discard = true
		m.note, m.noteErr = strings.TrimSpace("discard your edits? "+views.YesNo(k.Discard, k.Keep))+" (nothing was deployed)", true
		return nil
	case key.Matches(msg, k.Preview):
		return m.openPreview()
	case key.Matches(msg, k.Next):
		return m.move(1)
	case key.Matches(msg, k.Previous):
		return m.move(-1)
	case key.Matches(msg, k.Down) && (fd.area == nil || fd.area.Line() >= fd.area.LineCount()-1):
		return m.move(1)
	case key.Matches(msg, k.Up) && (fd.area == nil || fd.area.Line() == 0):
		return m.move(-1)
	case key.Matches(msg, k.PageDown):
		return m.move(min(8, len(fields)-1-m.focus))
	case key.Matches(msg, k.PageUp):
		return m.move(-min(8, m.focus))
	case key.Matches(msg, k.Add):
		return m.add(fd)
	case key.Matches(msg, k.Delete):
		return m.remove(fd)
	}
	var cmd tea.Cmd
	switch {
	case fd.in != nil:
		*fd.in, cmd = fd.in.Update(msg)
	case fd.area != nil:
		*fd.area, cmd = fd.area.Update(msg)
	}
	m.validate()
	return cmd
}

// errStatus puts the first error's reason on the status line, or clears
// it once the form is valid (the root's hint shows again).
func (m *Model) errStatus() tea.Cmd {
	if e := m.firstError(); e != "" {
		return views.Status(fmt.Sprintf("%s (%s)", e, kube.Plural(len(m.errs), "field error")), true)
	}
	return views.Status("", false)
}

// add adds a row to the list the cursor is in, else a service after the
// cursor's.
func (m *Model) add(fd field) tea.Cmd {
	var path string
	switch {
	case fd.list != "":
		path = m.f.addRow(fd.svc, fd.list)
	case fd.svc >= 0:
		path = m.f.addService(fd.svc)
	default:
		path = m.f.addService(len(m.f.svcs) - 1)
	}
	m.validate()
	return m.focusPath(path)
}

// remove removes the row the cursor is in, else its service (an app keeps
// at least one).
func (m *Model) remove(fd field) tea.Cmd {
	switch {
	case fd.list != "" && fd.kind != kindPlaceholder:
		m.f.removeRow(fd.svc, fd.list, fd.row)
		m.validate()
		return m.focusPath(fmt.Sprintf("services[%d].%s", fd.svc, fd.list))
	case fd.svc >= 0 && len(m.f.svcs) > 1 && m.f.svcs[fd.svc].filled():
		// A service with something typed in goes only after a y.
		m.dropAsk = fd.svc + 1
		ask := fmt.Sprintf("remove service %s from the form (its objects are deleted on the next deploy)?", m.serviceName(fd.svc))
		if y := views.FirstKey(m.keys.DropService); y != "" {
			ask += " " + y + "/n" // any other key than y keeps it
		}
		m.note, m.noteErr = ask, true
		return nil
	case fd.svc >= 0 && len(m.f.svcs) > 1:
		return m.dropService(fd.svc)
	case fd.svc >= 0:
		m.note, m.noteErr = "an app has at least one service", true
	}
	return m.focusCmd()
}

// serviceName is service i's name as typed, or "2" (its place).
func (m *Model) serviceName(i int) string {
	if n := strings.TrimSpace(m.f.svcs[i].name.Value()); n != "" {
		return views.Sanitize(n)
	}
	return fmt.Sprint(i + 1)
}

// dropService removes service i from the form.
func (m *Model) dropService(i int) tea.Cmd {
	name := m.serviceName(i)
	m.f.svcs = append(m.f.svcs[:i], m.f.svcs[i+1:]...)
	m.validate()
	m.note, m.noteErr = fmt.Sprintf("service %s removed from the form", name), false
	return tea.Batch(m.focusPath(fmt.Sprintf("services[%d].name", min(i, len(m.f.svcs)-1))), m.errStatus())
}

// openPreview renders the objects and plans the deploy, once the form is
// valid.
func (m *Model) openPreview() tea.Cmd {
	m.validate()
	if len(m.errs) > 0 {
		m.note, m.noteErr = fmt.Sprintf("fix %s first: %s", kube.Plural(len(m.errs), "field"), m.firstError()), true
		return m.errStatus()
	}
	plan, err := render.Render(m.req)
	m.token++
	m.pv = newPreview(m.vc.Styles, m.req, plan, err)
	m.mode, m.note = modePreview, ""
	if err != nil {
		return nil
	}
	return planCmd(m, m.token, m.d, m.req)
}
