// Package workload is the screen that edits a Deployment, StatefulSet or
// DaemonSet through a form: replicas, paused, and per container the image,
// command and args, env and cpu/memory requests and limits. ctrl+s shows a
// preview (the changes, the server's dry run and the guards' verdicts);
// enter applies it, and the screen follows the rollout. Nothing the person
// typed is lost by a refusal or an error: the form stays as it was.
package workload

import (
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/rollout"
)

// mode is which of the screen's pages is shown.
type mode int

const (
	modeLoading mode = iota // the first read
	modeForm
	modePreview
	modeRollout
)

// Model is the workload screen. Use New; the zero value is not usable.
type Model struct {
	vc     *views.Context
	editor Editor
	ref    kube.WorkloadRef
	// kind describes the kind of the object the screen was opened on (its
	// plugin's KindInfo); once the first read found the workload, ref is
	// that workload's and may be of another kind (a pod's Deployment).
	kind kube.KindInfo
	keys Keys
	now  func() time.Time
	// deadline is how long a rollout is followed; poll how often it is read.
	deadline, poll time.Duration

	mode    mode
	token   int
	loadErr error // the first read failed

	form   *form
	focus  int // index in form.fields
	offset int // first body line shown
	// free is set when ↑/↓ or pgup/pgdn scrolled the form over read-only
	// lines instead of moving the cursor (lineDown): the view then keeps
	// offset instead of following the focus, until another key.
	free   bool
	asking bool
	// note is a line shown above the help line (a refusal, a re-read's
	// outcome, "nothing changed"); noteErr draws it as an error.
	note    string
	noteErr bool

	pv *previewState
	ro *rolloutState
	// page is the first line shown of the preview or rollout page.
	page int

	// The containers' usage beside the resources inputs (usage.go).
	utoken     int                 // usage chain id
	usage      *kube.WorkloadUsage // the last reading, nil before one
	usageNoted bool                // why there is none was said

	// forbidden says that and why an apply would be refused before
	// anything is sent ("applying is forbidden: you may not patch …", or
	// read-only mode: see permit.go), shown above the help line while the
	// form is open; "" when it may be applied or cannot be told.
	forbidden string

	// watch reads the object again while the form is open (watch.go).
	watch watchState

	// across, when set, takes the edits instead of the preview (PlanAcross);
	// handed are the edits last handed to it.
	across func(base, edited kube.Workload) tea.Cmd
	handed *kube.Workload
}

// PlanAcross makes the preview key hand the edits (base → edited, checked
// as for a preview) to plan instead of dry-running them here: the form of
// one change applied to several clusters (views/fleetchange plans, writes
// and follows it). The form then writes nothing itself.
func (m *Model) PlanAcross(plan func(base, edited kube.Workload) tea.Cmd) {
	m.across = plan
	m.keys.Preview.SetHelp("ctrl+s", "plan the change in every cluster")
}

// New returns the workload screen for ref, reading and writing through
// ed; kind describes ref.Kind (its plugin's KindInfo). It reads nothing
// until Init. The form edits ref itself when kind supports
// kube.ActionEdit (Deployments, StatefulSets, DaemonSets); otherwise
// (pods, ReplicaSets), when ed implements Owners, it edits the workload
// that owns ref.
func New(vc *views.Context, ed Editor, kind kube.KindInfo, ref kube.WorkloadRef) *Model {
	return &Model{vc: vc, editor: ed, kind: kind, ref: ref, keys: views.BoundKeys(vc, KeyTable, DefaultKeys), now: time.Now, deadline: DefaultRolloutDeadline, poll: rollout.PollEvery}
}

// Init reads the workload while the form is not open yet; later (the
// screen on top again) it does nothing, so that the edits stay.
func (m *Model) Init() tea.Cmd {
	if m.mode != modeLoading {
		return nil
	}
	return m.readCmd(readOpen)
}

// Update handles the Editor's answers, sizes and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case readMsg:
		if msg.owner == m && msg.token == m.token {
			return m, m.takeRead(msg)
		}
	case dryRunMsg:
		if msg.owner == m && msg.token == m.token {
			return m, m.takeDryRun(msg)
		}
	case applyMsg:
		if msg.owner == m && msg.token == m.token {
			return m, m.takeApply(msg)
		}
	case rollout.StatusMsg:
		if m.ro != nil && m.ro.f.Owns(msg) {
			return m, m.takeStatus(msg)
		}
	case rollout.PollMsg:
		if m.ro != nil && m.ro.f.Owns(msg) && m.mode == modeRollout {
			return m, m.statusCmd()
		}
	case permitMsg:
		if msg.owner == m && msg.why != "" {
			m.forbidden = "applying is forbidden: " + msg.why
		}
	case watchArmMsg:
		return m, m.armWatch(msg)
	case watchTickMsg:
		return m, m.takeWatchTick(msg)
	case watchMsg:
		return m, m.takeWatch(msg)
	case usageMsg:
		return m, m.takeUsage(msg)
	case usageTickMsg:
		return m, m.tickUsage(msg)
	case tea.WindowSizeMsg:
		if m.form != nil && m.form.width != m.vc.Width {
			m.rebuild()
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	default:
		// Cursor blinks of the focused field, and what ctrl+v read from
		// the clipboard (textinput.Paste answers later, not as a key).
		if m.mode == modeForm && m.form != nil && m.focus < len(m.form.fields) && m.form.fields[m.focus].in != nil {
			fd := &m.form.fields[m.focus]
			old := fd.in.Value()
			var cmd tea.Cmd
			*fd.in, cmd = fd.in.Update(msg)
			m.edited(fd, old)
			return m, cmd
		}
	}
	return m, nil
}

