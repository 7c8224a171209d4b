package views_test

import (
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// Verdicts of one write: a pass, a Pod Security warning (a plain y) and a
// managed-by warning (the object's name).
var (
	confirmPass    = kube.Verdict{Guard: kube.GuardAccess, Outcome: kube.OutcomePass, Sentence: "may patch deployments in demo"}
	confirmPodSec  = kube.Verdict{Guard: kube.GuardPodSecurity, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPodSecurity, Sentence: "no level"}
	confirmManaged = kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged,
		Sentence: "managed by Helm (release shop)", Confirm: "web"}
	confirmClaims = kube.Verdict{Guard: kube.GuardClaims, Outcome: kube.OutcomeWarn, Reason: kube.ReasonPVCRetention,
		Sentence: "deletes the claims", Confirm: "web"}
	confirmForbidden = kube.Verdict{Guard: kube.GuardAccess, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonForbidden, Sentence: "may not patch"}
)

// typeText sends each rune of s as a key, then the keys named in more.
func typeText(c *views.Confirm, s string, more ...tea.KeyType) {
	for _, r := range s {
		c.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune{r}})
	}
	for _, k := range more {
		c.Update(tea.KeyMsg{Type: k})
	}
}

func newConfirm(mode views.ConfirmMode, vs kube.Verdicts) *views.Confirm {
	return views.NewConfirm(views.Styles{}, mode, views.WarningAsks(vs, 0))
}

// TestConfirmAsks: one ask per warning, in order, wanting y or the name;
// the confirmed reasons once each.
func TestConfirmAsks(t *testing.T) {
	vs := kube.Verdicts{confirmPass, confirmPodSec, confirmManaged, confirmClaims}
	got := views.WarningAsks(vs, 3)
	want := []views.ConfirmAsk{{Want: "y", Reason: kube.ReasonPodSecurity, Of: 3},
		{Want: "web", Reason: kube.ReasonApplicationManaged, Of: 3}, {Want: "web", Reason: kube.ReasonPVCRetention, Of: 3}}
	if !slices.Equal(got, want) {
		t.Fatalf("asks %+v, want %+v", got, want)
	}
	twice := append(vs, confirmPodSec)
	if r := views.ConfirmedReasons(twice); !slices.Equal(r, []kube.Reason{kube.ReasonPodSecurity, kube.ReasonApplicationManaged, kube.ReasonPVCRetention}) {
		t.Fatalf("reasons %v", r)
	}
}

// TestConfirmAsTypedY: y typed into the y ask takes it and moves the focus
// to the next ask; the summary counts what is left.
func TestConfirmAsTypedY(t *testing.T) {
	c := newConfirm(views.ConfirmAsTyped, kube.Verdicts{confirmPass, confirmPodSec, confirmManaged})
	if c.Typing() {
		t.Fatal("typing before Start")
	}
	c.Start("")
	if i, want := c.Pending(); i != 0 || want != "y" || c.Cursor(0) != ">" || c.Cursor(1) != " " {
		t.Fatalf("pending %d %q", i, want)
	}
	if s := c.Summary(); s != "confirm 2 warnings first" {
		t.Fatalf("summary %q", s)
	}
	typeText(c, "y")
	if !c.Confirmed(0) || c.Confirmed(1) || c.Focus() != 1 || c.Unconfirmed() != 1 {
		t.Fatalf("after y: confirmed %v %v, focus %d", c.Confirmed(0), c.Confirmed(1), c.Focus())
	}
	if f := c.Field(0); !strings.HasSuffix(f, "] ✓") || !strings.HasPrefix(f, "[y") {
		t.Fatalf("field %q", f)
	}
	if s := c.Summary(); s != "confirm 1 warning first" {
		t.Fatalf("summary %q", s)
	}
	if r := c.Reasons(); !slices.Equal(r, []kube.Reason{kube.ReasonPodSecurity}) {
		t.Fatalf("reasons %v", r)
	}
}

// TestConfirmAsTypedName: the object's name typed takes its ask the moment
// it is whole; a wrong name is never taken; tab moves on to the next ask
// not taken, wrapping; with every ask taken, nothing is typed into.
func TestConfirmAsTypedName(t *testing.T) {
	c := newConfirm(views.ConfirmAsTyped, kube.Verdicts{confirmManaged, confirmPodSec})
	c.Start("")
	typeText(c, "we")
	if c.Confirmed(0) || c.Focus() != 0 || c.Typed(0) != "we" {
		t.Fatalf("a part of the name is taken: focus %d typed %q", c.Focus(), c.Typed(0))
	}
	typeText(c, "x", tea.KeyEnter)
	if c.Confirmed(0) || c.Focus() != 0 {
		t.Fatalf("a wrong name is taken (%q)", c.Typed(0))
	}
	c.Next()
	if c.Focus() != 1 {
		t.Fatalf("tab: focus %d", c.Focus())
	}
	typeText(c, "y")
	if c.Focus() != 0 {
		t.Fatalf("after y the focus goes back to the name: %d", c.Focus())
	}
	typeText(c, "", tea.KeyBackspace)
	typeText(c, "b")
	if !c.Confirmed(0) || c.Typing() || c.Unconfirmed() != 0 || c.Summary() != "" {
		t.Fatalf("the name is not taken: typed %q, focus %d", c.Typed(0), c.Focus())
	}
	if r := c.Reasons(); !slices.Equal(r, []kube.Reason{kube.ReasonApplicationManaged, kube.ReasonPodSecurity}) {
		t.Fatalf("reasons %v", r)
	}
	// Done: keys are no longer taken.
	typeText(c, "x")
	if c.Typed(0) != "web" || c.Typed(1) != "y" {
		t.Fatalf("a key went to a taken ask: %q %q", c.Typed(0), c.Typed(1))
	}
}

