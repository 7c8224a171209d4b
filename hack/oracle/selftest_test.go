package oracle

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/kyyard/kyyard/kube"
)

// wrongReady is the pods plugin with one injected fault: a pod with two
// containers or more shows READY as "?".
type wrongReady struct{ kube.Plugin }

func (w wrongReady) Row(obj any) (kube.Row, bool) {
	row, ok := w.Plugin.Row(obj)
	if p, isPod := obj.(*corev1.Pod); ok && isPod && len(p.Spec.Containers) >= 2 {
		row.Cells[1] = kube.Text("?")
	}
	return row, ok
}

// TestOracleFindsAndMinimisesAFault: the oracle notices an injected
// difference and minimises the object down to what the fault needs (two
// containers, nothing else set).
func TestOracleFindsAndMinimisesAFault(t *testing.T) {
	var pods Subject
	for _, s := range Subjects() {
		if s.ID == "pods" {
			pods = s
		}
	}
	pods.Plugin = wrongReady{pods.Plugin}
	pods.Corners = nil
	rep := Run(NewPrinter(), []Subject{pods}, Options{Seed: 1, Count: 300, MinimiseLimit: 3})
	if len(rep.Findings) == 0 {
		t.Fatal("no findings on a plugin with an injected fault")
	}
	if got := rep.Classes()["pods READY"]; got != len(rep.Findings) {
		t.Errorf("classes %v, want only pods READY", rep.Classes())
	}
	f := rep.Findings[0]
	pod := f.Object.(*corev1.Pod)
	if !f.Minimised || len(pod.Spec.Containers) != 2 || pod.Name != "" || len(pod.Status.Conditions) != 0 || len(pod.Status.ContainerStatuses) != 0 {
		t.Errorf("not minimised: %+v", pod)
	}
	var b strings.Builder
	if err := rep.Write(&b); err != nil || !strings.Contains(b.String(), `pods READY: kubectl "0/2", kyyard "?"`) {
		t.Errorf("report (%v):\n%s", err, b.String())
	}
}

// TestAgesCompareWithinSkew: an age cell matches kubectl's text rendered a
// few seconds apart, not further, and a static cell is never loosened.
func TestAgesCompareWithinSkew(t *testing.T) {
	now := time.Now()
	c := kube.Cell{Since: now.Add(-59 * time.Second)}
	if !cellMatches(c, "61s", now) || !cellMatches(c, "57s", now) {
		t.Error("ages within skew do not match")
	}
	if cellMatches(c, "70s", now) {
		t.Error("an age 11s off matches")
	}
	if cellMatches(kube.Text("59s"), "60s", now) {
		t.Error("a static cell matched another text")
	}
}
