package operate_test

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/viewtest"
)

// byAction plans by action.
type byAction struct {
	fake
	plans map[kube.Action]kube.Verdicts
}

func (b *byAction) PlanOperation(_ context.Context, op kube.Operation) (kube.Verdicts, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.planned = append(b.planned, op)
	if vs, ok := b.plans[op.Action]; ok {
		return vs, nil
	}
	return pass, nil
}

func runList(t *testing.T, l *operate.List, cmd tea.Cmd) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	queue := []tea.Cmd{cmd}
	for len(queue) > 0 {
		c := queue[0]
		queue = queue[1:]
		if c == nil {
			continue
		}
		switch msg := c().(type) {
		case tea.BatchMsg:
			queue = append(queue, msg...)
		case views.OperateMsg, views.StatusMsg:
			out = append(out, msg)
		default:
			_, next := l.Update(msg)
			queue = append(queue, next)
		}
	}
	return out
}

func TestActionListSaysWhyActionsAreDisabled(t *testing.T) {
	refuse := func(g kube.Guard, r kube.Reason, s string) kube.Verdicts {
		return append(pass[:1:1], kube.Verdict{Guard: g, Outcome: kube.OutcomeRefuse, Reason: r, Sentence: s})
	}
	f := &byAction{plans: map[kube.Action]kube.Verdicts{
		kube.ActionDelete: refuse(kube.GuardAccess, kube.ReasonForbidden, "may not delete deployments in demo"),
		kube.ActionUndo:   refuse(kube.GuardAction, kube.ReasonInvalid, "deployments/web has no previous revision"),
		kube.ActionScale: append(pass[:2:2], kube.Verdict{Guard: kube.GuardAutoscaler, Outcome: kube.OutcomeWarn, Reason: kube.ReasonAutoscaled,
			Sentence: "HorizontalPodAutoscaler web sets the replicas"}),
	}}
	target := ref(kube.KindDeployments, "web")
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		l := operate.NewList(viewtest.Context(nil, size[0], size[1]), f, views.ActionsMsg{Target: target, Kind: kinds.Deployments{}.Info(), Replicas: 3})
		runList(t, l, l.Init())
		v := l.View()
		viewtest.Size(t, v, size[0], size[1])
		viewtest.Golden(t, map[int]string{80: "actions-80x24", 200: "actions-200x50"}[size[0]], v)
	}
	l := operate.NewList(viewtest.Context(nil, 80, 24), f, views.ActionsMsg{Target: target, Kind: kinds.Deployments{}.Info(), Replicas: 3})
	runList(t, l, l.Init())
	l.Update(viewtest.Key("j"))
	l.Update(viewtest.Key("j"))
	_, cmd := l.Update(viewtest.Key("enter")) // delete: forbidden
	if cmd == nil || !strings.Contains(l.View(), "delete is disabled: forbidden") {
		t.Fatalf("enter on a disabled action:\n%s", l.View())
	}
	// The refusal goes to the history, nothing is asked.
	if out, ok := cmd().(views.OutcomesMsg); !ok || len(out.Outcomes) != 1 || out.Outcomes[0].Reason != kube.ReasonForbidden ||
		out.Outcomes[0].Op.Action != kube.ActionDelete || out.Outcomes[0].Written || !strings.Contains(out.Outcomes[0].Detail, "not sent") {
		t.Fatalf("enter on a disabled action reported %#v", out)
	}
	l.Update(viewtest.Key("k"))
	_, cmd = l.Update(viewtest.Key("enter")) // scale
	msg, ok := cmd().(views.OperateMsg)
	if !ok || msg.Action != kube.ActionScale || !msg.Replace || msg.Replicas != 3 || msg.Targets[0] != target {
		t.Fatalf("enter on scale: %#v", msg)
	}
	// A pod: only delete is planned.
	f.planned = nil
	p := operate.NewList(viewtest.Context(nil, 80, 24), f, views.ActionsMsg{Target: ref(kube.KindPods, "web-1"), Kind: kinds.Pods{}.Info(), Replicas: -1})
	runList(t, p, p.Init())
	if len(f.planned) != 1 || f.planned[0].Action != kube.ActionDelete || !strings.Contains(p.View(), "✗ not offered on pods") {
		t.Fatalf("a pod's list planned %+v:\n%s", f.planned, p.View())
	}
}

