package kinds

import (
	"context"
	"fmt"
	"strings"

	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Ingresses serves ingresses (networking.k8s.io/v1): NAME CLASS HOSTS
// ADDRESS PORTS AGE, as `kubectl get ingresses` prints them.
type Ingresses struct{}

// Info describes ingresses.
func (Ingresses) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "ingresses", Group: "networking.k8s.io", Version: "v1", Resource: "ingresses", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"ingress", "ing"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "CLASS"}, {Name: "HOSTS"}, {Name: "ADDRESS"}, {Name: "PORTS"}, {Name: "AGE"},
		},
	}
}

// List lists ingresses in namespace ("" for all) as *networkingv1.Ingress.
func (Ingresses) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.NetworkingV1().Ingresses(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *networkingv1.Ingress into its row (IngressRow).
func (Ingresses) Row(obj any) (vocab.Row, bool) {
	in, ok := obj.(*networkingv1.Ingress)
	if !ok {
		return vocab.Row{}, false
	}
	return IngressRow(in), true
}

// IngressRow turns an Ingress into its row, following kubectl's printIngress
// (k8s.io/kubernetes v1.37 pkg/printers/internalversion):
//   - CLASS is spec.ingressClassName, "<none>" when unset (the deprecated
//     kubernetes.io/ingress.class annotation is not read, as kubectl does not);
//   - HOSTS lists the hosts of the first three rules that name one, then
//     " + N more..." where N counts every rule past the third, "*" when no
//     rule names a host;
//   - ADDRESS is the sorted, de-duplicated IPs (or hostnames) of
//     status.loadBalancer.ingress, empty when there are none;
//   - PORTS is "80, 443" when spec.tls is set, "80" otherwise.
//
// Health is always ok: an empty ADDRESS often just means the controller
// does not publish one.
func IngressRow(in *networkingv1.Ingress) vocab.Row {
	class := "<none>"
	if in.Spec.IngressClassName != nil {
		class = *in.Spec.IngressClassName
	}
	var addresses []string
	for _, lb := range in.Status.LoadBalancer.Ingress {
		switch {
		case lb.IP != "":
			addresses = append(addresses, lb.IP)
		case lb.Hostname != "":
			addresses = append(addresses, lb.Hostname)
		}
	}
	ports := "80"
	if len(in.Spec.TLS) > 0 {
		ports = "80, 443"
	}
	row := identity(&in.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(in.Name), vocab.Text(class), vocab.Text(ingressHosts(in.Spec.Rules)),
		vocab.Text(strings.Join(sortedUnique(addresses), ",")), vocab.Text(ports), vocab.Age(in.CreationTimestamp.Time),
	}
	return row
}

// ingressHosts is kubectl's formatHosts: hosts are taken from the first
// rules until three are listed; any rule after that point, with or without
// a host, makes the list end in " + N more...", N being the number of rules
// beyond three.
func ingressHosts(rules []networkingv1.IngressRule) string {
	const max = 3
	var hosts []string
	more := false
	for _, r := range rules {
		if len(hosts) == max {
			more = true
			break
		}
		if r.Host != "" {
			hosts = append(hosts, r.Host)
		}
	}
	if len(hosts) == 0 {
		return "*"
	}
	if more {
		return fmt.Sprintf("%s + %d more...", strings.Join(hosts, ","), len(rules)-max)
	}
	return strings.Join(hosts, ",")
}

// NetworkPolicies serves networkpolicies (networking.k8s.io/v1): NAME
// POD-SELECTOR AGE, as `kubectl get networkpolicies` prints them.
type NetworkPolicies struct{}

// Info describes networkpolicies.
func (NetworkPolicies) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "networkpolicies", Group: "networking.k8s.io", Version: "v1", Resource: "networkpolicies", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"networkpolicy", "netpol"},
		Columns:      []vocab.Column{{Name: "NAME"}, {Name: "POD-SELECTOR"}, {Name: "AGE"}},
	}
}

// List lists networkpolicies in namespace ("" for all) as *networkingv1.NetworkPolicy.
func (NetworkPolicies) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.NetworkingV1().NetworkPolicies(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *networkingv1.NetworkPolicy into its row (NetworkPolicyRow).
func (NetworkPolicies) Row(obj any) (vocab.Row, bool) {
	np, ok := obj.(*networkingv1.NetworkPolicy)
	if !ok {
		return vocab.Row{}, false
	}
	return NetworkPolicyRow(np), true
}

// NetworkPolicyRow turns a NetworkPolicy into its row (kubectl's
// printNetworkPolicy): POD-SELECTOR is spec.podSelector in label-selector
// syntax, "<none>" when it is empty (the policy selects every pod of the
// namespace). Health is always ok.
func NetworkPolicyRow(np *networkingv1.NetworkPolicy) vocab.Row {
	row := identity(&np.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(np.Name), vocab.Text(metav1.FormatLabelSelector(&np.Spec.PodSelector)), vocab.Age(np.CreationTimestamp.Time),
	}
	return row
}
