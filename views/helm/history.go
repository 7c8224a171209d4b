package helm

import (
	"context"
	"fmt"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// historyMsg carries a read of the revisions.
type historyMsg struct {
	owner *History
	token int
	revs  []kube.HelmRelease
	err   error
}

// History is one release's revisions, newest first, as `helm history`
// lists them. Make it with NewHistory.
type History struct {
	vc              *views.Context
	r               Reader
	namespace, name string
	revs            []kube.HelmRelease
	read            bool
	err             error
	cursor, offset  int
	marked          int // the revision marked for a diff (space), 0 for none
	token           int
	now             func() time.Time
	keys            HistoryKeys
}

// NewHistory returns the revisions of release name in namespace, read
// through r from Init on (again each time the screen comes back on top,
// and on ctrl+r).
func NewHistory(vc *views.Context, r Reader, namespace, name string, opts ...Option) *History {
	return &History{vc: vc, r: r, namespace: namespace, name: name, now: optionsOf(opts).now, keys: views.BoundKeys(vc, HistoryKeyTable, DefaultHistoryKeys)}
}

// Init reads the revisions.
func (m *History) Init() tea.Cmd {
	m.token++
	owner, token, r, ns, name := m, m.token, m.r, m.namespace, m.name
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		revs, err := r.HelmHistory(ctx, ns, name)
		return historyMsg{owner: owner, token: token, revs: revs, err: err}
	}
}

// Update takes the read and keys.
func (m *History) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case historyMsg:
		if msg.owner == m && msg.token == m.token {
			m.read, m.err = true, msg.err
			if msg.err == nil {
				m.revs = msg.revs
			}
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *History) selected() (kube.HelmRelease, bool) {
	if len(m.revs) == 0 {
		return kube.HelmRelease{}, false
	}
	m.cursor = max(min(m.cursor, len(m.revs)-1), 0)
	return m.revs[m.cursor], true
}

func (m *History) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	rev, ok := m.selected()
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.revs)-1, 0))
	case key.Matches(msg, k.Refresh):
		return m.Init()
	case !ok:
		return nil
	case key.Matches(msg, k.Values):
		return push(valuesScreen(m.vc, m.r, m.namespace, m.name, rev.Revision, false))
	case key.Matches(msg, k.AllValues):
		return push(valuesScreen(m.vc, m.r, m.namespace, m.name, rev.Revision, true))
	case key.Matches(msg, k.Manifest):
		return push(manifestScreen(m.vc, m.r, m.namespace, m.name, rev.Revision))
	case key.Matches(msg, k.Mark):
		if m.marked == rev.Revision {
			m.marked = 0
		} else {
			m.marked = rev.Revision
		}
	case key.Matches(msg, k.Diff):
		from := m.marked
		if from == 0 {
			if m.cursor+1 >= len(m.revs) {
				return views.Status(fmt.Sprintf("revision %d has none before it: mark one with %s, then %s", rev.Revision, views.FirstKey(k.Mark), views.FirstKey(k.Diff)), true)
			}
			from = m.revs[m.cursor+1].Revision
		}
		if from == rev.Revision {
			return views.Status("the marked revision is the selected one: move to another, then "+views.FirstKey(k.Diff), true)
		}
		return push(diffScreen(m.vc, m.r, m.namespace, m.name, from, rev.Revision))
	case key.Matches(msg, k.Rollback):
		ref := kube.ObjectRef{Kind: kube.KindHelmReleases, Namespace: m.namespace, Name: m.name}
		if m.vc.ReadOnly() {
			return views.Refuse(kube.ActionHelmRollback, kube.ReasonReadOnly, "read-only: rollback is off", ref)
		}
		latest := m.revs[0].Revision
		if rev.Revision == latest {
			return views.Status(fmt.Sprintf("revision %d is the current one: choose an earlier revision to roll back to", latest), true)
		}
		return push(NewRollback(m.vc, m.r, m.namespace, m.name, latest, rev.Revision))
	}
	return nil
}

// View lists the revisions: revision (marked "◆" when marked for a
// diff), updated, status, chart, app version, description.
func (m *History) View() string {
	st, w := m.vc.Styles, m.vc.Width
	fit := func(l string) string { return ansi.Truncate(l, max(w-2, 1), "…") }
	body := []string{st.ColumnHeader.Render(fit(fmt.Sprintf("  %-8s %-8s %-16s %-24s %-11s %s", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION", "DESCRIPTION")))}
	switch {
	case !m.read:
		body = append(body, st.Muted.Render("reading the revisions…"))
	case m.err != nil && len(m.revs) == 0:
		body = append(body, st.Error.Render("✗ the revisions cannot be read: "+views.ErrText(m.err)))
	}
	if m.err != nil && len(m.revs) > 0 {
		body = append(body, st.Error.Render("✗ the last read failed (the list is the one before): "+views.ErrText(m.err)))
	}
	_, _ = m.selected()
	first := len(body)
	for i, r := range m.revs {
		mark := "  "
		if r.Revision == m.marked {
			mark = "◆ "
		}
		left := fmt.Sprintf("%s%-8d %-8s ", mark, r.Revision, views.Ago(m.now(), r.Updated))
		status := fmt.Sprintf("%-16s", views.Cut(views.HealthMarker(r.Health())+" "+r.Status, 16))
		rest := fmt.Sprintf(" %-24s %-11s %s", views.Cut(r.Chart, 24), views.Cut(r.AppVersion, 11), views.Sanitize(r.Description))
		if i == m.cursor {
			body = append(body, st.Selected.Render(fit(left+status+rest)))
			continue
		}
		body = append(body, fit(left+st.Health(r.Health()).Render(status)+rest))
	}
	keepInSight(&m.offset, first+m.cursor, m.vc.Height)
	k, back := m.keys, views.Hint("back", m.vc.Keys.Back)
	shows := []string{views.Hint("values", k.Values), views.Hint("with defaults", k.AllValues), views.Hint("manifest", k.Manifest),
		views.Hint("mark", k.Mark), views.Hint("diff", k.Diff)}
	help := views.Hints(append(shows, views.Hint("roll back to it", k.Rollback), back)...)
	if m.vc.ReadOnly() {
		off := "read-only"
		if h := views.Hint("is off", k.Rollback); h != "" {
			off += ": " + h
		}
		help = views.Hints(append(append([]string{off}, shows...), back)...)
	}
	return views.Page(st, w, m.vc.Height, body, help, &m.offset)
}

// Title is "helm history <namespace>/<name>".
func (m *History) Title() string {
	return views.Sanitize(fmt.Sprintf("helm history %s/%s", m.namespace, m.name))
}

// Bindings are the screen's keys, for the help overlay.
func (m *History) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.Values, k.AllValues, k.Manifest, k.Mark, k.Diff, k.Rollback, k.Refresh}
}

// Capturing is false: the screen takes no text.
func (m *History) Capturing() bool { return false }
