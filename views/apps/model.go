// Package apps is the `:apps` screen: the kyyard-managed app instances
// (by label and instance record) with their services' status and when
// they were deployed, read again periodically. n opens the deploy form
// for a new app, e an instance's form filled from its record, enter its
// Deployments, ctrl+d its remove confirmation (views/deploy).
package apps

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
)

// Lister reads the instances; *kube.Client is one.
type Lister interface {
	// Apps lists the kyyard-managed instances in namespace ("" for all),
	// sorted by namespace and instance (see kube.Client.Apps).
	Apps(ctx context.Context, namespace string) ([]kube.App, error)
}

// readTimeout bounds one read.
const readTimeout = 15 * time.Second

// appsMsg carries a read, for the read chain token.
type appsMsg struct {
	owner *Model
	token int
	apps  []kube.App
	err   error
}

// tickMsg asks for the list to be read again.
type tickMsg struct {
	owner *Model
	token int
}

// Model is the screen. Use New.
type Model struct {
	vc        *views.Context
	l         Lister
	namespace string
	apps      []kube.App
	read      bool // a read answered
	err       error
	cursor    int
	offset    int
	token     int
	now       func() time.Time
	keys      Keys
}

// Keys are the screen's bindings.
type Keys struct {
	Up, Down, New, Edit, Open, Remove key.Binding
}

// KeyTable is the name of this screen's keys in the configuration
// file's key map (views.KeyMap): `keys: {apps: {ACTION: KEYS}}`.
const KeyTable = "apps"

// DefaultKeys returns the screen's bindings.
func DefaultKeys() Keys {
	return Keys{
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		New:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "deploy a new app (the deploy form)")),
		Edit:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "change the app: its form, filled from its record")),
		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "the app's Deployments")),
		Remove: key.NewBinding(key.WithKeys("ctrl+d"), key.WithHelp("ctrl+d", "remove the app (claims kept)")),
	}
}

// Option changes a new screen.
type Option func(*Model)

// WithClock draws the deploy ages with now (tests).
func WithClock(now func() time.Time) Option { return func(m *Model) { m.now = now } }

// New returns the list of namespace's instances ("" for every namespace),
// read through l from Init on.
func New(vc *views.Context, l Lister, namespace string, opts ...Option) *Model {
	m := &Model{vc: vc, l: l, namespace: namespace, now: time.Now, keys: views.BoundKeys(vc, KeyTable, DefaultKeys)}
	for _, o := range opts {
		o(m)
	}
	return m
}

// Init reads the list and starts its refresh (a new chain each time the
// screen comes back on top: a deploy or remove above it shows at once).
func (m *Model) Init() tea.Cmd {
	m.token++
	return m.readCmd()
}

func (m *Model) readCmd() tea.Cmd {
	owner, token, l, ns := m, m.token, m.l, m.namespace
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
		defer cancel()
		apps, err := l.Apps(ctx, ns)
		return appsMsg{owner: owner, token: token, apps: apps, err: err}
	}
}