// TestActionListNamesTheKeysInForce: the key column names the tables'
// keys as the key map binds them (a trial: `a` listed the default keys
// after a rebind), an unbound action no key.
func TestActionListNamesTheKeysInForce(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"table": {"delete": {"ctrl+x d"}, "restart": {}}}
	l := operate.NewList(vc, &byAction{}, views.ActionsMsg{Target: ref(kube.KindDeployments, "web"), Kind: kinds.Deployments{}.Info(), Replicas: 3})
	runList(t, l, l.Init())
	lines := map[kube.Action]string{}
	for _, line := range strings.Split(l.View(), "\n") {
		for _, a := range []kube.Action{kube.ActionDelete, kube.ActionRestart, kube.ActionScale} {
			if strings.Contains(line, " "+string(a)+" ") {
				lines[a] = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), ">"))
			}
		}
	}
	if !strings.HasPrefix(lines[kube.ActionDelete], "ctrl+x d  delete") || !strings.HasPrefix(lines[kube.ActionRestart], "restart") ||
		!strings.HasPrefix(lines[kube.ActionScale], "s ") {
		t.Fatalf("key column %q:\n%s", lines, l.View())
	}
}

// TestActionListSaysNothingToDo: resume of a running Deployment (its plan
// says nothing would be sent) is listed as nothing to do, not "may be
// done", and enter says so instead of asking (the tester's trial: `a`
// listed "Z resume ✓ may be done" on a running Deployment).
func TestActionListSaysNothingToDo(t *testing.T) {
	f := &byAction{plans: map[kube.Action]kube.Verdicts{
		kube.ActionResume: append(pass[:1:1], kube.Verdict{Guard: kube.GuardAction, Outcome: kube.OutcomePass,
			Sentence: "demo/deployments/web already resumed: nothing to send", Nothing: true}),
	}}
	l := operate.NewList(viewtest.Context(nil, 120, 24), f, views.ActionsMsg{Target: ref(kube.KindDeployments, "web"), Kind: kinds.Deployments{}.Info(), Replicas: 3})
	runList(t, l, l.Init())
	var line string
	for _, s := range strings.Split(l.View(), "\n") {
		if strings.Contains(s, "resume") {
			line = s
		}
	}
	if !strings.Contains(line, "– demo/deployments/web already resumed: nothing to send") || strings.Contains(line, "may be done") {
		t.Fatalf("the resume line: %q", line)
	}
	for range 4 { // r, s, ctrl+d, z, then Z
		l.Update(viewtest.Key("j"))
	}
	if _, cmd := l.Update(viewtest.Key("enter")); cmd != nil || !strings.Contains(l.View(), "already resumed: nothing to send") {
		t.Fatalf("enter on resume asked, or said nothing:\n%s", l.View())
	}
}

// TestActionListOffersWhatThePluginDeclares: over every built-in kind,
// the action list plans each action of views.Actions the kind's plugin
// declares and shows every other one as not offered, with no request.
func TestActionListOffersWhatThePluginDeclares(t *testing.T) {
	for _, info := range kinds.Builtin().Kinds() {
		f := &byAction{}
		l := operate.NewList(viewtest.Context(nil, 120, 24), f, views.ActionsMsg{Target: ref(info.ID, "x"), Kind: info, Replicas: 1})
		runList(t, l, l.Init())
		planned := map[kube.Action]bool{}
		for _, op := range f.planned {
			planned[op.Action] = true
		}
		lines := strings.Split(l.View(), "\n")
		for i, ak := range views.Actions {
			a := ak.Action
			off := strings.Contains(lines[1+i], "✗ not offered on "+string(info.ID))
			if info.Supports(a) == off || info.Supports(a) != planned[a] {
				t.Errorf("%s (%s), %s: planned %v, line %q", info.ID, info.Capabilities, a, planned[a], lines[1+i])
			}
		}
	}
}