// takeRead opens the form on the workload read, or (after a conflict)
// lays the edits onto the fresh object.
func (m *Model) takeRead(msg readMsg) tea.Cmd {
	if msg.err != nil {
		if msg.purpose == readOpen {
			m.loadErr = msg.err
			return nil
		}
		if msg.purpose == readUndo && m.ro != nil {
			m.ro.undoing, m.ro.undoErr = false, msg.err
		}
		m.setNote(fmt.Sprintf("could not read %s again: %s", m.name(), errText(msg.err)), true)
		return nil
	}
	if msg.purpose == readUndo {
		return m.takeUndoRead(msg.w)
	}
	if msg.purpose == readOpen || msg.purpose == readEdit {
		m.ref, m.loadErr = msg.ref, nil
		m.mode = modeForm
		m.form = newForm(msg.w, msg.w)
		m.focus, m.offset = 0, 0
		m.rebuild()
		if msg.purpose == readOpen {
			// The workload is known now (a pod's owner): read its usage,
			// and whether it may be patched.
			return tea.Batch(m.focusCmd(), m.readUsage(), m.permitCmd(), m.startWatch())
		}
		return tea.Batch(m.focusCmd(), m.startWatch())
	}
	edited := m.form.workload()
	merged, clashes := rebase(m.form.base, edited, msg.w)
	marks := map[string]clash{}
	for _, c := range clashes {
		marks[clashKey(c.Container, c.Field)] = clash{Change: c, kept: restore(&merged, m.form.base, edited, c)}
	}
	focus := m.focus
	m.forgetWatch()
	m.form = newForm(msg.w, merged)
	m.form.clashes = marks
	m.mode, m.pv = modeForm, nil
	m.focus = focus
	m.rebuild()
	text := fmt.Sprintf("read again at resourceVersion %s: your edits are kept", msg.w.ResourceVersion)
	if len(clashes) > 0 {
		text += fmt.Sprintf("; %d changed on the server too (marked !): check them", len(clashes))
	}
	m.setNote(text, false)
	return m.focusCmd()
}

// rebuild lays the form out again (its shape or the width changed) and
// keeps the focus on a field.
func (m *Model) rebuild() {
	m.form.build(m.vc.Width)
	m.focus = max(min(m.focus, len(m.form.fields)-1), 0)
	m.focusCmd()
}

// focusCmd focuses the field under the cursor.
func (m *Model) focusCmd() tea.Cmd {
	if m.form == nil || m.focus >= len(m.form.fields) {
		return nil
	}
	fd := &m.form.fields[m.focus]
	if !fd.kind.textual() {
		return nil
	}
	if fd.in == nil {
		fd.in = m.form.newInput(m.vc.Styles, fd)
	}
	return fd.in.Focus()
}

// moveFocus moves the cursor to field i (wrapping around the ends).
func (m *Model) moveFocus(i int) tea.Cmd {
	n := len(m.form.fields)
	if n == 0 {
		return nil
	}
	m.form.fields[m.focus].in = nil
	m.focus = (i%n + n) % n
	return m.focusCmd()
}

// The form's moves keep every line of it readable: the cursor goes to
// the next (or previous) field only when that field is in sight or comes
// into sight with the move; else the move scrolls the form toward it, a
// line (↑/↓) or a page (pgup/pgdn), the cursor staying where it is (free),
// so that the read-only lines between two fields (a long env list shown
// read-only and its reason, envFrom, notices) and those past the last
// field are seen, as in a pager. Typing or tab brings the cursor's field
// back into sight. top and height are the view as the last frame drew it.

// fieldLine returns the first line with fields after line from (d=1) or
// before it (d=-1), -1 when there is none.
func (m *Model) fieldLine(from, d int) int {
	f := m.form
	for l := from + d; l >= 0 && l < len(f.lines); l += d {
		if len(f.lines[l].fields) > 0 {
			return l
		}
	}
	return -1
}

// focusLine moves the cursor to the first field of line l.
func (m *Model) focusLine(l int) tea.Cmd { return m.moveFocus(m.form.lines[l].fields[0]) }

// scroll moves the view d lines (up when negative) from top, within the
// form, and keeps it there (free) until a key brings the cursor back.
func (m *Model) scroll(top, height, d int) {
	m.offset = max(min(top+d, len(m.form.lines)-height), 0)
	m.free = true
}

