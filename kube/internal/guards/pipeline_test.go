package guards

import (
	"context"
	"errors"
	"strings"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube/vocab"
)

// reviewing returns a fake clientset whose SelfSubjectAccessReviews allow
// every verb but the ones in denied, and counts the reviews asked.
func reviewing(denied map[string]bool, asked *int, objs ...runtime.Object) *fake.Clientset {
	cs := fake.NewClientset(objs...)
	cs.PrependReactor("create", "selfsubjectaccessreviews", func(a k8stesting.Action) (bool, runtime.Object, error) {
		*asked++
		r := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview)
		r.Status.Allowed = !denied[r.Spec.ResourceAttributes.Verb]
		return true, r, nil
	})
	return cs
}

// stage returns a pipeline stage that records it ran and answers vs.
func stage(ran *[]string, name string, vs ...vocab.Verdict) func(context.Context) (vocab.Verdicts, error) {
	return func(context.Context) (vocab.Verdicts, error) {
		*ran = append(*ran, name)
		return vs, nil
	}
}

func pass(g vocab.Guard) vocab.Verdict { return vocab.Verdict{Guard: g, Outcome: vocab.OutcomePass} }

// TestRunStopsAfterTheFirstRefusingStage: the stages run in the one order
// (read-only, rule, access, object, risks) and none runs after a stage
// that refused or said there is nothing to send; read-only refuses before
// any request.
func TestRunStopsAfterTheFirstRefusingStage(t *testing.T) {
	ctx := context.Background()
	refuse := vocab.Verdict{Guard: vocab.GuardFresh, Outcome: vocab.OutcomeRefuse, Reason: vocab.ReasonConflict}
	nothing := vocab.Verdict{Guard: vocab.GuardAction, Outcome: vocab.OutcomePass, Nothing: true}
	access := []AccessCheck{{Verb: "patch", Group: "apps", Resource: "deployments", Namespace: "ns"}}
	for _, tc := range []struct {
		name     string
		readOnly bool
		denied   map[string]bool
		rule     *vocab.Verdict
		object   []vocab.Verdict
		wantRan  string // the stages that ran, of rule, object, risks
		wantAsk  int    // access reviews asked
		refusal  vocab.Reason
	}{
		{name: "all pass", wantRan: "rule object risks", wantAsk: 1},
		{name: "read-only", readOnly: true, wantRan: "", refusal: vocab.ReasonReadOnly},
		{name: "rule refuses", rule: &refuse, wantRan: "rule", refusal: vocab.ReasonConflict},
		{name: "nothing to do", rule: &nothing, wantRan: "rule"},
		{name: "forbidden", denied: map[string]bool{"patch": true}, wantRan: "rule", wantAsk: 1, refusal: vocab.ReasonForbidden},
		{name: "object refuses", object: []vocab.Verdict{refuse}, wantRan: "rule object", wantAsk: 1, refusal: vocab.ReasonConflict},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			g := New(reviewing(tc.denied, &asked), vocab.PolicyInteractive, tc.readOnly)
			var ran []string
			rule := pass(vocab.GuardAction)
			if tc.rule != nil {
				rule = *tc.rule
			}
			object := tc.object
			if object == nil {
				object = []vocab.Verdict{pass(vocab.GuardFresh)}
			}
			vs, err := g.Run(ctx, Write{
				Rule:   func() vocab.Verdict { ran = append(ran, "rule"); return rule },
				Access: access,
				Object: stage(&ran, "object", object...),
				Risks:  stage(&ran, "risks", pass(vocab.GuardManaged), pass(vocab.GuardPodSecurity)),
			})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(ran, " "); got != tc.wantRan || asked != tc.wantAsk {
				t.Errorf("ran %q with %d reviews; want %q with %d", got, asked, tc.wantRan, tc.wantAsk)
			}
			var reason vocab.Reason
			if r := vs.Refusal(); r != nil {
				reason = r.Reason
			}
			if reason != tc.refusal {
				t.Errorf("refusal %q; want %q (%+v)", reason, tc.refusal, vs)
			}
			if vs[0].Guard != vocab.GuardReadOnly {
				t.Errorf("first verdict %+v: read-only runs first", vs[0])
			}
		})
	}
}

