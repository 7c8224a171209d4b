package oracle

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

func genNode(g *gen) runtime.Object {
	n := &corev1.Node{ObjectMeta: g.meta(false)}
	if g.chance(0.5) {
		n.Labels = map[string]string{}
		for range g.intn(4) {
			k := pick(g, "node-role.kubernetes.io/control-plane", "node-role.kubernetes.io/worker", "node-role.kubernetes.io/",
				"kubernetes.io/role", "node-role.kubernetes.io/한글", "other")
			n.Labels[k] = pick(g, "", "master", "worker")
		}
	}
	n.Spec.Unschedulable = g.chance(0.2)
	n.Status.Conditions = some(g, 4, func(int) corev1.NodeCondition {
		return corev1.NodeCondition{Type: pick(g, corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodeNetworkUnavailable),
			Status: pick(g, corev1.ConditionTrue, corev1.ConditionFalse, corev1.ConditionUnknown)}
	})
	n.Status.Addresses = some(g, 4, func(int) corev1.NodeAddress {
		return corev1.NodeAddress{Type: pick(g, corev1.NodeInternalIP, corev1.NodeExternalIP, corev1.NodeHostName, corev1.NodeInternalDNS),
			Address: pick(g, "10.0.0.1", "203.0.113.7", "fd00::1", "", "node-1")}
	})
	n.Status.NodeInfo = corev1.NodeSystemInfo{KubeletVersion: pick(g, "v1.37.2", "", "fake"), OSImage: pick(g, "", "Ubuntu 24.04"),
		KernelVersion: pick(g, "", "6.8.0"), Architecture: pick(g, "", "amd64", "arm64"), ContainerRuntimeVersion: pick(g, "", "containerd://2.0")}
	return n
}

func genNamespace(g *gen) runtime.Object {
	ns := &corev1.Namespace{ObjectMeta: g.meta(false)}
	ns.Status.Phase = pick(g, corev1.NamespaceActive, corev1.NamespaceTerminating, "")
	return ns
}

func genService(g *gen) runtime.Object {
	s := &corev1.Service{ObjectMeta: g.meta(true)}
	s.Spec.Type = pick(g, corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort, corev1.ServiceTypeLoadBalancer, corev1.ServiceTypeExternalName, "", "Weird")
	s.Spec.ClusterIPs = some(g, 2, func(int) string { return pick(g, "10.96.0.1", "None", "", "fd00::10") })
	if len(s.Spec.ClusterIPs) > 0 {
		s.Spec.ClusterIP = s.Spec.ClusterIPs[0]
	}
	s.Spec.ExternalIPs = some(g, 2, func(int) string { return pick(g, "1.2.3.4", "", "5.6.7.8") })
	s.Spec.ExternalName = pick(g, "", "db.example.com")
	s.Spec.Ports = some(g, 3, func(int) corev1.ServicePort {
		return corev1.ServicePort{Port: pick[int32](g, 80, 443, 0, 8080), NodePort: pick[int32](g, 0, 0, 30080),
			Protocol: pick(g, corev1.ProtocolTCP, corev1.ProtocolUDP, corev1.ProtocolSCTP, "")}
	})
	s.Spec.Selector = g.labels()
	s.Status.LoadBalancer.Ingress = some(g, 4, func(int) corev1.LoadBalancerIngress {
		return corev1.LoadBalancerIngress{IP: pick(g, "", "203.0.113.1", "203.0.113.2"), Hostname: pick(g, "", "lb.example.com",
			"a-very-long-load-balancer-host-name.elb.region.amazonaws.example.com")}
	})
	return s
}

func genEndpointSlice(g *gen) runtime.Object {
	e := &discoveryv1.EndpointSlice{ObjectMeta: g.meta(true)}
	e.AddressType = pick(g, discoveryv1.AddressTypeIPv4, discoveryv1.AddressTypeIPv6, discoveryv1.AddressTypeFQDN, "")
	e.Ports = some(g, 5, func(int) discoveryv1.EndpointPort {
		return discoveryv1.EndpointPort{Port: optional(g, func() int32 { return pick[int32](g, 80, 0, 8443) }),
			Name: optional(g, func() string { return pick(g, "", "http", "metrics") })}
	})
	e.Endpoints = some(g, 3, func(int) discoveryv1.Endpoint {
		return discoveryv1.Endpoint{Addresses: some(g, 3, func(int) string { return pick(g, "10.0.0.1", "10.0.0.2", "") })}
	})
	return e
}

