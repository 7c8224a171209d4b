package kinds_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
	"github.com/kyyard/kyyard/kube/kinds"
)

// demoMeta is the metadata of a test object named name in namespace demo,
// created 90 minutes before now.
func demoMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: name, Namespace: "demo", UID: types.UID("uid-" + name), CreationTimestamp: metav1.NewTime(created)}
}

func service(typ corev1.ServiceType, mutate func(*corev1.Service)) *corev1.Service {
	s := &corev1.Service{
		ObjectMeta: demoMeta("web"),
		Spec: corev1.ServiceSpec{
			Type: typ, ClusterIPs: []string{"10.96.0.10"},
			Ports:    []corev1.ServicePort{{Port: 80, Protocol: corev1.ProtocolTCP}},
			Selector: map[string]string{"app": "web", "tier": "front"},
		},
	}
	if mutate != nil {
		mutate(s)
	}
	return s
}

func TestServiceRow(t *testing.T) {
	tests := []struct {
		name   string
		svc    *corev1.Service
		cells  []string
		status string
		health kube.Health
	}{
		{"cluster ip", service(corev1.ServiceTypeClusterIP, nil),
			[]string{"web", "ClusterIP", "10.96.0.10", "<none>", "80/TCP", "90m", "app=web,tier=front"}, "", kube.HealthOK},
		{"headless without selector or ports", service(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ClusterIPs, s.Spec.Ports, s.Spec.Selector = []string{"None"}, nil, nil
		}), []string{"web", "ClusterIP", "None", "<none>", "<none>", "90m", "<none>"}, "", kube.HealthOK},
		{"external IPs and several ports", service(corev1.ServiceTypeClusterIP, func(s *corev1.Service) {
			s.Spec.ExternalIPs = []string{"203.0.113.9", "203.0.113.1"}
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Port: 53, Protocol: corev1.ProtocolUDP})
		}), []string{"web", "ClusterIP", "10.96.0.10", "203.0.113.9,203.0.113.1", "80/TCP,53/UDP", "90m", "app=web,tier=front"}, "", kube.HealthOK},
		{"node ports", service(corev1.ServiceTypeNodePort, func(s *corev1.Service) {
			s.Spec.Ports = []corev1.ServicePort{
				{Port: 80, NodePort: 30080, Protocol: corev1.ProtocolTCP},
				{Port: 443, NodePort: 30443, Protocol: corev1.ProtocolTCP},
				{Port: 9000, Protocol: corev1.ProtocolSCTP},
			}
		}), []string{"web", "NodePort", "10.96.0.10", "<none>", "80:30080/TCP,443:30443/TCP,9000/SCTP", "90m", "app=web,tier=front"}, "", kube.HealthOK},
		{"load balancer pending", service(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Spec.Ports[0].NodePort = 31000
		}), []string{"web", "LoadBalancer", "10.96.0.10", "<pending>", "80:31000/TCP", "90m", "app=web,tier=front"}, "Pending", kube.HealthProgressing},
		{"load balancer pending with external IPs", service(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Spec.ExternalIPs = []string{"203.0.113.5"}
		}), []string{"web", "LoadBalancer", "10.96.0.10", "203.0.113.5", "80/TCP", "90m", "app=web,tier=front"}, "Pending", kube.HealthProgressing},
		{"load balancer ready: ingress sorted, de-duplicated, hostnames, long and unclipped, then external IPs", service(corev1.ServiceTypeLoadBalancer, func(s *corev1.Service) {
			s.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{
				{IP: "198.51.100.7"}, {Hostname: "a1b2c3-123456789.eu-west-1.elb.amazonaws.com"}, {IP: "198.51.100.2"}, {IP: "198.51.100.7"}, {},
			}
			s.Spec.ExternalIPs = []string{"203.0.113.5"}
		}), []string{"web", "LoadBalancer", "10.96.0.10", "198.51.100.2,198.51.100.7,a1b2c3-123456789.eu-west-1.elb.amazonaws.com,203.0.113.5", "80/TCP", "90m", "app=web,tier=front"}, "", kube.HealthOK},
		{"external name", service(corev1.ServiceTypeExternalName, func(s *corev1.Service) {
			s.Spec.ClusterIPs, s.Spec.Ports, s.Spec.Selector, s.Spec.ExternalName = nil, nil, nil, "db.example.com"
		}), []string{"web", "ExternalName", "<none>", "db.example.com", "<none>", "90m", "<none>"}, "", kube.HealthOK},
		{"unknown type", service("Mesh", nil),
			[]string{"web", "Mesh", "10.96.0.10", "<unknown>", "80/TCP", "90m", "app=web,tier=front"}, "", kube.HealthOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			row := kinds.ServiceRow(tt.svc)
			equal(t, texts(row), tt.cells)
			if row.Status != tt.status || row.Health != tt.health {
				t.Errorf("got %q/%v, want %q/%v", row.Status, row.Health, tt.status, tt.health)
			}
		})
	}
}