// TestRunReturnsAStageErrorWithTheVerdictsBefore: a stage that fails (the
// API server away) ends the run with its error and the verdicts so far;
// the risks do not run.
func TestRunReturnsAStageErrorWithTheVerdictsBefore(t *testing.T) {
	asked := 0
	g := New(reviewing(nil, &asked), vocab.PolicyInteractive, false)
	away := errors.New("connection refused")
	var ran []string
	vs, err := g.Run(context.Background(), Write{
		Object: func(context.Context) (vocab.Verdicts, error) { return nil, away },
		Risks:  stage(&ran, "risks"),
	})
	if !errors.Is(err, away) || len(vs) != 1 || len(ran) != 0 {
		t.Fatalf("err %v, verdicts %+v, ran %v", err, vs, ran)
	}
}

// TestAccessAnswersAreReusedAndForgotten: one review per question within
// accessTTL; Forget asks again; a review that cannot be made refuses with
// its reason.
func TestAccessAnswersAreReusedAndForgotten(t *testing.T) {
	ctx := context.Background()
	asked := 0
	g := New(reviewing(nil, &asked), vocab.PolicyInteractive, false)
	a := AccessCheck{Verb: "create", Resource: "pods", Subresource: "exec", Namespace: "ns"}
	for i := 0; i < 3; i++ {
		if v := g.Access(ctx, a); v.Outcome != vocab.OutcomePass || v.Sentence != "you may create pods/exec in ns" {
			t.Fatalf("%+v", v)
		}
	}
	g.Forget(a)
	g.Access(ctx, a)
	if asked != 2 {
		t.Fatalf("%d reviews; want 2 (one, then one after Forget)", asked)
	}
	broken := fake.NewClientset()
	broken.PrependReactor("create", "selfsubjectaccessreviews", func(k8stesting.Action) (bool, runtime.Object, error) {
		return true, nil, context.DeadlineExceeded
	})
	if v := New(broken, vocab.PolicyInteractive, false).Access(ctx, a); v.Outcome != vocab.OutcomeRefuse || v.Reason != vocab.ReasonTimeout {
		t.Fatalf("unanswered review: %+v", v)
	}
}

// TestPodSecurityUnderBothPolicies: a namespace that enforces baseline or
// restricted passes; one with no level warns (interactive) or refuses
// (strict); one that cannot be read warns with its reason.
func TestPodSecurityUnderBothPolicies(t *testing.T) {
	ctx := context.Background()
	ns := func(name, level string) *corev1.Namespace {
		n := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if level != "" {
			n.Labels = map[string]string{PodSecurityEnforceLabel: level}
		}
		return n
	}
	cs := fake.NewClientset(ns("r", PodSecurityRestricted), ns("b", PodSecurityBaseline), ns("none", ""), ns("p", "privileged"))
	for _, tc := range []struct {
		ns                  string
		interactive, strict vocab.Outcome
	}{
		{"r", vocab.OutcomePass, vocab.OutcomePass},
		{"b", vocab.OutcomePass, vocab.OutcomePass},
		{"none", vocab.OutcomeWarn, vocab.OutcomeRefuse},
		{"p", vocab.OutcomeWarn, vocab.OutcomeRefuse},
		{"missing", vocab.OutcomeWarn, vocab.OutcomeRefuse},
	} {
		i := New(cs, vocab.PolicyInteractive, false).PodSecurity(ctx, tc.ns)
		s := New(cs, vocab.PolicyStrict, false).PodSecurity(ctx, tc.ns)
		if i.Outcome != tc.interactive || s.Outcome != tc.strict || i.Guard != vocab.GuardPodSecurity {
			t.Errorf("%s: interactive %+v, strict %+v", tc.ns, i, s)
		}
	}
}
