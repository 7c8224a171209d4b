package helm_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/helm"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fake serves two releases, greeter with three revisions; its rollback
// answers as told.
type fake struct {
	listErr  error
	none     bool // no release at all
	planErr  error
	verdicts kube.Verdicts
	rolled   []*kube.HelmRollbackPlan
	asked    []string
}

var revisions = []kube.HelmRelease{
	{Namespace: "demo", Name: "greeter", Revision: 3, Status: "deployed", Chart: "greeter-0.2.0", AppVersion: "1.1", Description: "Upgrade complete", Updated: viewtest.Now.Add(-5 * time.Minute)},
	{Namespace: "demo", Name: "greeter", Revision: 2, Status: "superseded", Chart: "greeter-0.2.0", AppVersion: "1.1", Description: "Upgrade complete", Updated: viewtest.Now.Add(-2 * time.Hour)},
	{Namespace: "demo", Name: "greeter", Revision: 1, Status: "superseded", Chart: "greeter-0.1.0", AppVersion: "1.0", Description: "Install complete", Updated: viewtest.Now.Add(-72 * time.Hour)},
}

func (f *fake) HelmReleases(_ context.Context, ns string) ([]kube.HelmRelease, error) {
	f.asked = append(f.asked, "releases "+ns)
	if f.listErr != nil || f.none {
		return nil, f.listErr
	}
	return []kube.HelmRelease{revisions[0],
		{Namespace: "shop", Name: "db-with-a-very-long-release-name", Revision: 1, Status: "failed", Chart: "postgresql-15.5.0", AppVersion: "16.2", Updated: viewtest.Now.Add(-30 * time.Second)},
	}, nil
}

func (f *fake) HelmHistory(_ context.Context, ns, name string) ([]kube.HelmRelease, error) {
	f.asked = append(f.asked, "history "+ns+"/"+name)
	return revisions, nil
}

func (f *fake) HelmValues(_ context.Context, ns, name string, rev int, all bool) (string, error) {
	f.asked = append(f.asked, fmt.Sprintf("values %s/%s %d %v", ns, name, rev, all))
	return fmt.Sprintf("message: hello from %d\n", rev), nil
}

func (f *fake) HelmManifest(_ context.Context, ns, name string, rev int) (string, error) {
	f.asked = append(f.asked, fmt.Sprintf("manifest %s/%s %d", ns, name, rev))
	return "---\nkind: ConfigMap\n", nil
}

func (f *fake) HelmDiff(_ context.Context, ns, name string, from, to int) (string, error) {
	f.asked = append(f.asked, fmt.Sprintf("diff %s/%s %d %d", ns, name, from, to))
	return "--- a\n+++ b\n-message: x\n+message: y\n", nil
}