func TestServiceDrillSelector(t *testing.T) {
	sel, ok := kinds.Services{}.DrillSelector(service(corev1.ServiceTypeClusterIP, nil))
	if !ok || sel != (kube.Selector{Labels: "app=web,tier=front"}) {
		t.Errorf("got %+v/%v, want app=web,tier=front", sel, ok)
	}
	noSelector := service(corev1.ServiceTypeClusterIP, func(s *corev1.Service) { s.Spec.Selector = map[string]string{} })
	if _, ok := (kinds.Services{}).DrillSelector(noSelector); ok {
		t.Error("a Service without a selector selects pods")
	}
	if _, ok := (kinds.Services{}).DrillSelector(&corev1.Pod{}); ok {
		t.Error("a Pod was taken for a Service")
	}
}

// TestServiceDrillDownSelectsItsPods goes through the Client: opening a
// Service lists exactly the pods of its namespace its selector matches.
func TestServiceDrillDownSelectsItsPods(t *testing.T) {
	mk := func(name, ns string, l map[string]string) *corev1.Pod {
		p := pod(name, corev1.PodRunning)
		p.Namespace, p.Labels = ns, l
		return p
	}
	c, _ := kubetest.FakeClient(t,
		service(corev1.ServiceTypeClusterIP, nil),
		mk("web-1", "demo", map[string]string{"app": "web", "tier": "front"}),
		mk("web-2", "demo", map[string]string{"app": "web", "tier": "front", "extra": "x"}),
		mk("web-back", "demo", map[string]string{"app": "web", "tier": "back"}),
		mk("web-other-ns", "other", map[string]string{"app": "web", "tier": "front"}),
	)
	req, err := c.DrillDown(context.Background(), "svc", "demo", "web")
	if err != nil {
		t.Fatal(err)
	}
	snap := c.Snapshot(context.Background(), req)
	table, ok := snap.Table("pods")
	if !ok {
		t.Fatalf("no pods table: %+v", snap.Truncated)
	}
	var names []string
	for _, r := range table.Rows {
		names = append(names, r.Name)
	}
	equal(t, names, []string{"web-1", "web-2"})
}

func TestEndpointSliceRow(t *testing.T) {
	port := func(n int32) discoveryv1.EndpointPort { return discoveryv1.EndpointPort{Port: &n} }
	name := "metrics"
	tests := []struct {
		name      string
		ports     []discoveryv1.EndpointPort
		endpoints []discoveryv1.Endpoint
		cells     []string
	}{
		{"empty", nil, nil, []string{"web-abc", "IPv4", "<unset>", "<unset>", "90m"}},
		{"named and unset ports", []discoveryv1.EndpointPort{port(8080), {Name: &name}, {}},
			[]discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1"}}, {Addresses: []string{"10.0.0.2", "10.0.0.3"}}},
			[]string{"web-abc", "IPv4", "8080,metrics,*", "10.0.0.1,10.0.0.2,10.0.0.3", "90m"}},
		{"more than three", []discoveryv1.EndpointPort{port(1), port(2), port(3), port(4), port(5)},
			[]discoveryv1.Endpoint{{Addresses: []string{"10.0.0.1", "10.0.0.2"}}, {Addresses: []string{"10.0.0.3", "10.0.0.4"}}},
			[]string{"web-abc", "IPv4", "1,2,3 + 2 more...", "10.0.0.1,10.0.0.2,10.0.0.3 + 1 more...", "90m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &discoveryv1.EndpointSlice{ObjectMeta: demoMeta("web-abc"), AddressType: discoveryv1.AddressTypeIPv4, Ports: tt.ports, Endpoints: tt.endpoints}
			row := kinds.EndpointSliceRow(e)
			equal(t, texts(row), tt.cells)
			if row.Health != kube.HealthOK {
				t.Errorf("health %v", row.Health)
			}
		})
	}
}
