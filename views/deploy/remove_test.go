package deploy_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/deploy"
	"github.com/kyyard/kyyard/views/viewtest"
)

type fakeRemover struct {
	mu      sync.Mutex
	plan    kube.DeployResult
	planErr error
	result  kube.DeployResult
	removed []string
}

func (f *fakeRemover) PlanRemove(ctx context.Context, namespace, instance string) (kube.DeployResult, error) {
	return f.plan, f.planErr
}

func (f *fakeRemover) Remove(ctx context.Context, namespace, instance string, progress func(kube.DeployStep)) (kube.DeployResult, error) {
	f.mu.Lock()
	f.removed = append(f.removed, namespace+"/"+instance)
	f.mu.Unlock()
	for _, s := range f.result.Steps {
		progress(s)
	}
	return f.result, nil
}

func removeSteps(o kube.StepOutcome) []kube.DeployStep {
	return []kube.DeployStep{
		{Service: "web", Kind: "Deployment", Name: "shop-web", Action: kube.StepDelete, Outcome: o},
		{Service: "web", Kind: "Service", Name: "shop-web", Action: kube.StepDelete, Outcome: o},
		{Service: "db", Kind: "Secret", Name: "shop-db-secret", Action: kube.StepDelete, Outcome: o},
		{Service: "db", Kind: "PersistentVolumeClaim", Name: "shop-db-data", Action: kube.StepKeep, Outcome: kube.StepSkipped, Detail: "retained"},
		{Kind: "Secret", Name: "kyyard-app-shop", Action: kube.StepRecord, Outcome: o},
	}
}

func TestRemoveGoldens(t *testing.T) {
	for _, s := range sizes {
		f := &fakeRemover{plan: kube.DeployResult{Steps: removeSteps(kube.StepPending)}, result: kube.DeployResult{Steps: removeSteps(kube.StepDone)}}
		h := newHarness(t, deploy.NewRemove(viewtest.Context(nil, s[0], s[1]), f, "demo", "shop"), s[0], s[1])
		h.until("the plan", func() bool { return h.has("type \"shop\"") })
		h.golden("remove-confirm")
		h.typ("shap")
		h.press("enter")
		if len(f.removed) != 0 || !h.has("that is not") {
			t.Fatalf("removed with a wrong name:\n%s", h.view())
		}
		for range 4 {
			h.press("backspace")
		}
		h.typ("shop")
		h.press("enter")
		h.until("the end", func() bool { return h.has("✓ removed shop") })
		h.golden("remove-done")
		if len(f.removed) != 1 || f.removed[0] != "demo/shop" {
			t.Fatalf("removed %v", f.removed)
		}
		st := rootMsgs[views.StatusMsg](h)
		if len(st) != 1 || st[0].Text != "removed shop from demo: 4 objects deleted, 1 kept" {
			t.Fatalf("status %#v", st)
		}
	}
}

// esc before the name is typed cancels; nothing is removed.
func TestRemoveCancel(t *testing.T) {
	f := &fakeRemover{plan: kube.DeployResult{Steps: removeSteps(kube.StepPending)}}
	h := newHarness(t, deploy.NewRemove(viewtest.Context(nil, 80, 24), f, "demo", "shop"), 80, 24)
	h.until("the plan", func() bool { return h.has("type \"shop\"") })
	h.press("esc")
	if len(f.removed) != 0 || len(rootMsgs[views.BackMsg](h)) != 1 {
		t.Fatal("esc did not cancel")
	}
	f = &fakeRemover{planErr: &kube.Refusal{Reason: kube.ReasonForbidden, Detail: "may not delete deployments in demo"}}
	h = newHarness(t, deploy.NewRemove(viewtest.Context(nil, 80, 24), f, "demo", "shop"), 80, 24)
	h.until("the refusal", func() bool { return h.has("cannot remove") })
	h.press("enter")
	if len(f.removed) != 0 || !strings.Contains(h.view(), "forbidden") {
		t.Fatalf("%s", h.view())
	}
}
