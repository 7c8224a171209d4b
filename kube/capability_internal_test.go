package kube

import (
	"context"
	"testing"

	"k8s.io/client-go/kubernetes"
)

// stubPlugin serves a kind with capabilities and nothing else (no rows).
type stubPlugin struct{ info KindInfo }

func (p stubPlugin) Info() KindInfo      { return p.info }
func (p stubPlugin) Row(any) (Row, bool) { return Row{}, false }
func (p stubPlugin) List(context.Context, kubernetes.Interface, string, Selector) ([]any, error) {
	return nil, nil
}

// stubRegistry is a Registry of stub plugins for kinds, each declaring
// caps: the internal tests of an action's code (port-forward) run
// where package kube/kinds, whose plugins declare the real capabilities,
// cannot be imported. What the real plugins declare is tested in
// kube/kinds (TestCapabilities*).
func stubRegistry(t testing.TB, caps Capability, kinds ...Kind) *Registry {
	t.Helper()
	var plugins []Plugin
	for _, k := range kinds {
		plugins = append(plugins, stubPlugin{info: KindInfo{ID: k, Resource: string(k), Namespaced: true, Capabilities: caps}})
	}
	r, err := NewRegistry(plugins...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// forwardKinds is a registry of the kinds the tests forward to.
func forwardKinds(t testing.TB) *Registry {
	return stubRegistry(t, CanPortForward, KindPods, kindServices, KindDeployments, KindStatefulSets, KindDaemonSets, KindReplicaSets)
}
