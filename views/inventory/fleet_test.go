package inventory_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/inventory"
	"github.com/kyyard/kyyard/views/viewtest"
)

// fakeFleet is a views.FleetSource over fake clusters: each answering
// context's rows merged (namespace, name, context order), the others'
// parts as given.
type fakeFleet struct {
	views.Source // the first member: kinds, names, namespace
	order        []string
	members      map[string]views.Source
	down         map[string]views.ClusterPart // contexts that do not answer
	gen          uint64
}

func newFakeFleet(t *testing.T, clusters map[string][]runtime.Object, readOnly map[string]bool, order ...string) *fakeFleet {
	t.Helper()
	f := &fakeFleet{order: order, members: map[string]views.Source{}, down: map[string]views.ClusterPart{}}
	for _, name := range order {
		objs, ok := clusters[name]
		if !ok {
			continue
		}
		c, cs := kubetest.FakeClient(t, objs...)
		if readOnly[name] {
			c = kube.NewFromClientsets(cs, kubetest.FakeMetadata(objs...), kube.Options{Registry: kinds.Builtin(), ReadOnly: true})
			t.Cleanup(c.Close)
		}
		f.members[name] = c
		if f.Source == nil {
			f.Source = c
		}
	}
	return f
}

func (f *fakeFleet) Snapshot(ctx context.Context, req kube.SnapshotRequest) kube.Snapshot {
	s, _ := f.FleetSnapshot(ctx, req)
	return s
}

func (f *fakeFleet) FleetSnapshot(ctx context.Context, req kube.SnapshotRequest) (kube.Snapshot, []views.ClusterPart) {
	f.gen++
	out := kube.Snapshot{Namespace: req.Namespace, Generation: f.gen, Taken: viewtest.Now}
	var parts []views.ClusterPart
	var merged kube.Table
	for _, name := range f.order {
		if p, ok := f.down[name]; ok {
			p.Context = name
			parts = append(parts, p)
			continue
		}
		t, _ := f.members[name].Snapshot(ctx, req).Table(req.Kinds[0])
		merged.Kind, merged.Columns = t.Kind, t.Columns
		for _, r := range t.Rows {
			r.Context = name
			merged.Rows = append(merged.Rows, r)
		}
		parts = append(parts, views.ClusterPart{Context: name, State: views.ClusterAnswered, Rows: len(t.Rows), Since: viewtest.Now})
	}
	slices.SortStableFunc(merged.Rows, func(a, b kube.Row) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	out.Tables = []kube.Table{merged}
	return out, parts
}

func (f *fakeFleet) Member(name string) (views.Source, bool) {
	s, ok := f.members[name]
	return s, ok
}

func (f *fakeFleet) Contexts() []string { return f.order }

// fleetScreen is a pods screen across three fake clusters: web in prod-eu
// and prod-us, api in prod-us; prod-eu read-only, lab forbidden.
func fleetScreen(t *testing.T, w, h int) *inventory.Model {
	t.Helper()
	f := newFakeFleet(t, map[string][]runtime.Object{
		"prod-eu": {testPod("demo", "web-1", time.Hour, run, true, 0)},
		"prod-us": {testPod("demo", "web-1", 2*time.Hour, run, true, 0), testPod("demo", "api-1", time.Hour, loop, false, 3)},
	}, map[string]bool{"prod-eu": true}, "prod-eu", "prod-us", "lab")
	f.down["lab"] = views.ClusterPart{State: views.ClusterFailed, Reason: kube.ReasonForbidden,
		Message: `pods is forbidden: User "viewer" cannot list resource "pods" in API group "" in the namespace "demo"`}
	vc := viewtest.Context(f, w, h)
	m, err := inventory.New(vc, "pods", "demo")
	if err != nil {
		t.Fatal(err)
	}
	m.SetClock(func() time.Time { return viewtest.Now })
	refresh(t, m, m.Init())
	return m
}

func TestFleetRowsWithContextAndStates(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	view := m.View()
	viewtest.Size(t, view, 100, 9)
	viewtest.Golden(t, "fleet-pods", view)
	for _, want := range []string{"CONTEXT", "clusters: prod-eu 1 · prod-us 2 · lab forbidden", `lab: pods is forbidden: User "viewer"`} {
		if !strings.Contains(view, want) {
			t.Errorf("view lacks %q:\n%s", want, view)
		}
	}
	if got := m.Title(); got != "pods(demo)[3]" {
		t.Fatalf("title %q", got)
	}
}

func TestFleetFilterMatchesContext(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	press(m, "/", "p", "r", "o", "d", "-", "u", "s", "enter")
	if got := m.Title(); got != "pods(demo)[2/3] /prod-us" {
		t.Fatalf("title %q, want the two rows of context b", got)
	}
	press(m, ">") // sort by the next column: CONTEXT is the first
	if !strings.Contains(m.View(), "CONTEXT↑") {
		t.Fatalf("CONTEXT is not sortable:\n%s", m.View())
	}
}

// contextMsg runs cmd and returns its message, which must be a
// views.ContextMsg.
func contextMsg(t *testing.T, cmd tea.Cmd) views.ContextMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command")
	}
	msg, ok := cmd().(views.ContextMsg)
	if !ok {
		t.Fatalf("message %T, want a views.ContextMsg", cmd())
	}
	return msg
}