func (f *fake) PlanHelmRollback(_ context.Context, ns, name string, from, to int) (*kube.HelmRollbackPlan, error) {
	if f.planErr != nil {
		return nil, f.planErr
	}
	vs := f.verdicts
	if vs == nil {
		vs = kube.Verdicts{{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may create secrets in demo"},
			{Guard: kube.GuardFresh, Outcome: kube.OutcomePass, Sentence: "helm release demo/greeter is at revision 3 as you saw it (deployed)"}}
	}
	p := &kube.HelmRollbackPlan{Namespace: ns, Name: name, From: from, To: to, Verdicts: vs,
		Objects: []string{"update configmap demo/greeter-config", "delete deployment demo/greeter"},
		Diff:    "--- values of greeter revision 3\n+++ values of greeter revision 1\n@@ -1 +1 @@\n-message: hello again\n+message: hello\n"}
	if r := vs.Refusal(); r != nil {
		return p, r
	}
	return p, nil
}

func (f *fake) HelmRollback(_ context.Context, p *kube.HelmRollbackPlan, _ []kube.Reason) kube.OperateOutcome {
	f.rolled = append(f.rolled, p)
	return kube.OperateOutcome{Op: kube.Operation{Ref: kube.ObjectRef{Kind: kube.KindHelmReleases, Namespace: p.Namespace, Name: p.Name}, Action: kube.ActionHelmRollback},
		Written: true, Detail: fmt.Sprintf("rolled helm release %s/%s back to revision %d, as revision %d", p.Namespace, p.Name, p.To, p.From+1)}
}

// pushed returns the screens the driver's screen asked the root to push.
func pushed(d *viewtest.Driver) []views.Screen {
	var out []views.Screen
	for _, m := range d.Out {
		if p, ok := m.(views.PushMsg); ok {
			out = append(out, p.Screen)
		}
	}
	return out
}

func clock() time.Time { return viewtest.Now }

// open drives a screen's Init (a list's read, not its refresh tick).
func open(t *testing.T, scr views.Screen) *viewtest.Driver {
	t.Helper()
	d := &viewtest.Driver{T: t, Screen: scr}
	msg := scr.Init()()
	d.Screen, _ = d.Screen.Update(msg) // the tick that follows is not run
	return d
}

func TestReleasesView(t *testing.T) {
	for _, s := range [][2]int{{80, 24}, {200, 50}} {
		f := &fake{}
		d := open(t, helm.New(viewtest.Context(nil, s[0], s[1]), f, "", helm.WithClock(clock)))
		d.Golden(fmt.Sprintf("releases-all-%dx%d", s[0], s[1]), s[0], s[1])
		if got := d.Screen.Title(); got != "helm(all)[2]" {
			t.Fatalf("title %q", got)
		}
	}
	f := &fake{}
	d := open(t, helm.New(viewtest.Context(nil, 100, 10), f, "demo", helm.WithClock(clock)))
	if v := d.Screen.View(); strings.Contains(v, "NAMESPACE") || !strings.Contains(v, "greeter") {
		t.Fatalf("one namespace has no NAMESPACE column:\n%s", v)
	}
	if f.asked[0] != "releases demo" {
		t.Fatalf("asked %v", f.asked)
	}
}

// A forbidden list says so and what Helm keeps its releases in; an
// empty one says where nothing was found.
func TestReleasesForbiddenAndEmpty(t *testing.T) {
	forbidden := apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "", errors.New(`User "viewer" cannot list resource "secrets"`))
	d := open(t, helm.New(viewtest.Context(nil, 100, 8), &fake{listErr: forbidden}, "demo", helm.WithClock(clock)))
	d.Golden("releases-forbidden", 100, 8)
	if v := d.Screen.View(); !strings.Contains(v, "cannot be listed") || !strings.Contains(v, "forbidden") {
		t.Fatalf("forbidden:\n%s", v)
	}
	d = open(t, helm.New(viewtest.Context(nil, 100, 8), &fake{none: true}, "nothing-here", helm.WithClock(clock)))
	if v := d.Screen.View(); !strings.Contains(v, "no Helm release in namespace nothing-here") {
		t.Fatalf("empty:\n%s", v)
	}
}

// enter opens the revisions, v and m the latest revision's values and
// manifest as text screens, read when they start.
func TestReleasesKeys(t *testing.T) {
	f := &fake{}
	d := open(t, helm.New(viewtest.Context(nil, 100, 10), f, "", helm.WithClock(clock)))
	d.Key("enter")
	d.Key("v")
	d.Key("m")
	scr := pushed(d)
	if len(scr) != 3 {
		t.Fatalf("pushed %d screens", len(scr))
	}
	for i, want := range []string{"helm history demo/greeter", "helm values demo/greeter revision 3", "helm manifest demo/greeter revision 3"} {
		if got := scr[i].Title(); got != want {
			t.Fatalf("screen %d: %q, want %q", i, got, want)
		}
	}
	text := &viewtest.Driver{T: t, Screen: scr[1]}
	text.Run(scr[1].Init())
	if v := text.Screen.View(); !strings.Contains(v, "message: hello from 3") {
		t.Fatalf("values screen:\n%s", v)
	}
}

func TestHistory(t *testing.T) {
	f := &fake{}
	d := open(t, helm.NewHistory(viewtest.Context(nil, 120, 12), f, "demo", "greeter", helm.WithClock(clock)))
	d.Key("down")
	d.Golden("history-120x12", 120, 12)
	d.Key("d") // revision 1 → 2: the one before the selected
	d.Key(" ") // mark 2
	d.Key("down")
	d.Key("d") // marked 2 → selected 1
	d.Key("V")
	d.Golden("history-marked-120x12", 120, 12)
	var titles []string
	for _, s := range pushed(d) {
		titles = append(titles, s.Title())
	}
	want := "helm diff demo/greeter revision 1 → 2|helm diff demo/greeter revision 2 → 1|helm values demo/greeter revision 1 (with the chart's defaults)"
	if strings.Join(titles, "|") != want {
		t.Fatalf("pushed:\n %s\nwant\n %s", strings.Join(titles, "|"), want)
	}
	// The oldest revision has none before it: d says to mark one.
	d.Key(" ") // marks 1
	d.Key(" ") // unmarks it
	d.Key("d")
	if !viewtest.Saw(d, func(s views.StatusMsg) bool { return s.Error && strings.Contains(s.Text, "none before it") }) {
		t.Fatalf("d on the first revision: %v", d.Out)
	}
}

