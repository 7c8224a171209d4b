package apps_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/viewtest"
)

type fakeLister struct {
	apps  []kube.App
	err   error
	asked []string
}

func (f *fakeLister) Apps(_ context.Context, namespace string) ([]kube.App, error) {
	f.asked = append(f.asked, namespace)
	return f.apps, f.err
}

func sample() []kube.App {
	return []kube.App{
		{Namespace: "demo", Instance: "shop", Recorded: true, Deployed: viewtest.Now.Add(-3 * time.Hour), Services: []kube.AppService{
			{Name: "web", Status: "3/3 available", Health: kube.HealthOK}, {Name: "db", Status: "progressing", Health: kube.HealthProgressing}}},
		{Namespace: "demo", Instance: "blog", Recorded: true, Deployed: viewtest.Now.Add(-12 * time.Minute), Services: []kube.AppService{
			{Name: "web", Status: "missing", Health: kube.HealthFailed}}},
		{Namespace: "team-a", Instance: "orphan", Services: []kube.AppService{{Name: "api", Status: "1/1 available"}}},
	}
}

// An instance removed (or pruned) keeps its claims: :apps still lists
// it, with the claims it keeps; one with services says them too.
func TestAppsRetainedClaims(t *testing.T) {
	list := sample()
	list[0].Retained = []string{"shop-db-data"}
	list = append(list, kube.App{Namespace: "team-a", Instance: "gone", Retained: []string{"gone-db-data", "gone-cache"}})
	for _, s := range [][2]int{{80, 24}, {200, 50}} {
		name := map[int]string{80: "80x24", 200: "200x50"}[s[0]]
		m := open(t, &fakeLister{apps: list}, "", s[0], s[1])
		v := m.View()
		viewtest.Size(t, v, s[0], s[1])
		var gone string
		for _, l := range strings.Split(v, "\n") {
			if strings.Contains(l, "gone") && gone == "" {
				gone = l
			}
		}
		if !strings.Contains(gone, "–  · claims kept: gone-db-data") || strings.Contains(gone, "(no services)") {
			t.Fatalf("the claims-only instance: %q\n%s", gone, v)
		}
		if s[0] == 200 && !strings.Contains(v, "db ~ progressing  · claims kept: shop-db-data") {
			t.Fatalf("the shop's kept claim:\n%s", v)
		}
		viewtest.Golden(t, "apps-retained-"+name, v)
	}
}

// open reads the list once.
func open(t *testing.T, f *fakeLister, ns string, w, h int) *apps.Model {
	t.Helper()
	m := apps.New(viewtest.Context(nil, w, h), f, ns, apps.WithClock(func() time.Time { return viewtest.Now }))
	cmd := m.Init()
	m.Update(cmd())
	return m
}

func TestAppsGoldens(t *testing.T) {
	for _, s := range [][2]int{{80, 24}, {200, 50}} {
		name := map[int]string{80: "80x24", 200: "200x50"}[s[0]]
		m := open(t, &fakeLister{apps: sample()}, "", s[0], s[1])
		v := m.View()
		viewtest.Size(t, v, s[0], s[1])
		viewtest.Golden(t, "apps-"+name, v)
		m = open(t, &fakeLister{}, "demo", s[0], s[1])
		viewtest.Golden(t, "apps-empty-"+name, m.View())
		m = open(t, &fakeLister{err: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "may not list secrets in demo"}}, "demo", s[0], s[1])
		viewtest.Golden(t, "apps-forbidden-"+name, m.View())
	}
}

func press(m *apps.Model, k string) tea.Msg {
	_, cmd := m.Update(viewtest.Key(k))
	if cmd == nil {
		return nil
	}
	return cmd()
}

func TestAppsKeys(t *testing.T) {
	f := &fakeLister{apps: sample()}
	m := open(t, f, "", 200, 50)
	if got := press(m, "n"); got != (views.OpenDeployMsg{Namespace: "demo"}) {
		t.Fatalf("n: %#v", got)
	}
	if got := press(m, "e"); got != (views.OpenDeployMsg{Namespace: "demo", Instance: "shop"}) {
		t.Fatalf("e: %#v", got)
	}
	press(m, "down")
	if got := press(m, "ctrl+d"); got != (views.OpenRemoveMsg{Namespace: "demo", Instance: "blog"}) {
		t.Fatalf("ctrl+d: %#v", got)
	}
	got, ok := press(m, "enter").(views.OpenKindMsg)
	if !ok || got.Kind != kube.KindDeployments || got.Namespace != "demo" || got.Selector.Labels != "app.kubernetes.io/instance=blog" || got.Replace {
		t.Fatalf("enter: %#v", got)
	}
	press(m, "down")
	// An instance found by its labels only has no record to fill the form.
	if st, ok := press(m, "e").(views.StatusMsg); !ok || !st.Error || !strings.Contains(st.Text, "no instance record") {
		t.Fatalf("e without a record: %#v", st)
	}
	// n in a namespace's list deploys there.
	m = open(t, &fakeLister{}, "team-a", 80, 24)
	if got := press(m, "n"); got != (views.OpenDeployMsg{Namespace: "team-a"}) {
		t.Fatalf("n: %#v", got)
	}
	if got := press(m, "e"); got != nil {
		t.Fatalf("e on an empty list: %#v", got)
	}
}

// The list is read again on every tick; a failed read keeps the rows.
func TestAppsRefresh(t *testing.T) {
	f := &fakeLister{apps: sample()}
	m := apps.New(viewtest.Context(nil, 80, 24), f, "demo")
	msg := m.Init()()
	_, tick := m.Update(msg)
	if tick == nil {
		t.Fatal("no refresh scheduled")
	}
	f.err = errors.New("connection refused")
	// The tick's message is made by hand (the interval is an hour in tests).
	_, cmd := m.Update(m.TickForTest())
	m.Update(cmd())
	if len(f.asked) != 2 || !strings.Contains(m.View(), "the last read failed") || !strings.Contains(m.View(), "shop") {
		t.Fatalf("asked %v:\n%s", f.asked, m.View())
	}
}
