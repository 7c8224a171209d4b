package kinds_test

// End-to-end comparison of the new kinds on objects the demo lacks, made in
// a namespace of the test's own (see e2e_test.go).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"

	"github.com/kyyard/kyyard/internal/kubetest"
	"github.com/kyyard/kyyard/kube"
)

// TestE2EResourceKindsEdgeCases creates, in a namespace of its own, the
// objects the demo lacks (ingresses, network policies, services of every
// type, a pending PVC, a hand-made EndpointSlice, events of the new API,
// bindings with many subjects) and a StorageClass and PersistentVolume of
// unique names, and compares them with the API server's Table.
func TestE2EResourceKindsEdgeCases(t *testing.T) {
	cfg := kubetest.Local(t)
	c := kubetest.Client(t, cfg)
	t.Cleanup(c.Close)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ns := kubetest.TempNamespace(t, cs, "kyyard-e2e-kinds-b")
	suffix := strings.TrimPrefix(ns, "kyyard-e2e-kinds-b-")
	class := "kyyard-e2e-kinds-b-" + suffix
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}

	// Storage: a class and an available volume of that class, and a claim
	// that stays Pending (its class has no provisioner and no volume).
	retain, wait := corev1.PersistentVolumeReclaimRetain, storagev1.VolumeBindingWaitForFirstConsumer
	must(cs.StorageV1().StorageClasses().Create(ctx, &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: class},
		Provisioner: "example.com/none", ReclaimPolicy: &retain, VolumeBindingMode: &wait, AllowVolumeExpansion: pointerTo(true)}, metav1.CreateOptions{}))
	t.Cleanup(func() {
		_ = cs.StorageV1().StorageClasses().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	must(cs.CoreV1().PersistentVolumes().Create(ctx, &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: class},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("512Mi")},
			AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany, corev1.ReadOnlyMany},
			PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimDelete, StorageClassName: class,
			VolumeMode:             pointerTo(corev1.PersistentVolumeBlock),
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/" + class}},
		}}, metav1.CreateOptions{}))
	t.Cleanup(func() {
		_ = cs.CoreV1().PersistentVolumes().Delete(context.Background(), class, metav1.DeleteOptions{})
	})
	must(cs.CoreV1().PersistentVolumeClaims(ns).Create(ctx, &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "pending"},
		Spec: corev1.PersistentVolumeClaimSpec{
			StorageClassName: pointerTo(class + "-none"), AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		}}, metav1.CreateOptions{}))

	// Services of every type; the load balancer of one gets an address.
	port := func(p, node int32, proto corev1.Protocol) corev1.ServicePort {
		return corev1.ServicePort{Name: fmt.Sprintf("p%d", p), Port: p, NodePort: node, Protocol: proto, TargetPort: intstr.FromInt32(p)}
	}
	sel := map[string]string{"app": "nothing-" + suffix}
	services := []*corev1.Service{
		{ObjectMeta: metav1.ObjectMeta{Name: "cluster"}, Spec: corev1.ServiceSpec{Selector: sel,
			Ports: []corev1.ServicePort{port(80, 0, corev1.ProtocolTCP), port(53, 0, corev1.ProtocolUDP)}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "headless"}, Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone}},
		{ObjectMeta: metav1.ObjectMeta{Name: "nodeport"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeNodePort, Selector: sel,
			Ports: []corev1.ServicePort{port(80, 0, corev1.ProtocolTCP), port(443, 0, corev1.ProtocolTCP)}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "lb-pending"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: sel,
			Ports: []corev1.ServicePort{port(8080, 0, corev1.ProtocolTCP)}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "lb-ready"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeLoadBalancer, Selector: sel,
			Ports: []corev1.ServicePort{port(8080, 0, corev1.ProtocolTCP)}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "external"}, Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com"}},
	}
	for _, s := range services {
		must(cs.CoreV1().Services(ns).Create(ctx, s, metav1.CreateOptions{}))
	}
	lb, err := cs.CoreV1().Services(ns).Get(ctx, "lb-ready", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lb.Status.LoadBalancer.Ingress = []corev1.LoadBalancerIngress{{IP: "198.51.100.7"}, {Hostname: "a-very-long-load-balancer-name.example.net"}, {IP: "198.51.100.2"}}
	must(cs.CoreV1().Services(ns).UpdateStatus(ctx, lb, metav1.UpdateOptions{}))

	// A hand-made EndpointSlice with more than three ports and addresses.
	var ports []discoveryv1.EndpointPort
	for _, p := range []int32{80, 81, 82, 83} {
		ports = append(ports, discoveryv1.EndpointPort{Name: pointerTo(fmt.Sprintf("p%d", p)), Port: pointerTo(p)})
	}
	ports = append(ports, discoveryv1.EndpointPort{Name: pointerTo("named")})
	must(cs.DiscoveryV1().EndpointSlices(ns).Create(ctx, &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Name: "manual"},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: ports,
		Endpoints: []discoveryv1.Endpoint{{Addresses: []string{"10.1.0.1"}}, {Addresses: []string{"10.1.0.2"}}, {Addresses: []string{"10.1.0.3"}}, {Addresses: []string{"10.1.0.4"}}},
	}, metav1.CreateOptions{}))

	// Ingresses: bare; with a class, TLS, five rules and an address.
	nginx := "nginx"
	rule := func(host string) networkingv1.IngressRule { return networkingv1.IngressRule{Host: host} }
	must(cs.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "bare"},
		Spec: networkingv1.IngressSpec{DefaultBackend: &networkingv1.IngressBackend{Service: &networkingv1.IngressServiceBackend{
			Name: "cluster", Port: networkingv1.ServiceBackendPort{Number: 80}}}}}, metav1.CreateOptions{}))
	in, err := cs.NetworkingV1().Ingresses(ns).Create(ctx, &networkingv1.Ingress{ObjectMeta: metav1.ObjectMeta{Name: "full"},
		Spec: networkingv1.IngressSpec{IngressClassName: &nginx,
			TLS:   []networkingv1.IngressTLS{{Hosts: []string{"a.example.com"}, SecretName: "tls"}},
			Rules: []networkingv1.IngressRule{rule("a.example.com"), rule(""), rule("b.example.com"), rule("c.example.com"), rule("d.example.com")},
		}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	in.Status.LoadBalancer.Ingress = []networkingv1.IngressLoadBalancerIngress{{IP: "198.51.100.9"}, {Hostname: "lb.example.net"}}
	must(cs.NetworkingV1().Ingresses(ns).UpdateStatus(ctx, in, metav1.UpdateOptions{}))

	// Network policies: every pod; by labels and expressions.
	must(cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "deny-all"}}, metav1.CreateOptions{}))
	must(cs.NetworkingV1().NetworkPolicies(ns).Create(ctx, &networkingv1.NetworkPolicy{ObjectMeta: metav1.ObjectMeta{Name: "db"},
		Spec: networkingv1.NetworkPolicySpec{PodSelector: metav1.LabelSelector{MatchLabels: map[string]string{"role": "db"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"b", "a"}}}}}},
		metav1.CreateOptions{}))

	// Configuration: binaryData counts; a typed secret.
	must(cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "mixed"},
		Data: map[string]string{"a": "1"}, BinaryData: map[string][]byte{"b": {0, 1}}}, metav1.CreateOptions{}))
	must(cs.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "basic"}, Type: corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": "u", "password": "p"}}, metav1.CreateOptions{}))

	// Events: a core event with counts and source, a new-API singleton, a series.
	involved := corev1.ObjectReference{Kind: "Service", Namespace: ns, Name: "cluster", APIVersion: "v1"}
	first := metav1.NewTime(time.Now().Add(-time.Hour).Truncate(time.Second))
	last := metav1.NewTime(time.Now().Add(-5 * time.Minute).Truncate(time.Second))
	must(cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "core"}, InvolvedObject: involved,
		Type: corev1.EventTypeWarning, Reason: "Broken", Message: "  something broke \n", Count: 7,
		Source: corev1.EventSource{Component: "tester", Host: "here"}, FirstTimestamp: first, LastTimestamp: last}, metav1.CreateOptions{}))
	recent := metav1.NewMicroTime(time.Now().Add(-2 * time.Minute))
	must(cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "singleton"}, InvolvedObject: involved,
		Type: corev1.EventTypeNormal, Reason: "Tested", Message: "new API", EventTime: recent, Action: "Test",
		ReportingController: "kyyard.test/e2e", ReportingInstance: "e2e-1"}, metav1.CreateOptions{}))
	must(cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: "series"}, InvolvedObject: involved,
		Type: corev1.EventTypeNormal, Reason: "Tested", Message: "again", EventTime: recent, Action: "Test",
		ReportingController: "kyyard.test/e2e", ReportingInstance: "e2e-1",
		Series: &corev1.EventSeries{Count: 3, LastObservedTime: metav1.NewMicroTime(time.Now().Add(-30 * time.Second))}}, metav1.CreateOptions{}))

	// RBAC: a role and bindings with subjects of every kind.
	must(cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}))
	must(cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "many"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"},
		Subjects: []rbacv1.Subject{
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"},
			{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "default"},
			{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "devs"},
			{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "bob"},
			{Kind: rbacv1.ServiceAccountKind, Namespace: "demo", Name: "viewer"},
		}}, metav1.CreateOptions{}))
	must(cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "none"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"}}, metav1.CreateOptions{}))

	for _, kind := range []kube.Kind{"services", "endpointslices", "ingresses", "networkpolicies", "configmaps", "secrets",
		"persistentvolumeclaims", "events", "roles", "rolebindings"} {
		t.Run(string(kind), func(t *testing.T) { compareKind(t, c, cfg, kind, ns) })
	}
	for _, kind := range []kube.Kind{"persistentvolumes", "storageclasses"} {
		t.Run(string(kind), func(t *testing.T) { compareKind(t, c, cfg, kind, "") })
	}

	// States kyyard judges beyond the cells.
	snap := c.Snapshot(ctx, kube.SnapshotRequest{Kinds: []kube.Kind{"services", "pvc", "events"}, Namespace: ns})
	want := map[string]kube.Health{"services/lb-pending": kube.HealthProgressing, "services/lb-ready": kube.HealthOK,
		"persistentvolumeclaims/pending": kube.HealthProgressing, "events/core": kube.HealthWarning, "events/series": kube.HealthOK}
	for _, table := range snap.Tables {
		for _, r := range table.Rows {
			if h, ok := want[string(table.Kind)+"/"+r.Name]; ok {
				if r.Health != h {
					t.Errorf("%s %s: health %v, want %v", table.Kind, r.Name, r.Health, h)
				}
				delete(want, string(table.Kind)+"/"+r.Name)
			}
		}
	}
	if len(want) > 0 {
		t.Errorf("rows not found: %v", want)
	}

	// The events of one object, selected by the API server (a direct list)
	// and from the cache alike.
	req := kube.SnapshotRequest{Kinds: []kube.Kind{"events"}, Namespace: ns,
		Selector: kube.Selector{Fields: "involvedObject.kind=Service,involvedObject.name=cluster,involvedObject.namespace=" + ns}}
	for _, opts := range []kube.Options{{NoCache: true}, {}} {
		opts.Registry = c.Registry()
		oc, err := kube.NewFromConfig(cfg, opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(oc.Close)
		table, ok := oc.Snapshot(ctx, req).Table("events")
		if !ok || len(table.Rows) != 3 || table.Cached == opts.NoCache {
			t.Errorf("NoCache %v: events of service cluster: %+v", opts.NoCache, table)
		}
	}
}
