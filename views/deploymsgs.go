package views

import (
	"fmt"

	"github.com/kyyard/kyyard/kube"
)

// OpenDeployMsg asks the root to push the deploy form (views/deploy): a
// new app in Namespace (`n` on :apps), or, with Instance set, the form of
// that instance filled from its instance record (`e`).
type OpenDeployMsg struct {
	// Namespace is where the app goes (never "": the root's namespace or
	// the client's default when :apps shows every namespace).
	Namespace string
	// Instance names the instance to edit; "" for a new app.
	Instance string
}

// OpenRemoveMsg asks the root to push the remove confirmation of one
// kyyard-managed instance (`ctrl+d` on :apps).
type OpenRemoveMsg struct {
	// Namespace and Instance name it.
	Namespace, Instance string
}

// OpenAppsMsg asks the root to show the `:apps` list.
type OpenAppsMsg struct{}

// AppsHint is what a refusal or warning on a kyyard-managed object adds:
// where to change it instead.
const AppsHint = "use :apps to change it"

// VerdictSentence is v's sentence, sanitised, with AppsHint added when the
// managed-by guard found the object kyyard's own (kube.Verdict.KyyardManaged):
// such objects are changed through :apps, not the workload form, scale or
// delete.
func VerdictSentence(v kube.Verdict) string {
	s := Sanitize(v.Sentence)
	if v.KyyardManaged {
		s += " · " + AppsHint
	}
	return s
}

// VerdictLine is one guard's verdict on a line of a confirmation: "✓
// <sentence>" (muted) for a pass, "! <reason>: <sentence>" for a warning
// (with the text that confirms it when it wants one typed), "✗ <reason>:
// <sentence>" (error style) for a refusal.
func VerdictLine(st Styles, v kube.Verdict) string {
	s := VerdictSentence(v)
	switch v.Outcome {
	case kube.OutcomeRefuse:
		return st.Error.Render(fmt.Sprintf("✗ %s: %s", v.Reason, s))
	case kube.OutcomeWarn:
		if v.Confirm != "" {
			s += fmt.Sprintf(" (type %q to confirm)", v.Confirm)
		}
		return fmt.Sprintf("! %s: %s", v.Reason, s)
	}
	return st.Muted.Render("✓ " + s)
}