func genIngress(g *gen) runtime.Object {
	in := &networkingv1.Ingress{ObjectMeta: g.meta(true)}
	in.Spec.IngressClassName = optional(g, func() string { return pick(g, "nginx", "") })
	in.Spec.Rules = some(g, 5, func(int) networkingv1.IngressRule {
		return networkingv1.IngressRule{Host: pick(g, "", "a.example.com", "b.example.com", "한글.example")}
	})
	in.Spec.TLS = some(g, 1, func(int) networkingv1.IngressTLS { return networkingv1.IngressTLS{} })
	in.Status.LoadBalancer.Ingress = some(g, 4, func(int) networkingv1.IngressLoadBalancerIngress {
		return networkingv1.IngressLoadBalancerIngress{IP: pick(g, "", "203.0.113.1"), Hostname: pick(g, "", "lb.example.com",
			"a-very-long-load-balancer-host-name.elb.region.amazonaws.example.com")}
	})
	return in
}

func genNetworkPolicy(g *gen) runtime.Object {
	np := &networkingv1.NetworkPolicy{ObjectMeta: g.meta(true)}
	if s := g.selector(); s != nil {
		np.Spec.PodSelector = *s
	}
	return np
}

func genConfigMap(g *gen) runtime.Object {
	cm := &corev1.ConfigMap{ObjectMeta: g.meta(true)}
	if g.chance(0.7) {
		cm.Data = map[string]string{}
		for range g.intn(4) {
			cm.Data[g.word()] = "v"
		}
	}
	if g.chance(0.3) {
		cm.BinaryData = map[string][]byte{"bin": {1}}
	}
	return cm
}

func genSecret(g *gen) runtime.Object {
	s := &corev1.Secret{ObjectMeta: g.meta(true)}
	s.Type = pick(g, corev1.SecretTypeOpaque, corev1.SecretTypeTLS, corev1.SecretTypeServiceAccountToken, "")
	if g.chance(0.7) {
		s.Data = map[string][]byte{}
		for range g.intn(4) {
			s.Data[g.word()] = []byte("v")
		}
	}
	if g.chance(0.2) {
		s.StringData = map[string]string{"s": "v"}
	}
	return s
}

func genServiceAccount(g *gen) runtime.Object {
	return &corev1.ServiceAccount{ObjectMeta: g.meta(true)}
}

func accessModes(g *gen) []corev1.PersistentVolumeAccessMode {
	return some(g, 3, func(int) corev1.PersistentVolumeAccessMode {
		return pick(g, corev1.ReadWriteOnce, corev1.ReadOnlyMany, corev1.ReadWriteMany, corev1.ReadWriteOncePod, "Other")
	})
}

func storageClassAnnotation(g *gen, m *metav1.ObjectMeta) {
	if g.chance(0.2) {
		m.Annotations = map[string]string{corev1.BetaStorageClassAnnotation: pick(g, "", "beta-class")}
	}
}

func genPVC(g *gen) runtime.Object {
	c := &corev1.PersistentVolumeClaim{ObjectMeta: g.meta(true)}
	storageClassAnnotation(g, &c.ObjectMeta)
	c.Spec.VolumeName = pick(g, "", "pv-1")
	c.Spec.StorageClassName = optional(g, func() string { return pick(g, "", "standard") })
	c.Spec.VolumeAttributesClassName = optional(g, func() string { return pick(g, "", "gold") })
	c.Spec.VolumeMode = optional(g, func() corev1.PersistentVolumeMode {
		return pick(g, corev1.PersistentVolumeFilesystem, corev1.PersistentVolumeBlock)
	})
	c.Spec.AccessModes = accessModes(g)
	if g.chance(0.7) {
		c.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: g.quantity()}
	}
	c.Status.Phase = pick(g, corev1.ClaimPending, corev1.ClaimBound, corev1.ClaimLost, "")
	c.Status.AccessModes = accessModes(g)
	if g.chance(0.7) {
		c.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: g.quantity()}
	}
	return c
}

func genPV(g *gen) runtime.Object {
	v := &corev1.PersistentVolume{ObjectMeta: g.meta(false)}
	storageClassAnnotation(g, &v.ObjectMeta)
	if g.chance(0.8) {
		v.Spec.Capacity = corev1.ResourceList{corev1.ResourceStorage: g.quantity()}
	}
	v.Spec.AccessModes = accessModes(g)
	v.Spec.PersistentVolumeReclaimPolicy = pick(g, corev1.PersistentVolumeReclaimRetain, corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRecycle, "")
	if g.chance(0.5) {
		v.Spec.ClaimRef = &corev1.ObjectReference{Namespace: pick(g, "", "demo"), Name: pick(g, "", "data")}
	}
	v.Spec.StorageClassName = pick(g, "", "standard")
	v.Spec.VolumeAttributesClassName = optional(g, func() string { return pick(g, "", "gold") })
	v.Spec.VolumeMode = optional(g, func() corev1.PersistentVolumeMode {
		return pick(g, corev1.PersistentVolumeFilesystem, corev1.PersistentVolumeBlock)
	})
	v.Status.Phase = pick(g, corev1.VolumeAvailable, corev1.VolumeBound, corev1.VolumeReleased, corev1.VolumeFailed, corev1.VolumePending, "")
	v.Status.Reason = pick(g, "", "Recycled", "한글")
	return v
}

