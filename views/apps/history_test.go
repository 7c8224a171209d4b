package apps_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/apps"
	"github.com/kyyard/kyyard/views/viewtest"
)

// readOnly is a client in read-only mode.
type readOnly struct{ *kube.Client }

func (readOnly) ReadOnly() bool { return true }

// In read-only mode n, e and ctrl+d say why on the status line and their
// refusal goes to the history: read_only, on the instance (the namespace
// for n), nothing opened.
func TestAppsReadOnlyRefusalsGoToHistory(t *testing.T) {
	client, cs := kubetest.FakeClient(t)
	m := apps.New(viewtest.Context(readOnly{client}, 80, 24), &fakeLister{apps: sample()}, "",
		apps.WithClock(func() time.Time { return viewtest.Now }))
	m.Update(m.Init()())
	before := len(cs.Actions())
	for _, tc := range []struct {
		key    string
		action kube.Action
		ref    kube.ObjectRef
	}{
		{"n", kube.ActionDeploy, kube.ObjectRef{Kind: kube.KindApps, Namespace: "demo"}},
		{"e", kube.ActionDeploy, kube.ObjectRef{Kind: kube.KindApps, Namespace: "demo", Name: "shop"}},
		{"ctrl+d", kube.ActionRemove, kube.ObjectRef{Kind: kube.KindApps, Namespace: "demo", Name: "shop"}},
	} {
		out, ok := press(m, tc.key).(views.OutcomesMsg)
		if !ok || !out.Status.Error || !strings.Contains(out.Status.Text, "read-only") || len(out.Outcomes) != 1 {
			t.Fatalf("%s: %#v", tc.key, out)
		}
		o := out.Outcomes[0]
		if o.Reason != kube.ReasonReadOnly || o.Op.Action != tc.action || o.Op.Ref != tc.ref || o.Written {
			t.Fatalf("%s: outcome %+v", tc.key, o)
		}
	}
	if n := len(cs.Actions()) - before; n != 0 {
		t.Fatalf("read-only keys sent %d requests", n)
	}
}