// Update takes the reads, the ticks and keys.
func (m *Model) Update(msg tea.Msg) (views.Screen, tea.Cmd) {
	switch msg := msg.(type) {
	case appsMsg:
		if msg.owner != m || msg.token != m.token {
			return m, nil
		}
		m.read, m.err = true, msg.err
		if msg.err == nil {
			m.apps = msg.apps
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

// selected returns the app under the cursor.
func (m *Model) selected() (kube.App, bool) {
	if len(m.apps) == 0 {
		return kube.App{}, false
	}
	m.cursor = max(min(m.cursor, len(m.apps)-1), 0)
	return m.apps[m.cursor], true
}

func (m *Model) key(msg tea.KeyMsg) tea.Cmd {
	k := m.keys
	a, ok := m.selected()
	emit := func(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }
	switch {
	case key.Matches(msg, k.Up):
		m.cursor = max(m.cursor-1, 0)
	case key.Matches(msg, k.Down):
		m.cursor = min(m.cursor+1, max(len(m.apps)-1, 0))
	case key.Matches(msg, k.New):
		ns := m.namespace
		if ns == "" && ok {
			ns = a.Namespace
		}
		if ns == "" && m.vc.Client != nil {
			ns = m.vc.Client.Namespace()
		}
		if m.vc.ReadOnly() {
			// No instance named yet: the history's object is the namespace.
			return refuseReadOnly(kube.ActionDeploy, "read-only: deploying is off", ns, "")
		}
		return emit(views.OpenDeployMsg{Namespace: ns})
	case !ok:
		return nil
	case key.Matches(msg, k.Edit):
		if !a.Recorded {
			return views.Status(fmt.Sprintf("%s has no instance record (found by its labels only): its form cannot be filled; n deploys it anew", views.Sanitize(a.Instance)), true)
		}
		if m.vc.ReadOnly() {
			return refuseReadOnly(kube.ActionDeploy, "read-only: deploying is off", a.Namespace, a.Instance)
		}
		return emit(views.OpenDeployMsg{Namespace: a.Namespace, Instance: a.Instance})
	case key.Matches(msg, k.Open):
		return emit(views.OpenKindMsg{Kind: kube.KindDeployments, Namespace: a.Namespace,
			Selector: kube.Selector{Labels: render.LabelInstance + "=" + a.Instance}, Parent: "apps/" + a.Instance})
	case key.Matches(msg, k.Remove):
		if m.vc.ReadOnly() {
			return refuseReadOnly(kube.ActionRemove, "read-only: removing is off", a.Namespace, a.Instance)
		}
		return emit(views.OpenRemoveMsg{Namespace: a.Namespace, Instance: a.Instance})
	}
	return nil
}

// refuseReadOnly tells a deploy or remove key refused in read-only mode,
// on the status line and in the history (on <namespace>/apps/<instance>).
func refuseReadOnly(action kube.Action, text, namespace, instance string) tea.Cmd {
	return views.Refuse(action, kube.ReasonReadOnly, text, kube.ObjectRef{Kind: kube.KindApps, Namespace: namespace, Name: instance})
}

// age is a duration as the inventory shows ages: 45s, 12m, 3h, 2d.
func age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(int(d.Seconds()), 0))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// View lists the instances, one line each: namespace, instance, deployed,
// every service with its status (health marker and colour), and the
// claims kept; an instance with only kept claims left shows "–" as its
// services.
func (m *Model) View() string {
	st, w := m.vc.Styles, m.vc.Width
	wn, wi := 16, 20
	if w >= 130 {
		wn, wi = 24, 28
	}
	header := fmt.Sprintf("%-*s %-*s %-9s %s", wn, "NAMESPACE", wi, "INSTANCE", "DEPLOYED", "SERVICES")
	body := []string{st.ColumnHeader.Render(header)}
	switch {
	case !m.read:
		body = append(body, st.Muted.Render("reading the apps…"))
	case m.err != nil && len(m.apps) == 0:
		body = append(body, st.Error.Render("✗ the apps cannot be listed: "+views.ErrText(m.err)))
	case len(m.apps) == 0:
		where := "namespace " + m.namespace
		if m.namespace == "" {
			where = "any namespace"
		}
		body = append(body, st.Muted.Render(fmt.Sprintf("no app deployed by kyyard in %s; n opens the deploy form", views.Sanitize(where))))
	}
	if m.err != nil && len(m.apps) > 0 {
		body = append(body, st.Error.Render("✗ the last read failed (the list is the one before): "+views.ErrText(m.err)))
	}
	_, _ = m.selected()
	for i, a := range m.apps {
		deployed := "-"
		if a.Recorded && !a.Deployed.IsZero() {
			deployed = age(m.now().Sub(a.Deployed))
		} else if !a.Recorded {
			deployed = "no record"
		}
		left := fmt.Sprintf("%-*s %-*s %-9s ", wn, cut(views.Sanitize(a.Namespace), wn), wi, cut(views.Sanitize(a.Instance), wi), deployed)
		var svcs []string
		for _, s := range a.Services {
			svcs = append(svcs, serviceText(s))
		}
		line := left + strings.Join(svcs, " · ")
		switch {
		case len(a.Services) == 0 && len(a.Retained) > 0:
			line += "–"
		case len(a.Services) == 0:
			line += "(no services)"
		}
		kept := retainedNote(a)
		if i == m.cursor {
			line = st.Selected.Render(ansi.Truncate(line+kept, max(w-1, 1), "…"))
		} else {
			line = left + m.coloured(a) + st.Muted.Render(kept)
		}
		body = append(body, line)
	}
	help := "n new app · e change · enter its Deployments · ctrl+d remove · esc back"
	if m.vc.ReadOnly() {
		help = "read-only: n, e and ctrl+d are off · enter its Deployments · esc back"
	}
	return views.Page(st, w, m.vc.Height, body, help, &m.offset)
}

// coloured is the services' part of a row, each in its health's style.
func (m *Model) coloured(a kube.App) string {
	st := m.vc.Styles
	if len(a.Services) == 0 && len(a.Retained) > 0 {
		return "–"
	}
	if len(a.Services) == 0 {
		return st.Muted.Render("(no services)")
	}
	parts := make([]string, len(a.Services))
	for i, s := range a.Services {
		parts[i] = st.Health(s.Health).Render(serviceText(s))
	}
	return strings.Join(parts, " · ")
}

// retainedNote is "  · claims kept: shop-db-data, shop-cache" for an
// instance's retained claims (kube.App.Retained), "" when none.
func retainedNote(a kube.App) string {
	if len(a.Retained) == 0 {
		return ""
	}
	names := make([]string, len(a.Retained))
	for i, n := range a.Retained {
		names[i] = views.Sanitize(n)
	}
	return "  · claims kept: " + strings.Join(names, ", ")
}

// cut shortens s to w cells, marking the cut with "…".
func cut(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	return ansi.Truncate(s, w, "…")
}

// Title is "apps(<namespace>)[<n>]", "apps(all)[<n>]".
func (m *Model) Title() string {
	ns := m.namespace
	if ns == "" {
		ns = "all"
	}
	return fmt.Sprintf("apps(%s)[%d]", views.Sanitize(ns), len(m.apps))
}

// Bindings are the screen's keys, for the help overlay.
func (m *Model) Bindings() []key.Binding {
	k := m.keys
	return []key.Binding{k.Up, k.Down, k.New, k.Edit, k.Open, k.Remove}
}

// Capturing is false: the screen takes no text.
func (m *Model) Capturing() bool { return false }

// serviceText is "web 3/3 available", or with the health marker when it
// is not ok: "db ~ progressing", "api x missing".
func serviceText(s kube.AppService) string {
	mark := views.HealthMarker(s.Health)
	if mark == " " {
		return views.Sanitize(s.Name) + " " + views.Sanitize(s.Status)
	}
	return views.Sanitize(s.Name) + " " + mark + " " + views.Sanitize(s.Status)
}
