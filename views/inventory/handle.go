package inventory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// handleKey handles a key while no filter is being typed.
func (m *Model) handleKey(msg tea.KeyMsg) tea.Cmd {
	page := m.bodyHeight()
	k := m.keys
	if m.fleet != nil && key.Matches(msg, k.Drift) {
		return m.drift()
	}
	if m.fleet != nil && k.acts(msg) {
		return m.inMember(msg)
	}
	switch {
	case key.Matches(msg, k.Up):
		m.cursor--
	case key.Matches(msg, k.Down):
		m.cursor++
	case key.Matches(msg, k.PageUp):
		m.cursor -= page
		m.offset -= page
	case key.Matches(msg, k.PageDown):
		m.cursor += page
		m.offset += page
	case key.Matches(msg, k.Top):
		m.cursor = 0
	case key.Matches(msg, k.Bottom):
		m.cursor = len(m.shown) - 1
	case key.Matches(msg, k.Wide):
		m.wide = !m.wide
		if cmd := m.sortShown(); cmd != nil {
			m.cursor = max(min(m.cursor, len(m.shown)-1), 0)
			m.scroll()
			return cmd
		}
		m.relayout()
	case key.Matches(msg, k.Refresh):
		m.freshMetrics = true // the person asked: the metrics too, whatever their interval
		return m.refetch()
	case key.Matches(msg, k.Open):
		return m.open()
	case key.Matches(msg, k.Describe):
		return m.openObject(views.DescribeView)
	case key.Matches(msg, k.YAML):
		return m.openObject(views.YAMLView)
	case key.Matches(msg, k.Edit):
		return m.edit()
	case key.Matches(msg, k.EditYAML):
		return m.editYAML()
	case key.Matches(msg, k.Decode):
		return m.decode()
	case key.Matches(msg, k.Drain):
		return m.drain()
	case k.operate(msg) != "":
		a := k.operate(msg)
		if a == kube.ActionScale && m.info.Supports(kube.ActionShell) {
			return m.shell()
		}
		return m.operate(a)
	case key.Matches(msg, k.Logs):
		return m.logs(false)
	case key.Matches(msg, k.Previous):
		return m.logs(true)
	case key.Matches(msg, k.LogsBeside):
		return m.logsBeside()
	case key.Matches(msg, k.PortForward):
		return m.portForward()
	case key.Matches(msg, k.Copy):
		return m.copyFiles()
	case key.Matches(msg, k.Owners):
		return m.ownerTree()
	case key.Matches(msg, k.Events):
		return m.events()
	case key.Matches(msg, k.Rollout):
		return m.rollout()
	case key.Matches(msg, k.Actions):
		return m.actions()
	case key.Matches(msg, k.Filter):
		return m.startTyping()
	case key.Matches(msg, k.Clear):
		return m.clear()
	case key.Matches(msg, k.SortNext):
		m.sortStep(1)
	case key.Matches(msg, k.SortPrevious):
		m.sortStep(-1)
	case key.Matches(msg, k.SortReverse):
		if m.sortColumn == "" {
			// The snapshot's order is by name: reversing it is NAME, descending.
			m.sortColumn, m.ascending = "NAME", true
		}
		m.ascending = !m.ascending
		m.resort()
	case key.Matches(msg, k.SortName):
		return m.sortBy("NAME")
	case key.Matches(msg, k.SortAge):
		return m.sortBy(m.ageColumn())
	case key.Matches(msg, k.Mark):
		m.toggleMark()
	case key.Matches(msg, k.MarkRange):
		m.markRange()
	case key.Matches(msg, k.ClearMarks):
		m.clearMarks()
	case key.Matches(msg, k.NextUnhealthy):
		return m.nextUnhealthy()
	case key.Matches(msg, k.Unhealthy):
		m.unhealthy = !m.unhealthy
		m.refilter(nil)
	case key.Matches(msg, k.Left):
		if m.hidden > 0 {
			m.hidden--
			m.relayout()
		}
	case key.Matches(msg, k.Right):
		if m.overflows(m.lay) || m.lay.dropped > 0 { // narrowed or cut off
			m.hidden++
			m.relayout()
		}
	}
	m.cursor = max(min(m.cursor, len(m.shown)-1), 0)
	m.scroll()
	return nil
}

// startTyping opens the filter prompt on the filter in force, to edit it.
func (m *Model) startTyping() tea.Cmd {
	m.typing, m.before, m.note = true, m.filter, ""
	m.input.SetValue(m.filter.raw)
	if m.invalid != "" {
		// The malformed filter comes back to be corrected; esc still
		// leaves no filter, enter the one typed.
		prev := m.filter
		m.input.SetValue(m.invalid)
		m.filter, m.invalid = parseFilter(m.invalid), ""
		if prev.narrows() {
			m.refilter(nil)
		}
	}
	m.input.CursorEnd()
	m.sizeInput()
	return m.input.Focus()
}

