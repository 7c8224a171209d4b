package operate_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/operate"
	"github.com/kyyard/kyyard/views/viewtest"
)

// openKeyed opens the confirmation of msg with the key map km.
func openKeyed(t *testing.T, f *fake, km views.KeyMap, msg views.OperateMsg) *harness {
	t.Helper()
	vc := viewtest.Context(nil, 120, 30)
	vc.KeyMap = km
	p, _ := kinds.Builtin().Lookup(string(msg.Targets[0].Kind))
	h := &harness{t: t, f: f, m: operate.New(vc, f, p.Info(), msg)}
	h.run(h.m.Init())
	return h
}

// TestConfirmKeysRebound: with `confirm: {confirm: Y, force: F}`, y and
// f do nothing on the confirmation of a pod's delete; F switches to a
// force delete, Y sends it; the question and the help line name the keys
// in force.
func TestConfirmKeysRebound(t *testing.T) {
	f := &fake{}
	del := views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindPods, "web-1")}, Replicas: -1}
	h := openKeyed(t, f, views.KeyMap{"confirm": {"confirm": {"Y"}, "force": {"F"}}}, del)
	v := h.m.View()
	for _, want := range []string{"delete pods/web-1 (demo)? Y/n", "(F: force)", "Y confirm · F graceful/force · n/esc cancel"} {
		if !strings.Contains(v, want) {
			t.Errorf("the confirmation lacks %q:\n%s", want, v)
		}
	}
	h.press("f", "y")
	if len(f.ops) != 0 || strings.Contains(h.m.View(), "FORCE") {
		t.Fatalf("f or y (the old keys) acted: ops %+v\n%s", f.ops, h.m.View())
	}
	h.press("F")
	if !strings.Contains(h.m.View(), "FORCE") {
		t.Fatalf("F did not switch to a force delete:\n%s", h.m.View())
	}
	h.press("Y")
	if len(f.ops) != 1 || !f.ops[0].Force {
		t.Fatalf("Y did not send the force delete: %+v", f.ops)
	}
}

// TestConfirmForceUnbound: with `force: none` no key force deletes, and
// the confirmation does not offer it.
func TestConfirmForceUnbound(t *testing.T) {
	f := &fake{}
	del := views.OperateMsg{Action: kube.ActionDelete, Targets: []kube.ObjectRef{ref(kube.KindPods, "web-1")}, Replicas: -1}
	h := openKeyed(t, f, views.KeyMap{"confirm": {"force": {}}}, del)
	if v := h.m.View(); strings.Contains(v, "(f: force)") || strings.Contains(v, "graceful/force") || !strings.Contains(v, "y confirm · n/esc cancel") {
		t.Fatalf("the confirmation offers the unbound force:\n%s", v)
	}
	h.press("f", "y")
	if len(f.ops) != 1 || f.ops[0].Force {
		t.Fatalf("f force deleted, or y did not delete: %+v", f.ops)
	}
}

// TestActionListKeysRebound: with `actions: {open: o}`, enter does not
// open the chosen action's confirmation, o does.
func TestActionListKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, 80, 24)
	vc.KeyMap = views.KeyMap{"actions": {"open": {"o"}}}
	l := operate.NewList(vc, &fake{}, views.ActionsMsg{Target: ref(kube.KindDeployments, "web"), Kind: kinds.Deployments{}.Info(), Replicas: 3})
	runList(t, l, l.Init())
	if _, cmd := l.Update(viewtest.Key("enter")); cmd != nil {
		t.Fatalf("enter (open's old key) acted: %#v", cmd())
	}
	_, cmd := l.Update(viewtest.Key("o"))
	if cmd == nil {
		t.Fatal("o (open's new key) did nothing")
	}
	if msg, ok := cmd().(views.OperateMsg); !ok || msg.Action != kube.ActionRestart {
		t.Fatalf("o opened %#v", cmd())
	}
	if v := l.View(); !strings.Contains(v, "o confirm it") {
		t.Errorf("the help line does not name o:\n%s", v)
	}
}
