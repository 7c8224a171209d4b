package operate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// TestScaleToOneReplicaSaysReplica: the confirmation said "scale to 1
// replicas"; counts in words agree with their number (kube.Plural), at
// 80x24 and 200x50.
func TestScaleToOneReplicaSaysReplica(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {200, 50}} {
		h := open(t, &fake{}, views.OperateMsg{Action: kube.ActionScale, Targets: []kube.ObjectRef{ref(kube.KindDeployments, "web")}, Replicas: 1}, size[0], size[1])
		h.press("enter")
		v := h.m.View()
		if !strings.Contains(v, "scale to 1 replica") || strings.Contains(v, "1 replicas") {
			t.Fatalf("%dx%d:\n%s", size[0], size[1], v)
		}
		h.golden(fmt.Sprintf("confirm-scale-to-1-%dx%d", size[0], size[1]), size[0], size[1])
	}
}