// typeKey handles a key while the filter is typed: text filters apply as
// they are typed, a label selector when enter is pressed; esc clears.
func (m *Model) typeKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyEnter:
		m.typing = false
		m.input.Blur()
		if m.filter.mode == modeLabels && m.info.PartOf != "" {
			m.note = fmt.Sprintf("%s have no labels of their own: -l selects %s; open the %s list to use it", m.info.ID, m.info.PartOf, m.info.PartOf)
			m.filter = filter{}
		}
		if m.filter.mode == modeNone {
			// "!", "-l" or "-f" alone filter nothing: no filter is kept.
			m.filter = filter{}
			m.input.SetValue("")
		}
		return m.setLabels(m.filter)
	case tea.KeyEsc:
		m.typing = false
		m.input.Blur()
		prev := m.filter
		m.filter = filter{}
		if prev.narrows() {
			m.refilter(nil)
		}
		return m.setLabels(m.filter)
	}
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(msg)
	if m.input.Value() == m.filter.raw {
		return cmd
	}
	prev := m.filter
	m.filter = parseFilter(m.input.Value())
	m.sizeInput()
	if m.filter.narrows() || prev.narrows() {
		m.refilter(&prev)
	}
	return cmd
}

// setLabels sends f's label selector (none unless f is a `-l` filter) with
// the next refresh, at once if it changed. A malformed selector comes back
// as an invalid truncation; apply then restores the filter in force before.
func (m *Model) setLabels(f filter) tea.Cmd {
	if f.labels == m.labels {
		return nil
	}
	if f.labels != "" {
		m.fallback = m.before
	}
	m.labels = f.labels
	return m.refetch()
}

// clear is esc: it clears marks first, then the filter and the
// unhealthy-only view; with nothing to clear it asks to go back.
func (m *Model) clear() tea.Cmd {
	switch {
	case len(m.marks) > 0:
		m.clearMarks()
		return nil
	case m.filter.mode != modeNone || m.unhealthy || m.invalid != "":
		narrowed := m.filter.narrows() || m.unhealthy
		m.filter, m.unhealthy, m.note, m.invalid = filter{}, false, "", ""
		if narrowed {
			m.refilter(nil)
		}
		return m.setLabels(m.filter)
	}
	return func() tea.Msg { return views.BackMsg{} }
}

// sortStep sorts by the shown column dir steps right (or left) of the sort
// column; past either end the rows return to the snapshot's order.
func (m *Model) sortStep(dir int) {
	if !m.loaded {
		return
	}
	// The shown columns in their order, the trends left out (not sorted by).
	cols := m.columns()
	pinned, scrollable := cols.slots()
	var names []string
	for _, slot := range append(pinned, scrollable...) {
		if k, ok := cols.metric(slot); ok && cols.metrics[k].trend {
			continue
		}
		names = append(names, strings.TrimRight(cols.header(slot), "↑↓"))
	}
	pos := -1
	for i, n := range names {
		if n == m.sortColumn {
			pos = i
		}
	}
	// positions -1 and len(names) are both "no column".
	pos += dir
	if pos < -1 {
		pos = len(names) - 1
	}
	m.sortColumn, m.ascending, m.sortFromKind = "", true, false
	if pos >= 0 && pos < len(names) {
		m.sortColumn = names[pos]
	}
	m.resort()
}

// sortShown returns the rows to the kind's default order when the sort
// column is a wide one that w just hid (an order by a column out of sight
// has no visible reason), and says so on the status line.
func (m *Model) sortShown() tea.Cmd {
	if m.wide || !m.loaded || m.sortColumn == "" {
		return nil
	}
	hidden := false
	for _, c := range m.table.Columns {
		hidden = hidden || c.Name == m.sortColumn && c.Wide
	}
	if !hidden {
		return nil
	}
	was := m.sortColumn
	m.sortColumn, m.ascending, m.sortFromKind = m.info.SortColumn, !m.info.SortDescending, m.info.SortColumn != ""
	m.resort()
	return views.Status(fmt.Sprintf("sorted by %s again: %s is a wide column, now hidden (w shows it)", m.defaultOrder(), was), false)
}

// defaultOrder names the kind's default order, for messages.
func (m *Model) defaultOrder() string {
	if m.info.SortColumn != "" {
		return m.info.SortColumn
	}
	if m.withNamespace() {
		return "namespace and name"
	}
	return "name"
}

// sortBy sorts by the named column, ascending as the cells read (AGE:
// youngest first); if it is already the sort column, the order flips.
func (m *Model) sortBy(name string) tea.Cmd {
	if !m.loaded {
		return nil
	}
	found := false
	for _, c := range m.table.Columns {
		found = found || c.Name == name
	}
	if !found {
		return views.Status(fmt.Sprintf("%s have no %s column", m.info.ID, name), false)
	}
	m.sortOn(name)
	return nil
}

// sortOn sorts by the column whose header is name, ascending; by the sort
// column, the other way.
func (m *Model) sortOn(name string) {
	if m.sortColumn == name {
		m.ascending = !m.ascending
	} else {
		m.sortColumn, m.ascending = name, true
	}
	m.sortFromKind = false
	m.resort()
}

