package kube_test

import (
	"context"
	"testing"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2ELocalFleetOverview: each cluster of the local fleet answers its
// own overview (its own Nodes and Pods: two fake Nodes, the Deployments'
// Pods of its demo namespace), through a client of its context; the
// fleet-3 read-only user's Pods are forbidden there only.
func TestE2ELocalFleetOverview(t *testing.T) {
	path := kubetest.LocalFleet(t)
	overview := func(name string) kube.ClusterOverview {
		f := genericclioptions.NewConfigFlags(true)
		f.KubeConfig, f.Context = &path, &name
		c, err := kube.New(f, kube.Options{Registry: kinds.Builtin()})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		return c.Overview(context.Background())
	}
	for _, name := range []string{"kyyard-fleet-1", "kyyard-fleet-2", "kyyard-fleet-3"} {
		o := overview(name)
		if !o.Reachable() || o.NodesTotal != 2 || o.NodesReady != 2 || o.PodsTotal < 2 || !o.MayWrite || len(o.Unread) != 0 {
			t.Errorf("%s: %+v", name, o)
		}
	}
	if o := overview("kyyard-fleet-3-viewer"); o.MayList || o.MayWrite || len(o.Unread) == 0 {
		t.Errorf("kyyard-fleet-3-viewer: %+v", o)
	}
	if o := overview("kyyard-fleet-1-viewer"); !o.MayList || o.Namespace != kubetest.DemoNamespace || o.PodsTotal < 2 {
		t.Errorf("kyyard-fleet-1-viewer: %+v", o)
	}
}
