package workload

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views/viewtest"
)

// readOnlySource is a client in read-only mode (views.Modes).
type readOnlySource struct{ *kube.Client }

func (readOnlySource) ReadOnly() bool { return true }

// TestFormSaysReadOnly: in read-only mode the form says up front that it
// cannot be applied, without asking the API server.
func TestFormSaysReadOnly(t *testing.T) {
	client, _ := kubetest.FakeClient(t)
	f := newFake(webWorkload())
	h := &harness{t: t, ed: f, clock: viewtest.Now}
	h.m = New(viewtest.Context(readOnlySource{client}, 80, 24), f, kindInfo(t, kube.KindDeployments), webRef)
	h.m.now = func() time.Time { return h.clock }
	h.m.watch.every = -1
	h.run(h.m.Init())
	if v := strings.Join(strings.Fields(h.view()), " "); !strings.Contains(v, "✗ applying is off: kyyard runs read-only") {
		t.Fatalf("the form does not say it is read-only:\n%s", h.view())
	}
}

// denying is an Editor whose user may not patch the workload's kind
// (views.Permitter, as *kube.Client answers from its access reviews).
type denying struct {
	*fake
	asked []kube.Kind
}

func (d *denying) Permissions(_ context.Context, kind kube.Kind, ns string) map[kube.Action]string {
	d.asked = append(d.asked, kind)
	why := "you may not patch " + string(kind) + " in " + ns + " (RBAC: not allowed)"
	return map[kube.Action]string{kube.ActionEdit: why, kube.ActionRestart: why}
}

// TestFormSaysApplyIsForbidden: opened by a user who may not patch the
// workload, the form still opens (to look) and says up front, on its note
// line and whatever key is pressed, that applying is forbidden and why.
func TestFormSaysApplyIsForbidden(t *testing.T) {
	f := newFake(webWorkload())
	ed := &denying{fake: f}
	h := openAs(t, f, ed, webRef, 80, 24)
	if len(ed.asked) != 1 || ed.asked[0] != kube.KindDeployments {
		t.Fatalf("asked %v", ed.asked)
	}
	want := "applying is forbidden: you may not patch deployments in demo (RBAC: not allowed)"
	flat := func() string { return strings.Join(strings.Fields(h.view()), " ") }
	if !strings.Contains(flat(), want) {
		t.Fatalf("the form does not say it up front:\n%s", h.view())
	}
	h.goldens("forbidden")
	h.press("down")
	h.typ("x")
	if !strings.Contains(flat(), want) {
		t.Fatalf("a key cleared it:\n%s", h.view())
	}

	// Allowed: nothing said.
	h = open(t, newFake(webWorkload()), 80, 24)
	if strings.Contains(h.view(), "forbidden") {
		t.Fatalf("an allowed form says forbidden:\n%s", h.view())
	}
}
