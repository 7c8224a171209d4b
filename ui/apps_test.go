package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/ui"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/viewtest"
)

// deploying is a client that lists, deploys and removes apps (answers
// made up: the screens' own tests cover them).
type deploying struct{ *kube.Client }

func (deploying) Apps(context.Context, string) ([]kube.App, error) {
	return []kube.App{{Namespace: "demo", Instance: "shop", Recorded: true, Deployed: time.Now(),
		Services: []kube.AppService{{Name: "web", Status: "1/1 available"}}}}, nil
}

func (deploying) PlanDeploy(context.Context, render.Request) (kube.DeployPlan, error) {
	return kube.DeployPlan{}, nil
}

func (deploying) Deploy(context.Context, render.Request, kube.DeployOptions) (kube.DeployResult, error) {
	return kube.DeployResult{}, nil
}

func (deploying) AppRecord(context.Context, string, string) (kube.RecordedRequest, error) {
	return kube.RecordedRequest{Request: render.Request{Instance: "shop", Namespace: "demo",
		Services: []render.Service{{Name: "web", Image: "nginx:1.27", Replicas: 1}}}}, nil
}

func (deploying) PlanRemove(context.Context, string, string) (kube.DeployResult, error) {
	return kube.DeployResult{Steps: []kube.DeployStep{{Service: "web", Kind: "Deployment", Name: "shop-web", Action: kube.StepDelete}}}, nil
}

func (deploying) Remove(context.Context, string, string, func(kube.DeployStep)) (kube.DeployResult, error) {
	return kube.DeployResult{}, nil
}

// :apps opens the list; n, e and ctrl+d open the form and the remove
// confirmation on top of it.
func TestAppsCommand(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, deploying{client}, "demo", 120, 30)
	h.command("apps")
	if v := h.m.View(); h.m.Top().Title() != "apps(demo)[1]" || !strings.Contains(v, "web 1/1 available") {
		t.Fatalf(":apps (%s):\n%s", h.m.Top().Title(), v)
	}
	h.run(h.keys("n"))
	if got := h.m.Top().Title(); got != "deploy (new app) (demo) · new" {
		t.Fatalf("n opened %q", got)
	}
	h.run(h.keys("esc"))
	h.run(h.keys("e"))
	if v := h.m.View(); h.m.Top().Title() != "deploy shop (demo) · edit" || !strings.Contains(v, "nginx:1.27") {
		t.Fatalf("e (%s):\n%s", h.m.Top().Title(), v)
	}
	h.run(h.keys("esc"))
	h.run(h.keys("ctrl+d"))
	if v := h.m.View(); h.m.Top().Title() != "remove shop (demo)" || !strings.Contains(v, "Deployment shop-web") {
		t.Fatalf("ctrl+d (%s):\n%s", h.m.Top().Title(), v)
	}
}

// `:apps <namespace>` and `:apps all` open the list of that namespace, or
// of all, as `:<kind> <namespace>` does (the tester's trial: `:apps demo`
// was an unknown command); a malformed namespace is refused.
func TestAppsCommandTakesANamespace(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, deploying{client}, "default", 120, 30)
	h.command("apps demo")
	if got := h.m.Top().Title(); got != "apps(demo)[1]" {
		t.Fatalf(":apps demo opened %q", got)
	}
	h.command("apps all")
	if got := h.m.Top().Title(); !strings.HasPrefix(got, "apps(all)") {
		t.Fatalf(":apps all opened %q", got)
	}
	top := h.m.Top()
	h.command("apps Not_A_Namespace")
	if h.m.Top() != top || !strings.Contains(h.m.View(), "Not_A_Namespace") {
		t.Fatalf(":apps with a malformed namespace:\n%s", h.m.View())
	}
}

// A client that cannot deploy says so.
func TestAppsNotAvailable(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, browseOnly{client}, "demo", 120, 30)
	h.command("apps")
	if v := h.m.View(); !strings.Contains(v, "deploying is not available with this client") {
		t.Fatalf(":apps without deploy:\n%s", v)
	}
	h.run(h.send(views.OpenDeployMsg{Namespace: "demo"}))
	if v := h.m.View(); !strings.Contains(v, "deploying is not available with this client") {
		t.Fatalf("the form without deploy:\n%s", v)
	}
}

// timed records the options a deploy got.
type timed struct {
	deploying
	opts *[]kube.DeployOptions
}

func (d timed) Deploy(_ context.Context, _ render.Request, o kube.DeployOptions) (kube.DeployResult, error) {
	*d.opts = append(*d.opts, o)
	return kube.DeployResult{}, nil
}

// Config.DeployTimeout (--deploy-timeout) bounds the deploys of the form.
func TestAppsDeployTimeout(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	var opts []kube.DeployOptions
	vc := viewtest.Context(timed{deploying{client}, &opts}, 0, 0)
	vc.Config.DeployTimeout = 7 * time.Minute
	m, err := ui.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, m: m}
	h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	h.run(m.Init())
	h.command("apps")
	h.run(h.keys("e"))
	h.run(h.keys("ctrl+s"))
	h.run(h.keys("enter"))
	if len(opts) != 1 || opts[0].Timeout != 7*time.Minute {
		t.Fatalf("deploy options %#v:\n%s", opts, h.m.View())
	}
}

// -c apps and -c pf (WithStartScreen) open those screens at start, alone,
// as their `:` commands do: the title bar has no breadcrumb (the tester's
// trial: `pods(trial)[?] › apps(trial)[0]`), and esc stays.
func TestStartScreen(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	for word, title := range map[string]string{"apps": "apps(demo)[1]", "pf": "port-forwards"} {
		if !ui.StartScreen(word) {
			t.Fatalf("%s is not a start screen", word)
		}
		h := startWith(t, deploying{client}, "demo", 120, 30, ui.WithStartScreen(word))
		if got := h.m.Top().Title(); !strings.HasPrefix(got, title) {
			t.Fatalf("-c %s opened %q:\n%s", word, got, h.m.View())
		}
		if v := h.m.View(); strings.Contains(v, "›") || strings.Contains(v, "pods(") {
			t.Fatalf("-c %s did not start alone:\n%s", word, v)
		}
		h.run(h.keys("esc"))
		if got := h.m.Top().Title(); !strings.HasPrefix(got, title) {
			t.Fatalf("esc from -c %s: %q", word, got)
		}
	}
	if ui.StartScreen("pods") {
		t.Fatal("pods is a kind")
	}
}

// The deploy form takes ?, : and q as text: the bottom line gives its own
// keys instead of "? help  : command".
func TestDeployFormHint(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, deploying{client}, "demo", 120, 30)
	h.command("apps")
	h.run(h.keys("e"))
	lines := strings.Split(h.m.View(), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "ctrl+s preview · esc back · ctrl+c quit") || strings.Contains(last, "? help") {
		t.Fatalf("the form's bottom line: %q", last)
	}
	h.run(h.keys("esc"))
	lines = strings.Split(h.m.View(), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "? help") {
		t.Fatalf(":apps' bottom line: %q", last)
	}
}
