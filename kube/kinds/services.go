package kinds

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/kube/vocab"
)

// Services serves services: NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE,
// and with -o wide SELECTOR, as `kubectl get services` prints them. Opening
// a Service shows the pods its spec.selector matches.
type Services struct{}

// Info describes services.
func (Services) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "services", Version: "v1", Resource: "services", Namespaced: true,
		Aliases: []string{"service", "svc"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "TYPE"}, {Name: "CLUSTER-IP"}, {Name: "EXTERNAL-IP"}, {Name: "PORT(S)"}, {Name: "AGE"},
			{Name: "SELECTOR", Wide: true},
		},
		Capabilities: vocab.CanPortForward | vocab.CanDelete,
		DrillDown:    "pods",
	}
}

// List lists services in namespace ("" for all) as *corev1.Service.
func (Services) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.CoreV1().Services(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *corev1.Service into its row (ServiceRow).
func (Services) Row(obj any) (vocab.Row, bool) {
	s, ok := obj.(*corev1.Service)
	if !ok {
		return vocab.Row{}, false
	}
	return ServiceRow(s), true
}

// DrillSelector selects the pods matched by the Service's spec.selector. A
// Service without a selector (its endpoints are managed by hand, or it is an
// ExternalName) selects no pods: ok is false.
func (Services) DrillSelector(obj any) (vocab.Selector, bool) {
	s, ok := obj.(*corev1.Service)
	if !ok || len(s.Spec.Selector) == 0 {
		return vocab.Selector{}, false
	}
	return vocab.Selector{Labels: labels.SelectorFromSet(s.Spec.Selector).String()}, true
}

// ServiceRow turns a Service into its row, following kubectl's printService
// (k8s.io/kubernetes v1.37 pkg/printers/internalversion), as the API server
// renders it (its Table is always rendered wide, so load-balancer addresses
// are never clipped):
//   - CLUSTER-IP is spec.clusterIPs[0] ("None" for a headless Service),
//     "<none>" when there is none (ExternalName);
//   - EXTERNAL-IP is spec.externalIPs joined by commas (or "<none>") for
//     ClusterIP and NodePort; for LoadBalancer the sorted, de-duplicated
//     ingress IPs (or hostnames) of status.loadBalancer followed by
//     spec.externalIPs, "<pending>" when both are empty; spec.externalName
//     for ExternalName; "<unknown>" for any other type;
//   - PORT(S) is port/protocol, or port:nodePort/protocol when a node port is
//     allocated, joined by commas, "<none>" when there are no ports;
//   - SELECTOR is spec.selector as k=v pairs sorted by key, "<none>" if empty.
//
// Health: a LoadBalancer Service whose load balancer has no ingress yet is
// progressing (Status "Pending"); every other Service is ok, with an empty
// Status.
func ServiceRow(s *corev1.Service) vocab.Row {
	clusterIP := "<none>"
	if len(s.Spec.ClusterIPs) > 0 {
		clusterIP = s.Spec.ClusterIPs[0]
	}
	ports := servicePorts(s.Spec.Ports)
	if ports == "" {
		ports = "<none>"
	}
	row := identity(&s.ObjectMeta)
	if s.Spec.Type == corev1.ServiceTypeLoadBalancer && loadBalancerAddresses(s.Status.LoadBalancer.Ingress) == nil {
		row.Status, row.Health = "Pending", vocab.HealthProgressing
	}
	row.Cells = []vocab.Cell{
		vocab.Text(s.Name), vocab.Text(string(s.Spec.Type)), vocab.Text(clusterIP), vocab.Text(serviceExternalIP(s)),
		vocab.Text(ports), vocab.Age(s.CreationTimestamp.Time), vocab.Text(labels.FormatLabels(s.Spec.Selector)),
	}
	return row
}

// serviceExternalIP is kubectl's getServiceExternalIP, unclipped.
func serviceExternalIP(s *corev1.Service) string {
	switch s.Spec.Type {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(s.Spec.ExternalIPs) > 0 {
			return strings.Join(s.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		all := append(loadBalancerAddresses(s.Status.LoadBalancer.Ingress), s.Spec.ExternalIPs...)
		if len(all) == 0 {
			return "<pending>"
		}
		return strings.Join(all, ",")
	case corev1.ServiceTypeExternalName:
		return s.Spec.ExternalName
	}
	return "<unknown>"
}

// loadBalancerAddresses returns the IP of each ingress point, or its
// hostname when it has no IP, sorted and without duplicates; nil when none
// has either.
func loadBalancerAddresses(ingress []corev1.LoadBalancerIngress) []string {
	var out []string
	for _, in := range ingress {
		switch {
		case in.IP != "":
			out = append(out, in.IP)
		case in.Hostname != "":
			out = append(out, in.Hostname)
		}
	}
	return sortedUnique(out)
}

func sortedUnique(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	sort.Strings(s)
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

func servicePorts(ports []corev1.ServicePort) string {
	pieces := make([]string, len(ports))
	for i, p := range ports {
		if p.NodePort > 0 {
			pieces[i] = fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, p.Protocol)
		} else {
			pieces[i] = fmt.Sprintf("%d/%s", p.Port, p.Protocol)
		}
	}
	return strings.Join(pieces, ",")
}

// EndpointSlices serves endpointslices (discovery.k8s.io/v1): NAME
// ADDRESSTYPE PORTS ENDPOINTS AGE, as `kubectl get endpointslices` prints
// them. The resource has no short name.
type EndpointSlices struct{}

// Info describes endpointslices.
func (EndpointSlices) Info() vocab.KindInfo {
	return vocab.KindInfo{
		ID: "endpointslices", Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Namespaced: true,
		Capabilities: vocab.CanDelete,
		Aliases:      []string{"endpointslice"},
		Columns: []vocab.Column{
			{Name: "NAME"}, {Name: "ADDRESSTYPE"}, {Name: "PORTS"}, {Name: "ENDPOINTS"}, {Name: "AGE"},
		},
	}
}

// List lists endpointslices in namespace ("" for all) as *discoveryv1.EndpointSlice.
func (EndpointSlices) List(ctx context.Context, cs kubernetes.Interface, namespace string, sel vocab.Selector) ([]any, error) {
	list, err := cs.DiscoveryV1().EndpointSlices(namespace).List(ctx, listOptions(sel))
	if err != nil {
		return nil, err
	}
	return pointers(list.Items), nil
}

// Row turns a *discoveryv1.EndpointSlice into its row (EndpointSliceRow).
func (EndpointSlices) Row(obj any) (vocab.Row, bool) {
	e, ok := obj.(*discoveryv1.EndpointSlice)
	if !ok {
		return vocab.Row{}, false
	}
	return EndpointSliceRow(e), true
}

// EndpointSliceRow turns an EndpointSlice into its row, following kubectl's
// printEndpointSlice: PORTS lists each port's number (its name when the
// number is unset, "*" when both are), ENDPOINTS every address of every
// endpoint; both show at most three entries and then " + N more...", and
// "<unset>" when empty. Health is always ok.
func EndpointSliceRow(e *discoveryv1.EndpointSlice) vocab.Row {
	ports := make([]string, 0, len(e.Ports))
	for _, p := range e.Ports {
		switch {
		case p.Port != nil:
			ports = append(ports, strconv.Itoa(int(*p.Port)))
		case p.Name != nil:
			ports = append(ports, *p.Name)
		default:
			ports = append(ports, "*")
		}
	}
	var addresses []string
	for _, ep := range e.Endpoints {
		addresses = append(addresses, ep.Addresses...)
	}
	row := identity(&e.ObjectMeta)
	row.Cells = []vocab.Cell{
		vocab.Text(e.Name), vocab.Text(string(e.AddressType)), vocab.Text(firstThree(ports)), vocab.Text(firstThree(addresses)),
		vocab.Age(e.CreationTimestamp.Time),
	}
	return row
}

// firstThree joins up to three items with commas and counts the rest as
// " + N more..." (kubectl's listWithMoreString); "<unset>" when that joins
// to empty text (no items, or a single empty one).
func firstThree(items []string) string {
	const max = 3
	if len(items) > max {
		return fmt.Sprintf("%s + %d more...", strings.Join(items[:max], ","), len(items)-max)
	}
	// kubectl tests the joined text, not the count: one port named "" (or
	// one address "") joins to "" and prints <unset> too.
	if s := strings.Join(items, ","); s != "" {
		return s
	}
	return "<unset>"
}
