package kube_test

import (
	"context"
	"strings"
	"testing"

	"github.com/kyyard/kyyard/kube"
)

// TestManagedVerdictCarriesKyyard: the managed-by guard says in a field,
// not only in its sentence, that the object is kyyard's own deploy form's
// (label app.kubernetes.io/managed-by: kyyard), warned or (strict)
// refused; another tool's object, and one whose other tool's markers come
// first in ManagedBy's order, are not kyyard's.
func TestManagedVerdictCarriesKyyard(t *testing.T) {
	for _, tc := range []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		outcome     kube.Outcome
		kyyard      bool
	}{
		{name: "kyyard", labels: map[string]string{"app.kubernetes.io/managed-by": "kyyard", "app.kubernetes.io/instance": "shop"},
			outcome: kube.OutcomeWarn, kyyard: true},
		{name: "helm", labels: map[string]string{"app.kubernetes.io/managed-by": "Helm"}, outcome: kube.OutcomeWarn},
		{name: "kyyard label, Helm release", labels: map[string]string{"app.kubernetes.io/managed-by": "kyyard"},
			annotations: map[string]string{"meta.helm.sh/release-name": "shop"}, outcome: kube.OutcomeWarn},
		{name: "kyyard label, Argo CD", labels: map[string]string{"app.kubernetes.io/managed-by": "kyyard", "argocd.argoproj.io/instance": "shop"},
			outcome: kube.OutcomeWarn},
		{name: "no markers", outcome: kube.OutcomePass},
	} {
		for _, policy := range []kube.Policy{kube.PolicyInteractive, kube.PolicyStrict} {
			d := opDeployment("shop-web")
			d.Labels = tc.labels
			for k, v := range tc.annotations {
				d.Annotations[k] = v
			}
			c, _ := opClient(t, kube.Options{Policy: policy}, d)
			vs, err := c.PlanOperation(context.Background(), kube.Operation{Ref: refOf(kube.KindDeployments, d), Action: kube.ActionDelete})
			if err != nil {
				t.Fatalf("%s/%s: %v", tc.name, policy, err)
			}
			var managed *kube.Verdict
			for i := range vs {
				if vs[i].Guard == kube.GuardManaged {
					managed = &vs[i]
				}
			}
			want := tc.outcome
			if policy == kube.PolicyStrict && want == kube.OutcomeWarn {
				want = kube.OutcomeRefuse
			}
			if managed == nil || managed.Outcome != want || managed.KyyardManaged != tc.kyyard {
				t.Fatalf("%s/%s: managed verdict %+v, want %s kyyard=%v", tc.name, policy, managed, want, tc.kyyard)
			}
			if tc.kyyard != strings.Contains(managed.Sentence, "kyyard's deploy form") {
				t.Fatalf("%s/%s: the sentence and the field disagree: %+v", tc.name, policy, managed)
			}
		}
	}
}