// nextUnhealthy moves the cursor to the next shown row whose health is
// warning or failed, wrapping past the end.
func (m *Model) nextUnhealthy() tea.Cmd {
	n := len(m.shown)
	for i := 1; i <= n; i++ {
		at := (m.cursor + i) % n
		if m.ix.rows[m.shown[at]].Health >= kube.HealthWarning {
			m.cursor = at
			m.scroll()
			return nil
		}
	}
	return views.Status(fmt.Sprintf("no unhealthy %s shown", m.info.ID), false)
}

// openObject asks the root to show the cursor row's object in view v.
func (m *Model) openObject(v views.ObjectView) tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	msg := views.OpenObjectMsg{View: v, Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name,
		NotRunning: views.NotRunning(m.info.ID, row)}
	if m.info.PartOf != "" {
		// A container is described by its pod: open the object it is part of.
		_, parent, ok := strings.Cut(m.parent, "/")
		if !ok {
			return views.Status(fmt.Sprintf("%s are parts of %s: open the %s to see them", m.info.ID, m.info.PartOf, m.info.PartOf), false)
		}
		msg.Kind, msg.Name = m.info.PartOf, parent
		msg.NotRunning = false // a container's state is not its pod's
	}
	return func() tea.Msg { return msg }
}

// edit asks the root to open the workload form on the cursor row: a kind
// whose plugin has kube.CanEdit, or kube.CanEditOwner (a pod or a
// ReplicaSet), whose owning Deployment, StatefulSet or DaemonSet the form
// finds and edits. Any other kind is edited as YAML (editYAML).
func (m *Model) edit() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if m.info.Capabilities.Has(kube.CanEdit) || m.info.Capabilities.Has(kube.CanEditOwner) {
		msg := views.OpenWorkloadMsg{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name}
		return func() tea.Msg { return msg }
	}
	return m.editYAML()
}

// drain asks the root to open the drain of the cursor row's Node; other
// kinds say that they have none.
func (m *Model) drain() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if !m.info.Capabilities.Has(kube.CanCordon) {
		return views.Status(m.info.NotOffered("drain"), false)
	}
	msg := views.OpenDrainMsg{Node: kube.ObjectRef{Kind: m.info.ID, Name: row.Name, UID: row.UID}}
	return func() tea.Msg { return msg }
}

// decode asks the root to open the decoded view of the cursor row's
// Secret; other kinds say that they have none.
func (m *Model) decode() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	if !m.info.Capabilities.Has(kube.CanDecode) {
		return views.Status(m.info.NotOffered("decode"), false)
	}
	msg := views.OpenSecretMsg{Namespace: row.Namespace, Name: row.Name}
	return func() tea.Msg { return msg }
}

// editYAML asks the root to open the YAML edit of the cursor row's object,
// of any kind (a container: its pod).
func (m *Model) editYAML() tea.Cmd {
	row := m.current()
	if row == nil {
		return nil
	}
	msg := views.OpenYAMLEditMsg{Kind: m.info.ID, Namespace: row.Namespace, Name: row.Name}
	if m.info.PartOf != "" {
		_, parent, ok := strings.Cut(m.parent, "/")
		if !ok {
			return views.Status(fmt.Sprintf("%s are parts of %s: open the %s to edit it", m.info.ID, m.info.PartOf, m.info.PartOf), false)
		}
		msg.Kind, msg.Name = m.info.PartOf, parent
	}
	return func() tea.Msg { return msg }
}

// open drills down from the selected row (a Namespace opens its pods, a
// Deployment the pods it selects, a Pod its containers). The Source works
// out the target off the UI goroutine; a failure becomes a status line,
// and so does enter on a kind with nothing to open.
func (m *Model) open() tea.Cmd {
	cur := m.current()
	if cur == nil {
		return nil
	}
	if m.info.DrillDown == "" {
		return views.Status(fmt.Sprintf("%s have nothing to open; d describes, y shows YAML", m.info.ID), false)
	}
	row := *cur
	kind, client := m.info.ID, m.vc.Client
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), snapshotTimeout)
		defer cancel()
		req, err := client.DrillDown(ctx, kind, row.Namespace, row.Name)
		if errors.Is(err, kube.ErrSelectsNothing) {
			return views.StatusMsg{Text: views.Sanitize(err.Error())}
		}
		if err != nil {
			reason := kube.ReasonOf(err)
			return views.StatusMsg{Error: true, Text: fmt.Sprintf("cannot open %s/%s: %s (%s)", kind, row.Name, reason.Sentence(), err)}
		}
		msg := views.OpenKindMsg{Kind: req.Kinds[0], Namespace: req.Namespace, Selector: req.Selector}
		if !req.Selector.IsZero() {
			msg.Parent = string(kind) + "/" + row.Name
		}
		return msg
	}
}

// ageColumn names the column A sorts by: AGE, else the first column of
// moments ("LAST SEEN" for events), else AGE (which then says it is missing).
func (m *Model) ageColumn() string {
	for _, c := range m.table.Columns {
		if c.Name == "AGE" {
			return c.Name
		}
	}
	if m.ix != nil {
		for i, c := range m.table.Columns {
			if m.ix.momentColumn(i + 1) {
				return c.Name
			}
		}
	}
	return "AGE"
}
