package helm_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/helm"
	"github.com/kyyard/kyyard/views/viewtest"
)

// TestHelmKeysRebound: each Helm screen's table rebinds its keys, the old
// key then does nothing: the releases' open (o, not enter), the
// revisions' rollback (R, not r), the rollback's own (Y, not y).
func TestHelmKeysRebound(t *testing.T) {
	f := &fake{}
	vc := viewtest.Context(nil, 110, 20)
	vc.KeyMap = views.KeyMap{"helm": {"open": {"o"}}, "helm-history": {"rollback": {"R"}}, "helm-rollback": {"rollback": {"Y"}}}
	d := open(t, helm.New(vc, f, "", helm.WithClock(clock)))
	d.Key("enter")
	if len(pushed(d)) != 0 {
		t.Fatal("enter (open's old key) opened the revisions")
	}
	d.Key("o")
	scr := pushed(d)
	if len(scr) != 1 || scr[0].Title() != "helm history demo/greeter" {
		t.Fatalf("o (open's new key) pushed %v", d.Out)
	}
	h := open(t, scr[0])
	h.Key("down")
	h.Key("r")
	if len(pushed(h)) != 0 {
		t.Fatal("r (rollback's old key) opened the rollback")
	}
	if v := h.Screen.View(); !strings.Contains(v, "R roll back to it") {
		t.Errorf("the help line does not name R:\n%s", v)
	}
	h.Key("R")
	scr = pushed(h)
	if len(scr) != 1 || scr[0].Title() != "helm rollback demo/greeter 3 → 2" {
		t.Fatalf("R (rollback's new key) pushed %v", h.Out)
	}
	r := &viewtest.Driver{T: t, Screen: scr[0]}
	r.Run(r.Screen.Init())
	if v := r.Screen.View(); !strings.Contains(v, "back to revision 2? Y/n") || !strings.Contains(v, "Y roll back · n/esc cancel") {
		t.Errorf("the plan does not name Y:\n%s", v)
	}
	r.Key("y")
	if len(f.rolled) != 0 {
		t.Fatal("y (the rollback's old key) rolled back")
	}
	r.Key("Y")
	if len(f.rolled) != 1 {
		t.Fatal("Y (the rollback's new key) did not roll back")
	}
}
