package views_test

import (
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/views"
)

// TestVerdictSentenceReadsKyyardManaged: the :apps hint follows the
// verdict's KyyardManaged field, never the words of its sentence.
func TestVerdictSentenceReadsKyyardManaged(t *testing.T) {
	for _, tc := range []struct {
		v    kube.Verdict
		hint bool
	}{
		{kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged, KyyardManaged: true,
			Sentence: "managed by kyyard's deploy form (instance shop): kyyard's deploy form may undo this on its next sync"}, true},
		// Another wording of the same verdict: still kyyard's.
		{kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonApplicationManaged, KyyardManaged: true,
			Sentence: "managed by kyyard (instance shop)"}, true},
		// The words without the field: not kyyard's.
		{kube.Verdict{Guard: kube.GuardOwner, Outcome: kube.OutcomeRefuse, Reason: kube.ReasonApplicationManaged,
			Sentence: "shop-web exists (managed by kyyard's deploy form (instance other))"}, false},
		{kube.Verdict{Guard: kube.GuardManaged, Outcome: kube.OutcomeWarn, Reason: kube.ReasonApplicationManaged,
			Sentence: "managed by Helm (release shop): Helm may undo this on its next sync"}, false},
	} {
		if got := strings.HasSuffix(views.VerdictSentence(tc.v), " · "+views.AppsHint); got != tc.hint {
			t.Fatalf("%+v: hint %v, want %v", tc.v, got, tc.hint)
		}
	}
}
