package vocab

import (
	"slices"
	"strings"
)

// Policy is how the guards' warnings are treated (design: "Guards, and two
// policies").
type Policy string

// Policies.
const (
	// PolicyInteractive (the default): forbidden and conflict refuse; every
	// other guard that does not pass warns, and the screen asks for a
	// confirmation naming the risk before the write is sent.
	PolicyInteractive Policy = "interactive"
	// PolicyStrict (--strict; the default in a pod): every guard that does
	// not pass refuses, as a cluster agent must.
	PolicyStrict Policy = "strict"
)

// Verdict is one guard's answer to one write.
type Verdict struct {
	// Guard is the check that answered.
	Guard Guard
	// Outcome is pass, warn or refuse.
	Outcome Outcome
	// Reason is the code a warn or refuse stands for ("" for pass).
	Reason Reason
	// Sentence says what the guard found, for people ("may patch
	// deployments in demo", "managed by Helm (release shop): Helm may undo
	// this on its next upgrade").
	Sentence string
	// Confirm, on a warn, is the text the person must type to confirm
	// (the object's name, for application_managed and pvc_retention); ""
	// means a plain yes is enough.
	Confirm string
	// Nothing, on the action's pass verdict, says the object already is as
	// asked (a Deployment already paused, or resumed, already at the
	// replicas asked): the action would send nothing.
	Nothing bool
	// KyyardManaged, on the managed-by guard's warn or refuse, says the
	// object is kyyard's own deploy form's (label
	// app.kubernetes.io/managed-by: kyyard, and no other tool's markers
	// before it in ManagedBy's order): it is changed through :apps, not the
	// workload form, scale or delete.
	KyyardManaged bool
}

// Answer is what the person types to confirm a warning: its Confirm text
// (the object's name), else "y".
func (v Verdict) Answer() string {
	if v.Confirm != "" {
		return v.Confirm
	}
	return "y"
}

// Verdicts are every guard's answers to one write, in the order they ran.
type Verdicts []Verdict

// Refusal returns the first refusing verdict as an error, or nil.
func (vs Verdicts) Refusal() *Refusal {
	for _, v := range vs {
		if v.Outcome == OutcomeRefuse {
			return &Refusal{Reason: v.Reason, Detail: v.Sentence}
		}
	}
	return nil
}

// NothingToDo returns the sentence of the verdict that says the action
// would send nothing (Verdict.Nothing), and whether there is one.
func (vs Verdicts) NothingToDo() (string, bool) {
	for _, v := range vs {
		if v.Nothing {
			return v.Sentence, true
		}
	}
	return "", false
}

// Warnings returns the warning verdicts.
func (vs Verdicts) Warnings() Verdicts {
	var out Verdicts
	for _, v := range vs {
		if v.Outcome == OutcomeWarn {
			out = append(out, v)
		}
	}
	return out
}

// Unconfirmed returns, as a Refusal, the first refusal or else the first
// warning whose reason is not among confirmed; nil when the write may go.
func (vs Verdicts) Unconfirmed(confirmed []Reason) *Refusal {
	if r := vs.Refusal(); r != nil {
		return r
	}
	for _, v := range vs {
		if v.Outcome == OutcomeWarn && !slices.Contains(confirmed, v.Reason) {
			return &Refusal{Reason: v.Reason, Detail: v.Sentence + " (not confirmed)"}
		}
	}
	return nil
}

// Refusal is the error a write returns when it is refused before (or by)
// the API server, or a read that cannot answer in full (Inspect): a closed
// reason code and what the guard or the server said. ReasonOf answers its
// Reason.
type Refusal struct {
	// Reason is the code (ReasonForbidden, ReasonConflict, ...).
	Reason Reason
	// Detail says what was found ("deployments/web changed: resourceVersion
	// 812 is now 815"); may be empty.
	Detail string
	// Sentence, when set, replaces Reason.Sentence() in Error, for a
	// refusal the reason's usual sentence does not describe (too many pods
	// is unavailable, but the API server was reached).
	Sentence string
}

// Error returns "<reason>: <detail>: <sentence>".
func (r *Refusal) Error() string {
	parts := []string{string(r.Reason)}
	if r.Detail != "" {
		parts = append(parts, r.Detail)
	}
	sentence := r.Sentence
	if sentence == "" {
		sentence = r.Reason.Sentence()
	}
	return strings.Join(append(parts, sentence), ": ")
}
