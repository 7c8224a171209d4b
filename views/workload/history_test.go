package workload

import (
	tea "github.com/charmbracelet/bubbletea"
	"strings"
	"testing"
	"time"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// oneReported returns the one outcome the screen reported, failing the
// test when it reported none or several.
func (h *harness) oneReported() kube.OperateOutcome {
	h.t.Helper()
	if len(h.reported) != 1 {
		h.t.Fatalf("%d outcomes reported to the history: %+v", len(h.reported), h.reported)
	}
	return h.reported[0]
}

// An apply written goes to the history: the workload, the UID and
// resourceVersion the form read, the new resourceVersion, written.
func TestApplyGoesToHistory(t *testing.T) {
	ed := newFake(webWorkload())
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s")
	if len(h.reported) != 0 {
		t.Fatalf("a preview that allows the apply was reported: %+v", h.reported)
	}
	h.press("enter")
	o := h.oneReported()
	if !o.OK() || !o.Written || o.Op.Action != kube.ActionApply || o.ResourceVersion != "48214" ||
		o.Op.Ref != (kube.ObjectRef{Kind: kube.KindDeployments, Namespace: "demo", Name: "web", UID: "u-1", ResourceVersion: "48213"}) ||
		!strings.Contains(o.Detail, "apply written at resourceVersion 48214") {
		t.Fatalf("outcome %+v", o)
	}
}

// The apply's refusals go to the history: the API server's conflict and
// forbidden (ApplyWorkload's errors), and a guard's refusal in the
// preview, which sends nothing.
func TestApplyRefusalsGoToHistory(t *testing.T) {
	for _, reason := range []kube.Reason{kube.ReasonConflict, kube.ReasonForbidden} {
		ed := newFake(webWorkload())
		ed.applyErr = []error{&kube.Refusal{Reason: reason, Detail: "deployments/web: " + string(reason)}}
		h := open(t, ed, 80, 24)
		edit(h)
		h.press("ctrl+s", "enter")
		if o := h.oneReported(); o.Reason != reason || o.Written || o.Op.Action != kube.ActionApply ||
			o.Op.Ref.Name != "web" || !strings.Contains(o.Detail, "deployments/web: "+string(reason)) {
			t.Fatalf("%s: outcome %+v", reason, o)
		}
	}
	ed := newFake(webWorkload())
	ed.preview = kube.Preview{Changes: []kube.Change{{Container: "web", Field: "cpu request", Before: "250m", After: "500m"}},
		Verdicts: kube.Verdicts{{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonPodSecurity,
			Sentence: "namespace demo enforces no Pod Security level (strict)"}}}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s")
	o := h.oneReported()
	if o.Reason != kube.ReasonPodSecurity || o.Written || o.Op.Action != kube.ActionApply ||
		!strings.Contains(o.Detail, "enforces no Pod Security level") || !strings.Contains(o.Detail, "not sent") {
		t.Fatalf("preview refusal %+v", o)
	}
	h.press("enter")
	if len(ed.applies) != 0 || len(h.reported) != 1 {
		t.Fatalf("a refused preview: %d applies, %d outcomes", len(ed.applies), len(h.reported))
	}
}

// The undo after a failed rollout goes to the history, written or
// refused.
func TestUndoGoesToHistory(t *testing.T) {
	for _, refuse := range []bool{false, true} {
		ed := newFake(webWorkload())
		ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutFailed)}
		if refuse {
			ed.applyErr = []error{nil, &kube.Refusal{Reason: kube.ReasonConflict, Detail: "deployments/web changed"}}
		}
		h := open(t, ed, 80, 24)
		edit(h)
		h.press("ctrl+s", "enter")
		h.clock = h.clock.Add(time.Second)
		h.press("u")
		if len(ed.applies) != 2 || len(h.reported) != 2 {
			t.Fatalf("refuse %v: %d applies, outcomes %+v", refuse, len(ed.applies), h.reported)
		}
		o := h.reported[1]
		if o.Op.Action != kube.ActionUndo || o.Op.Ref.Name != "web" || o.Op.Ref.ResourceVersion != "48214" {
			t.Fatalf("refuse %v: undo outcome %+v", refuse, o)
		}
		if refuse && (o.Reason != kube.ReasonConflict || o.Written) || !refuse && (!o.OK() || !o.Written || o.ResourceVersion != "48215") {
			t.Fatalf("refuse %v: undo outcome %+v", refuse, o)
		}
	}
}

// An undo sent and then left with esc (the rollout page lets the person
// go while the undo is on its way): its answer still reaches the history.
func TestUndoAnsweredAfterEscGoesToHistory(t *testing.T) {
	ed := newFake(webWorkload())
	ed.statuses = []kube.RolloutStatus{rolloutStatus(kube.RolloutFailed)}
	h := open(t, ed, 80, 24)
	edit(h)
	h.press("ctrl+s", "enter")
	h.clock = h.clock.Add(time.Second)
	_, undo := h.m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("u")})
	h.press("esc")
	if !h.back() {
		t.Fatal("esc on the rollout page did not leave")
	}
	// The screen is gone: as the root, only what the answer itself
	// carries can reach the history.
	if a, ok := undo().(views.AnswerMsg); ok {
		h.reported = append(h.reported, a.Outcomes...)
	}
	if len(ed.applies) != 2 || len(h.reported) != 2 {
		t.Fatalf("%d applies, outcomes %+v", len(ed.applies), h.reported)
	}
	if o := h.reported[1]; o.Op.Action != kube.ActionUndo || !o.OK() || !o.Written || o.ResourceVersion != "48215" {
		t.Fatalf("undo outcome %+v", o)
	}
}

// back reports whether the screen asked to go back.
func (h *harness) back() bool {
	for _, m := range h.out {
		if _, ok := m.(views.BackMsg); ok {
			return true
		}
	}
	return false
}
