package ownertree_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
	"github.com/kyyard/kyyard/views/ownertree"
	"github.com/kyyard/kyyard/views/viewtest"
)

const width, height = 80, 16

type fake struct {
	tree  kube.OwnerTree
	err   error
	reads int
}

func (f *fake) OwnerTree(context.Context, kube.Kind, string, string) (kube.OwnerTree, error) {
	f.reads++
	return f.tree, f.err
}

func webTree() kube.OwnerTree {
	pod := func(name string, h kube.Health, status string, target bool) *kube.OwnerNode {
		return &kube.OwnerNode{Kind: "pods", Namespace: "demo", Name: name, UID: name, Status: status, Health: h, Worst: h, Target: target}
	}
	rs := &kube.OwnerNode{Kind: "replicasets", Namespace: "demo", Name: "web-1", UID: "r1", Status: "2/3", Health: kube.HealthWarning, Worst: kube.HealthFailed,
		Children: []*kube.OwnerNode{pod("web-1-a", kube.HealthFailed, "CrashLoopBackOff", false), pod("web-1-b", kube.HealthOK, "Running", true),
			pod("web-1-c\x1b]2;x\x07", kube.HealthOK, "Running", false)}}
	old := &kube.OwnerNode{Kind: "replicasets", Namespace: "demo", Name: "web-0", UID: "r0", Status: "0/0"}
	root := &kube.OwnerNode{Kind: "deployments", Namespace: "demo", Name: "web", UID: "d1", Status: "2/3", Health: kube.HealthWarning, Worst: kube.HealthFailed,
		Children: []*kube.OwnerNode{old, rs}}
	return kube.OwnerTree{Root: root, Notes: []string{"jobs not read (forbidden): the tree may miss some"}}
}

func newDriver(t *testing.T, f *fake) *viewtest.Driver {
	d := &viewtest.Driver{T: t, Screen: ownertree.New(viewtest.Context(nil, width, height), f, views.OpenOwnerTreeMsg{Kind: "pods", Namespace: "demo", Name: "web-1-b"})}
	d.Run(d.Screen.Init())
	return d
}

// TestOwnerTreeScreen: the tree drawn with its branches, the rolled-up
// health of each line, the note; the cursor starts on the object asked
// for; ! goes to the next line that is not ok; enter and y open the
// line's object; r reads again keeping the cursor; a hostile name is
// drawn inert.
func TestOwnerTreeScreen(t *testing.T) {
	f := &fake{tree: webTree()}
	d := newDriver(t, f)
	d.Golden("tree", width, height)
	v := d.Screen.View()
	if strings.Contains(v, "\x1b]") || !strings.Contains(v, "└─ ") || !strings.Contains(v, "(below: failed)") {
		t.Fatalf("view:\n%s", v)
	}
	open := func(k string) views.OpenObjectMsg {
		t.Helper()
		_, cmd := d.Screen.Update(viewtest.Key(k))
		if cmd == nil {
			t.Fatalf("%s opened nothing", k)
		}
		msg, _ := cmd().(views.OpenObjectMsg)
		return msg
	}
	if o := open("enter"); o.Kind != "pods" || o.Name != "web-1-b" || o.View != views.DescribeView {
		t.Errorf("enter at the start: %+v, want the pod asked for described", o)
	}
	d.Key("!") // from web-1-b on, wrapping: the Deployment is next that is not ok
	if o := open("y"); o.Kind != "deployments" || o.Name != "web" || o.View != views.YAMLView {
		t.Errorf("y after !: %+v", o)
	}
	d.Key("j")
	d.Key("j")
	d.Key("r")
	if f.reads != 2 {
		t.Errorf("r read %d times in all, want 2", f.reads)
	}
	if o := open("enter"); o.Name != "web-1" {
		t.Errorf("after r the cursor left replicasets/web-1: %+v", o)
	}
}

func TestOwnerTreeScreenFailure(t *testing.T) {
	d := newDriver(t, &fake{err: &kube.Refusal{Reason: kube.ReasonNotFound, Detail: "pods/web-1-b is not there (deleted?)"}})
	if v := d.Screen.View(); !strings.Contains(v, "not there") {
		t.Fatalf("view:\n%s", v)
	}
	d = newDriver(t, &fake{err: errors.New("boom")})
	d.Key("esc")
	if !viewtest.WentBack(d) {
		t.Error("esc does not go back")
	}
}

// TestOwnerTreeKeysRebound: with `tree: {yaml: Y, describe: [enter]}`, y
// and d open nothing; Y opens the line's YAML, enter still describes it.
func TestOwnerTreeKeysRebound(t *testing.T) {
	vc := viewtest.Context(nil, width, height)
	vc.KeyMap = views.KeyMap{"tree": {"yaml": {"Y"}, "describe": {"enter"}}}
	d := &viewtest.Driver{T: t, Screen: ownertree.New(vc, &fake{tree: webTree()}, views.OpenOwnerTreeMsg{Kind: "pods", Namespace: "demo", Name: "web-1-b"})}
	d.Run(d.Screen.Init())
	for _, k := range []string{"y", "d"} {
		if _, cmd := d.Screen.Update(viewtest.Key(k)); cmd != nil {
			t.Fatalf("%s (an old key) opened %#v", k, cmd())
		}
	}
	_, cmd := d.Screen.Update(viewtest.Key("Y"))
	if cmd == nil {
		t.Fatal("Y (yaml's new key) opened nothing")
	}
	if o, _ := cmd().(views.OpenObjectMsg); o.Name != "web-1-b" || o.View != views.YAMLView {
		t.Fatalf("Y opened %+v", o)
	}
	if v := d.Screen.View(); !strings.Contains(v, "enter describe · Y YAML") {
		t.Errorf("the help line does not name Y:\n%s", v)
	}
}
