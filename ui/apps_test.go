package ui_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kubetest"
	"github.com/kyyard/kyyard/render"
	"github.com/kyyard/kyyard/views"
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