// r on the latest revision says to choose another; on an earlier one it
// opens the rollback from the latest seen; read-only refuses it into
// :history with no screen opened.
func TestHistoryRollbackKey(t *testing.T) {
	f := &fake{}
	d := open(t, helm.NewHistory(viewtest.Context(nil, 120, 12), f, "demo", "greeter", helm.WithClock(clock)))
	d.Key("r")
	if len(pushed(d)) != 0 || !viewtest.Saw(d, func(s views.StatusMsg) bool { return strings.Contains(s.Text, "is the current one") }) {
		t.Fatalf("r on the latest: %v", d.Out)
	}
	d.Key("down")
	d.Key("down")
	d.Key("r")
	if s := pushed(d); len(s) != 1 || s[0].Title() != "helm rollback demo/greeter 3 → 1" {
		t.Fatalf("r on revision 1: %v", d.Out)
	}

	client, cs := kubetest.FakeClient(t)
	ro := open(t, helm.NewHistory(viewtest.Context(readOnly{client}, 120, 12), f, "demo", "greeter", helm.WithClock(clock)))
	before := len(cs.Actions())
	ro.Key("down")
	ro.Key("r")
	if len(pushed(ro)) != 0 {
		t.Fatal("read-only opened the rollback")
	}
	out := outcomes(ro)
	if len(out) != 1 || out[0].Reason != kube.ReasonReadOnly || out[0].Op.Action != kube.ActionHelmRollback || out[0].Op.Ref.String() == "" || out[0].Written {
		t.Fatalf("read-only outcome: %+v", out)
	}
	if len(cs.Actions()) != before || len(f.rolled) != 0 {
		t.Fatal("read-only sent something")
	}
}

// readOnly is a client in read-only mode.
type readOnly struct{ *kube.Client }

func (readOnly) ReadOnly() bool { return true }

// outcomes are the outcomes the driver's screen reported or answered.
func outcomes(d *viewtest.Driver) []kube.OperateOutcome {
	var out []kube.OperateOutcome
	for _, m := range d.Out {
		if o, ok := m.(views.OutcomesMsg); ok {
			out = append(out, o.Outcomes...)
		}
	}
	return append(out, viewtest.Answered(d)...)
}

// The rollback shows its plan (verdicts, objects, diff) and sends nothing
// until y; y rolls back and its outcome is answered for :history.
func TestRollback(t *testing.T) {
	f := &fake{}
	d := &viewtest.Driver{T: t, Screen: helm.NewRollback(viewtest.Context(nil, 110, 20), f, "demo", "greeter", 3, 1)}
	d.Golden("rollback-planning", 110, 20)
	d.Run(d.Screen.Init())
	d.Golden("rollback-plan", 110, 20)
	if len(f.rolled) != 0 {
		t.Fatal("rolled back before y")
	}
	d.Key("y")
	if len(f.rolled) != 1 || f.rolled[0].To != 1 || f.rolled[0].From != 3 {
		t.Fatalf("rolled %+v", f.rolled)
	}
	out := viewtest.Answered(d)
	if len(out) != 1 || !out[0].OK() || !out[0].Written {
		t.Fatalf("answered %+v", out)
	}
	d.Golden("rollback-done", 110, 20)
	d.Key("esc")
	if !viewtest.WentBack(d) {
		t.Fatal("esc after the rollback")
	}
}

// A plan refused (the release moved on) shows its verdicts, goes to
// :history as refused, and y sends nothing.
func TestRollbackRefused(t *testing.T) {
	f := &fake{verdicts: kube.Verdicts{{Guard: kube.GuardFresh, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonConflict,
		Sentence: "helm release demo/greeter moved on since you saw it: its latest revision is 4, not 3"}}}
	d := &viewtest.Driver{T: t, Screen: helm.NewRollback(viewtest.Context(nil, 110, 20), f, "demo", "greeter", 3, 1)}
	d.Run(d.Screen.Init())
	d.Golden("rollback-refused", 110, 20)
	d.Key("y")
	if len(f.rolled) != 0 {
		t.Fatal("a refused plan was run")
	}
	out := viewtest.Answered(d)
	if len(out) != 1 || out[0].Reason != kube.ReasonConflict || out[0].Written || out[0].Op.Action != kube.ActionHelmRollback {
		t.Fatalf("refusal outcome %+v", out)
	}
	// A plan that cannot be read at all says why.
	g := &fake{planErr: errors.New("the API server is away")}
	e := &viewtest.Driver{T: t, Screen: helm.NewRollback(viewtest.Context(nil, 110, 8), g, "demo", "greeter", 3, 1)}
	e.Run(e.Screen.Init())
	if v := e.Screen.View(); !strings.Contains(v, "cannot roll back: the API server is away") {
		t.Fatalf("plan error:\n%s", v)
	}
}
