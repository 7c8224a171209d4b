// Package helm is the screens of Helm releases (`:helm [ns|all]`): the
// releases of a namespace or of all, read from the Secrets Helm keeps them
// in and read again periodically; a release's revision history; any
// revision's values, manifest and the diff between two revisions (the
// detail screen's text view: scroll, wrap, search); and a rollback to a
// chosen revision with Helm's own Go SDK, planned and guarded as every
// write.
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
	"github.com/kyyard/kyyard/views/detail"
)

// Reader reads releases and rolls them back; *kube.Client is one.
type Reader interface {
	// HelmReleases lists the latest revision of each release
	// (kube.Client.HelmReleases).
	HelmReleases(ctx context.Context, namespace string) ([]kube.HelmRelease, error)
	// HelmHistory lists a release's revisions, newest first.
	HelmHistory(ctx context.Context, namespace, name string) ([]kube.HelmRelease, error)
	// HelmValues is a revision's values as YAML (all: with the chart's).
	HelmValues(ctx context.Context, namespace, name string, revision int, all bool) (string, error)
	// HelmManifest is a revision's manifest, Secret values masked.
	HelmManifest(ctx context.Context, namespace, name string, revision int) (string, error)
	// HelmDiff is the diff of revision from against revision to.
	HelmDiff(ctx context.Context, namespace, name string, from, to int) (string, error)
	// PlanHelmRollback plans a rollback (kube.Client.PlanHelmRollback).
	PlanHelmRollback(ctx context.Context, namespace, name string, from, to int) (*kube.HelmRollbackPlan, error)
	// HelmRollback runs a plan (kube.Client.HelmRollback).
	HelmRollback(ctx context.Context, p *kube.HelmRollbackPlan, confirmed []kube.Reason) kube.OperateOutcome
}

// readTimeout bounds one read.
const readTimeout = 30 * time.Second

// releasesMsg carries a read of the list.
type releasesMsg struct {
	owner *Releases
	token int
	rels  []kube.HelmRelease
	err   error
}

// tickMsg asks for the list to be read again.
type tickMsg struct {
	owner *Releases
	token int
}

// Releases is the `:helm` screen. Make it with New.
type Releases struct {
	vc        *views.Context
	r         Reader
	namespace string
	rels      []kube.HelmRelease
	read      bool
	err       error
	cursor    int
	offset    int
	token     int
	now       func() time.Time
	keys      ReleasesKeys
}

// Option changes a new screen.
type Option func(*options)

type options struct{ now func() time.Time }

// WithClock draws ages with now (tests).
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

func optionsOf(opts []Option) options {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// New returns the releases of namespace ("" every namespace), read
// through r from Init on and again every RefreshInterval.
func New(vc *views.Context, r Reader, namespace string, opts ...Option) *Releases {
	return &Releases{vc: vc, r: r, namespace: namespace, now: optionsOf(opts).now, keys: views.BoundKeys(vc, ReleasesKeyTable, DefaultReleasesKeys)}
}

// Init reads the list and starts its refresh (a new chain each time the
// screen comes back on top: a rollback above it shows at once).
func (m *Releases) Init() tea.Cmd {
	m.token++
	return m.readCmd()
}

func (m *Releases) readCmd() tea.Cmd {
	owner, token, r, ns := m, m.token, m.r, m.namespace
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		rels, err := r.HelmReleases(ctx, ns)
		return releasesMsg{owner: owner, token: token, rels: rels, err: err}
	}
}

// Update takes the reads, the ticks and keys.
func (m *Releases) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case releasesMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		m.read, m.err = true, msg.err
		if msg.err == nil {
			m.rels = msg.rels
		}
		owner, token := m, m.token
		return m, tea.Tick(m.vc.Config.RefreshInterval, func(time.Time) tea.Msg { return tickMsg{owner: owner, token: token} })
	case tickMsg:
		if msg.owner == m && msg.token == m.token {
			return m, m.readCmd()
		}
	case tea.KeyMsg:
		return m, m.key(msg)
	}
	return m, nil
}

func (m *Releases) selected() (kube.HelmRelease, bool) {
	if len(m.rels) == 0 {
		return kube.HelmRelease{}, false
	}
	m.cursor = max(min(m.cursor, len(m.rels)-1), 0)
	return m.rels[m.cursor], true
}

func (m *Releases) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	rel, ok := m.selected()
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.rels)-1, 0))
	case key.Matches(msg, k.Refresh):
		m.token++
		return m.readCmd()
	case !ok:
		return nil
	case key.Matches(msg, k.Open):
		return push(NewHistory(m.vc, m.r, rel.Namespace, rel.Name, WithClock(m.now)))
	case key.Matches(msg, k.Values):
		return push(valuesScreen(m.vc, m.r, rel.Namespace, rel.Name, rel.Revision, false))
	case key.Matches(msg, k.Manifest):
		return push(manifestScreen(m.vc, m.r, rel.Namespace, rel.Name, rel.Revision))
	}
	return nil
}

// push asks the root to push scr.
func push(scr views.Screen) tea.Cmd {
	return func() tea.Msg { return views.PushMsg{Screen: scr} }
}