// lineDown is ↓: the next field's line when it is in sight or the line
// just below it; else the form scrolls a line. From a cursor above the
// view (scrolled past), the next field is the first one in sight.
func (m *Model) lineDown(top, height int) tea.Cmd {
	from := max(m.form.fields[m.focus].line, top-1)
	if l := m.fieldLine(from, 1); l >= 0 && l <= top+height {
		return m.focusLine(l)
	}
	m.scroll(top, height, 1)
	return nil
}

// lineUp is ↑, as lineDown upwards.
func (m *Model) lineUp(top, height int) tea.Cmd {
	from := min(m.form.fields[m.focus].line, top+height)
	if l := m.fieldLine(from, -1); l >= 0 && l >= top-1 {
		return m.focusLine(l)
	}
	m.scroll(top, height, -1)
	return nil
}

// pageDown is pgdn: the cursor moves a page of lines, to the first field
// at or past that line (the last field when none is), when that field is
// within a page below the view; else the form scrolls a page.
func (m *Model) pageDown(top, height int) tea.Cmd {
	page := max(height-1, 1)
	line := m.form.fields[m.focus].line
	target := max(line+page, top)
	l := m.fieldLine(target-1, 1)
	if l < 0 {
		if last := m.fieldLine(len(m.form.lines), -1); last > line {
			l = last
		}
	}
	if l >= 0 && l <= top+height-1+page {
		return m.focusLine(l)
	}
	m.scroll(top, height, page)
	return nil
}

// pageUp is pgup, as pageDown upwards (the first field when none is at or
// before the line a page up).
func (m *Model) pageUp(top, height int) tea.Cmd {
	page := max(height-1, 1)
	line := m.form.fields[m.focus].line
	target := min(line-page, top+height-1)
	l := m.fieldLine(target+1, -1)
	if l < 0 {
		if first := m.fieldLine(-1, 1); first >= 0 && first < line {
			l = first
		}
	}
	if l >= 0 && l >= top-page {
		return m.focusLine(l)
	}
	m.scroll(top, height, -page)
	return nil
}

// step is how far up/down (a line) and pgup/pgdn (a page) scroll the
// preview and rollout pages.
func (m *Model) step(msg tea.KeyMsg) int {
	if key.Matches(msg, m.keys.PageDown, m.keys.PageUp) {
		return max(m.vc.Height-4, 1)
	}
	return 1
}

func (m *Model) setNote(text string, isErr bool) { m.note, m.noteErr = text, isErr }

// name is "<kind>/<name>", as messages say it.
func (m *Model) name() string { return string(m.ref.Kind) + "/" + m.ref.Name }

// Title names the workload and the page: "deployments/web (demo) · edit".
func (m *Model) Title() string {
	page := "edit"
	switch m.mode {
	case modePreview:
		page = "preview"
	case modeRollout:
		page = "rollout"
		if m.ro != nil && m.ro.f.Status.Revision != "" {
			page += " #" + m.ro.f.Status.Revision
		}
	}
	return fmt.Sprintf("%s (%s) · %s", m.name(), m.ref.Namespace, page)
}

// Bindings lists the screen's keys for the help overlay.
func (m *Model) Bindings() []key.Binding { return m.keys.list() }

// Capturing is true while the form or a confirmation is typed into: the
// root then leaves q, : and ? to the field.
func (m *Model) Capturing() bool {
	switch m.mode {
	case modeForm:
		return true
	case modePreview:
		return m.pv != nil && m.pv.typing()
	}
	return false
}

// Hint is the root's bottom line while the screen takes ?, : and q as
// text (views.Hinter), so that it offers only keys that work there: on the
// form "ctrl+s preview · esc back · ctrl+c quit" (as the deploy form's),
// while a confirmation is typed in the preview its own; "" elsewhere (the
// root's usual line is true there).
func (m *Model) Hint() string {
	k := m.keys
	switch {
	case m.mode == modeForm:
		return views.Hints(views.Hint("preview", k.Preview), views.Hint("back", k.Back), "ctrl+c quit")
	case m.mode == modePreview && m.Capturing():
		return views.Hints("type the confirmation", views.Hint("apply", k.Apply), views.Hint("back to the form", k.Back), "ctrl+c quit")
	}
	return ""
}

// CapturesBack is always true: esc asks before discarding edits, returns
// from the preview to the form, and leaves the rollout with a status line.
func (m *Model) CapturesBack() bool { return true }

// errText says what an Editor error means: a refusal's reason, detail and
// sentence, else the error's reason sentence and message.
func errText(err error) string { return views.ErrText(err) }

// Unsaved describes the form's edits not applied yet ("2 unapplied edits
// to deployments/web"), on the form and in the preview; "" once applied
// (the rollout), when nothing was changed, or when the edits as they are
// were handed to a plan across clusters (PlanAcross).
func (m *Model) Unsaved() string {
	if (m.mode != modeForm && m.mode != modePreview) || m.form == nil {
		return ""
	}
	if m.handed != nil && same(*m.handed, m.form.workload()) {
		return "" // handed to a plan across clusters, which tells its own
	}
	n := m.form.changeCount()
	if n == 0 {
		return ""
	}
	edits := "edits"
	if n == 1 {
		edits = "edit"
	}
	return fmt.Sprintf("%d unapplied %s to %s", n, edits, m.name())
}
