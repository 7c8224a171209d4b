package actions

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/kube/internal/guards"
	"github.com/kyyard/kyyard/kube/vocab"
)

// actor is an Actor over a fake clientset holding one Deployment demo/web,
// whose kinds are described by info (counting its calls in *asked).
func actor(readOnly bool, info vocab.KindInfo, asked *int, review k8stesting.ReactionFunc) (Actor, *fake.Clientset) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "demo", UID: "u1", ResourceVersion: "7", Generation: 1}}
	cs := fake.NewClientset(d)
	cs.PrependReactor("create", "selfsubjectaccessreviews", review)
	return Actor{CS: cs, Guards: guards.New(cs, vocab.PolicyInteractive, readOnly),
		KindInfo: func(vocab.Kind) vocab.KindInfo { *asked++; return info }}, cs
}

// answer answers every SelfSubjectAccessReview with allowed (internal/kubetest's
// reactors import kube: not here).
func answer(allowed bool) k8stesting.ReactionFunc {
	return func(action k8stesting.Action) (bool, runtime.Object, error) {
		review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
		review.Status.Allowed = allowed
		if !allowed {
			review.Status.Reason = "RBAC: not allowed"
		}
		return true, review, nil
	}
}

// reviews are the SelfSubjectAccessReviews cs was sent, "verb resource[/sub]".
func reviews(cs *fake.Clientset) []string {
	var out []string
	for _, a := range cs.Actions() {
		if a.GetVerb() == "create" && a.GetResource().Resource == "selfsubjectaccessreviews" {
			ra := a.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).Spec.ResourceAttributes
			s := ra.Verb + " " + ra.Resource
			if ra.Subresource != "" {
				s += "/" + ra.Subresource
			}
			out = append(out, s)
		}
	}
	return out
}

var web = vocab.ObjectRef{Kind: vocab.KindDeployments, Namespace: "demo", Name: "web", UID: "u1"}

// TestPlanTakesTheKindsCapabilitiesAsInput: whether a kind has an action is
// the KindInfo the Actor is handed, not a list of its own: the same scale
// of the same Deployment is refused (invalid, before any request) when the
// KindInfo lacks CanScale, and goes on to its access review of the scale
// subresource when it has it.
func TestPlanTakesTheKindsCapabilitiesAsInput(t *testing.T) {
	op := Operation{Ref: web, Action: vocab.ActionScale, Replicas: 2}
	var asked int
	a, cs := actor(false, vocab.KindInfo{ID: vocab.KindDeployments, Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, Capabilities: vocab.CanRestart}, &asked, answer(true))
	vs, err := a.Plan(context.Background(), op)
	if r := vs.Refusal(); err != nil || r == nil || r.Reason != vocab.ReasonInvalid || len(cs.Actions()) != 0 || asked != 1 {
		t.Fatalf("without CanScale: verdicts %+v, err %v, requests %v, KindInfo asked %d times", vs, err, cs.Actions(), asked)
	}
	a, cs = actor(false, vocab.KindInfo{ID: vocab.KindDeployments, Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, Capabilities: vocab.CanScale}, &asked, answer(true))
	vs, err = a.Plan(context.Background(), op)
	if err != nil || vs.Refusal() != nil || strings.Join(reviews(cs), ",") != "update deployments/scale" {
		t.Fatalf("with CanScale: verdicts %+v, err %v, reviews %v", vs, err, reviews(cs))
	}
}

// TestPlanReadOnlyAsksNothing: under read-only the Actor refuses every
// action without calling KindInfo (which may ask discovery) and without a
// request.
func TestPlanReadOnlyAsksNothing(t *testing.T) {
	var asked int
	a, cs := actor(true, vocab.KindInfo{ID: vocab.KindDeployments, Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, Capabilities: vocab.CanRestart}, &asked, answer(true))
	vs, err := a.Plan(context.Background(), Operation{Ref: web, Action: vocab.ActionRestart})
	if r := vs.Refusal(); err != nil || r == nil || r.Reason != vocab.ReasonReadOnly || asked != 0 || len(cs.Actions()) != 0 {
		t.Fatalf("verdicts %+v, err %v, KindInfo asked %d times, requests %v", vs, err, asked, cs.Actions())
	}
}

// TestPermissionsReviewsTheDeclaredActionsOnly: Permissions asks one
// access review per action the KindInfo declares (delete; update of the
// scale subresource) and none for the others, and reports each denied one
// with the reviewer's sentence.
func TestPermissionsReviewsTheDeclaredActionsOnly(t *testing.T) {
	var asked int
	a, cs := actor(false, vocab.KindInfo{ID: vocab.KindDeployments, Group: "apps", Version: "v1", Resource: "deployments", Namespaced: true, Capabilities: vocab.CanDelete | vocab.CanScale}, &asked, answer(false))
	off := a.Permissions(context.Background(), vocab.KindDeployments, "demo")
	got := reviews(cs)
	if len(off) != 2 || off[vocab.ActionDelete] == "" || off[vocab.ActionScale] == "" || len(got) != 2 ||
		!strings.Contains(strings.Join(got, ","), "delete deployments") || !strings.Contains(strings.Join(got, ","), "update deployments/scale") {
		t.Fatalf("denied %v, reviews %v", off, got)
	}
}
