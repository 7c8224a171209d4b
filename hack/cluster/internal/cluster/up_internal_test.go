package cluster

import (
	"testing"

	"github.com/kyyard/kyyard/hack/cluster/internal/components"
	"github.com/kyyard/kyyard/hack/cluster/internal/node"
)

// TestDecideUp: up starts what is missing: everything when nothing runs,
// only the real node (what of it is missing) when the control plane runs,
// nothing when all runs, and it does not touch a control plane that runs
// in part.
func TestDecideUp(t *testing.T) {
	var cp []RunningComponent
	for i, n := range components.Names {
		cp = append(cp, RunningComponent{Name: n, PID: 100 + i})
	}
	kubelet := []node.Running{{Name: "kubelet", PID: 7}}
	both := []node.Running{{Name: "containerd", PID: 6}, {Name: "kubelet", PID: 7}}
	for _, tc := range []struct {
		name string
		cp   []RunningComponent
		nd   []node.Running
		want upAction
	}{
		{"nothing runs", nil, nil, upAll},
		{"only a leftover node process", nil, kubelet, upAll},
		{"control plane without node", cp, nil, upNodeOnly},
		{"control plane, kubelet without containerd", cp, kubelet, upNodeOnly},
		{"everything", cp, both, upNothing},
		{"part of the control plane", cp[:2], both, upPartial},
		{"part of the control plane, no node", cp[1:], nil, upPartial},
	} {
		if got := decideUp(tc.cp, tc.nd); got != tc.want {
			t.Errorf("%s: decideUp = %d, want %d", tc.name, got, tc.want)
		}
	}
}