// View lists the releases as `helm list` orders its columns: namespace
// (all namespaces only), name, revision, updated (an age), status (in its
// health's style), chart, app version; each line cut to the width.
func (m *Releases) View() string {
	st, w := m.vc.Styles, m.vc.Width
	all := m.namespace == ""
	cols := fmt.Sprintf("%-22s %-8s %-8s %-14s %-24s %s", "NAME", "REVISION", "UPDATED", "STATUS", "CHART", "APP VERSION")
	if all {
		cols = fmt.Sprintf("%-14s ", "NAMESPACE") + cols
	}
	fit := func(l string) string { return ansi.Truncate(l, max(w-2, 1), "…") }
	cols = fit(cols)
	body := []string{st.ColumnHeader.Render(cols)}
	switch {
	case !m.read:
		body = append(body, st.Muted.Render("reading the Helm releases…"))
	case m.err != nil && len(m.rels) == 0:
		body = append(body, st.Error.Render("✗ the Helm releases cannot be listed (Helm keeps them in Secrets): "+views.ErrText(m.err)))
	case len(m.rels) == 0:
		where := "namespace " + m.namespace
		if all {
			where = "any namespace"
		}
		body = append(body, st.Muted.Render(views.Sanitize("no Helm release in "+where+" (Helm's release Secrets, owner=helm)")))
	}
	if m.err != nil && len(m.rels) > 0 {
		body = append(body, st.Error.Render("✗ the last read failed (the list is the one before): "+views.ErrText(m.err)))
	}
	_, _ = m.selected()
	first := len(body)
	for i, r := range m.rels {
		line := fmt.Sprintf("%-22s %-8d %-8s ", views.Cut(r.Name, 22), r.Revision, views.Ago(m.now(), r.Updated))
		if all {
			line = fmt.Sprintf("%-14s ", views.Cut(r.Namespace, 14)) + line
		}
		status := fmt.Sprintf("%-14s", views.Cut(views.HealthMarker(r.Health())+" "+r.Status, 14))
		rest := fmt.Sprintf(" %-24s %s", views.Cut(r.Chart, 24), views.Cut(r.AppVersion, 11))
		if i == m.cursor {
			body = append(body, st.Selected.Render(fit(line+status+rest)))
			continue
		}
		body = append(body, fit(line+st.Health(r.Health()).Render(status)+rest))
	}
	keepInSight(&m.offset, first+m.cursor, m.vc.Height)
	k := m.keys
	help := views.Hints(views.Hint("revisions", k.Open), views.Hint("values", k.Values), views.Hint("manifest", k.Manifest),
		views.Hint("read again", k.Refresh), views.Hint("back", m.vc.Keys.Back))
	return views.Page(st, w, m.vc.Height, body, help, &m.offset)
}

// keepInSight moves *offset so that body line row shows on a page of
// height lines (the help line and the "more" line below kept free).
func keepInSight(offset *int, row, height int) {
	rows := max(height-2, 1)
	if row < *offset {
		*offset = row
	} else if row >= *offset+rows {
		*offset = row - rows + 1
	}
}

// Title is "helm(<namespace>)[<n>]", "helm(all)[<n>]".
func (m *Releases) Title() string {
	ns := m.namespace
	if ns == "" {
		ns = "all"
	}
	return fmt.Sprintf("helm(%s)[%d]", views.Sanitize(ns), len(m.rels))
}

// Bindings are the screen's keys, for the help overlay.
func (m *Releases) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.Open, k.Values, k.Manifest, k.Refresh}
}

// Capturing is false: the screen takes no text.
func (m *Releases) Capturing() bool { return false }

// valuesScreen is the text screen of a revision's values.
func valuesScreen(vc *views.Context, r Reader, ns, name string, rev int, all bool) views.Screen {
	title := fmt.Sprintf("helm values %s/%s revision %d", ns, name, rev)
	if all {
		title += " (with the chart's defaults)"
	}
	return detail.NewText(vc, views.Sanitize(title), func(ctx context.Context) (string, error) { return r.HelmValues(ctx, ns, name, rev, all) })
}

// manifestScreen is the text screen of a revision's manifest.
func manifestScreen(vc *views.Context, r Reader, ns, name string, rev int) views.Screen {
	return detail.NewText(vc, views.Sanitize(fmt.Sprintf("helm manifest %s/%s revision %d", ns, name, rev)),
		func(ctx context.Context) (string, error) { return r.HelmManifest(ctx, ns, name, rev) })
}

// diffScreen is the text screen of the diff of revision from against to.
func diffScreen(vc *views.Context, r Reader, ns, name string, from, to int) views.Screen {
	return detail.NewText(vc, views.Sanitize(fmt.Sprintf("helm diff %s/%s revision %d → %d", ns, name, from, to)),
		func(ctx context.Context) (string, error) {
			d, err := r.HelmDiff(ctx, ns, name, from, to)
			if err == nil && d == "" {
				d = fmt.Sprintf("revisions %d and %d have the same values and manifest", from, to)
			}
			return d, err
		})
}