// TestConfirmOnEnter: the name is taken by enter; a wrong one is said and
// kept for correcting; the name typed once takes every ask of its object
// that wants it, and the next object's is asked next.
func TestConfirmOnEnter(t *testing.T) {
	asks := append(views.WarningAsks(kube.Verdicts{confirmManaged, confirmClaims}, 0),
		views.WarningAsks(kube.Verdicts{{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged, Confirm: "db"}}, 2)...)
	c := views.NewConfirm(views.Styles{}, views.ConfirmOnEnter, asks)
	c.Start("")
	typeText(c, "web")
	if c.Confirmed(0) {
		t.Fatal("taken before enter")
	}
	typeText(c, "x", tea.KeyEnter)
	if c.Confirmed(0) || c.Note() != `that is not "web": type it exactly to confirm` || c.Typed(0) != "webx" {
		t.Fatalf("wrong name: confirmed %v note %q typed %q", c.Confirmed(0), c.Note(), c.Typed(0))
	}
	typeText(c, "", tea.KeyBackspace)
	if c.Note() != "" {
		t.Fatalf("the note stays while the text is corrected: %q", c.Note())
	}
	typeText(c, "", tea.KeyEnter)
	if !c.Confirmed(0) || !c.Confirmed(1) || c.Confirmed(2) {
		t.Fatalf("web once: %v %v %v", c.Confirmed(0), c.Confirmed(1), c.Confirmed(2))
	}
	if i, want := c.Pending(); i != 2 || want != "db" || c.Ask(i).Of != 2 || c.Typed(2) != "" {
		t.Fatalf("next: %d %q", i, want)
	}
	typeText(c, "db", tea.KeyEnter)
	if c.Typing() || c.Unconfirmed() != 0 {
		t.Fatalf("db not taken: focus %d", c.Focus())
	}
}

// TestConfirmRefusalBlocks: when a guard refuses (Start is told why),
// the warnings are listed but nothing is typed into, keys are not taken,
// nothing is confirmed, even after Advance or Next.
func TestConfirmRefusalBlocks(t *testing.T) {
	vs := kube.Verdicts{confirmForbidden, confirmPodSec, confirmManaged}
	for _, mode := range []views.ConfirmMode{views.ConfirmAsTyped, views.ConfirmOnEnter} {
		c := newConfirm(mode, vs)
		if cmd := c.Start("a guard refuses the change"); cmd != nil || c.Typing() || c.Blocked() != "a guard refuses the change" {
			t.Fatalf("mode %d: typing though refused", mode)
		}
		c.Advance()
		c.Next()
		typeText(c, "y", tea.KeyEnter)
		typeText(c, "web", tea.KeyEnter)
		if c.Len() != 2 || c.Unconfirmed() != 2 || c.Typed(0) != "" || c.Typed(1) != "" || len(c.Reasons()) != 0 || c.Cursor(0) != " " {
			t.Fatalf("mode %d: a refused write took keys: %q %q", mode, c.Typed(0), c.Typed(1))
		}
	}
}

// TestConfirmEsc: esc is not text: it confirms nothing and leaves the
// typed text as it was (the screen takes esc to go back or cancel).
func TestConfirmEsc(t *testing.T) {
	for _, mode := range []views.ConfirmMode{views.ConfirmAsTyped, views.ConfirmOnEnter} {
		c := newConfirm(mode, kube.Verdicts{confirmManaged})
		c.Start("")
		typeText(c, "we", tea.KeyEsc)
		if c.Confirmed(0) || c.Typed(0) != "we" || !c.Typing() || c.Note() != "" {
			t.Fatalf("mode %d: esc: typed %q confirmed %v", mode, c.Typed(0), c.Confirmed(0))
		}
	}
}

// TestConfirmNone: no warnings, nothing to ask: nothing is typed into and
// nothing is left to confirm; a nil Confirm (no answer yet) says the same.
func TestConfirmNone(t *testing.T) {
	c := newConfirm(views.ConfirmAsTyped, kube.Verdicts{confirmPass})
	c.Start("")
	var none *views.Confirm
	for _, c := range []*views.Confirm{c, none} {
		if c.Len() != 0 || c.Typing() || c.Unconfirmed() != 0 || c.Summary() != "" || c.Focus() != -1 || len(c.Reasons()) != 0 {
			t.Fatalf("%v: something to confirm", c)
		}
		if i, _ := c.Pending(); i != -1 {
			t.Fatalf("pending %d", i)
		}
	}
}
