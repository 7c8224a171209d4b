package kinds_test

import (
	"testing"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/kyyard/kyyard/kube/kinds"
)

func TestIngressRow(t *testing.T) {
	nginx := "nginx"
	rules := func(hosts ...string) []networkingv1.IngressRule {
		out := make([]networkingv1.IngressRule, len(hosts))
		for i, h := range hosts {
			out[i].Host = h
		}
		return out
	}
	tests := []struct {
		name  string
		spec  networkingv1.IngressSpec
		lb    []networkingv1.IngressLoadBalancerIngress
		cells []string
	}{
		{"no class, no rules", networkingv1.IngressSpec{}, nil, []string{"web", "<none>", "*", "", "80", "90m"}},
		{"only a rule without host", networkingv1.IngressSpec{Rules: rules("")}, nil, []string{"web", "<none>", "*", "", "80", "90m"}},
		{"class, hosts, TLS and addresses", networkingv1.IngressSpec{
			IngressClassName: &nginx, Rules: rules("a.example.com", "", "b.example.com"),
			TLS: []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}, SecretName: "a-tls"}},
		}, []networkingv1.IngressLoadBalancerIngress{{IP: "198.51.100.9"}, {Hostname: "lb.example.net"}, {IP: "198.51.100.1"}, {IP: "198.51.100.9"}},
			[]string{"web", "nginx", "a.example.com,b.example.com", "198.51.100.1,198.51.100.9,lb.example.net", "80, 443", "90m"}},
		{"exactly three hosts", networkingv1.IngressSpec{Rules: rules("a", "b", "c")}, nil, []string{"web", "<none>", "a,b,c", "", "80", "90m"}},
		{"more than three rules: every rule past the third counts", networkingv1.IngressSpec{Rules: rules("a", "b", "c", "", "e")}, nil,
			[]string{"web", "<none>", "a,b,c + 2 more...", "", "80", "90m"}},
		{"a hostless rule among the first: the count is of rules", networkingv1.IngressSpec{Rules: rules("a", "", "b", "c", "d")}, nil,
			[]string{"web", "<none>", "a,b,c + 2 more...", "", "80", "90m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := &networkingv1.Ingress{ObjectMeta: demoMeta("web"), Spec: tt.spec}
			in.Status.LoadBalancer.Ingress = tt.lb
			equal(t, texts(kinds.IngressRow(in)), tt.cells)
		})
	}
}

func TestNetworkPolicyRow(t *testing.T) {
	tests := []struct {
		name string
		sel  metav1.LabelSelector
		want string
	}{
		{"every pod", metav1.LabelSelector{}, "<none>"},
		{"labels", metav1.LabelSelector{MatchLabels: map[string]string{"role": "db", "app": "x"}}, "app=x,role=db"},
		{"expressions", metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: "tier", Operator: metav1.LabelSelectorOpIn, Values: []string{"b", "a"}}}}, "tier in (a,b)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			np := &networkingv1.NetworkPolicy{ObjectMeta: demoMeta("deny"), Spec: networkingv1.NetworkPolicySpec{PodSelector: tt.sel}}
			equal(t, texts(kinds.NetworkPolicyRow(np)), []string{"deny", tt.want, "90m"})
		})
	}
}
