package kube_test

import (
	"context"
	"errors"
	"sort"
	"sync"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// reviewRecorder answers every SelfSubjectAccessReview with allowed and
// keeps the requests asked, for the manifest tests.
type reviewRecorder struct {
	mu   sync.Mutex
	seen map[string]kube.AccessRequest
}

func (r *reviewRecorder) react(action k8stesting.Action) (bool, runtime.Object, error) {
	review := action.(k8stesting.CreateAction).GetObject().(*authorizationv1.SelfSubjectAccessReview).DeepCopy()
	if a := review.Spec.ResourceAttributes; a != nil {
		req := kube.AccessRequest{Verb: a.Verb, Group: a.Group, Resource: a.Resource, Subresource: a.Subresource}
		r.mu.Lock()
		r.seen[req.String()] = req
		r.mu.Unlock()
	}
	review.Status.Allowed = true
	return true, review, nil
}

// TestManifestCoversDeploy enumerates the access reviews with computed
// fields of deploy and remove (deployAccess, prepareDeploy,
// deployWriteRefusal, Remove: dynamicChecks) by running them over the fake
// clientset — a first deploy, one that prunes a service, a write the API
// server refuses, a remove — and checks that the full manifest grants each
// one and the read-only manifest none.
func TestManifestCoversDeploy(t *testing.T) {
	c, cs := kubetest.FakeClient(t, restrictedNS("apps"), defaultClass())
	rec := &reviewRecorder{seen: map[string]kube.AccessRequest{}}
	cs.PrependReactor("create", "selfsubjectaccessreviews", rec.react)
	rollsOut(cs)
	deployOK(t, c, shopRequest("apps", "nginx:1.27"))
	next := shopRequest("apps", "nginx:1.28")
	next.Services = next.Services[:1] // db is pruned
	refusedOnce := true
	cs.PrependReactor("update", "secrets", func(action k8stesting.Action) (bool, runtime.Object, error) {
		if refusedOnce && action.GetSubresource() == "" {
			refusedOnce = false
			return true, nil, apierrors.NewForbidden(schema.GroupResource{Resource: "secrets"}, "shop-web-secret", errors.New("denied by a webhook"))
		}
		return false, nil, nil
	})
	if _, err := c.Deploy(context.Background(), next, kube.DeployOptions{}); err == nil {
		t.Fatal("the refused write did not fail the deploy")
	}
	deployOK(t, c, next)
	if _, err := c.PlanRemove(context.Background(), "apps", "shop"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Remove(context.Background(), "apps", "shop", nil); err != nil {
		t.Fatal(err)
	}

	reg := kinds.Builtin()
	full, ro := kube.AccessRules(reg, false), kube.AccessRules(reg, true)
	var asked []string
	for s, req := range rec.seen {
		asked = append(asked, s)
		if !kube.Grants(full, req) {
			t.Errorf("deploy or remove asks %s: the full manifest does not grant it", req)
		}
		if req.Verb != "get" && req.Verb != "list" && req.Verb != "watch" && kube.Grants(ro, req) {
			t.Errorf("the read-only manifest grants %s", req)
		}
	}
	sort.Strings(asked)
	if len(asked) < 10 {
		t.Fatalf("too few access reviews recorded to be the deploy's: %v", asked)
	}
	t.Logf("access reviews of deploy and remove: %v", asked)
}
