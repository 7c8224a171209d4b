package guards

import (
	"context"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Write is what one write, exec or debug container asks the guard
// pipeline (Run): the checks particular to it, by stage. The stages
// and their order are the pipeline's; a write only fills them in.
type Write struct {
	// Rule checks the request against its kind alone, before any request
	// is sent (an action's own rules: Operate's actionRule); nil: none.
	Rule func() vocab.Verdict
	// Access is every SelfSubjectAccessReview the write needs (verb,
	// resource, subresource, namespace), asked in order.
	Access []AccessCheck
	// AccessOf, when set, returns more reviews, asked after Access: those
	// known only once Rule has run (an action on a kind that discovery
	// resolves, its group and resource, which read-only must refuse
	// before discovery is asked); nil: none.
	AccessOf func() []AccessCheck
	// Object reads the Object the write is about, fresh, and checks it
	// against what the person saw (UID, resourceVersion, generation, not
	// being deleted, the container running); nil: the write reads no one
	// Object first (a deploy plans many, in risks).
	Object func(ctx context.Context) (vocab.Verdicts, error)
	// Risks runs the checks that warn (strict: refuse) about what the
	// write would do: another tool's markers, Pod Security, claims
	// deleted, an autoscaler, new Secret references, names taken.
	Risks func(ctx context.Context) (vocab.Verdicts, error)
}

// Run runs w's guards in the one order every write, exec and debug
// container shares (design: "Guards, and two policies"):
//
//  1. read-only (GuardReadOnly);
//  2. the request's own rules (w.Rule);
//  3. every access review of w.Access and w.AccessOf (GuardAccess), each asked;
//  4. the object read fresh (w.Object);
//  5. the risks (w.Risks), every one run.
//
// The stop rule is the same for all: after a stage whose verdicts hold a
// refusal, or one that says there is nothing to send (Verdict.Nothing), no
// later stage runs; a request is never sent for a write already refused,
// and a later verdict would judge an object the person did not mean. The
// verdicts are returned in the order they ran. Errors: a stage's error (a
// read failed for another reason than a refusal: the API server away),
// with the verdicts before it.
func (g *Checker) Run(ctx context.Context, w Write) (vocab.Verdicts, error) {
	vs := vocab.Verdicts{g.readOnlyVerdict()}
	stop := func() bool {
		_, nothing := vs.NothingToDo()
		return vs.Refusal() != nil || nothing
	}
	if stop() {
		return vs, nil
	}
	if w.Rule != nil {
		if vs = append(vs, w.Rule()); stop() {
			return vs, nil
		}
	}
	access := w.Access
	if w.AccessOf != nil {
		access = append(append([]AccessCheck(nil), access...), w.AccessOf()...)
	}
	for _, a := range access {
		vs = append(vs, g.Access(ctx, a))
	}
	if stop() {
		return vs, nil
	}
	for _, stage := range []func(context.Context) (vocab.Verdicts, error){w.Object, w.Risks} {
		if stage == nil {
			continue
		}
		got, err := stage(ctx)
		vs = append(vs, got...)
		if err != nil || stop() {
			return vs, err
		}
	}
	return vs, nil
}

// Gone is the fresh read's refusal when the object no longer
// exists (ReasonNotFound); sentence names it ("deployments/web no longer
// exists").
func Gone(sentence string) vocab.Verdict {
	return vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonNotFound, Sentence: sentence}
}