func genStorageClass(g *gen) runtime.Object {
	s := &storagev1.StorageClass{ObjectMeta: g.meta(false)}
	if g.chance(0.3) {
		s.Annotations = map[string]string{"storageclass.kubernetes.io/is-default-class": pick(g, "true", "false")}
	}
	s.Provisioner = pick(g, "rancher.io/local-path", "", "kubernetes.io/no-provisioner")
	s.ReclaimPolicy = optional(g, func() corev1.PersistentVolumeReclaimPolicy {
		return pick(g, corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain)
	})
	s.VolumeBindingMode = optional(g, func() storagev1.VolumeBindingMode {
		return pick(g, storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer)
	})
	s.AllowVolumeExpansion = optional(g, func() bool { return g.chance(0.5) })
	return s
}

func genEvent(g *gen) runtime.Object {
	e := &corev1.Event{ObjectMeta: g.meta(true)}
	e.FirstTimestamp = g.time()
	e.LastTimestamp = g.time()
	if g.chance(0.3) {
		e.FirstTimestamp, e.LastTimestamp = metav1.Time{}, metav1.Time{}
	}
	if g.chance(0.4) {
		e.EventTime = metav1.NewMicroTime(g.ago())
	}
	e.Count = pick[int32](g, 0, 1, 5, -1)
	if g.chance(0.2) {
		e.Series = &corev1.EventSeries{Count: pick[int32](g, 0, 2, 7)}
		if g.chance(0.8) {
			e.Series.LastObservedTime = metav1.NewMicroTime(g.ago())
		}
	}
	e.Type = pick(g, "Normal", "Warning", "")
	e.Reason = g.reason()
	e.InvolvedObject = corev1.ObjectReference{Kind: pick(g, "Pod", "Deployment", "", "한글"), Name: g.name(), FieldPath: pick(g, "", "spec.containers{app}")}
	e.Source = corev1.EventSource{Component: pick(g, "", "kubelet"), Host: pick(g, "", "node-1")}
	e.ReportingController = pick(g, "", "example.com/controller")
	e.ReportingInstance = pick(g, "", "instance-1")
	e.Message = pick(g, "", "  padded message\n", "Back-off restarting failed container", "line one\nline two", "\x1b[31mred")
	return e
}

func genRole(g *gen) runtime.Object {
	return &rbacv1.Role{ObjectMeta: g.meta(true)}
}

func genClusterRole(g *gen) runtime.Object {
	return &rbacv1.ClusterRole{ObjectMeta: g.meta(false)}
}

func subjects(g *gen) []rbacv1.Subject {
	return some(g, 5, func(int) rbacv1.Subject {
		return rbacv1.Subject{Kind: pick(g, rbacv1.UserKind, rbacv1.GroupKind, rbacv1.ServiceAccountKind, "Other", ""),
			Name: g.name(), Namespace: pick(g, "", "demo")}
	})
}

func roleRef(g *gen) rbacv1.RoleRef {
	return rbacv1.RoleRef{Kind: pick(g, "Role", "ClusterRole", ""), Name: g.name(), APIGroup: rbacv1.GroupName}
}

func genRoleBinding(g *gen) runtime.Object {
	return &rbacv1.RoleBinding{ObjectMeta: g.meta(true), RoleRef: roleRef(g), Subjects: subjects(g)}
}

func genClusterRoleBinding(g *gen) runtime.Object {
	return &rbacv1.ClusterRoleBinding{ObjectMeta: g.meta(false), RoleRef: roleRef(g), Subjects: subjects(g)}
}

// nodeCorners: nodes whose status repeats the Ready condition.
func nodeCorners(g *gen) []runtime.Object {
	var out []runtime.Object
	for _, pair := range [][2]corev1.ConditionStatus{{corev1.ConditionTrue, corev1.ConditionTrue}, {corev1.ConditionFalse, corev1.ConditionTrue}, {corev1.ConditionTrue, corev1.ConditionFalse}} {
		n := &corev1.Node{ObjectMeta: g.metaNamed("repeated-ready")}
		n.Namespace = ""
		n.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: pair[0]}, {Type: corev1.NodeReady, Status: pair[1]}}
		out = append(out, n)
	}
	return out
}

// endpointSliceCorners: ports that join to empty text.
func endpointSliceCorners(g *gen) []runtime.Object {
	one := &discoveryv1.EndpointSlice{ObjectMeta: g.metaNamed("unset-port"), AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: ptr("")}}, Endpoints: []discoveryv1.Endpoint{{Addresses: []string{""}}}}
	four := &discoveryv1.EndpointSlice{ObjectMeta: g.metaNamed("unset-ports"), AddressType: discoveryv1.AddressTypeIPv4,
		Ports: []discoveryv1.EndpointPort{{Name: ptr("")}, {Name: ptr("")}, {Name: ptr("")}, {Name: ptr("")}}}
	return []runtime.Object{one, four}
}
