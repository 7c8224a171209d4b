package workload

import (
	"context"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// usageFake is a fake that also reads the workload's usage.
type usageFake struct {
	*fake
	u     kube.WorkloadUsage
	asked []kube.WorkloadRef
}

func (f *usageFake) WorkloadUsage(_ context.Context, ref kube.WorkloadRef) kube.WorkloadUsage {
	f.asked = append(f.asked, ref)
	return f.u
}

var _ views.WorkloadUsageSource = (*usageFake)(nil)

const mi = 1024 * 1024

// deliverUsage runs a usage read and hands its answer to the screen; it
// returns the next tick's command (not run: it waits).
func deliverUsage(t *testing.T, h *harness, cmd tea.Cmd) tea.Cmd {
	t.Helper()
	if cmd == nil {
		t.Fatal("no usage read")
	}
	msg, ok := cmd().(usageMsg)
	if !ok {
		t.Fatal("the command is no usage read")
	}
	_, next := h.m.Update(msg)
	return next
}

// TestFormShowsUsage: each container's usage beside its cpu and memory
// inputs, read when the form opens (for the workload the form edits, a
// pod's owner) and again on the chain's tick; none for a container the
// metrics do not report.
func TestFormShowsUsage(t *testing.T) {
	f := &usageFake{fake: newFake(webWorkload()), u: kube.WorkloadUsage{Containers: []kube.ContainerUsageSummary{{
		Name: "web", Pods: 3,
		Min: kube.Usage{CPU: 10, Memory: 90 * mi}, Max: kube.Usage{CPU: 15, Memory: 130 * mi}, Mean: kube.Usage{CPU: 12, Memory: 110 * mi},
	}}}}
	h := openAs(t, f.fake, f, kube.WorkloadRef{Kind: kube.KindPods, Namespace: "demo", Name: "web-7d9f-abcde"}, 80, 24)
	if len(f.asked) != 1 || f.asked[0] != webRef {
		t.Fatalf("usage asked for %+v, want the owner %+v", f.asked, webRef)
	}
	// The harness drops usage answers: deliver one by hand.
	tick := deliverUsage(t, h, h.m.fetchUsage())
	if tick == nil {
		t.Fatal("the usage chain is not armed")
	}
	h.goldens("form-usage")
	v := h.view()
	for _, want := range []string{"mean 12m, 3 pods: 10m–15m", "mean 110Mi, 3 pods: 90Mi–130Mi"} {
		if !strings.Contains(v, want) {
			t.Errorf("%q not shown:\n%s", want, v)
		}
	}
	// One pod: only "now"; the tick reads again.
	f.u.Containers[0] = kube.ContainerUsageSummary{Name: "web", Pods: 1, Min: kube.Usage{CPU: 7, Memory: 64 * mi},
		Max: kube.Usage{CPU: 7, Memory: 64 * mi}, Mean: kube.Usage{CPU: 7, Memory: 64 * mi}}
	_, read := h.m.Update(usageTickMsg{owner: h.m, token: h.m.utoken})
	deliverUsage(t, h, read)
	if v := h.view(); !strings.Contains(v, "now 7m\n") || strings.Contains(v, "pods:") {
		t.Errorf("one pod's usage:\n%s", v)
	}
	if len(f.asked) != 3 {
		t.Errorf("%d reads, want 3", len(f.asked))
	}
	// A stale chain's tick reads nothing.
	if _, read := h.m.Update(usageTickMsg{owner: h.m, token: h.m.utoken - 1}); read != nil {
		t.Error("a stale tick read again")
	}
}

// TestFormUsageNotAvailable: forbidden metrics leave the inputs as they
// were and say why once on the note line.
func TestFormUsageNotAvailable(t *testing.T) {
	f := &usageFake{fake: newFake(webWorkload()), u: kube.WorkloadUsage{Truncated: &kube.Truncation{Reason: kube.ReasonForbidden,
		Message: `pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods"`}}}
	h := openAs(t, f.fake, f, webRef, 80, 24)
	deliverUsage(t, h, h.m.fetchUsage())
	v := h.view()
	if !strings.Contains(v, "usage n/a: forbidden (may not list pods.metrics.k8s.io)") || strings.Contains(v, "now ") || strings.Contains(v, "mean ") {
		t.Fatalf("no reason, or usage shown:\n%s", v)
	}
	h.press("tab") // a key clears the note
	deliverUsage(t, h, h.m.fetchUsage())
	if v := h.view(); strings.Contains(v, "usage n/a") {
		t.Fatalf("the reason is said again:\n%s", v)
	}
}

// TestFormWithoutUsageSource: an editor that reads no usage gives the
// form as it was, with no read.
func TestFormWithoutUsageSource(t *testing.T) {
	h := open(t, newFake(webWorkload()), 80, 24)
	if cmd := h.m.readUsage(); cmd != nil {
		t.Fatal("a usage read without a source")
	}
	if v := h.view(); strings.Contains(v, "now ") || strings.Contains(v, "mean ") {
		t.Fatal("usage shown without a source")
	}
}

// TestFormRereadReadsUsage: ctrl+r reads the usage again with the object,
// in a new chain (the old chain's tick reads nothing more).
func TestFormRereadReadsUsage(t *testing.T) {
	f := &usageFake{fake: newFake(webWorkload()), u: kube.WorkloadUsage{Containers: []kube.ContainerUsageSummary{{Name: "web", Pods: 1,
		Mean: kube.Usage{CPU: 7, Memory: 64 * mi}, Min: kube.Usage{CPU: 7, Memory: 64 * mi}, Max: kube.Usage{CPU: 7, Memory: 64 * mi}}}}}
	h := openAs(t, f.fake, f, webRef, 80, 24)
	deliverUsage(t, h, h.m.fetchUsage())
	before, token := len(f.asked), h.m.utoken
	h.press("ctrl+r")
	if len(f.asked) != before+1 || h.m.utoken == token {
		t.Fatalf("ctrl+r: %d reads (want %d), chain %d (was %d)", len(f.asked), before+1, h.m.utoken, token)
	}
	if _, read := h.m.Update(usageTickMsg{owner: h.m, token: token}); read != nil {
		t.Error("the old chain read again")
	}
}