func TestFleetActionGoesToRowsContext(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	// Rows: demo/api-1@prod-us, demo/web-1@prod-eu, demo/web-1@prod-us.
	press(m, "j", "j")
	got := contextMsg(t, press(m, "d"))
	want := views.OpenObjectMsg{View: views.DescribeView, Kind: "pods", Namespace: "demo", Name: "web-1"}
	if got.Context != "prod-us" || got.Msg != want {
		t.Fatalf("describe sent %+v, want %+v in prod-us", got, want)
	}
	// Delete on prod-us's row asks for the confirmation there.
	got = contextMsg(t, press(m, "ctrl+d"))
	op, ok := got.Msg.(views.OperateMsg)
	if got.Context != "prod-us" || !ok || len(op.Targets) != 1 || op.Targets[0].Name != "web-1" {
		t.Fatalf("delete sent %+v", got)
	}
}

func TestFleetReadOnlyContextRefusesThereOnly(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	press(m, "j") // demo/web-1@prod-eu: read-only
	got := contextMsg(t, press(m, "ctrl+d"))
	out, ok := got.Msg.(views.OutcomesMsg)
	if got.Context != "prod-eu" || !ok || len(out.Outcomes) != 1 || out.Outcomes[0].Reason != kube.ReasonReadOnly {
		t.Fatalf("delete in the read-only context sent %+v", got)
	}
	press(m, "j") // demo/web-1@prod-us
	if _, ok := contextMsg(t, press(m, "ctrl+d")).Msg.(views.OperateMsg); !ok {
		t.Fatal("delete in the writable context was refused")
	}
}

func TestFleetMarksOfSeveralContextsRefused(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	press(m, "j", " ", "j", " ") // web-1@prod-eu, web-1@prod-us
	cmd := press(m, "ctrl+d")
	msg, ok := cmd().(views.StatusMsg)
	if !ok || !msg.Error || !strings.Contains(msg.Text, "2 contexts (prod-eu, prod-us)") {
		t.Fatalf("marks across contexts sent %+v", cmd())
	}
	press(m, "k", " ") // unmark web-1@prod-eu: only prod-us's row is left
	if _, ok := contextMsg(t, press(m, "ctrl+d")).Msg.(views.OperateMsg); !ok {
		t.Fatal("marks of one context were refused")
	}
}

// l on marked rows of several contexts asks for their logs merged; on one
// pod row, for that cluster's logs alone.
func TestFleetLogsAcrossContexts(t *testing.T) {
	m := fleetScreen(t, 100, 9)
	press(m, "j", " ", " ") // web-1@prod-eu, web-1@prod-us
	msg, ok := press(m, "l")().(views.OpenLogsMsg)
	if !ok || len(msg.Across) != 2 || msg.Across[0].Context != "prod-eu" || msg.Across[1].Context != "prod-us" ||
		msg.Across[1].Request.Name != "web-1" || !msg.Request.Options.Follow {
		t.Fatalf("l on marks of two contexts sent %+v", msg)
	}
	press(m, `ctrl+\`) // no marks: the cursor row (web-1@prod-us) alone
	got := contextMsg(t, press(m, "l"))
	if one, ok := got.Msg.(views.OpenLogsMsg); got.Context != "prod-us" || !ok || len(one.Across) != 0 || one.Request.Name != "web-1" {
		t.Fatalf("l on one row sent %+v", got)
	}
}
