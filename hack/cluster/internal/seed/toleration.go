package seed

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kwokTaintKey is the taint every fake node carries (effect NoSchedule,
// value "fake"); the demo's own pods tolerate it in their specs.
const kwokTaintKey = "kwok.x-k8s.io/node"

// toleration is the fake nodes' toleration as a CEL object.
const toleration = `Object.spec.tolerations{key: "` + kwokTaintKey + `", operator: "Equal", value: "fake", effect: "NoSchedule"}`

// tolerationPolicyName names the MutatingAdmissionPolicy and its binding.
const tolerationPolicyName = "kyyard-demo-kwok-toleration"

// tolerationPolicy returns a MutatingAdmissionPolicy and its binding that
// add the fake nodes' toleration to every pod created in namespace demo
// without one, so that apps deployed there from kyyard's deploy form (whose
// objects know nothing of kwok) are scheduled and run, as on a real
// cluster. Pods elsewhere are untouched: tests make unschedulable pods in
// their own namespaces.
func tolerationPolicy() []runtime.Object {
	fail := admissionregistrationv1.Fail
	never := admissionregistrationv1.NeverReinvocationPolicy
	policy := &admissionregistrationv1.MutatingAdmissionPolicy{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: tolerationPolicyName},
		Spec: admissionregistrationv1.MutatingAdmissionPolicySpec{
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"pods"}}}}}},
			MatchConditions: []admissionregistrationv1.MatchCondition{{Name: "no-kwok-toleration",
				Expression: `!has(object.spec.tolerations) || !object.spec.tolerations.exists(t, has(t.key) && t.key == "` + kwokTaintKey + `")`}},
			FailurePolicy:      &fail,
			ReinvocationPolicy: never,
			Mutations: []admissionregistrationv1.Mutation{{PatchType: admissionregistrationv1.PatchTypeJSONPatch,
				JSONPatch: &admissionregistrationv1.JSONPatch{Expression: `has(object.spec.tolerations) ? ` +
					`[JSONPatch{op: "add", path: "/spec/tolerations/-", value: ` + toleration + `}] : ` +
					`[JSONPatch{op: "add", path: "/spec/tolerations", value: [` + toleration + `]}]`}}},
		},
	}
	binding := &admissionregistrationv1.MutatingAdmissionPolicyBinding{
		TypeMeta:   metav1.TypeMeta{APIVersion: "admissionregistration.k8s.io/v1", Kind: "MutatingAdmissionPolicyBinding"},
		ObjectMeta: metav1.ObjectMeta{Name: tolerationPolicyName},
		Spec: admissionregistrationv1.MutatingAdmissionPolicyBindingSpec{PolicyName: tolerationPolicyName,
			MatchResources: &admissionregistrationv1.MatchResources{NamespaceSelector: &metav1.LabelSelector{
				MatchLabels: map[string]string{"kubernetes.io/metadata.name": Namespace}}}},
	}
	return []runtime.Object{policy, binding}
}
