package kube_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// TestE2ELocalFleetOverview: each cluster of the local fleet answers its
// own overview (its own Nodes and Pods: two fake Nodes, the Deployments'
// Pods of its demo namespace), through a client of its context; the
// fleet-3 read-only user's Pods are forbidden there only. Each member's
// CPU and memory used are what its own metrics API reports of its Nodes
// (each member runs a metrics-server of its own; the read-only users may
// not read metrics: forbidden).
func TestE2ELocalFleetOverview(t *testing.T) {
	path := kubetest.LocalFleet(t)
	flags := func(name string) *genericclioptions.ConfigFlags {
		f := genericclioptions.NewConfigFlags(true)
		f.KubeConfig, f.Context = &path, &name
		return f
	}
	overview := func(name string) kube.ClusterOverview {
		f := flags(name)
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
		cfg, err := flags(name).ToRESTConfig()
		if err != nil {
			t.Fatal(err)
		}
		mc := metricsclient.NewForConfigOrDie(cfg)
		var cpu, mem int64
		for try := 0; try < 5; try++ { // a sample may turn over between the two reads
			o = overview(name)
			nodes, err := mc.MetricsV1beta1().NodeMetricses().List(context.Background(), metav1.ListOptions{})
			if err != nil {
				t.Fatalf("%s: metrics API: %v", name, err)
			}
			cpu, mem = 0, 0
			for _, n := range nodes.Items {
				cpu += n.Usage.Cpu().MilliValue()
				mem += n.Usage.Memory().Value()
			}
			if o.Metrics && o.Used.CPU == cpu && o.Used.Memory == mem {
				break
			}
		}
		if !o.Metrics || o.Used.CPU != cpu || o.Used.Memory != mem || cpu == 0 {
			t.Errorf("%s: used %+v (metrics %v), the metrics API's nodes %dm %d bytes", name, o.Used, o.Metrics, cpu, mem)
		}
	}
	if o := overview("kyyard-fleet-3-viewer"); o.MayList || o.MayWrite || len(o.Unread) == 0 {
		t.Errorf("kyyard-fleet-3-viewer: %+v", o)
	}
	if o := overview("kyyard-fleet-1-viewer"); !o.MayList || o.Namespace != kubetest.DemoNamespace || o.PodsTotal < 2 ||
		o.Metrics || o.MetricsReason != kube.ReasonForbidden {
		t.Errorf("kyyard-fleet-1-viewer: %+v", o)
	}
}
