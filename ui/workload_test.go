package ui_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kubetest"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/workload"
)

// editingSource is a source that can also edit workloads (as *kube.Client
// will): it satisfies workload.Editor.
type editingSource struct {
	views.Source
	read []kube.WorkloadRef
}

func (s *editingSource) ReadWorkload(_ context.Context, ref kube.WorkloadRef) (kube.Workload, error) {
	s.read = append(s.read, ref)
	return kube.Workload{Ref: ref, ResourceVersion: "1", HasReplicas: true, Replicas: 1,
		Containers: []kube.Container{{Name: "app", Image: "app:1"}}}, nil
}

func (s *editingSource) DryRun(context.Context, kube.Workload, kube.Workload) (kube.Preview, error) {
	return kube.Preview{}, errors.New("not in this test")
}

func (s *editingSource) ApplyWorkload(context.Context, kube.Workload, kube.Workload, []kube.Reason) (kube.ApplyResult, error) {
	return kube.ApplyResult{}, errors.New("not in this test")
}

func (s *editingSource) RolloutStatus(context.Context, kube.WorkloadRef) (kube.RolloutStatus, error) {
	return kube.RolloutStatus{}, errors.New("not in this test")
}

func TestOpenWorkloadPushesTheForm(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	src := &editingSource{Source: client}
	h := startWith(t, src, "demo", 80, 24)
	h.run(h.send(views.OpenWorkloadMsg{Kind: "deployments", Namespace: "demo", Name: "web"}))
	if got := h.m.Top().Title(); got != "deployments/web (demo) · edit" {
		t.Fatalf("title %q", got)
	}
	if len(src.read) != 1 || src.read[0] != (kube.WorkloadRef{Kind: "deployments", Namespace: "demo", Name: "web"}) {
		t.Fatalf("read %v", src.read)
	}
	// Keys go to the form: q is typed, not quit; esc (no edits) goes back.
	h.keys("tab", "q")
	if v := h.m.View(); !strings.Contains(v, "app:1q") {
		t.Fatalf("q did not reach the field:\n%s", v)
	}
	h.keys("esc")
	if v := h.m.View(); !strings.Contains(v, "discard your edits? y/n") {
		t.Fatalf("esc with an edit did not ask:\n%s", v)
	}
	h.runKey(h.keys("y"))
	if got := h.m.Top().Title(); got != "pods(demo)[1]" {
		t.Fatalf("after y: title %q", got)
	}
}

// *kube.Client is what the root hands the form.
var (
	_ workload.Editor = (*kube.Client)(nil)
	_ workload.Owners = (*kube.Client)(nil)
)

// browseOnly is a source that cannot edit.
type browseOnly struct{ views.Source }

func TestOpenWorkloadWithoutEditor(t *testing.T) {
	client, _ := kubetest.FakeClient(t, objects()...)
	h := startWith(t, browseOnly{client}, "demo", 80, 24)
	h.send(views.OpenWorkloadMsg{Kind: "deployments", Namespace: "demo", Name: "web"})
	if v := h.m.View(); !strings.Contains(v, "editing is not available") {
		t.Fatalf("no status:\n%s", v)
	}
	if strings.Contains(h.m.Top().Title(), "edit") {
		t.Fatal("a form was pushed")
	}
}
