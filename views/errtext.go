package views

import (
	"errors"
	"fmt"

	"github.com/kyyard/kyyard/kube"
)

// ErrText is an error for people, on one line and sanitised: a
// *kube.Refusal as "<reason>: <sentence> (<detail>)"; another error with a
// reason kube.ReasonOf knows as "<reason>: <sentence> (<error>)"; an
// unclassified or invalid one as its own text.
func ErrText(err error) string {
	var r *kube.Refusal
	if errors.As(err, &r) {
		text := string(r.Reason) + ": " + r.Reason.Sentence()
		if r.Detail != "" {
			text += " (" + r.Detail + ")"
		}
		return Sanitize(text)
	}
	reason := kube.ReasonOf(err)
	if reason == kube.ReasonError || reason == kube.ReasonInvalid {
		return Sanitize(err.Error())
	}
	return Sanitize(fmt.Sprintf("%s: %s (%v)", reason, reason.Sentence(), err))
}
